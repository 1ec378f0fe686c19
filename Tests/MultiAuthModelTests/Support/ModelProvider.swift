import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox

/// What the model's provider does besides answering: it cancels an operation's task at the
/// point the schedule chose, and rewrites armed answers so they name another user or provider.
/// Shared by both clients of one run; lock-protected.
final class ModelHooks: @unchecked Sendable {
    /// The schedule operation a task works for (inherited by the tasks the client starts for it).
    @TaskLocal static var operation: Int?

    /// The provider calls a cancellation can hit.
    enum Call: Sendable {
        case respond, redirect, refresh, signOut
    }

    /// What happened to a cancelled operation.
    struct Fired: Sendable {
        let point: CancelPoint
        /// For `afterAnswer`: the session the provider answered with (sign-ins and refreshes).
        let answer: AuthSession?
        /// The model clock when the task was cancelled.
        let seq: Int
    }

    /// A rewritten answer: the refresh token it carries, and whom it names.
    private struct Foreign: Hashable {
        let refreshToken: String?
        let userID: String
        let provider: AuthProviderID
    }

    static let otherProvider: AuthProviderID = "intruder"

    private let lock = NSLock()
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var waitingForRegistration: [Int: CheckedContinuation<Void, Never>] = [:]
    private var armed: [Int: (call: Call, point: CancelPoint)] = [:]
    private var fired: [Int: Fired] = [:]
    private var foreignArmed: [ForeignAnswer] = []
    private var foreign: Set<Foreign> = []
    private var foreignCount = 0
    /// How many sign-in answers were rewritten.
    private(set) var foreignSignIns = 0
    /// Refresh tokens a client received in a (not rewritten) refresh answer, by client.
    private var received: [(client: Int, token: String)] = []
    var modelSeq: @Sendable () async -> Int = { 0 }
    /// What fired, for the coverage counts (e.g. `cancel respond after the answer`).
    private var fireLog: [String] = []
    var log: [String] { lock.withLock { fireLog } }

    // MARK: Operation tasks

    /// Registers the task of operation `id`; the task waits for it in ``waitUntilRegistered(_:)``.
    func register(_ id: Int, task: Task<Void, Never>) {
        let waiter = lock.withLock {
            tasks[id] = task
            return waitingForRegistration.removeValue(forKey: id)
        }
        waiter?.resume()
    }

    /// Returns once operation `id`'s task is registered (so it can be cancelled).
    func waitUntilRegistered(_ id: Int) async {
        await withCheckedContinuation { continuation in
            let registered = lock.withLock {
                if tasks[id] != nil { return true }
                waitingForRegistration[id] = continuation
                return false
            }
            if registered { continuation.resume() }
        }
    }

    /// Cancels operation `id`'s task now.
    func cancel(_ id: Int) {
        lock.withLock { tasks[id] }?.cancel()
    }

    /// Arms the cancellation of operation `id` at `point` of its provider call `call`.
    func arm(_ id: Int, call: Call, at point: CancelPoint) {
        lock.withLock { armed[id] = (call, point) }
    }

    /// Records that operation `id` was cancelled at `point` (before its client call).
    func noteFired(_ id: Int, at point: CancelPoint, seq: Int) {
        lock.withLock {
            fired[id] = Fired(point: point, answer: nil, seq: seq)
            fireLog.append("cancelled \(point)")
        }
    }

    /// What happened to operation `id`'s cancellation, if it fired.
    func fired(_ id: Int) -> Fired? { lock.withLock { fired[id] } }

    /// Fires the armed cancellation of the current task's operation if it is for `call` at
    /// `point`: cancels the operation's task. Returns whether it fired.
    @discardableResult
    func reach(_ call: Call, _ point: CancelPoint, answer: AuthSession? = nil) async -> Bool {
        guard let id = Self.operation else { return false }
        let seq = await modelSeq()
        let task: Task<Void, Never>? = lock.withLock {
            guard let plan = armed[id], plan.call == call, plan.point == point else { return nil }
            armed[id] = nil
            fired[id] = Fired(point: point, answer: answer, seq: seq)
            fireLog.append("cancelled \(call) \(point)")
            return tasks[id]
        }
        guard let task else { return false }
        task.cancel()
        return true
    }

    // MARK: Foreign answers

    func armForeign(_ kind: ForeignAnswer) { lock.withLock { foreignArmed.append(kind) } }

    /// Takes the armed rewrite of `kinds`, if any.
    private func takeForeign(_ kinds: [ForeignAnswer]) -> ForeignAnswer? {
        lock.withLock {
            guard let index = foreignArmed.firstIndex(where: kinds.contains) else { return nil }
            return foreignArmed.remove(at: index)
        }
    }

    /// `session`, rewritten when a rewrite of `kinds` is armed.
    func rewrite(_ session: AuthSession, _ kinds: [ForeignAnswer]) -> AuthSession {
        guard let kind = takeForeign(kinds) else { return session }
        var rewritten = session
        switch kind {
        case .refreshOtherUser:
            let n = lock.withLock {
                foreignCount += 1
                return foreignCount
            }
            rewritten.user = AuthUser(id: "intruder-\(n)", email: try? EmailAddress("intruder\(n)@example.com"))
        case .refreshOtherProvider:
            rewritten.provider = Self.otherProvider
        case .signInOtherProvider:
            rewritten.provider = Self.otherProvider
            lock.withLock { foreignSignIns += 1 }
        }
        lock.withLock { fireLog.append("rewrote \(kind)") }
        let record = Foreign(
            refreshToken: rewritten.credentials.refreshToken?.reveal(), userID: rewritten.user.id,
            provider: rewritten.provider)
        lock.withLock { _ = foreign.insert(record) }
        return rewritten
    }

    /// Whether `session` is an answer the provider rewrote to name someone else.
    func isForeign(_ session: AuthSession) -> Bool {
        let record = Foreign(
            refreshToken: session.credentials.refreshToken?.reveal(), userID: session.user.id,
            provider: session.provider)
        return lock.withLock { foreign.contains(record) }
    }

    func noteReceived(_ session: AuthSession, client: Int) {
        guard let token = session.credentials.refreshToken?.reveal() else { return }
        lock.withLock { received.append((client, token)) }
    }

    /// Whether `client` received `token` in a genuine refresh answer.
    func received(_ token: String, by client: Int) -> Bool {
        lock.withLock { received.contains { $0.client == client && $0.token == token } }
    }

    /// Refresh tokens clients received in genuine refresh answers.
    var receivedRefreshTokens: [(client: Int, token: String)] { lock.withLock { received } }
}

/// The reference provider, with the model's hooks around each call that a cancellation or a
/// foreign answer can hit.
struct ModelProvider: RedirectHandlingProvider, RefreshableProvider, ResendableProvider {
    let base = ReferenceProvider()
    let hooks: ModelHooks
    let client: Int
    var id: AuthProviderID { base.id }

    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        try await base.start(request, context: context)
    }

    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        if await hooks.reach(.respond, .beforeRequest) { try Task.checkCancellation() }
        let step = try await base.respond(to: challenge, with: answer, context: context)
        return await signedIn(step, call: .respond)
    }

    func canHandle(_ url: URL) -> Bool { base.canHandle(url) }

    func redirect(_ url: URL, belongsTo challenge: Challenge) -> Bool? { base.redirect(url, belongsTo: challenge) }

    func handleRedirect(_ url: URL, pending: Challenge?, context: AuthContext) async throws -> SignInStep {
        if await hooks.reach(.redirect, .beforeRequest) { try Task.checkCancellation() }
        let step = try await base.handleRedirect(url, pending: pending, context: context)
        return await signedIn(step, call: .redirect)
    }

    private func signedIn(_ step: SignInStep, call: ModelHooks.Call) async -> SignInStep {
        guard case .signedIn(let session) = step else { return step }
        let answer = hooks.rewrite(session, [.signInOtherProvider])
        await hooks.reach(call, .afterAnswer, answer: answer)
        return .signedIn(answer)
    }

    func resend(_ challenge: Challenge, channel: DeliveryChannel?, context: AuthContext) async throws -> Challenge {
        try await base.resend(challenge, channel: channel, context: context)
    }

    func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession {
        if await hooks.reach(.refresh, .beforeRequest) { try Task.checkCancellation() }
        let refreshed = try await base.refresh(session, context: context)
        let answer = hooks.rewrite(refreshed, [.refreshOtherUser, .refreshOtherProvider])
        if !hooks.isForeign(answer) { hooks.noteReceived(answer, client: client) }
        await hooks.reach(.refresh, .afterAnswer, answer: answer)
        return answer
    }

    func signOut(_ session: AuthSession, context: AuthContext) async throws {
        if await hooks.reach(.signOut, .beforeRequest) { try Task.checkCancellation() }
        try await base.signOut(session, context: context)
        await hooks.reach(.signOut, .afterAnswer)
    }

    func flowEnded(_ flowID: FlowID) { base.flowEnded(flowID) }
}
