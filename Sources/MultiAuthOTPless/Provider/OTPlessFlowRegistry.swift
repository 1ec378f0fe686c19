import Foundation
import MultiAuth
import MultiAuthLocking

/// The provider's in-memory table of flows it started: each flow's latest challenge (after a
/// fallback the channel changes), the channels that failed during the attempt, its status
/// poller, and the deep-link codes already exchanged (single use).
///
/// Thread-safe (one `Locked` state, held only for short synchronous table updates). Pollers are
/// cancelled outside the lock.
final class OTPlessFlowRegistry: Sendable {
    struct Flow {
        var challenge: Challenge
        var poller: Task<Void, Never>?
        var pollerID: UInt64 = 0
    }

    private struct State {
        var flows: [FlowID: Flow] = [:]
        var consumedCodes: Set<String> = []
        var consumedOrder: [String] = []
        var nextPollerID: UInt64 = 0
    }

    private let state = Locked(State())

    /// Records (or replaces) a flow's challenge, keeping its poller.
    func record(_ challenge: Challenge) {
        state.withLock { $0.flows[challenge.flowID, default: Flow(challenge: challenge)].challenge = challenge }
    }

    /// The latest challenge of `flowID`, if the flow is still known.
    func challenge(for flowID: FlowID) -> Challenge? {
        state.withLock { $0.flows[flowID]?.challenge }
    }

    /// Applies `change` to a known flow's challenge and returns the result (`nil` when the flow
    /// ended meanwhile).
    func update(_ flowID: FlowID, _ change: (inout Challenge) -> Void) -> Challenge? {
        state.withLock { state in
            guard state.flows[flowID] != nil else { return nil }
            change(&state.flows[flowID]!.challenge)
            return state.flows[flowID]!.challenge
        }
    }

    /// Installs the poller made by `makePoller` for `flowID`, cancelling the one it replaces.
    /// The poller receives its id so it can remove itself with ``pollerFinished(_:id:)``.
    func setPoller(for flowID: FlowID, _ makePoller: (UInt64) -> Task<Void, Never>) {
        let (task, old, orphan) = state.withLock { state in
            state.nextPollerID += 1
            let id = state.nextPollerID
            let task = makePoller(id)
            let old = state.flows[flowID]?.poller
            if state.flows[flowID] != nil {
                state.flows[flowID]!.poller = task
                state.flows[flowID]!.pollerID = id
            }
            return (task, old, state.flows[flowID] == nil)
        }
        old?.cancel()
        if orphan { task.cancel() }
    }

    /// Called by a poller when it ends on its own.
    func pollerFinished(_ flowID: FlowID, id: UInt64) {
        state.withLock { state in
            if state.flows[flowID]?.pollerID == id { state.flows[flowID]!.poller = nil }
        }
    }

    /// Stops the poller of `flowID` (the flow stays known).
    func stopPolling(_ flowID: FlowID) {
        let task = state.withLock { state in
            let task = state.flows[flowID]?.poller
            state.flows[flowID]?.poller = nil
            return task
        }
        task?.cancel()
    }

    /// Stops every poller (the SDK stops all polling on a new start).
    func stopAllPolling() {
        let tasks = state.withLock { state in
            let tasks = state.flows.values.compactMap(\.poller)
            for key in state.flows.keys { state.flows[key]!.poller = nil }
            return tasks
        }
        for task in tasks { task.cancel() }
    }

    /// Ends a flow: stops its poller and forgets it.
    func end(_ flowID: FlowID) {
        let task = state.withLock { $0.flows.removeValue(forKey: flowID)?.poller }
        task?.cancel()
    }

    /// The number of pollers running (diagnostics and tests).
    var activePollerCount: Int {
        state.withLock { state in state.flows.values.filter { $0.poller != nil }.count }
    }

    /// Marks a deep-link code as used; `false` when it already was (single use).
    func consume(code: String) -> Bool {
        state.withLock { state in
            guard state.consumedCodes.insert(code).inserted else { return false }
            state.consumedOrder.append(code)
            if state.consumedOrder.count > 1024 { state.consumedCodes.remove(state.consumedOrder.removeFirst()) }
            return true
        }
    }

    /// Makes a code usable again (its exchange failed before the server saw it).
    func release(code: String) {
        state.withLock { state in
            state.consumedCodes.remove(code)
            state.consumedOrder.removeAll { $0 == code }
        }
    }
}
