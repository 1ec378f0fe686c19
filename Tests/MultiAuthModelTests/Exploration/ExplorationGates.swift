import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox

/// What the driver tells a held call when it lets it go.
enum GateVerdict: String, Sendable, Hashable {
    /// Go on as usual.
    case proceed = "release"
    /// The store write throws (a keychain locked for a moment).
    case storeFailure = "fail"
    /// The refresh answer names another user (a buggy or hostile server).
    case foreignUser = "forge-user"
    /// The sign-in answer names another provider.
    case otherProvider = "forge-provider"
    /// The process died: the call never returns normally.
    case processDeath = "die"
}

/// A suspension point of the client: a store call, or a provider call before it is sent
/// (`>`) or after the server answered (`<`).
enum GateKind: String, Sendable, Hashable {
    case load, save, replace, remove
    /// After a conditional write answered, before the client goes on (to publish its event).
    case replaceAnswered = "replace<"
    case removeAnswered = "remove<"
    case startAnswered = "start<"
    case respondCall = "respond>"
    case respondAnswered = "respond<"
    case redirectCall = "redirect>"
    case redirectAnswered = "redirect<"
    case refreshCall = "refresh>"
    case refreshAnswered = "refresh<"
    case revokeCall = "revoke>"
    case resendAnswered = "resend<"

    /// The faults the driver may inject when it releases a gate of this kind.
    var faults: [GateVerdict] {
        switch self {
        case .save, .replace, .remove: [.storeFailure]
        case .refreshAnswered: [.foreignUser]
        case .respondAnswered, .redirectAnswered: [.otherProvider]
        default: []
        }
    }
}

/// The operation a task works for. Unstructured tasks inherit it, so a shared refresh or a
/// background scheduler is named after the operation that started it (`bg` for the set-up).
enum ExplorationTag {
    @TaskLocal static var operation: String?
}

/// Every held call of one world. Until ``hold()`` every gate lets its caller pass at once (the
/// set-up); afterwards each caller parks until the driver releases it by its label.
///
/// A label is `<operation tag> <kind>`, with `#n` for the n-th arrival of that pair, so a
/// schedule names the same gate when it is replayed.
final class GateBoard: @unchecked Sendable {
    struct Parked {
        let label: String
        let kind: GateKind
        let client: Int
        let continuation: CheckedContinuation<GateVerdict, Never>
        let task: Int?
    }

    private let lock = NSLock()
    private var holding = false
    private var parked: [Parked] = []
    private var arrivals: [String: Int] = [:]
    private var dead: Set<Int> = []
    private var activityCount = 0

    /// Arrivals and releases so far (a quiescence signal).
    var activity: Int { lock.withLock { activityCount } }

    /// The gates held now, sorted by label.
    var held: [(label: String, kind: GateKind, client: Int)] {
        lock.withLock { parked.map { ($0.label, $0.kind, $0.client) } }.sorted { $0.label < $1.label }
    }

    private var busyCount = 0
    private var transit: Set<Int> = []

    private static func currentTask() -> Int? { withUnsafeCurrentTask { $0?.hashValue } }

    /// Tasks the driver let go (or started) that were not seen parking or finishing since. A
    /// task that ends inside the library is never seen again, so this only makes the driver
    /// wait longer, never forever.
    var inTransit: Int { lock.withLock { transit.count } }

    /// The calling task (an operation's) runs now.
    func enterTransit() {
        guard let task = Self.currentTask() else { return }
        lock.withLock { _ = transit.insert(task) }
    }

    /// The calling task (an operation's) finished.
    func leaveTransit() {
        guard let task = Self.currentTask() else { return }
        lock.withLock {
            transit.remove(task)
            activityCount += 1
        }
    }

    /// Counts a step a task made between gates (a quiescence signal).
    func touch() { lock.withLock { activityCount += 1 } }

    /// Calls into the model store or the server now in progress: the driver waits for them.
    var busy: Int { lock.withLock { busyCount } }

    /// Runs `body` (a store or server call) counted as in progress.
    func work<T>(_ body: () async throws -> T) async rethrows -> T {
        lock.withLock { busyCount += 1 }
        defer {
            lock.withLock {
                busyCount -= 1
                activityCount += 1
            }
        }
        return try await body()
    }

    /// From now on every caller parks.
    func hold() { lock.withLock { holding = true } }

    /// Whether `client`'s process died.
    func isDead(_ client: Int) -> Bool { lock.withLock { dead.contains(client) } }

    /// Parks the caller (client `client`, at `kind`) until the driver releases it.
    func pass(client: Int, kind: GateKind) async -> GateVerdict {
        let tag = ExplorationTag.operation ?? "bg"
        let task = Self.currentTask()
        return await withCheckedContinuation { (continuation: CheckedContinuation<GateVerdict, Never>) in
            lock.lock()
            activityCount += 1
            if let task { transit.remove(task) }
            if dead.contains(client) {
                lock.unlock()
                continuation.resume(returning: .processDeath)
                return
            }
            guard holding else {
                lock.unlock()
                continuation.resume(returning: .proceed)
                return
            }
            let key = "\(tag) \(kind.rawValue)"
            let count = arrivals[key, default: 0] + 1
            arrivals[key] = count
            parked.append(
                Parked(
                    label: count == 1 ? key : "\(key)#\(count)", kind: kind, client: client, continuation: continuation,
                    task: task))
            lock.unlock()
        }
    }

    /// Lets the gate `label` go with `verdict`; `false` when no such gate is held.
    @discardableResult
    func release(_ label: String, _ verdict: GateVerdict) -> Bool {
        let gate: Parked? = lock.withLock {
            guard let index = parked.firstIndex(where: { $0.label == label }) else { return nil }
            if let task = parked[index].task { transit.insert(task) }
            return parked.remove(at: index)
        }
        gate?.continuation.resume(returning: verdict)
        return gate != nil
    }

    /// Client `client`'s process dies: its held calls fail and every later call fails at once.
    func kill(_ client: Int) {
        let victims: [Parked] = lock.withLock {
            dead.insert(client)
            activityCount += 1
            let victims = parked.filter { $0.client == client }
            for victim in victims { if let task = victim.task { transit.insert(task) } }
            parked.removeAll { $0.client == client }
            return victims
        }
        for victim in victims { victim.continuation.resume(returning: .processDeath) }
    }
}

/// The error a failing store write throws.
struct InjectedStoreFailure: Error, CustomStringConvertible {
    var description: String { "injected store failure" }
}

/// The session store of one client in the explored world: a gate in front of every call, then
/// the shared ``ModelStore`` view, which judges every write.
struct GatedStore: SessionStore {
    let world: ExplorationWorld
    let client: Int
    let view: ModelStore.View

    func load(for provider: AuthProviderID) async throws -> AuthSession? {
        switch await world.board.pass(client: client, kind: .load) {
        case .processDeath: throw InjectedStoreFailure()
        default:
            let session = try await world.board.work { try await view.load(for: provider) }
            world.board.touch()
            return session
        }
    }

    func save(_ session: AuthSession) async throws {
        let verdict = await world.board.pass(client: client, kind: .save)
        try await world.beforeWrite(session, verdict: verdict, client: client)
        try await world.board.work {
            try await view.save(session)
            await world.afterWrite(client: client, removed: nil)
        }
    }

    func remove(for provider: AuthProviderID) async throws {
        let verdict = await world.board.pass(client: client, kind: .remove)
        let before = await world.model.expected
        try await world.beforeWrite(nil, removing: before, verdict: verdict, client: client)
        try await world.board.work {
            try await view.remove(for: provider)
            await world.afterWrite(client: client, removed: before)
        }
    }

    func removeAll() async throws { try await remove(for: ExplorationWorld.provider) }

    func replace(_ expected: AuthSession?, with replacement: AuthSession?, for provider: AuthProviderID) async throws
        -> SessionStoreWriteResult
    {
        let verdict = await world.board.pass(client: client, kind: replacement == nil ? .remove : .replace)
        try await world.beforeWrite(
            replacement, removing: replacement == nil ? expected : nil, verdict: verdict, client: client)
        let result = try await world.board.work {
            let result = try await view.replace(expected, with: replacement, for: provider)
            if case .written = result {
                await world.afterWrite(client: client, removed: replacement == nil ? expected : nil)
            }
            return result
        }
        // The store answered; the client resumes later (its event follows this point).
        if case .written = result,
            await world.board.pass(client: client, kind: replacement == nil ? .removeAnswered : .replaceAnswered)
                == .processDeath
        {
            throw InjectedStoreFailure()
        }
        return result
    }
}

/// The reference provider of one client in the explored world, with a gate before each call
/// is sent and after the server answered.
struct GatedProvider: RedirectHandlingProvider, RefreshableProvider, ResendableProvider {
    let world: ExplorationWorld
    let client: Int
    let base = ReferenceProvider()
    var id: AuthProviderID { base.id }

    private func call(_ kind: GateKind) async throws {
        let verdict = await world.board.pass(client: client, kind: kind)
        if verdict == .processDeath { throw AuthError(.network, "the process died", provider: id) }
        // A transport that was cancelled while it waited to send gives up.
        try Task.checkCancellation()
    }

    private func answered(_ kind: GateKind) async throws -> GateVerdict {
        let verdict = await world.board.pass(client: client, kind: kind)
        if verdict == .processDeath { throw AuthError(.network, "the process died", provider: id) }
        return verdict
    }

    /// A sign-in answer: recorded as issued, and forged when the driver says so.
    private func signedIn(_ step: SignInStep, kind: GateKind) async throws -> SignInStep {
        guard case .signedIn(var session) = step else {
            _ = try await answered(kind)
            return step
        }
        world.issued(session, to: client, bySignIn: true)
        let verdict: GateVerdict
        do { verdict = try await answered(kind) } catch {
            world.lost(session)
            throw error
        }
        if verdict == .otherProvider {
            world.forged(session)
            session.provider = "other"
        }
        return .signedIn(session)
    }

    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        let step = try await world.board.work { try await base.start(request, context: context) }
        _ = try await answered(.startAnswered)
        return step
    }

    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        try await call(.respondCall)
        let result: Result<SignInStep, any Error>
        do {
            result = .success(
                try await world.board.work { try await base.respond(to: challenge, with: answer, context: context) })
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let step): return try await signedIn(step, kind: .respondAnswered)
        case .failure(let error):
            _ = try await answered(.respondAnswered)
            throw error
        }
    }

    func canHandle(_ url: URL) -> Bool { base.canHandle(url) }

    func redirect(_ url: URL, belongsTo challenge: Challenge) -> Bool? { base.redirect(url, belongsTo: challenge) }

    func handleRedirect(_ url: URL, pending: Challenge?, context: AuthContext) async throws -> SignInStep {
        try await call(.redirectCall)
        let result: Result<SignInStep, any Error>
        do {
            result = .success(
                try await world.board.work { try await base.handleRedirect(url, pending: pending, context: context) })
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let step): return try await signedIn(step, kind: .redirectAnswered)
        case .failure(let error):
            _ = try await answered(.redirectAnswered)
            throw error
        }
    }

    func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession {
        try await call(.refreshCall)
        let result: Result<AuthSession, any Error>
        do { result = .success(try await world.board.work { try await base.refresh(session, context: context) }) } catch
        { result = .failure(error) }
        world.board.touch()
        switch result {
        case .success(var refreshed):
            world.issued(refreshed, to: client, bySignIn: false)
            let verdict: GateVerdict
            do { verdict = try await answered(.refreshAnswered) } catch {
                world.lost(refreshed)
                throw error
            }
            if verdict == .foreignUser {
                world.forged(refreshed)
                refreshed.user.id = "intruder"
            }
            return refreshed
        case .failure(let error):
            _ = try await answered(.refreshAnswered)
            throw error
        }
    }

    func signOut(_ session: AuthSession, context: AuthContext) async throws {
        try await call(.revokeCall)
        await world.checkRevoke(session)
        defer { world.board.touch() }
        try await world.board.work { try await base.signOut(session, context: context) }
    }

    func resend(_ challenge: Challenge, channel: DeliveryChannel?, context: AuthContext) async throws -> Challenge {
        let updated = try await world.board.work {
            try await base.resend(challenge, channel: channel, context: context)
        }
        _ = try await answered(.resendAnswered)
        return updated
    }
}
