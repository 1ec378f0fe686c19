import Foundation

/// Publishes flow events on a bus, and drops every event of a flow once `flowCancelled` was
/// published for it (invariant 6: nothing after `flowCancelled`).
///
/// A lock makes "is the flow cancelled?" and "publish" one step, so a provider event racing a
/// cancellation is either published before `flowCancelled` or not at all.
final class FlowEventGate: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled: Set<FlowID> = []
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
