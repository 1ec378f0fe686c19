// The code blocks of README.md, Docs/GettingStarted.md and Docs/Events.md, compiled as they
// appear (the names they leave open — `sessionsDirectory`, `render`, `typed`, `show` — are
// parameters here). The README tour also runs, against the sandbox instead of the network.
import Foundation
import MultiAuth
import MultiAuthDynamic
import MultiAuthHTTP
import MultiAuthSandbox
import Testing

/// README "A 20-line tour"; `transport`, `environmentID` and `baseURL` default to the real service.
func readmeTour(
    sessionsDirectory: URL, typed: @escaping @Sendable () async -> String, render: @escaping @Sendable (AuthEvent) -> Void,
    transport: any HTTPTransport = URLSessionTransport(), time: TimeSource = .system,
    environmentID: String = "<env id>", baseURL: URL = DynamicConfiguration.productionBaseURL
) async throws -> AuthSession? {
    let client = try AuthClient(
        providers: [DynamicProvider(environmentID: environmentID, baseURL: baseURL)],   // any AuthProvider values
        store: try FileSessionStore(directory: sessionsDirectory),          // atomic, 0600, versioned
        transport: transport, time: time)
    // Owned by this function's caller for the sample; an app keeps it for the app's lifetime.
    let watcher = Task { for await event in client.authStates() { render(event) } }   // current state first
    defer { watcher.cancel() }
    await client.restoreSessions()

    let email = try EmailAddress("  Ada+otp@Example.com ")                // .invalidInput, no network
    var step = try await client.signIn(with: .dynamic, .email(email))
    while case .challenge(let challenge) = step {                         // code sent: ask the user
        do { step = try await client.submit(ChallengeAnswer(code: await typed()), for: challenge) }
        catch let error as AuthError where error.code == .invalidCode { continue }   // still usable
    }
    if case .signedIn(let session) = step { print(session) }              // persisted; tokens redacted
    let fresh = try await client.validSession(for: .dynamic)              // refreshes once for all callers
    return fresh
}

/// Docs/GettingStarted.md §1–2 and Docs/Events.md "Example" (compiled, not run: they use the
/// real network).
func gettingStartedBlocks(applicationSupport: URL, show: @escaping @Sendable (String) -> Void) async throws {
    let client = try AuthClient(
        providers: [DynamicProvider(environmentID: "<your environment id>")],
        store: try FileSessionStore(directory: applicationSupport.appending(path: "sessions")),
        transport: URLSessionTransport())
    // Owned by the app for its lifetime (here: until this function returns).
    let watcher = Task {
        for await event in client.authStates() {      // first: .initialState(current), then live events
            switch event.kind {
            case .initialState(let state): show("\(state)")
            case .signedIn(let session), .sessionRefreshed(let session): show("\(session)")
            case .signedOut: show("signed out")
            default: break                            // flow events: deliveryStatus, fallbackTriggered, …
            }
        }
    }
    defer { watcher.cancel() }
    await client.restoreSessions()                    // at launch: loads stored sessions (sessionRestored)

    let stream = client.authStates(bufferCapacity: 64)   // Docs/Events.md
    for await event in stream {
        print("#\(event.sequence) \(event.provider?.rawValue ?? "-") \(event.kind)")
        break
    }
}

@Suite(.timeLimit(.minutes(10)))
struct DocBlocksSample {
    @Test func theReadmeTourRunsAgainstTheSandbox() async throws {
        let sandbox = Sandbox(seed: 9)
        sandbox.register(try DynamicBackend(), host: DynamicBackend.defaultHost)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = try await readmeTour(
            sessionsDirectory: directory, typed: { sandbox.inbox.latest(for: "ada+otp@example.com")?.code ?? "" }, render: { _ in },
            transport: sandbox.transport, time: sandbox.time, environmentID: DynamicBackend.defaultEnvironmentID,
            baseURL: DynamicBackend.baseURL())
        #expect(session?.user.email?.identityKey == "ada+otp@example.com")
    }
}
