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
        if let flowID, cancelled.contains(flowID) { return }
        bus.publish(kind, provider: provider, flowID: flowID)
    }

    /// Replaces the cached state with what was loaded from the store and marks it loaded.
    func setLoadedState(_ state: AuthState) {
        lock.lock()
        sessions = state.sessions.mapValues(\.session)
        unavailable = state.unavailable
        stateLoaded = true
        lock.unlock()
    }

    /// Registers a subscriber whose first event is the state: a snapshot taken atomically with
    /// the registration when the state is loaded, else `load()` run at first iteration.
    func subscribeWithState(
        bufferCapacity: Int, now: @escaping @Sendable () -> Date, load: @escaping @Sendable () async -> AuthState
    ) -> AuthEventStream {
        lock.lock()
        defer { lock.unlock() }
        guard stateLoaded else {
            return bus.subscribe(bufferCapacity: bufferCapacity) { (nil, .initialState(await load())) }
        }
        let taken = now()
        let snapshot = AuthState(
            sessions: sessions.mapValues { AuthState.Entry(session: $0, isExpired: $0.isExpired(at: taken)) },
            unavailable: unavailable)
        return bus.subscribe(bufferCapacity: bufferCapacity) { (nil, .initialState(snapshot)) }
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
