import Foundation

/// Publishes a client's events on its bus, with two guarantees the bus alone cannot give:
///
/// - Every event of a flow is dropped once `flowCancelled` was published for it (invariant 6).
///   A lock makes "is the flow cancelled?" and "publish" one step, so a provider event racing a
///   cancellation is either published before `flowCancelled` or not at all.
/// - The client's session-state cache changes in the same locked step as the state event that
///   announces it, so `authStates()` can snapshot the state and register a subscriber
///   atomically: every later change reaches that subscriber as an event (Docs/Cases.md, B21).
final class FlowEventGate: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled: Set<FlowID> = []
    private var sessions: [AuthProviderID: AuthSession] = [:]
    private var unavailable: [AuthProviderID: AuthError] = [:]
    private var stateLoaded = false
    /// Per provider, how many state changes were recorded (a mark for ``restore(_:since:providers:now:)``).
    private var stateVersions: [AuthProviderID: UInt64] = [:]
    /// Per provider, whether the last state event this client published announced a session
    /// (`false`: it announced the session's end).
    private var announced: [AuthProviderID: Bool] = [:]
    /// The newest challenge a provider published for a flow (e.g. after a channel fallback),
    /// so the client's pending challenge follows it.
    private var updatedChallenges: [FlowID: Challenge] = [:]
    let bus: AuthEventBus

    init(bus: AuthEventBus) { self.bus = bus }

    /// Publishes unless `flowID` was cancelled.
    @discardableResult
    func publish(_ kind: AuthEvent.Kind, provider: AuthProviderID?, flowID: FlowID?) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let flowID, cancelled.contains(flowID) { return false }
        bus.publish(kind, provider: provider, flowID: flowID)
        return true
    }

    /// Publishes an event a provider emitted; a `challengeIssued` is also remembered as the
    /// flow's newest challenge.
    func publishFromProvider(_ kind: AuthEvent.Kind, provider: AuthProviderID, flowID: FlowID?) {
        lock.lock()
        defer { lock.unlock() }
        if let flowID, cancelled.contains(flowID) { return }
        if case .challengeIssued(let challenge) = kind {
            updatedChallenges[challenge.flowID] = challenge
        }
        bus.publish(kind, provider: provider, flowID: flowID)
    }

    /// Takes (and forgets) the newest provider-published challenge of `flowID`, if any.
    func takeUpdatedChallenge(_ flowID: FlowID) -> Challenge? {
        lock.lock()
        defer { lock.unlock() }
        return updatedChallenges.removeValue(forKey: flowID)
    }

    /// Forgets provider-published challenges of a finished flow.
    func forgetChallenges(of flowID: FlowID) {
        lock.lock()
        updatedChallenges[flowID] = nil
        lock.unlock()
    }

    /// Records a session change (`nil` = removed) and publishes its event in one step.
    func publishState(_ kind: AuthEvent.Kind, provider: AuthProviderID, flowID: FlowID?, session: AuthSession?) {
        lock.lock()
        defer { lock.unlock() }
        sessions[provider] = session
        unavailable[provider] = nil
        stateVersions[provider, default: 0] += 1
        if let flowID, cancelled.contains(flowID) { return }
        announced[provider] = session != nil
        bus.publish(kind, provider: provider, flowID: flowID)
    }

    /// Records that `provider` has no session and publishes `kind` (a `signedOut`), unless the
    /// last state event this client published already announced the end of its session (a
    /// concurrent sign-out on this client got there first). Returns whether it published.
    func publishEndUnlessAnnounced(_ kind: AuthEvent.Kind, provider: AuthProviderID) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        sessions[provider] = nil
        unavailable[provider] = nil
        if announced[provider] == false { return false }
        stateVersions[provider, default: 0] += 1
        announced[provider] = false
        bus.publish(kind, provider: provider, flowID: nil)
        return true
    }

    /// The per-provider count of state changes so far: the mark ``restore(_:since:providers:now:)``
    /// compares with.
    func stateMark() -> [AuthProviderID: UInt64] {
        lock.lock()
        defer { lock.unlock() }
        return stateVersions
    }

    /// Installs `loaded` (read from the store after `mark` was taken) as the client's state and
    /// publishes `sessionRestored` for each loaded session, in one locked step — except for
    /// providers whose state changed since `mark` (a sign-in, refresh or sign-out that finished
    /// while the store was read): their newer state stands and nothing is published for them.
    /// - Returns: The state as installed (expiry judged at `now`) and the providers whose
    ///   sessions were restored, in `providers` order.
    func restore(
        _ loaded: AuthState, since mark: [AuthProviderID: UInt64], providers: [AuthProviderID], now: Date
    ) -> (AuthState, [AuthProviderID]) {
        lock.lock()
        defer { lock.unlock() }
        var restored: [AuthProviderID] = []
        for id in providers where stateVersions[id, default: 0] == mark[id, default: 0] {
            sessions[id] = loaded.sessions[id]?.session
            unavailable[id] = loaded.unavailable[id]
            if let entry = loaded.sessions[id] {
                announced[id] = true
                bus.publish(.sessionRestored(entry.session), provider: id, flowID: nil)
                restored.append(id)
            }
        }
        stateLoaded = true
        let state = AuthState(
            sessions: sessions.mapValues { AuthState.Entry(session: $0, isExpired: $0.isExpired(at: now)) },
            unavailable: unavailable)
        return (state, restored)
    }

    /// Registers a subscriber whose first event is the state: a snapshot taken atomically with
    /// the registration when the state is loaded, else `load()` run at first iteration.
    /// With `skipRepeats`, a state event that repeats what the stream has shown is skipped.
    func subscribeWithState(
        bufferCapacity: Int, skipRepeats: Bool, now: @escaping @Sendable () -> Date,
        load: @escaping @Sendable () async -> AuthState
    ) -> AuthEventStream {
        lock.lock()
        defer { lock.unlock() }
        guard stateLoaded else {
            return bus.subscribe(
                bufferCapacity: bufferCapacity, initial: { (nil, .initialState(await load())) },
                skipRepeats: skipRepeats)
        }
        let taken = now()
        let snapshot = AuthState(
            sessions: sessions.mapValues { AuthState.Entry(session: $0, isExpired: $0.isExpired(at: taken)) },
            unavailable: unavailable)
        return bus.subscribe(
            bufferCapacity: bufferCapacity, initial: { (nil, .initialState(snapshot)) }, skipRepeats: skipRepeats)
    }

    /// Publishes `flowCancelled` once for `flowID`; returns whether this call did it.
    @discardableResult
    func cancel(_ flowID: FlowID, provider: AuthProviderID) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard cancelled.insert(flowID).inserted else { return false }
        bus.publish(.flowCancelled, provider: provider, flowID: flowID)
        return true
    }

    /// Whether `flowCancelled` was published for `flowID`.
    func isCancelled(_ flowID: FlowID) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled.contains(flowID)
    }

    /// Forgets a finished flow's cancellation mark once nothing can publish for it any more.
    func forget(_ flowID: FlowID) {
        lock.lock()
        cancelled.remove(flowID)
        lock.unlock()
    }
}
