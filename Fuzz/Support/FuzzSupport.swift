// Shared by every fuzz target (compiled into each binary by Scripts/fuzz.sh; not a SwiftPM
// target, so normal builds never need the fuzzer runtime).
import Dispatch
import Foundation
import MultiAuth

/// Runs `body` to completion from libFuzzer's synchronous callback (a plain thread, not one of
/// the cooperative pool's, so blocking it is safe).
func runBlocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    // Owned by this call, which waits on `done`: the task ends before the call returns.
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

/// Runs `body` to completion and returns its result (set-up of adapter targets).
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    runBlocking { box.set(await Result(catching: body)) }
    return try box.get()
}

private final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?
    func set(_ value: Result<T, any Error>) { lock.withLock { result = value } }
    func get() throws -> T { try lock.withLock { result! }.get() }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// Runs one adapter call on fuzzed bytes: it may return or throw, but only an `AuthError`
/// (provider requirements throw `AuthError` or `CancellationError`: Docs/Architecture.md,
/// "Invariants", 5 and 6).
func expectTypedOutcome<T: Sendable>(_ label: String, _ body: @escaping @Sendable () async throws -> T) -> T? {
    do {
        return try runBlocking(body)
    } catch is AuthError {
        return nil
    } catch {
        fatalError("\(label) threw a non-AuthError: \(type(of: error)): \(error)")
    }
}

/// A wall clock frozen at 2023-11-14T22:13:20Z and the continuous clock for (unused) sleeps.
let fuzzTime = TimeSource(clock: ContinuousClock(), now: { Date(timeIntervalSince1970: 1_700_000_000) })

/// HTTP statuses the first input byte chooses from.
let fuzzStatuses = [200, 201, 204, 302, 400, 401, 403, 404, 422, 429, 500, 503]

/// Reads fuzz bytes as one HTTP response: byte 0 picks the status (low 4 bits) and, when its
/// high bit is set, byte 1 becomes a `Retry-After` header; the rest is the body.
func fuzzResponse(_ bytes: [UInt8]) -> HTTPResponse {
    guard let first = bytes.first else { return HTTPResponse(status: 200, headers: [:], body: Data()) }
    var headers = ["Content-Type": "application/json"]
    var body = bytes.dropFirst()
    if first & 0x80 != 0, let retry = body.first {
        headers["Retry-After"] = String(retry)
        body = body.dropFirst()
    }
    return HTTPResponse(
        status: fuzzStatuses[Int(first & 0x0F) % fuzzStatuses.count], headers: headers, body: Data(body))
}

/// A transport that answers every request with one response: a canned one while a target sets
/// up its challenge, then the fuzz input.
final class FuzzTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var current: HTTPResponse

    init(_ response: HTTPResponse) { current = response }

    var response: HTTPResponse {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse { response }
}

/// A JSON response with status `status`.
func cannedJSON(_ status: Int, _ text: String) -> HTTPResponse {
    HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
}

/// The entry point's input as bytes.
func fuzzBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}

/// Stops the fuzzer with a crash when a property does not hold (a finding, not an error).
func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz property violated: \(message())") }
}
