import Foundation
import MultiAuth
import MultiAuthHTTP
import MultiAuthSandbox
import Testing

/// Cancelling the caller of `URLSessionTransport.send` (Sources/MultiAuthHTTP/URLSessionTransport.swift,
/// `load(_:)`) before the request and while the server holds it, through the sandbox's
/// `URLProtocol`. The race of cancellation with completion runs over real sockets in
/// Tests/MultiAuthSandboxServerTests/TransportCancellationRaceTests.swift. The suite's time limit
/// is the hang guard.
@Suite(.timeLimit(.minutes(10)))
struct URLSessionTransportCancellationTests {
    /// Answers after `release()` for paths under `/held`, at once otherwise.
    final class HeldBackend: SandboxBackend, @unchecked Sendable {
        private let lock = NSLock()
        private var waiters: [CheckedContinuation<Void, Never>] = []
        private var arrivals = 0
        private var released = false

        var arrived: Int { lock.withLock { arrivals } }

        func release() {
            let waiting: [CheckedContinuation<Void, Never>] = lock.withLock {
                released = true
                defer { waiters = [] }
                return waiters
            }
            for waiter in waiting { waiter.resume() }
        }

        /// Held requests the loading side cancelled (the transport let go of them).
        var cancelledHeld: Int { lock.withLock { cancellations } }
        private var cancellations = 0

        func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse {
            lock.withLock { arrivals += 1 }
            if request.url.path.hasPrefix("/held") {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let resumeNow: Bool = lock.withLock {
                            if released { return true }
                            waiters.append(continuation)
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: {
                    self.lock.withLock { self.cancellations += 1 }
                    self.release()
                }
            }
            return HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Data("ok".utf8))
        }
    }

    let sandbox = Sandbox(seed: 3)
    let backend = HeldBackend()
    let host = "held-\(UUID().uuidString.lowercased()).sandbox.test"
    let transport: URLSessionTransport

    init() {
        sandbox.register(backend, host: host)
        transport = URLSessionTransport(session: sandbox.makeURLSession(), defaultTimeout: .seconds(600))
    }

    @Test func aCallerCancelledBeforeSendingSendsNothing() async throws {
        let url = URL(string: "https://\(host)/now")!
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(HTTPRequest(method: .get, url: url))
        }
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(backend.arrived == 0)
    }

    @Test func aCallerCancelledWhileTheServerHoldsTheRequestGetsCancellationError() async throws {
        let url = URL(string: "https://\(host)/held")!
        let task = Task { try await transport.send(HTTPRequest(method: .get, url: url)) }
        while backend.arrived == 0 { await Task.yield() }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        // The transport also lets go of the request: the sandbox's load is stopped (on Linux a
        // quarter second later), which cancels the held handler.
        while backend.cancelledHeld == 0 { await Task.yield() }
        #expect(backend.cancelledHeld == 1)
    }
}
