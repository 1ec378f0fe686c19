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
        do {
            step = try await client.submit(ChallengeAnswer(code: code), for: challenge)
        } catch let error as AuthError where error.asksForTheCodeAgain {
            print(error.localizedDescription)          // a person would type the code again
        }
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
        } catch let error as AuthError where error.asksForTheCodeAgain {
            continue                                             // wrong or mistyped: same challenge, ask again
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

    /// §4's loop asks again after a wrong code and after a mistyped one (a space and a digit
    /// missing: refused locally, no attempt used), then signs in: neither ends the sign-in.
    @Test func aWrongAndAMistypedCodeAreAskedForAgainInsideTheLoop() async throws {
        let sandbox = Sandbox(seed: 2)
        sandbox.register(try DynamicBackend(), host: DynamicBackend.defaultHost)
        let client = try makeClient(sandbox: sandbox, store: InMemorySessionStore())
        let typed = LockedQueue(["000000", "12 34"])
        let session = try await signInWithEmail(client, address: "ada@example.com") { _ in
            typed.next() ?? sandbox.inbox.latest(for: "ada@example.com", channel: .email)!.code!
        }
        #expect(session.user.email?.identityKey == "ada@example.com")
        #expect(typed.taken == 2)
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
        #expect(!"\(session)".contains(session.credentials.accessToken!.reveal()))   // renderings redact tokens
    }
}

/// What a person types, one answer at a time (the test's keyboard).
final class LockedQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String]
    private var count = 0

    init(_ items: [String]) { self.items = items }

    /// The next typed answer, or `nil` when the person has typed them all.
    func next() -> String? {
        lock.withLock {
            guard !items.isEmpty else { return nil }
            count += 1
            return items.removeFirst()
        }
    }

    /// How many answers were typed.
    var taken: Int { lock.withLock { count } }
}
