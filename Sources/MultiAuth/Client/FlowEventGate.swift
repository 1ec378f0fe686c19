import Foundation
import MultiAuthLocking

/// Publishes a client's events on its bus, with two guarantees the bus alone cannot give:
///
/// - Every event of a flow is dropped once `flowCancelled` was published for it (invariant 6).
///   One `Locked` state makes "is the flow cancelled?" and "publish" one step, so a provider
///   event racing a cancellation is either published before `flowCancelled` or not at all.
/// - The client's session-state cache changes in the same locked step as the state event that
///   announces it, so `authStates()` can snapshot the state and register a subscriber
///   atomically: every later change reaches that subscriber as an event (Docs/Cases.md, B21).
final class FlowEventGate: Sendable {
    private struct State {
        var cancelled: Set<FlowID> = []
        var sessions: [AuthProviderID: AuthSession] = [:]
        var unavailable: [AuthProviderID: AuthError] = [:]
        var stateLoaded = false
        /// Per provider, how many state changes were recorded (a mark for
        /// ``FlowEventGate/restore(_:since:providers:now:)``).
        var stateVersions: [AuthProviderID: UInt64] = [:]
        /// Per provider, whether the last state event this client published announced a session
        /// (`false`: it announced the session's end).
        var announced: [AuthProviderID: Bool] = [:]
        /// The newest challenge a provider published for a flow (e.g. after a channel fallback),
        /// so the client's pending challenge follows it.
        var updatedChallenges: [FlowID: Challenge] = [:]
    }

    private let state = Locked(State())
    let bus: AuthEventBus

    init(bus: AuthEventBus) { self.bus = bus }

    /// Publishes unless `flowID` was cancelled.
    @discardableResult
    func publish(_ kind: AuthEvent.Kind, provider: AuthProviderID?, flowID: FlowID?) -> Bool {
        state.withLock { state in
            if let flowID, state.cancelled.contains(flowID) { return false }
            bus.publish(kind, provider: provider, flowID: flowID)
            return true
        }
    }

    /// Publishes an event a provider emitted; a `challengeIssued` is also remembered as the
    /// flow's newest challenge.
    func publishFromProvider(_ kind: AuthEvent.Kind, provider: AuthProviderID, flowID: FlowID?) {
        state.withLock { state in
            if let flowID, state.cancelled.contains(flowID) { return }
            if case .challengeIssued(let challenge) = kind {
                state.updatedChallenges[challenge.flowID] = challenge
            }
            bus.publish(kind, provider: provider, flowID: flowID)
        }
    }

    /// Takes (and forgets) the newest provider-published challenge of `flowID`, if any.
    func takeUpdatedChallenge(_ flowID: FlowID) -> Challenge? {
        state.withLock { $0.updatedChallenges.removeValue(forKey: flowID) }
    }

    /// Forgets provider-published challenges of a finished flow.
    func forgetChallenges(of flowID: FlowID) {
        state.withLock { $0.updatedChallenges[flowID] = nil }
    }

    /// Records a session change (`nil` = removed) and publishes its event in one step.
    func publishState(_ kind: AuthEvent.Kind, provider: AuthProviderID, flowID: FlowID?, session: AuthSession?) {
        state.withLock { state in
            state.sessions[provider] = session
            state.unavailable[provider] = nil
            state.stateVersions[provider, default: 0] += 1
            if let flowID, state.cancelled.contains(flowID) { return }
            state.announced[provider] = session != nil
            bus.publish(kind, provider: provider, flowID: flowID)
        }
    }

    /// Records that `provider` has no session and publishes `kind` (a `signedOut`), unless the
    /// last state event this client published already announced the end of its session (a
    /// concurrent sign-out on this client got there first). Returns whether it published.
    func publishEndUnlessAnnounced(_ kind: AuthEvent.Kind, provider: AuthProviderID) -> Bool {
        state.withLock { state in
            state.sessions[provider] = nil
            state.unavailable[provider] = nil
            if state.announced[provider] == false { return false }
            state.stateVersions[provider, default: 0] += 1
            state.announced[provider] = false
            bus.publish(kind, provider: provider, flowID: nil)
            return true
        }
    }

    /// The per-provider count of state changes so far: the mark ``restore(_:since:providers:now:)``
    /// compares with.
    func stateMark() -> [AuthProviderID: UInt64] {
        state.withLock { $0.stateVersions }
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
        state.withLock { state in
            var restored: [AuthProviderID] = []
            for id in providers where state.stateVersions[id, default: 0] == mark[id, default: 0] {
                state.sessions[id] = loaded.sessions[id]?.session
                state.unavailable[id] = loaded.unavailable[id]
                if let entry = loaded.sessions[id] {
                    state.announced[id] = true
                    bus.publish(.sessionRestored(entry.session), provider: id, flowID: nil)
                    restored.append(id)
                }
            }
            state.stateLoaded = true
            let installed = AuthState(
                sessions: state.sessions.mapValues { AuthState.Entry(session: $0, isExpired: $0.isExpired(at: now)) },
                unavailable: state.unavailable)
            return (installed, restored)
        }
    }

    /// Registers a subscriber whose first event is the state: a snapshot taken atomically with
    /// the registration when the state is loaded, else `load()` run at first iteration.
    /// With `skipRepeats`, a state event that repeats what the stream has shown is skipped.
    func subscribeWithState(
        bufferCapacity: Int, skipRepeats: Bool, now: @escaping @Sendable () -> Date,
        load: @escaping @Sendable () async -> AuthState
    ) -> AuthEventStream {
        state.withLock { state in
            guard state.stateLoaded else {
                return bus.subscribe(
                    bufferCapacity: bufferCapacity, initial: { (nil, .initialState(await load())) },
                    skipRepeats: skipRepeats)
            }
            let taken = now()
            let snapshot = AuthState(
                sessions: state.sessions.mapValues { AuthState.Entry(session: $0, isExpired: $0.isExpired(at: taken)) },
                unavailable: state.unavailable)
            return bus.subscribe(
                bufferCapacity: bufferCapacity, initial: { (nil, .initialState(snapshot)) }, skipRepeats: skipRepeats)
        }
    }

    /// Publishes `flowCancelled` once for `flowID`; returns whether this call did it.
    @discardableResult
    func cancel(_ flowID: FlowID, provider: AuthProviderID) -> Bool {
        state.withLock { state in
            guard state.cancelled.insert(flowID).inserted else { return false }
            bus.publish(.flowCancelled, provider: provider, flowID: flowID)
            return true
        }
    }

    /// Whether `flowCancelled` was published for `flowID`.
    func isCancelled(_ flowID: FlowID) -> Bool {
        state.withLock { $0.cancelled.contains(flowID) }
    }

    /// Forgets a finished flow's cancellation mark once nothing can publish for it any more.
    func forget(_ flowID: FlowID) {
        _ = state.withLock { $0.cancelled.remove(flowID) }
    }
}
