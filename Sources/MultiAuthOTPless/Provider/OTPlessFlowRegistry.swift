import Foundation
import MultiAuth

/// The provider's in-memory table of flows it started: each flow's latest challenge (after a
/// fallback the channel changes), the channels that failed during the attempt, its status
/// poller, and the deep-link codes already exchanged (single use).
///
/// Thread-safe (one lock, held only for short synchronous table updates). Pollers are cancelled
/// outside the lock.
final class OTPlessFlowRegistry: @unchecked Sendable {
    struct Flow {
        var challenge: Challenge
        var poller: Task<Void, Never>?
        var pollerID: UInt64 = 0
    }

    private let lock = NSLock()
    private var flows: [FlowID: Flow] = [:]
    private var consumedCodes: Set<String> = []
    private var consumedOrder: [String] = []
    private var nextPollerID: UInt64 = 0

    /// Records (or replaces) a flow's challenge, keeping its poller.
    func record(_ challenge: Challenge) {
        lock.lock()
        defer { lock.unlock() }
        flows[challenge.flowID, default: Flow(challenge: challenge)].challenge = challenge
    }

    /// The latest challenge of `flowID`, if the flow is still known.
    func challenge(for flowID: FlowID) -> Challenge? {
        lock.lock()
        defer { lock.unlock() }
        return flows[flowID]?.challenge
    }

    /// Applies `change` to a known flow's challenge and returns the result (`nil` when the flow
    /// ended meanwhile).
    func update(_ flowID: FlowID, _ change: (inout Challenge) -> Void) -> Challenge? {
        lock.lock()
        defer { lock.unlock() }
        guard flows[flowID] != nil else { return nil }
        change(&flows[flowID]!.challenge)
        return flows[flowID]!.challenge
    }

    /// Installs the poller made by `makePoller` for `flowID`, cancelling the one it replaces.
    /// The poller receives its id so it can remove itself with ``pollerFinished(_:id:)``.
    func setPoller(for flowID: FlowID, _ makePoller: (UInt64) -> Task<Void, Never>) {
        lock.lock()
        nextPollerID += 1
        let id = nextPollerID
        let task = makePoller(id)
        let old = flows[flowID]?.poller
        if flows[flowID] != nil {
            flows[flowID]!.poller = task
            flows[flowID]!.pollerID = id
        }
        let orphan = flows[flowID] == nil
        lock.unlock()
        old?.cancel()
        if orphan { task.cancel() }
    }

    /// Called by a poller when it ends on its own.
    func pollerFinished(_ flowID: FlowID, id: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        if flows[flowID]?.pollerID == id { flows[flowID]!.poller = nil }
    }

    /// Stops the poller of `flowID` (the flow stays known).
    func stopPolling(_ flowID: FlowID) {
        lock.lock()
        let task = flows[flowID]?.poller
        flows[flowID]?.poller = nil
        lock.unlock()
        task?.cancel()
    }

    /// Stops every poller (the SDK stops all polling on a new start).
    func stopAllPolling() {
        lock.lock()
        let tasks = flows.values.compactMap(\.poller)
        for key in flows.keys { flows[key]!.poller = nil }
        lock.unlock()
        for task in tasks { task.cancel() }
    }

    /// Ends a flow: stops its poller and forgets it.
    func end(_ flowID: FlowID) {
        lock.lock()
        let task = flows.removeValue(forKey: flowID)?.poller
        lock.unlock()
        task?.cancel()
    }

    /// The number of pollers running (diagnostics and tests).
    var activePollerCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return flows.values.filter { $0.poller != nil }.count
    }

    /// Marks a deep-link code as used; `false` when it already was (single use).
    func consume(code: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard consumedCodes.insert(code).inserted else { return false }
        consumedOrder.append(code)
        if consumedOrder.count > 1024 { consumedCodes.remove(consumedOrder.removeFirst()) }
        return true
    }

    /// Makes a code usable again (its exchange failed before the server saw it).
    func release(code: String) {
        lock.lock()
        defer { lock.unlock() }
        consumedCodes.remove(code)
        consumedOrder.removeAll { $0 == code }
    }
}
