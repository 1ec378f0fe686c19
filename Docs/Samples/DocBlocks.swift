// The code blocks of README.md, Docs/GettingStarted.md and Docs/Events.md that talk to the
// real services, verbatim (Scripts/check_doc_blocks.py compares them) inside functions whose
// parameters are the names the blocks leave open (`sessionsDirectory`, `render`, `typed`,
// `applicationSupport`, `show`, `showSignIn`, `client`). Compiled by `swift test`, not run:
// they need the network. The same flows run against the sandbox in GettingStarted.swift and
// SandboxOrProduction.swift.
import Foundation
import MultiAuth
import MultiAuthDynamic
import MultiAuthHTTP

/// README.md, "A 20-line tour".
func readmeTour(
    sessionsDirectory: URL, render: @escaping @Sendable (AuthEvent) -> Void, typed: () -> String
) async throws -> AuthSession? {
    let client = try AuthClient(
        providers: [DynamicProvider(environmentID: "<env id>")],          // any AuthProvider values
        store: try FileSessionStore(directory: sessionsDirectory),          // atomic, 0600, versioned
        transport: URLSessionTransport())
    Task { for await event in client.authStates() { render(event) } }    // current state first
    await client.restoreSessions()

    let email = try EmailAddress("  Ada+otp@Example.com ")                // .invalidInput, no network
    var step = try await client.signIn(with: .dynamic, .email(email))
    while case .challenge(let challenge) = step {                         // code sent: ask the user
        do { step = try await client.submit(ChallengeAnswer(code: typed()), for: challenge) }
        catch let error as AuthError where error.asksForTheCodeAgain { continue }    // wrong or mistyped: ask again
    }
    if case .signedIn(let session) = step { print(session) }              // persisted; tokens redacted
    let fresh = try await client.validSession(for: .dynamic)              // refreshes once for all callers
    return fresh
}

/// Docs/GettingStarted.md, "2. Build the client for production".
func gettingStartedBuildTheClient(applicationSupport: URL) throws -> AuthClient {
    let client = try AuthClient(
        providers: [DynamicProvider(environmentID: "<your environment id>")],
        store: try FileSessionStore(directory: applicationSupport.appending(path: "sessions")),
        transport: URLSessionTransport())
    return client
}

/// Docs/GettingStarted.md, "3. Watch the state" (`show` takes a state or a session).
func gettingStartedWatchTheState(
    _ client: AuthClient, show: @escaping @Sendable (Any) -> Void, showSignIn: @escaping @Sendable () -> Void
) async {
    Task {
        for await event in client.authStates() {      // first: .initialState(current), then live events
            switch event.kind {
            case .initialState(let state): show(state)
            case .signedIn(let session), .sessionRefreshed(let session): show(session)
            case .signedOut: showSignIn()
            default: break                            // flow events: deliveryStatus, fallbackTriggered, …
            }
        }
    }
    await client.restoreSessions()                    // at launch: loads stored sessions (sessionRestored)
}

/// Docs/Events.md, "Buffers and overflow": the gap marker a lagging subscriber receives.
func eventsGapMarker(_ client: AuthClient, log: (String) -> Void, render: (AuthEvent) -> Void) async {
    for await event in client.authStates() {
        if case .eventsDropped(let count) = event.kind { log("missed \(count) events"); continue }
        render(event)
    }
}

/// Docs/Events.md, "Example".
func eventsExample(_ client: AuthClient) async {
    let stream = client.authStates(bufferCapacity: 64)
    for await event in stream {
        print("#\(event.sequence) \(event.provider?.rawValue ?? "-") \(event.kind)")
    }
}
