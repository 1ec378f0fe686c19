import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

// Breaker round 3: attacks on the promises of README.md ("Why") and Docs/Architecture.md
// (F1–F9, L1–L13, the flow and session state machines), with the new F7 ordering (a sign-in's
// save and a sign-out of the same provider share the provider's write turn) as the main target.
// Public API only: the client is driven through `AuthClient`, and every interleaving is forced
// with gates in a store and a provider of this file (no package test seams, no real sleeping,
// time only through the sandbox's `ManualClock`).
//
// The findings of this round are fixed and their tests assert the promise ("Found by the breaker
// (fixed; failed before the fix)"). One is a documented limit, kept as a known issue
// (`withKnownIssue`, which fails if it ever stops happening): a sign-out queued behind a save that
// never returns (Docs/Architecture.md, L11). Attacks that held are plain tests.

// MARK: - Gates, a gated store, a gated provider

/// A one-shot gate: the first `pass()` waits until `release()`; later callers pass at once.
actor RoundThreeGate {
    private var held: CheckedContinuation<Void, Never>?
    private var watchers: [CheckedContinuation<Void, Never>] = []
    private var armed = true
    private var reached = false
    private var released = false

    func pass() async {
        guard armed else { return }
        armed = false
        reached = true
        for watcher in watchers { watcher.resume() }
        watchers = []
        if released { return }
        await withCheckedContinuation { held = $0 }
    }

    /// Returns once a caller reached `pass()`.
    func waitUntilHeld() async {
        guard !reached else { return }
        await withCheckedContinuation { watchers.append($0) }
    }

    /// Lets the held caller go (waits for it to arrive first).
    func release() async {
        await waitUntilHeld()
        released = true
        while held == nil { await Task.yield() }
        held?.resume()
        held = nil
    }
}

/// A flag set by a task, read by the test.
final class RoundThreeFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// An in-memory store (the sandbox's `InMemorySessionStore` inside) whose next calls of one kind
/// can be held before they run and/or made to fail, before writing or after writing.
actor RoundThreeStore: SessionStore {
    enum RoundThreeOp: Hashable { case load, save, replaceWrite, replaceRemove, remove }
    enum RoundThreeFailure { case before, afterWrite }
    private struct RoundThreeArm {
        var gate: RoundThreeGate?
        var failure: RoundThreeFailure?
        var count: Int
    }

    let base = InMemorySessionStore()
    private var arms: [RoundThreeOp: RoundThreeArm] = [:]
    private(set) var calls: [RoundThreeOp: Int] = [:]

    /// Arms the next `count` calls of `op`; with `hold`, the first of them waits on the returned gate.
    @discardableResult
    func arm(_ op: RoundThreeOp, hold: Bool = false, failure: RoundThreeFailure? = nil, count: Int = 1)
        -> RoundThreeGate?
    {
        let gate = hold ? RoundThreeGate() : nil
        arms[op] = RoundThreeArm(gate: gate, failure: failure, count: count)
        return gate
    }

    func calls(_ op: RoundThreeOp) -> Int { calls[op, default: 0] }

    private func take(_ op: RoundThreeOp) -> RoundThreeArm? {
        calls[op, default: 0] += 1
        guard var arm = arms[op], arm.count > 0 else { return nil }
        let used = arm
        arm.count -= 1
        arm.gate = nil
        arms[op] = arm.count > 0 ? arm : nil
        return used
    }

    private func run<T>(_ op: RoundThreeOp, _ body: () async throws -> T) async throws -> T {
        let arm = take(op)
        if let gate = arm?.gate { await gate.pass() }
        if arm?.failure == .before { throw AuthError(.storageFailure, "injected: failed before writing") }
        let value = try await body()
        if arm?.failure == .afterWrite { throw AuthError(.storageFailure, "injected: failed after writing") }
        return value
    }

    func load(for provider: AuthProviderID) async throws -> AuthSession? {
        let arm = take(.load)
        if let gate = arm?.gate { await gate.pass() }
        if arm?.failure != nil { throw AuthError(.storageUnavailable, "injected: unreadable") }
        return try await base.load(for: provider)
    }

    func save(_ session: AuthSession) async throws {
        try await run(.save) { try await base.save(session) }
    }

    func remove(for provider: AuthProviderID) async throws {
        try await run(.remove) { try await base.remove(for: provider) }
    }

    func removeAll() async throws { try await base.removeAll() }

    func replace(_ expected: AuthSession?, with replacement: AuthSession?, for provider: AuthProviderID) async throws
        -> SessionStoreWriteResult
    {
        try await run(replacement == nil ? .replaceRemove : .replaceWrite) {
            try await base.replace(expected, with: replacement, for: provider)
        }
    }
}

/// What the gated provider records and which of its calls are held, shared by reference.
final class RoundThreeKnobs: @unchecked Sendable {
    private let lock = NSLock()
    private var _respondGate: RoundThreeGate?
    private var _refreshGate: RoundThreeGate?
    private var _respondError: AuthError?
    private var _oneStep: (@Sendable (String) -> String?)?
    private var _issued: [AuthSession] = []
    private var _refreshed: [AuthSession] = []

    /// Held after the server answered a `respond` (once).
    var respondGate: RoundThreeGate? {
        get { lock.withLock { _respondGate } }
        set { lock.withLock { _respondGate = newValue } }
    }
    /// Held after the server answered a `refresh` (once).
    var refreshGate: RoundThreeGate? {
        get { lock.withLock { _refreshGate } }
        set { lock.withLock { _refreshGate = newValue } }
    }
    /// Thrown by the next `respond` instead of calling the server (a hostile or buggy answer).
    var respondError: AuthError? {
        get { lock.withLock { _respondError } }
        set { lock.withLock { _respondError = newValue } }
    }
    /// A one-step sign-in (as SNA): `start` fetches the code for the identity key and answers it itself.
    var oneStep: (@Sendable (String) -> String?)? {
        get { lock.withLock { _oneStep } }
        set { lock.withLock { _oneStep = newValue } }
    }
    var issued: [AuthSession] { lock.withLock { _issued } }
    var refreshed: [AuthSession] { lock.withLock { _refreshed } }
    func noteIssued(_ step: SignInStep) {
        if case .signedIn(let session) = step { lock.withLock { _issued.append(session) } }
    }
    func noteRefreshed(_ session: AuthSession) { lock.withLock { _refreshed.append(session) } }
    func takeRespondError() -> AuthError? {
        lock.withLock {
            defer { _respondError = nil }
            return _respondError
        }
    }
}

/// The reference provider with gates after the server answered.
struct RoundThreeProvider: RefreshableProvider, RedirectHandlingProvider, ResendableProvider {
    let base: ReferenceProvider
    let knobs: RoundThreeKnobs
    var id: AuthProviderID { base.id }

    init(id: AuthProviderID = "reference", knobs: RoundThreeKnobs) {
        base = ReferenceProvider(id: id)
        self.knobs = knobs
    }

    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        let step = try await base.start(request, context: context)
        guard let oneStep = knobs.oneStep, case .challenge(let challenge) = step,
            case .email(let email) = request.identity, let code = oneStep(email.identityKey)
        else { return step }
        let signedIn = try await base.respond(to: challenge, with: ChallengeAnswer(code: code), context: context)
        knobs.noteIssued(signedIn)
        return signedIn
    }

    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        if let error = knobs.takeRespondError() { throw error }
        let step = try await base.respond(to: challenge, with: answer, context: context)
        knobs.noteIssued(step)
        if let gate = knobs.respondGate { await gate.pass() }
        return step
    }

    func signOut(_ session: AuthSession, context: AuthContext) async throws {
        try await base.signOut(session, context: context)
    }

    func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession {
        let refreshed = try await base.refresh(session, context: context)
        knobs.noteRefreshed(refreshed)
        if let gate = knobs.refreshGate { await gate.pass() }
        return refreshed
    }

    func canHandle(_ url: URL) -> Bool { base.canHandle(url) }

    func redirect(_ url: URL, belongsTo challenge: Challenge) -> Bool? { base.redirect(url, belongsTo: challenge) }

    func handleRedirect(_ url: URL, pending: Challenge?, context: AuthContext) async throws -> SignInStep {
        let step = try await base.handleRedirect(url, pending: pending, context: context)
        knobs.noteIssued(step)
        return step
    }

    func resend(_ challenge: Challenge, channel: DeliveryChannel?, context: AuthContext) async throws -> Challenge {
        try await base.resend(challenge, channel: channel, context: context)
    }
}

func r3Attempt<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

extension Result {
    /// The `AuthError` code of a failure, if any.
    var r3Code: AuthError.Code? {
        if case .failure(let error as AuthError) = self { return error.code }
        return nil
    }
}

// MARK: - The attacks

@Suite(.timeLimit(.minutes(10)))
struct BreakerRound3Tests {
    let provider: AuthProviderID = "reference"

    struct RoundThreeWorld {
        let sandbox: Sandbox
        let backend: ReferenceBackend
        let store: RoundThreeStore
        let knobs: RoundThreeKnobs
        let client: AuthClient
    }

    func world(
        autoRefresh: AutoRefresh = .disabled, extraProvider: AuthProviderID? = nil,
        sharing other: RoundThreeWorld? = nil
    ) throws -> RoundThreeWorld {
        let sandbox = other?.sandbox ?? Sandbox(seed: 3)
        let backend = other?.backend ?? ReferenceBackend()
        if other == nil { sandbox.register(backend, host: ReferenceProtocol.defaultHost) }
        let store = other?.store ?? RoundThreeStore()
        let knobs = RoundThreeKnobs()
        var providers: [any AuthProvider] = [RoundThreeProvider(knobs: knobs)]
        if let extraProvider { providers.append(RoundThreeProvider(id: extraProvider, knobs: RoundThreeKnobs())) }
        let client = try sandbox.makeClient(providers: providers, store: store, autoRefresh: autoRefresh)
        return RoundThreeWorld(sandbox: sandbox, backend: backend, store: store, knobs: knobs, client: client)
    }

    /// Starts a sign-in of `user` and returns the challenge with the code and the link of its e-mail.
    func start(_ w: RoundThreeWorld, user: String, provider: AuthProviderID = "reference") async throws -> (
        challenge: Challenge, code: String, link: URL
    ) {
        let email = try EmailAddress("\(user)@example.com")
        let challenge = try #require(try await w.client.signIn(with: provider, .email(email)).challenge)
        let message = try #require(w.sandbox.inbox.latest(for: email.identityKey))
        return (challenge, try #require(message.code), try #require(message.link))
    }

    func signIn(_ w: RoundThreeWorld, user: String, provider: AuthProviderID = "reference") async throws -> AuthSession
    {
        let flow = try await start(w, user: user, provider: provider)
        return try #require(try await w.client.submit(ChallengeAnswer(code: flow.code), for: flow.challenge).session)
    }

    /// What the event stream says is stored at the end (`.some(nil)`: nobody; `nil`: it never said).
    func eventsView(_ events: [AuthEvent], provider: AuthProviderID = "reference") -> AuthSession?? {
        var view: AuthSession??
        for event in events where event.provider == provider {
            switch event.kind {
            case .signedIn(let s), .sessionRefreshed(let s), .sessionRestored(let s): view = .some(s)
            case .signedOut, .sessionExpired: view = .some(nil)
            default: break
            }
        }
        return view
    }

    func drain(_ log: RecordingSubscriber, _ client: AuthClient, from base: Int) async -> [AuthEvent] {
        await log.waitFor(count: Int(client.events.currentSequence) - base)
    }

    /// Yields (no clock, no sleeping) until `condition` holds or the budget runs out.
    @discardableResult
    func eventually(_ condition: () async -> Bool) async -> Bool {
        for _ in 0..<3000 {
            if await condition() { return true }
            await Task.yield()
        }
        return await condition()
    }

    /// Lets every task that can run reach its next suspension.
    func settle() async {
        for _ in 0..<500 { await Task.yield() }
    }

    func token(_ session: AuthSession) throws -> String { try #require(session.credentials.refreshToken).reveal() }

    // MARK: F7 — a sign-out behind a save that never returns (L11)

    /// Known limit (Docs/Architecture.md, L11) — "Sign-out ends the session locally at once …
    /// before it calls the provider": at once relative to the store's own calls.
    /// User A is signed in; a sign-in of B has its store save hung (a store whose write blocks: a
    /// file on a stalled volume, a custom store that syncs). The user taps "sign out": since F7 the
    /// sign-out waits for the save's write turn, so it does not end A's session at all while the
    /// save hangs — A stays stored, `validSession` keeps answering with it, no `signedOut` — and a
    /// cancelled sign-out (a SwiftUI `.task` that went away) is stuck too: waiting for the turn is
    /// not cancellable. Once the save returns everything is consistent again (checked below).
    @Test func signOutQueuedBehindAHungSaveIsNotLocalAtOnce() async throws {
        let w = try world()
        let a = try await signIn(w, user: "a")
        let b = try await start(w, user: "b")
        let log = RecordingSubscriber(client: w.client)
        let base = Int(w.client.events.currentSequence)
        let hung = try #require(await w.store.arm(.save, hold: true))
        let submit = Task { try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge) }
        await hung.waitUntilHeld()
        let signedOut = RoundThreeFlag()
        let signOut = Task {
            defer { signedOut.set() }
            return try await w.client.signOut(provider)
        }
        let cancelledDone = RoundThreeFlag()
        let cancelled = Task {
            defer { cancelledDone.set() }
            return try await w.client.signOut(provider)
        }
        await settle()
        cancelled.cancel()
        await settle()
        let storedMeanwhile = try await w.store.load(for: provider)
        let validMeanwhile = try await w.client.validSession(for: provider)
        let kindsMeanwhile = log.kinds
        withKnownIssue("L11: a sign-out queued behind a hung sign-in save does not end the session locally") {
            #expect(signedOut.isSet, "the sign-out has not returned while the save hangs")
            #expect(cancelledDone.isSet, "a cancelled sign-out is stuck behind the save as well")
            #expect(storedMeanwhile == nil, "A is still stored after the user signed out")
            #expect(validMeanwhile == nil, "validSession still answers with A after the user signed out")
            #expect(kindsMeanwhile.contains("signedOut"), "no signedOut while the save hangs: \(kindsMeanwhile)")
        }
        #expect(validMeanwhile?.user.id == a.user.id)
        // The save returns: F7 then orders everything (B stored and announced, then removed).
        await hung.release()
        let step = try await submit.value
        let outcome = try await signOut.value
        let second = try await cancelled.value
        #expect(step.session != nil)
        #expect(outcome.wasSignedIn && !second.wasSignedIn)
        #expect(try await w.store.load(for: provider) == nil)
        let events = await drain(log, w.client, from: base)
        #expect(events.filter { $0.kind.name == "signedOut" }.count == 1, "\(events.map(\.kind.name))")
        #expect(eventsView(events) == .some(nil), "\(events.map(\.kind.name))")
        let issued = try token(try #require(step.session))
        await eventually { !w.backend.isLive(refreshToken: issued) }
        #expect(!w.backend.isLive(refreshToken: issued))
    }

    /// Holds — the write turn is per provider: a save that hangs for one provider never delays a
    /// sign-out (or a sign-in) of another.
    @Test func aHungSaveOfOneProviderDoesNotBlockAnother() async throws {
        let w = try world(extraProvider: "other")
        _ = try await signIn(w, user: "a", provider: "other")
        let b = try await start(w, user: "b")
        let hung = try #require(await w.store.arm(.save, hold: true))
        let submit = Task { try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge) }
        await hung.waitUntilHeld()
        let outcome = try await w.client.signOut("other")
        #expect(outcome.wasSignedIn)
        #expect(try await w.store.load(for: "other") == nil)
        let c = try await signIn(w, user: "c", provider: "other")
        #expect(try await w.store.load(for: "other") == c)
        await hung.release()
        #expect(try await submit.value.session != nil)
    }

    // MARK: F7 — displaced sessions (L12, "no live refresh token outlives a sign-out")

    /// Found by the breaker (fixed; failed before the fix) — README "no live refresh token outlives
    /// a sign-out" (L12), and F7's own reason ("the session that save had displaced … was then gone
    /// without `signedOut` or a revoke"). User A is signed in; user B signs in with the same
    /// provider on the same client (an account switch, no sign-out in between); then the user signs
    /// out. The sign-in's save displaced A without revoking it, and the sign-out revokes only B:
    /// A's refresh token is still live on the server after the sign-out, and nothing on the device
    /// knows it any more.
    @Test func signInOverAnotherUserRevokesTheDisplacedSession() async throws {
        let w = try world()
        let a = try await signIn(w, user: "a")
        let b = try await signIn(w, user: "b")
        #expect(try await w.store.load(for: provider) == b)
        let outcome = try await w.client.signOut(provider)
        #expect(outcome.wasSignedIn && outcome.remoteError == nil)
        #expect(!w.backend.isLive(refreshToken: try token(b)))
        #expect(try await w.store.load(for: provider) == nil)
        await eventually { !w.backend.isLive(refreshToken: (try? token(a)) ?? "") }
        let aLive = w.backend.isLive(refreshToken: try token(a))
        #expect(!aLive, "A's refresh token is live after the sign-out")
    }

    /// Found by the breaker (fixed; failed before the fix) — the same, in the exact F7 race: a
    /// sign-out that arrives during B's save comes after it (signedIn(B), then signedOut, B
    /// revoked), but A — whose session the save displaced — keeps a live refresh token after the
    /// sign-out.
    @Test func signOutDuringASaveThatDisplacedAnotherUserLeavesNoTokenLive() async throws {
        let w = try world()
        let a = try await signIn(w, user: "a")
        let b = try await start(w, user: "b")
        let log = RecordingSubscriber(client: w.client)
        let base = Int(w.client.events.currentSequence)
        let gate = try #require(await w.store.arm(.save, hold: true))
        let submit = Task { try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge) }
        await gate.waitUntilHeld()
        let signOut = Task { try await w.client.signOut(provider) }
        await settle()
        await gate.release()
        let step = try await submit.value
        let outcome = try await signOut.value
        let issued = try #require(step.session)
        #expect(outcome.wasSignedIn)
        #expect(try await w.store.load(for: provider) == nil)
        let events = await drain(log, w.client, from: base)
        #expect(events.map(\.kind.name).filter { $0 == "signedIn" || $0 == "signedOut" } == ["signedIn", "signedOut"])
        await eventually { !w.backend.isLive(refreshToken: (try? token(issued)) ?? "") }
        #expect(!w.backend.isLive(refreshToken: try token(issued)), "F7: B is revoked")
        await eventually { !w.backend.isLive(refreshToken: (try? token(a)) ?? "") }
        let aLive = w.backend.isLive(refreshToken: try token(a))
        #expect(!aLive, "A's refresh token is live after the sign-out")
    }

    // MARK: F7 — cancelFlow and the write turn

    /// Holds — F7: `cancelFlow` during a save comes too late; the flow finishes (stored, announced,
    /// returned), and no `flowCancelled` is published for it.
    @Test func cancelFlowDuringASaveComesTooLate() async throws {
        let w = try world()
        let b = try await start(w, user: "b")
        let log = RecordingSubscriber(client: w.client)
        let base = Int(w.client.events.currentSequence)
        let gate = try #require(await w.store.arm(.save, hold: true))
        let submit = Task { try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge) }
        await gate.waitUntilHeld()
        await w.client.cancelFlow(for: provider)
        await gate.release()
        let session = try #require(try await submit.value.session)
        #expect(try await w.store.load(for: provider) == session)
        let events = await drain(log, w.client, from: base)
        #expect(!events.map(\.kind.name).contains("flowCancelled"), "\(events.map(\.kind.name))")
        #expect(eventsView(events) == .some(session))
        #expect(w.backend.isLive(refreshToken: try token(session)))
        // The same answer again replays it (F3), without a network call.
        let verifies = w.sandbox.requestCount(pathPrefix: "/otp/verify")
        #expect(try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge).session == session)
        #expect(w.sandbox.requestCount(pathPrefix: "/otp/verify") == verifies)
    }

    /// Holds — `cancelFlow` after the server answered but while the save still waits for its turn
    /// (held by a refresh write of A) takes nothing: B is not stored, its session is revoked, the
    /// caller gets `CancellationError`, and the store and events end with A's refreshed session.
    @Test func cancelFlowWhileTheSaveWaitsForItsTurnTakesNothing() async throws {
        let w = try world()
        let a = try await signIn(w, user: "a")
        let b = try await start(w, user: "b")
        let log = RecordingSubscriber(client: w.client)
        let base = Int(w.client.events.currentSequence)
        let turn = try #require(await w.store.arm(.replaceWrite, hold: true))
        let refresh = Task { try await w.client.refresh(a) }
        await turn.waitUntilHeld()
        let submit = Task { try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge) }
        await eventually { !w.knobs.issued.isEmpty }
        await settle()
        await w.client.cancelFlow(for: provider)
        await turn.release()
        let refreshed = try await refresh.value
        let result = await r3Attempt { try await submit.value }
        #expect((try? result.get()) == nil, "the cancelled flow signed in: \(result)")
        #expect(try await w.store.load(for: provider) == refreshed)
        let issued = try #require(w.knobs.issued.last)
        await eventually { !w.backend.isLive(refreshToken: (try? token(issued)) ?? "") }
        #expect(!w.backend.isLive(refreshToken: try token(issued)), "B's session is revoked")
        let events = await drain(log, w.client, from: base)
        #expect(!events.map(\.kind.name).contains("signedIn"), "\(events.map(\.kind.name))")
        #expect(eventsView(events) == .some(refreshed), "\(events.map(\.kind.name))")
    }

    // MARK: F7 — sign-outs queued behind a save

    /// Holds — two sign-outs queued behind one save: `signedIn(B)` then one `signedOut`; the first
    /// reports `wasSignedIn`, the second not; B is revoked.
    @Test func twoSignOutsQueuedBehindASaveAnnounceOnce() async throws {
        let w = try world()
        let b = try await start(w, user: "b")
        let log = RecordingSubscriber(client: w.client)
        let base = Int(w.client.events.currentSequence)
        let gate = try #require(await w.store.arm(.save, hold: true))
        let submit = Task { try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge) }
        await gate.waitUntilHeld()
        let first = Task { try await w.client.signOut(provider) }
        await settle()
        let second = Task { try await w.client.signOut(provider) }
        await settle()
        await gate.release()
        let session = try #require(try await submit.value.session)
        let outcomes = [try await first.value.wasSignedIn, try await second.value.wasSignedIn]
        #expect(outcomes.sorted { !$0 && $1 } == [false, true], "\(outcomes)")
        let events = await drain(log, w.client, from: base)
        let kinds = events.map(\.kind.name).filter { ["signedIn", "signedOut"].contains($0) }
        #expect(kinds == ["signedIn", "signedOut"], "\(kinds)")
        #expect(try await w.store.load(for: provider) == nil)
        await eventually { !w.backend.isLive(refreshToken: (try? token(session)) ?? "") }
        #expect(!w.backend.isLive(refreshToken: try token(session)))
    }

    /// Holds — a sign-out whose caller is cancelled while it is queued behind a save still ends the
    /// session once the turn comes (removed, announced, revoked).
    @Test func aCancelledSignOutQueuedBehindASaveStillEndsTheSession() async throws {
        let w = try world()
        let b = try await start(w, user: "b")
        let log = RecordingSubscriber(client: w.client)
        let base = Int(w.client.events.currentSequence)
        let gate = try #require(await w.store.arm(.save, hold: true))
        let submit = Task { try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge) }
        await gate.waitUntilHeld()
        let signOut = Task { try await w.client.signOut(provider) }
        await settle()
        signOut.cancel()
        await gate.release()
        let session = try #require(try await submit.value.session)
        let outcome = await r3Attempt { try await signOut.value }
        await eventually { !w.backend.isLive(refreshToken: (try? token(session)) ?? "") }
        #expect(try await w.store.load(for: provider) == nil, "\(outcome)")
        #expect(!w.backend.isLive(refreshToken: try token(session)), "\(outcome)")
        let events = await drain(log, w.client, from: base)
        #expect(eventsView(events) == .some(nil), "\(events.map(\.kind.name))")
    }

    /// Holds — a refresh of A racing a sign-in of B racing a sign-out, in both orders of the
    /// refresh's write and the sign-out behind B's save: the store ends empty, the events agree,
    /// `signedOut` once, and no refresh token of A, A′ or B is live.
    @Test func refreshRacingSignInRacingSignOut() async throws {
        for refreshWriteFirst in [true, false] {
            let w = try world()
            let a = try await signIn(w, user: "a")
            let b = try await start(w, user: "b")
            let log = RecordingSubscriber(client: w.client)
            let base = Int(w.client.events.currentSequence)
            let refreshGate = RoundThreeGate()
            w.knobs.refreshGate = refreshGate
            let refresh = Task { try await w.client.refresh(a) }
            await refreshGate.waitUntilHeld()
            let save = try #require(await w.store.arm(.save, hold: true))
            let submit = Task { try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge) }
            await save.waitUntilHeld()
            var signOut: Task<AuthClient.SignOutOutcome, any Error>?
            if refreshWriteFirst {
                await refreshGate.release()
                await settle()
                signOut = Task { try await w.client.signOut(provider) }
            } else {
                signOut = Task { try await w.client.signOut(provider) }
                await settle()
                await refreshGate.release()
            }
            await settle()
            await save.release()
            let step = await r3Attempt { try await submit.value }
            let refreshed = await r3Attempt { try await refresh.value }
            let outcome = try await #require(signOut).value
            let label = "refreshWriteFirst=\(refreshWriteFirst) submit=\(step) refresh=\(refreshed)"
            #expect(outcome.wasSignedIn, "\(label)")
            #expect(try await w.store.load(for: provider) == nil, "\(label)")
            let events = await drain(log, w.client, from: base)
            #expect(eventsView(events) == .some(nil), "\(label) \(events.map(\.kind.name))")
            #expect(events.filter { $0.kind.name == "signedOut" }.count == 1, "\(label)")
            var tokens = [try token(a)]
            tokens += w.knobs.refreshed.compactMap { $0.credentials.refreshToken?.reveal() }
            tokens += w.knobs.issued.compactMap { $0.credentials.refreshToken?.reveal() }
            await eventually { tokens.allSatisfy { !w.backend.isLive(refreshToken: $0) } }
            #expect(tokens.allSatisfy { !w.backend.isLive(refreshToken: $0) }, "\(label): a live token outlives")
        }
    }

    /// Holds — two clients on one store (an app and its extension): the app signs out while the
    /// extension's sign-in save is held. The turns are per client; the conditional removal (L6)
    /// orders them: A is removed, announced and revoked on the app, then B is stored and announced
    /// on the extension, and B stays live.
    @Test func signOutOnOneClientWhileAnotherClientsSaveIsHeld() async throws {
        let app = try world()
        let ext = try world(sharing: app)
        let a = try await signIn(app, user: "a")
        let b = try await start(ext, user: "b")
        let appLog = RecordingSubscriber(client: app.client)
        let extLog = RecordingSubscriber(client: ext.client)
        let gate = try #require(await app.store.arm(.save, hold: true))
        let submit = Task { try await ext.client.submit(ChallengeAnswer(code: b.code), for: b.challenge) }
        await gate.waitUntilHeld()
        let outcome = try await app.client.signOut(provider)
        #expect(outcome.wasSignedIn && !outcome.keptNewerSession)
        await gate.release()
        let session = try #require(try await submit.value.session)
        #expect(try await app.store.load(for: provider) == session)
        #expect(await appLog.waitFor(kind: "signedOut") != nil)
        _ = await extLog.waitFor(kind: "signedIn")
        #expect(eventsView(extLog.events) == .some(session))
        await eventually { !app.backend.isLive(refreshToken: (try? token(a)) ?? "") }
        #expect(!app.backend.isLive(refreshToken: try token(a)))
        #expect(app.backend.isLive(refreshToken: try token(session)))
    }

    // MARK: The retry of a failed save (invariant 2) and the write turn

    /// Found by the breaker (fixed; failed before the fix) — "every state change appears once" /
    /// one sign-in, one `signedIn`. A save failed (`storageFailure`, invariant 2: "submitting the
    /// same answer again only finishes the write"). The user taps "retry" twice (or the code and
    /// the e-mail link are both retried) while the provider's write turn is busy (a refresh write
    /// of A): both retries find the flow unsaved, both take the turn in turn, and the second saves
    /// B again and publishes a second `signedIn` for the same sign-in. Nothing joins a retried
    /// write the way a submit in flight is joined.
    @Test func twoRetriesOfAFailedSaveWriteAndAnnounceOnce() async throws {
        let w = try world()
        let a = try await signIn(w, user: "a")
        let b = try await start(w, user: "b")
        await w.store.arm(.save, failure: .before)
        let failed = await r3Attempt { try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge) }
        #expect(failed.r3Code == .storageFailure)
        let log = RecordingSubscriber(client: w.client)
        let base = Int(w.client.events.currentSequence)
        let savesBefore = await w.store.calls(.save)
        let turn = try #require(await w.store.arm(.replaceWrite, hold: true))
        let refresh = Task { try await w.client.refresh(a) }
        await turn.waitUntilHeld()
        let first = Task { try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge) }
        let second = Task { try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge) }
        await settle()
        await turn.release()
        _ = try await refresh.value
        let one = try #require(try await first.value.session)
        let two = try #require(try await second.value.session)
        #expect(one == two)
        #expect(try await w.store.load(for: provider) == one)
        let events = await drain(log, w.client, from: base)
        let signedIns = events.filter { $0.kind.name == "signedIn" }.count
        let saves = await w.store.calls(.save) - savesBefore
        #expect(signedIns == 1, "signedIn published \(signedIns) times: \(events.map(\.kind.name))")
        #expect(saves == 1, "the retried write ran \(saves) times")

    }

    /// Found by the breaker (fixed; failed before the fix) — the flow state machine's table:
    /// `persisting` answers "join the submit in flight", and F9 "a flow's code and its magic link
    /// are one sign-in". A save failed; the retry of the same answer is saving (`persisting`). The
    /// same code submitted again meanwhile does not join it: the retry registered no submit in
    /// flight, so the second submit goes to the server with the spent grant and the user who is
    /// signing in gets `codeAlreadyUsed`. The flow's link does the same.
    @Test func anAnswerDuringARetriedSaveJoinsIt() async throws {
        for viaLink in [false, true] {
            let w = try world()
            let b = try await start(w, user: "b")
            await w.store.arm(.save, failure: .before)
            let failed = await r3Attempt {
                try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge)
            }
            #expect(failed.r3Code == .storageFailure)
            let gate = try #require(await w.store.arm(.save, hold: true))
            let retry = Task { try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge) }
            await gate.waitUntilHeld()
            let reusedBefore = w.backend.reusedGrantCount
            let again: Task<SignInStep?, any Error> =
                viaLink
                ? Task { try await w.client.handleRedirect(b.link) }
                : Task { try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge) }
            await settle()
            await gate.release()
            let session = try #require(try await retry.value.session)
            let second = await r3Attempt { try await again.value }
            let reused = w.backend.reusedGrantCount - reusedBefore
            #expect((try? second.get())??.session == session, "viaLink=\(viaLink): \(second)")
            #expect(reused == 0, "viaLink=\(viaLink): the spent grant was sent to the server again")

            #expect(try await w.store.load(for: provider) == session)
        }
    }

    // MARK: Invariant 13 / R1 — a link delivered again while its session is being saved

    /// Found by the breaker (fixed; failed before the fix) — invariant 13 "One redirect, one
    /// exchange … even when delivered twice at the same moment; every delivery gets the same
    /// result" (R1). The ledger marks a URL completed as soon as the provider answered, before the
    /// session is saved. A second delivery of the same link while the save is in progress (a slow
    /// keychain, or the save waiting for the provider's write turn) replays "the further step still
    /// pending" — the flow's own code challenge, which is still the pending one — instead of the
    /// session the first delivery returns a moment later. An app then shows the code screen to a
    /// user who is being signed in; typing the code gets `codeAlreadyUsed` (see
    /// `anAnswerDuringARetriedSaveJoinsIt`).
    @Test func aLinkDeliveredAgainWhileItsSessionIsSavedGetsTheSameResult() async throws {
        for saveWaitsForTheTurn in [false, true] {
            let w = try world()
            let a = try await signIn(w, user: "a")
            let b = try await start(w, user: "b")
            var turn: RoundThreeGate?
            var refresh: Task<AuthSession, any Error>?
            var save: RoundThreeGate?
            if saveWaitsForTheTurn {
                turn = await w.store.arm(.replaceWrite, hold: true)
                refresh = Task { try await w.client.refresh(a) }
                await turn?.waitUntilHeld()
            } else {
                save = await w.store.arm(.save, hold: true)
            }
            let issuedBefore = w.knobs.issued.count
            let first = Task { try await w.client.handleRedirect(b.link) }
            if let save { await save.waitUntilHeld() } else { await eventually { w.knobs.issued.count > issuedBefore } }
            await settle()
            let verifies = w.sandbox.requestCount(pathPrefix: "/otp/verify")
            let second = Task { try await w.client.handleRedirect(b.link) }
            await settle()
            await save?.release()
            await turn?.release()
            _ = try await refresh?.value
            let one = try #require(try await first.value?.session)
            let two = await r3Attempt { try await second.value }
            #expect(w.sandbox.requestCount(pathPrefix: "/otp/verify") == verifies, "one exchange")
            #expect(try await w.store.load(for: provider) == one)
            #expect((try? two.get())??.session == one, "saveWaitsForTheTurn=\(saveWaitsForTheTurn): \(two)")

        }
    }

    // MARK: F6 — cancelFlow of a one-step sign-in whose save waits for its turn

    /// Found by the breaker (fixed; failed before the fix) — F6 "a flow the app cancelled, a newer
    /// start or a sign-out takes nothing and the issued session is revoked", and the F7 table
    /// (`cancelFlow` is too late only once the save holds the turn). A one-step sign-in (SNA-like:
    /// `start` answers with a session) whose save waits for the provider's write turn (held by a
    /// refresh write of A) is no longer "a start in flight" nor a pending challenge, so
    /// `cancelFlow` finds nothing to cancel: the cancelled flow signs in and is stored and
    /// announced. The same moment in a code flow takes nothing
    /// (`cancelFlowWhileTheSaveWaitsForItsTurnTakesNothing`).
    @Test func cancelFlowOfAOneStepSignInWaitingForItsTurnTakesNothing() async throws {
        let w = try world()
        let a = try await signIn(w, user: "a")
        let inbox = w.sandbox.inbox
        w.knobs.oneStep = { key in inbox.latest(for: key)?.code }
        let log = RecordingSubscriber(client: w.client)
        let base = Int(w.client.events.currentSequence)
        let turn = try #require(await w.store.arm(.replaceWrite, hold: true))
        let refresh = Task { try await w.client.refresh(a) }
        await turn.waitUntilHeld()
        let issuedBefore = w.knobs.issued.count
        let email = try EmailAddress("b@example.com")
        let signIn = Task { try await w.client.signIn(with: provider, .email(email)) }
        await eventually { w.knobs.issued.count > issuedBefore }
        await settle()
        await w.client.cancelFlow(for: provider)
        await turn.release()
        let refreshed = try await refresh.value
        let result = await r3Attempt { try await signIn.value }
        let issued = try #require(w.knobs.issued.last)
        await eventually { !w.backend.isLive(refreshToken: (try? token(issued)) ?? "") }
        let stored = try await w.store.load(for: provider)
        let events = await drain(log, w.client, from: base)
        let issuedLive = w.backend.isLive(refreshToken: try token(issued))
        #expect((try? result.get())?.session == nil, "the cancelled flow returned a session: \(result)")
        #expect(stored == refreshed, "the cancelled flow's session is stored")
        #expect(!issuedLive, "the cancelled flow's session is live")
        #expect(!events.map(\.kind.name).contains("signedIn"), "\(events.map(\.kind.name))")

        #expect(eventsView(events) == .some(stored), "store and events agree: \(events.map(\.kind.name))")
    }

    // MARK: A refresh that hangs

    /// Found by the breaker (fixed; failed before the fix) — a refresh whose provider call hangs (a
    /// transport without a timeout): a sign-out does not wait for it (L11) and, once it returns,
    /// its result is discarded and revoked (L12). A `validSession` caller cancelled meanwhile (a
    /// SwiftUI `.task` that went away) keeps waiting for the hung call: the shared refresh is not
    /// the caller's to cancel, but neither can the caller stop waiting for it (invariant 6
    /// "Cancellation is clean"; `validSession` documents `CancellationError`).
    @Test func aHungRefreshNeitherBlocksSignOutNorOutlivesIt() async throws {
        let w = try world()
        let a = try await signIn(w, user: "a")
        w.sandbox.clock.advance(by: .seconds(ReferenceProtocol.accessTokenTTL - 30))
        let hung = RoundThreeGate()
        w.knobs.refreshGate = hung
        let done = RoundThreeFlag()
        let caller = Task {
            defer { done.set() }
            return try await w.client.validSession(for: provider)
        }
        await hung.waitUntilHeld()
        caller.cancel()
        await settle()
        let callerStopped = done.isSet
        let outcome = try await w.client.signOut(provider)
        #expect(outcome.wasSignedIn)
        #expect(try await w.store.load(for: provider) == nil)
        #expect(!w.backend.isLive(refreshToken: try token(a)) || !w.knobs.refreshed.isEmpty)
        await hung.release()
        let result = await r3Attempt { try await caller.value }
        let rotated = try #require(w.knobs.refreshed.last)
        await eventually { !w.backend.isLive(refreshToken: (try? token(rotated)) ?? "") }
        #expect(!w.backend.isLive(refreshToken: try token(rotated)), "L12: A′ is revoked: \(result)")
        #expect(try await w.store.load(for: provider) == nil)
        #expect(callerStopped, "the cancelled caller was still waiting for the hung refresh")

    }

    // MARK: F8 — a link that is not the stored sign-in's

    /// Found by the breaker (fixed; failed before the fix) — "never mixes two users' sessions"; F8
    /// "After a sign-out the link is refused as before … [a link that] may be … another user's … is
    /// never answered with the stored session". User A signs in with the e-mail's link; signs out;
    /// user B signs in with a code. A's link delivered again (the OS re-opens it, the user taps the
    /// old e-mail) answers `.signedIn` with **B's** session — although the client remembers that
    /// this very URL belonged to A's flow, abandoned by the sign-out.
    @Test func aRedeliveredLinkFromBeforeASignOutIsRefused() async throws {
        let w = try world()
        let a = try await start(w, user: "a")
        let signedInA = try #require(try await w.client.handleRedirect(a.link)?.session)
        #expect(try await w.client.signOut(provider).wasSignedIn)
        let refusedRightAfter = await r3Attempt { try await w.client.handleRedirect(a.link) }
        #expect(refusedRightAfter.r3Code == .challengeNotPending, "\(refusedRightAfter)")
        let b = try await signIn(w, user: "b")
        let again = await r3Attempt { try await w.client.handleRedirect(a.link) }
        let answered = (try? again.get())??.session
        #expect(answered?.user.id != signedInA.user.id)
        #expect(
            answered == nil, "A's link answered with \(String(describing: answered?.user.id)) (B is \(b.user.id))")
        #expect(again.r3Code == .challengeNotPending, "\(again)")

    }

    /// Found by the breaker (fixed; failed before the fix) — the same without any sign-out: every
    /// reference e-mail carries a code and a link (`linkAlsoSent`). A signs in with the code; later
    /// B signs in with a code on the same device; A's link (never used) is tapped. F8 answers it
    /// with B's session: its guard only asks that every flow since the last sign-out finished, and
    /// A's flow did — but the link is not a link of the flow that stored B.
    @Test func anotherUsersUnusedLinkNeverAnswersWithTheStoredSession() async throws {
        for signOutBetween in [false, true] {
            let w = try world()
            let a = try await start(w, user: "a")
            let sessionA = try #require(
                try await w.client.submit(ChallengeAnswer(code: a.code), for: a.challenge).session)
            if signOutBetween { #expect(try await w.client.signOut(provider).wasSignedIn) }
            let b = try await signIn(w, user: "b")
            let result = await r3Attempt { try await w.client.handleRedirect(a.link) }
            let answered = (try? result.get())??.session
            #expect(answered?.user.id != sessionA.user.id)
            #expect(
                answered == nil,
                "signOutBetween=\(signOutBetween): A's link answered with \(String(describing: answered?.user.id)) (B is \(b.user.id))"
            )

        }
    }

    /// Holds — a link delivered again after a sign-out, with nobody signed in since, is refused
    /// and stores nothing; the same for the code.
    @Test func aLinkOrCodeAfterASignOutIsRefused() async throws {
        let w = try world()
        let a = try await start(w, user: "a")
        _ = try #require(try await w.client.handleRedirect(a.link)?.session)
        #expect(try await w.client.signOut(provider).wasSignedIn)
        let link = await r3Attempt { try await w.client.handleRedirect(a.link) }
        #expect(link.r3Code == .challengeNotPending, "\(link)")
        let code = await r3Attempt { try await w.client.submit(ChallengeAnswer(code: a.code), for: a.challenge) }
        #expect(code.r3Code == .challengeNotPending, "\(code)")
        #expect(try await w.store.load(for: provider) == nil)
    }

    // MARK: F2 / F4 — a flow abandoned by a sign-out, forgotten

    /// Found by the breaker (fixed; failed before the fix) — F2 "a flow … started before a sign-out
    /// of its provider, is abandoned: its challenge is refused (`challengeNotPending`) and it never
    /// stores a session". The flow state machine forgets the oldest of 4,096 flows (F4), and
    /// *every* submit registers its challenge's flow before the code's format is checked: 4,096
    /// submits of made-up challenges with a malformed code (refused locally, no network call) push
    /// the abandoned flow out, and its challenge then signs in after the sign-out.
    @Test func anAbandonedFlowPushedOutOfMemoryStaysAbandoned() async throws {
        let w = try world()
        let a = try await start(w, user: "a")
        #expect(try await w.client.signOut(provider).wasSignedIn == false)
        let refused = await r3Attempt { try await w.client.submit(ChallengeAnswer(code: a.code), for: a.challenge) }
        #expect(refused.r3Code == .challengeNotPending)
        let requests = w.sandbox.requestCount
        // Challenges issued after the sign-out: judged as new flows, not by the sign-out's time.
        w.sandbox.clock.advance(by: .seconds(1))
        for _ in 0..<4096 {
            let forged = Challenge(
                flowID: .random(), provider: provider,
                kind: .oneTimeCode(length: 6, channel: .email, linkAlsoSent: false),
                issuedAt: w.sandbox.clock.wallNow, expiresAt: w.sandbox.clock.wallNow.addingTimeInterval(300))
            let result = await r3Attempt { try await w.client.submit(ChallengeAnswer(code: "1"), for: forged) }
            guard result.r3Code == .invalidInput else {
                Issue.record("a malformed code was not refused locally: \(result)")
                return
            }
        }
        #expect(w.sandbox.requestCount == requests, "the malformed codes never reached the network")
        let after = await r3Attempt { try await w.client.submit(ChallengeAnswer(code: a.code), for: a.challenge) }
        let stored = try await w.store.load(for: provider)
        #expect(after.r3Code == .challengeNotPending, "\(after)")
        #expect(stored == nil, "a flow started before the sign-out stored a session")
    }

    // MARK: Absurd numbers from the server

    /// Found by the breaker (fixed; failed before the fix) — Events.md `attemptsExhausted`: "no
    /// attempts remain and the flow is over … A UI driven by events learns here that it must start
    /// again". A server answering a wrong code with `attemptsRemaining: -1` (absurd) made the client
    /// treat the flow as exhausted without publishing `attemptsExhausted`. A count below zero now
    /// reads as zero: `codeRejected(0)`, then `attemptsExhausted`.
    @Test func aNegativeAttemptsRemainingEndsTheFlowWithoutSayingSo() async throws {
        let w = try world()
        let b = try await start(w, user: "b")
        let log = RecordingSubscriber(client: w.client)
        let base = Int(w.client.events.currentSequence)
        w.knobs.respondError = AuthError(
            .invalidCode, "the code is not correct", provider: provider, providerCode: "invalid_code",
            attemptsRemaining: -1)
        let wrong = await r3Attempt { try await w.client.submit(ChallengeAnswer(code: "000000"), for: b.challenge) }
        #expect(wrong.r3Code == .invalidCode)
        let requests = w.sandbox.requestCount
        let next = await r3Attempt { try await w.client.submit(ChallengeAnswer(code: b.code), for: b.challenge) }
        #expect(w.sandbox.requestCount == requests)
        let events = await drain(log, w.client, from: base)
        let kinds = events.map(\.kind.name)
        #expect(next.r3Code == .attemptsExhausted, "\(next)")
        #expect(kinds.contains("attemptsExhausted"), "events: \(kinds)")
    }

    // MARK: Bad input gets a typed error before any network call

    /// Holds — malformed codes (wrong length, letters, other non-digits, huge input), an expired
    /// challenge and a challenge with no attempts left are refused with a typed
    /// error and no request; full-width digits are read as digits.
    @Test func badInputIsRefusedBeforeTheNetwork() async throws {
        let w = try world()
        let b = try await start(w, user: "b")
        let requests = w.sandbox.requestCount
        let malformed = [
            "", "12345", "1234567", "12345a", "١٢٣٤٥", "１２３４５６７", "12-345",
            String(repeating: "1", count: 100_000), "12345\u{0000}",
        ]
        for code in malformed {
            let result = await r3Attempt { try await w.client.submit(ChallengeAnswer(code: code), for: b.challenge) }
            #expect(result.r3Code == .invalidInput, "\(code.prefix(12)): \(result)")
        }
        #expect(w.sandbox.requestCount == requests, "a malformed code reached the network")
        var exhausted = b.challenge
        exhausted.attemptsRemaining = 0
        exhausted.flowID = .random()
        let noAttempts = await r3Attempt { try await w.client.submit(ChallengeAnswer(code: b.code), for: exhausted) }
        #expect(noAttempts.r3Code == .attemptsExhausted, "\(noAttempts)")
        for email in ["a@@example.com", "@example.com", "a b@example.com", "a@"] {
            #expect(throws: AuthError.self, "\(email)") { _ = try EmailAddress(email) }
        }
        let noCode = URL(
            string: "multiauth-ref://callback?state=\(b.challenge.providerState[revealing: "state"] ?? "")")!
        let link = await r3Attempt { try await w.client.handleRedirect(noCode) }
        #expect(link.r3Code == .invalidInput, "\(link)")
        #expect(w.sandbox.requestCount == requests, "bad input reached the network")
        // Full-width digits are digits: the right code typed that way signs in.
        let fullWidth = String(
            String.UnicodeScalarView(b.code.unicodeScalars.map { Unicode.Scalar($0.value + 0xFEE0)! }))
        #expect(try await w.client.submit(ChallengeAnswer(code: " \(fullWidth)\n"), for: b.challenge).session != nil)
        w.sandbox.clock.advance(by: .seconds(ReferenceProtocol.challengeTTL + 1))
        let c = try await start(w, user: "c")
        w.sandbox.clock.advance(by: .seconds(ReferenceProtocol.challengeTTL + 1))
        let before = w.sandbox.requestCount
        let expired = await r3Attempt { try await w.client.submit(ChallengeAnswer(code: c.code), for: c.challenge) }
        #expect(expired.r3Code == .expired, "\(expired)")
        #expect(w.sandbox.requestCount == before)
    }

    // MARK: Acceptance cases (Docs/Cases.md) the existing tests assert only in part

    /// Case B21, the two branches its test (`authStatesStartWithTheCurrentState`) leaves out: after
    /// the restore with nothing stored the first event is the initial state with no session (the
    /// snapshot path; the existing test subscribes before any restore); and with a stored expired
    /// session whose refresh token was revoked, the subscriber attached after the restore gets
    /// `initialState(S, expired)` then the end of the session, once (MultiAuth names it
    /// `sessionExpired`, never `signedOut`: Events.md). A second subscriber starts with the
    /// current state, and no initial state comes twice.
    @Test func caseB21AfterTheRestoreNothingStoredAndARevokedRefreshToken() async throws {
        let empty = try world()
        _ = await empty.client.restoreSessions()
        var first = empty.client.authStates().makeAsyncIterator()
        guard case .initialState(let none)? = await first.next()?.kind else {
            Issue.record("no initial state")
            return
        }
        #expect(none.isSignedOut)

        let w = try world()
        let a = try await signIn(w, user: "a")
        w.backend.revoke(refreshToken: try token(a))
        w.sandbox.clock.advance(by: .seconds(ReferenceProtocol.accessTokenTTL + 1))
        let app = try world(sharing: w)  // the app starts again on the same store
        _ = await app.client.restoreSessions()
        var states = app.client.authStates().makeAsyncIterator()
        let error = await #expect(throws: AuthError.self) { _ = try await app.client.validSession(for: provider) }
        #expect(error?.code == .sessionExpired)
        guard case .initialState(let initial)? = await states.next()?.kind else {
            Issue.record("no initial state")
            return
        }
        #expect(initial.sessions[provider]?.session == a)
        #expect(initial.sessions[provider]?.isExpired == true)
        let next = try #require(await states.next())
        #expect(next.kind.name == "sessionExpired", "\(next.kind.name)")
        var late = app.client.authStates().makeAsyncIterator()
        guard case .initialState(let lateState)? = await late.next()?.kind else {
            Issue.record("the late subscriber got no initial state")
            return
        }
        #expect(lateState.isSignedOut)
        #expect(try await w.store.load(for: provider) == nil)
    }

    /// Case B17's last clause: "A refresh asked for a different token R9 must not be answered with
    /// R1's result." The existing test (`aSessionThatIsNotStoredIsNotRefreshed`) refreshes an R9
    /// copy of the stored session with nothing in flight and expects the stored R1 session back.
    /// Here R9 belongs to another sign-in and R1's refresh is in flight: R9's caller never gets
    /// R1's result (rule L10), before or after R1's refresh lands, and R1's callers share one call.
    @Test func caseB17ARefreshOfAnotherTokenNeverGetsR1sResult() async throws {
        let w = try world()
        let a = try await signIn(w, user: "a")
        var other = a
        other.id = "another-sign-in"
        other.credentials.refreshToken = "R9"
        let gate = RoundThreeGate()
        w.knobs.refreshGate = gate
        let r1 = (0..<3).map { _ in Task { try await w.client.refresh(a) } }
        await gate.waitUntilHeld()
        let during = await r3Attempt { try await w.client.refresh(other) }
        await gate.release()
        var results: [AuthSession] = []
        for task in r1 { results.append(try await task.value) }
        let after = await r3Attempt { try await w.client.refresh(other) }
        let r2 = try #require(results.first)
        #expect(results.allSatisfy { $0 == r2 } && r2.credentials.refreshToken != a.credentials.refreshToken)
        #expect(w.knobs.refreshed.count == 1, "one refresh request for R1")
        #expect((try? during.get()) != r2 && (try? after.get()) != r2, "during: \(during), after: \(after)")
        #expect(during.r3Code == .unauthorized && after.r3Code == .unauthorized)
        #expect(try await w.store.load(for: provider) == r2)
    }
}
