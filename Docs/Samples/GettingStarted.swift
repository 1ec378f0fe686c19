// Sample: sign in with an e-mail OTP, persist the session, watch the auth state.
// Compiled and run by `swift test` (target MultiAuthSamples); quoted in Docs/GettingStarted.md.
import Foundation
import MultiAuth
import MultiAuthDynamic
import MultiAuthSandbox
import MultiAuthSandboxKit
import Testing

/// Docs/GettingStarted.md, "1. Run it against the sandbox": the page's `main.swift`, verbatim
/// (Scripts/check_doc_blocks.py), as a function so the test below can run it.
func runItAgainstTheSandbox() async throws -> AuthState {
    let world = try StandardSandbox()                  // every built-in provider's emulated backend, in process
    let client = try world.makeClient()                // Dynamic, Truecaller, Portal and OTPLESS on .test hosts

    let email = try EmailAddress("ada@example.com")
    var step = try await client.signIn(with: .dynamic, .email(email))
    while case .challenge(let challenge) = step {      // the backend "sent" a code to the sandbox inbox
        let code = world.inbox.latest(for: email.identityKey, channel: .email)?.code ?? ""
        step = try await client.submit(ChallengeAnswer(code: code), for: challenge)
    }
    if case .signedIn(let session) = step {
        print("signed in as \(session.user)")          // tokens are redacted in every rendering
    }
    print(await client.currentState())                 // AuthState(dynamic: valid)
    return await client.currentState()
}

/// Builds the one object an app holds. In an app, pass `URLSessionTransport()` (module
/// MultiAuthHTTP) and the real base URL; here the embedded sandbox plays the server.
func makeClient(sandbox: Sandbox, store: any SessionStore) throws -> AuthClient {
    let dynamic = DynamicProvider(environmentID: DynamicBackend.defaultEnvironmentID, baseURL: DynamicBackend.baseURL())
    return try AuthClient(providers: [dynamic], store: store, transport: sandbox.transport, time: sandbox.time)
}

/// The whole e-mail OTP flow. `typedCode` stands for what the person types.
func signInWithEmail(_ client: AuthClient, address: String, typedCode: (Challenge) async throws -> String) async throws -> AuthSession {
    let email = try EmailAddress(address)                        // .invalidInput before any network call
    var step = try await client.signIn(with: .dynamic, .email(email))
    while case .challenge(let challenge) = step {                // a code was sent; maybe a further step
        do {
            step = try await client.submit(ChallengeAnswer(code: try await typedCode(challenge)), for: challenge)
        } catch let error as AuthError where error.code == .invalidCode {
            continue                                             // same challenge, attempts left: ask again
        }
    }
    guard case .signedIn(let session) = step else { fatalError("unreachable") }
    return session                                               // already persisted in the store
}

@Suite(.timeLimit(.minutes(10)))
struct GettingStartedSample {
    @Test func theSandboxProgramSignsIn() async throws {
        let state = try await runItAgainstTheSandbox()
        #expect(state.sessions[.dynamic]?.isExpired == false)
        #expect(state.sessions[.dynamic]?.session.user.email?.identityKey == "ada@example.com")
    }

    @Test func emailOTPSignInPersistsAndPublishes() async throws {
        let sandbox = Sandbox(seed: 1)
        sandbox.register(try DynamicBackend(), host: DynamicBackend.defaultHost)
        let store = InMemorySessionStore()
        let client = try makeClient(sandbox: sandbox, store: store)

        var states = client.authStates().makeAsyncIterator()     // first element: the current state
        guard case .initialState(let initial)? = await states.next()?.kind else { Issue.record("no initial state"); return }
        #expect(initial.isSignedOut)

        let session = try await signInWithEmail(client, address: "  Ada+demo@Example.com ") { _ in
            sandbox.inbox.latest(for: "ada+demo@example.com", channel: .email)!.code!   // the "mailbox"
        }
        #expect(try await store.load(for: .dynamic) == session)
        var names: [String] = []
        while let event = await states.next() {
            names.append(event.kind.name)
            if event.kind.name == "signedIn" { break }
        }
        #expect(names == ["flowStarted", "deliveryStatus", "challengeIssued", "signedIn"])
        #expect(!"\(session)".contains(session.credentials.accessToken!))   // descriptions redact tokens
    }
}
