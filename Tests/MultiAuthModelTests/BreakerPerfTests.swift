import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

// Breaker of the AuthClient change that revokes a session displaced by a new sign-in in one
// fire-and-forget task (`Task { try? await adapter.signOut(revoked, context:) }`) instead of
// through `revokeRemotely` (a revoke task, a timer and a waiter). A revoke that hangs or throws
// must not hold up or fail the sign-in, later calls or a sign-out, must not show up anywhere
// (events, state, store), and a revoke that does complete still revokes the displaced token.
// Public API only, with the gated store of BreakerRound3Tests and a provider whose sign-out of
// chosen sessions is held or fails.

/// How the provider's `signOut` treats a session: let it through, hold it until released, or
/// fail it (before calling the server).
final class PerfRevokeKnobs: @unchecked Sendable {
    enum Mode { case pass, hang, fail }
    private let lock = NSLock()
    private var modes: [String: Mode] = [:]
    private var held: [CheckedContinuation<Void, Never>] = []
    private var released = false
    private var _calls: [String] = []
    private var _finished: [String] = []

    /// The mode for sessions of user `user` (their `user.id`).
    func set(_ mode: Mode, forUser user: String) { lock.withLock { modes[user] = mode } }
    func mode(_ session: AuthSession) -> Mode { lock.withLock { modes[session.user.id] ?? .pass } }
    /// The user ids `signOut` was called with, in order.
    var calls: [String] { lock.withLock { _calls } }
    /// The user ids whose `signOut` returned or threw.
    var finished: [String] { lock.withLock { _finished } }
    var heldCount: Int { lock.withLock { held.count } }
    func called(_ session: AuthSession) { lock.withLock { _calls.append(session.user.id) } }
    func ended(_ session: AuthSession) { lock.withLock { _finished.append(session.user.id) } }

    func hold() async {
        await withCheckedContinuation { continuation in
            let resumeNow = lock.withLock { () -> Bool in
                if released { return true }
                held.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Lets every held sign-out (and any later one) go on.
    func releaseAll() {
        let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            released = true
            defer { held = [] }
            return held
        }
        for continuation in waiting { continuation.resume() }
    }
}

/// The reference provider whose `signOut` follows `PerfRevokeKnobs`.
struct PerfRevokeProvider: AuthProvider {
    let base: ReferenceProvider
    let knobs: PerfRevokeKnobs
    var id: AuthProviderID { base.id }

    init(knobs: PerfRevokeKnobs) {
        base = ReferenceProvider(id: "reference")
        self.knobs = knobs
    }

    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        try await base.start(request, context: context)
    }

    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        try await base.respond(to: challenge, with: answer, context: context)
    }

    func signOut(_ session: AuthSession, context: AuthContext) async throws {
        knobs.called(session)
        defer { knobs.ended(session) }
        switch knobs.mode(session) {
        case .pass: break
        case .hang: await knobs.hold()
        case .fail: throw AuthError(.network, "injected: the revoke failed")
        }
        try await base.signOut(session, context: context)
    }
}

@Suite(.timeLimit(.minutes(10)))
struct BreakerPerfRevokeTests {
    let provider: AuthProviderID = "reference"

    struct PerfWorld {
        let sandbox: Sandbox
        let backend: ReferenceBackend
        let store: RoundThreeStore
        let knobs: PerfRevokeKnobs
        let client: AuthClient
    }

    func world() throws -> PerfWorld {
        let sandbox = Sandbox(seed: 11)
        let backend = ReferenceBackend()
        sandbox.register(backend, host: ReferenceProtocol.defaultHost)
        let store = RoundThreeStore()
        let knobs = PerfRevokeKnobs()
        let client = try sandbox.makeClient(
            providers: [PerfRevokeProvider(knobs: knobs)], store: store, autoRefresh: .disabled)
        return PerfWorld(sandbox: sandbox, backend: backend, store: store, knobs: knobs, client: client)
    }

    func signIn(_ w: PerfWorld, user: String) async throws -> AuthSession {
        let email = try EmailAddress("\(user)@example.com")
        let challenge = try #require(try await w.client.signIn(with: provider, .email(email)).challenge)
        let message = try #require(w.sandbox.inbox.latest(for: email.identityKey))
        let code = try #require(message.code)
        return try #require(try await w.client.submit(ChallengeAnswer(code: code), for: challenge).session)
    }

    /// The user id of a session (the reference backend's user ids are not the e-mail).
    func user(_ session: AuthSession) -> String { session.user.id }

    @discardableResult
    func eventually(_ condition: () async -> Bool) async -> Bool {
        for _ in 0..<5000 {
            if await condition() { return true }
            await Task.yield()
        }
        return await condition()
    }

    func settle() async {
        for _ in 0..<500 { await Task.yield() }
    }

    func token(_ session: AuthSession) throws -> String { try #require(session.credentials.refreshToken).reveal() }

    @Test(
        "a displaced session's revoke that never returns holds up neither the sign-in, nor later sign-ins, nor the sign-out"
    )
    func hangingRevokeBlocksNothing() async throws {
        let w = try world()
        let a = try await signIn(w, user: "a")
        w.knobs.set(.hang, forUser: user(a))
        let b = try await signIn(w, user: "b")
        #expect(try await w.store.load(for: provider) == b)
        #expect(await eventually { w.knobs.heldCount == 1 })
        #expect(w.knobs.calls == [user(a)])
        // Another sign-in over B (B's revoke passes), then a sign-out of C: all while A's revoke hangs.
        let c = try await signIn(w, user: "c")
        #expect(try await w.client.validSession(for: provider) == c)
        let outcome = try await w.client.signOut(provider)
        #expect(outcome.wasSignedIn && outcome.remoteError == nil)
        #expect(try await w.store.load(for: provider) == nil)
        await eventually { !w.backend.isLive(refreshToken: (try? token(b)) ?? "") }
        #expect(!w.backend.isLive(refreshToken: try token(b)))
        #expect(!w.backend.isLive(refreshToken: try token(c)))
        #expect(w.backend.isLive(refreshToken: try token(a)), "A's revoke is still held")
        // Released, the held revoke completes and revokes A.
        w.knobs.releaseAll()
        await eventually { !w.backend.isLive(refreshToken: (try? token(a)) ?? "") }
        #expect(!w.backend.isLive(refreshToken: try token(a)))
        #expect(w.knobs.finished.contains(user(a)))
    }

    @Test(
        "a displaced session's revoke that throws fails nothing and publishes nothing: the events are those of a revoke that succeeds"
    )
    func failingRevokeIsInvisible() async throws {
        func run(_ mode: PerfRevokeKnobs.Mode) async throws -> (events: [String], stored: Bool) {
            let w = try world()
            let a = try await signIn(w, user: "a")
            w.knobs.set(mode, forUser: user(a))
            let log = RecordingSubscriber(client: w.client)
            let base = Int(w.client.events.currentSequence)
            let b = try await signIn(w, user: "b")
            #expect(await eventually { w.knobs.finished.contains(user(a)) })
            await settle()
            let events = await log.waitFor(count: Int(w.client.events.currentSequence) - base)
            let stored = try await w.store.load(for: provider) == b
            #expect(try await w.client.validSession(for: provider) == b)
            return (events.map(\.kind.name), stored)
        }
        let passing = try await run(.pass)
        let failing = try await run(.fail)
        #expect(failing.events == passing.events)
        #expect(failing.stored && passing.stored)
        #expect(failing.events.contains("signedIn"))
        #expect(!failing.events.contains { $0.lowercased().contains("error") || $0.lowercased().contains("fail") })
    }

    @Test(
        "ten sign-ins over one another with every revoke held: every sign-in returns, each displaced token is revoked once released"
    )
    func manyHeldRevokes() async throws {
        let w = try world()
        var sessions: [AuthSession] = []
        for index in 0..<10 {
            let session = try await signIn(w, user: "u\(index)")
            sessions.append(session)
            w.knobs.set(.hang, forUser: user(session))
        }
        #expect(await eventually { w.knobs.heldCount == 9 })
        #expect(try await w.store.load(for: provider) == sessions.last)
        w.knobs.releaseAll()
        for session in sessions.dropLast() {
            await eventually { !w.backend.isLive(refreshToken: (try? token(session)) ?? "") }
            #expect(!w.backend.isLive(refreshToken: try token(session)), "\(session.user.id)")
        }
        #expect(w.backend.isLive(refreshToken: try token(sessions.last!)))
        #expect(Set(w.knobs.calls).count == 9)
    }

    @Test(
        "the same user signing in again (a new session over its own) revokes the old session's token, never the new one"
    )
    func sameUserSignInRevokesOnlyTheOld() async throws {
        let w = try world()
        let first = try await signIn(w, user: "a")
        let second = try await signIn(w, user: "a")
        #expect(first.id != second.id)
        await eventually { !w.backend.isLive(refreshToken: (try? token(first)) ?? "") }
        #expect(!w.backend.isLive(refreshToken: try token(first)))
        #expect(w.backend.isLive(refreshToken: try token(second)))
        #expect(try await w.client.validSession(for: provider) == second)
    }
}

// MARK: - ReferenceWire: the shared error mapping of the two reference providers

@Suite struct BreakerPerfReferenceWireTests {
    /// `mapError` before the refactor (dc9d47e^), for answers that stop at its shared first half.
    static func oldMessage(status: Int, server: String) -> (AuthError.Code, String) {
        status >= 500
            ? (.providerUnavailable, "the \(server) server answered HTTP \(status)")
            : (.malformedResponse, "HTTP \(status) without a \(server) error body")
    }

    @Test(
        "the reference providers' error mapping after the refactor is the one before it: codes, messages, provider codes, Retry-After"
    )
    func errorMappingUnchanged() {
        let answers: [HTTPResponse] = [
            HTTPResponse(status: 400, body: Data("not json".utf8)), HTTPResponse(status: 401),
            HTTPResponse(status: 404, body: Data("{}".utf8)), HTTPResponse(status: 429, body: Data("[]".utf8)),
            HTTPResponse(status: 500), HTTPResponse(status: 503, headers: ["Retry-After": "7"]),
            HTTPResponse(status: 599, body: Data(#"{"code":"invalid_code"}"#.utf8)),
        ]
        let reference = ReferenceProvider()
        let passkeys = PasskeyReferenceProvider()
        for response in answers {
            for (name, error) in [
                ("reference", reference.mapError(response)), ("passkey", passkeys.mapError(response)),
            ] {
                let (code, message) = Self.oldMessage(status: response.status, server: name)
                #expect(error.code == code, "\(name) \(response.status)")
                #expect(error.providerCode == String(response.status))
                if response.status == 503 { #expect(error.retryAfter == .seconds(7)) }
                // Was: the shared helper said "without a reference server error body" below 500.
                #expect(error.message == message, "\(name) \(response.status)")
            }
        }
    }
}
