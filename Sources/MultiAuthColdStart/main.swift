// `MultiAuthColdStart DIR`: a process that links MultiAuth and nothing else of this package, as
// an app does, reaching its first `authStates()` element with the session stored in DIR.
// `multiauth-bench` spawns it for the fresh-process cold-start row (Docs/Performance.md); it
// prints seven readings of the monotonic clock, which every process shares: the start of this
// file, the first statement of the task, after reading the arguments, after `FileSessionStore`,
// after `AuthClient`, after subscribing, and at the first element (the steps of the bench's own
// `--cold-start` child, so the two rows compare step by step).
import Dispatch
import Foundation
import MultiAuth
import MultiAuthLocking

func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

let processEntry = monotonicNanoseconds()

/// A provider that is only registered: the cold start never signs in.
struct ColdProvider: AuthProvider {
    let id: AuthProviderID = "cold"
    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        throw AuthError(.unsupported)
    }
    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        throw AuthError(.unsupported)
    }
    func signOut(_ session: AuthSession, context: AuthContext) async throws {}
}

/// A transport that is never called.
struct NoTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse { throw AuthError(.network) }
}

// As in the bench: the work runs in a task while the main thread waits on a semaphore.
/// The exit status, set by the task and read once it signalled.
let status = Locked<Int32>(0)
let finished = DispatchSemaphore(value: 0)
Task.detached {
    var stamps = [processEntry, monotonicNanoseconds()]
    defer { finished.signal() }
    guard CommandLine.arguments.count == 2 else {
        FileHandle.standardError.write(Data("usage: MultiAuthColdStart DIR\n".utf8))
        status.withLock { $0 = 2 }
        return
    }
    stamps.append(monotonicNanoseconds())
    do {
        let store = try FileSessionStore(directory: URL(fileURLWithPath: CommandLine.arguments[1], isDirectory: true))
        stamps.append(monotonicNanoseconds())
        let client = try AuthClient(providers: [ColdProvider()], store: store, transport: NoTransport())
        stamps.append(monotonicNanoseconds())
        var iterator = client.authStates().makeAsyncIterator()
        stamps.append(monotonicNanoseconds())
        guard let first = await iterator.next(), case .initialState(let state) = first.kind,
            state.sessions["cold"] != nil
        else {
            FileHandle.standardError.write(Data("no stored session in the first element\n".utf8))
            status.withLock { $0 = 1 }
            return
        }
        stamps.append(monotonicNanoseconds())
    } catch {
        FileHandle.standardError.write(Data("MultiAuthColdStart: \(error)\n".utf8))
        status.withLock { $0 = 1 }
        return
    }
    print(stamps.map(String.init).joined(separator: " "))
}
finished.wait()
exit(status.withLock { $0 })
