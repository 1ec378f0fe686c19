import Foundation
import MultiAuth
import MultiAuthLocking

/// Records every event an `AuthClient` publishes (its ``/MultiAuth/AuthClient/events``), for
/// assertions: ``events``, ``kinds``, and ``waitFor(count:)`` to wait without sleeping.
///
/// The subscription is registered synchronously in `init`, so no event published after `init`
/// returns is missed (Docs/Cases.md, B22). Events are moved from the bus into the recorder by a task the
/// recorder owns; it ends when the bus finishes, on ``cancel()`` or when the recorder is
/// released. The recorder subscribes with a large buffer (default 4096 events) so a test
/// never loses events to the bus's drop policy.
///
/// Thread-safe (its fields are in one `Locked` state).
public final class RecordingSubscriber: Sendable {
    private struct Waiter: Sendable {
        let id: UInt64
        let count: Int
        let continuation: CheckedContinuation<[AuthEvent], Never>
    }

    /// The recorder's mutable fields, only touched inside `state.withLock`.
    private struct State {
        var recorded: [AuthEvent] = []
        var waiters: [Waiter] = []
        var nextWaiterID: UInt64 = 0
        var ended = false
        var pump: Task<Void, Never>?
    }

    private let state = Locked(State())
    private let stream: AuthEventStream

    /// Subscribes to `events` now.
    /// - Parameters:
    ///   - events: The events to record (a client's ``/MultiAuth/AuthClient/events``).
    ///   - bufferCapacity: The subscription's buffer size (events).
    public init(events: AuthEventSource, bufferCapacity: Int = 4096) {
        let stream = events.subscribe(bufferCapacity: bufferCapacity)
        self.stream = stream
        // Owned by this recorder (`pump`); ends when the bus finishes or the stream is
        // cancelled by `cancel()` / `deinit`.
        let task = Task { [weak self] in
            for await event in stream {
                guard let self else { return }
                self.append(event)
            }
            self?.end()
        }
        state.withLock { $0.pump = task }
    }

    /// Subscribes to `client`'s events now (live events only, no initial state).
    public convenience init(client: AuthClient, bufferCapacity: Int = 4096) {
        self.init(events: client.events, bufferCapacity: bufferCapacity)
    }

    /// Subscribes to a bus of the package's own tests now.
    package convenience init(bus: AuthEventBus, bufferCapacity: Int = 4096) {
        self.init(events: AuthEventSource(bus: bus), bufferCapacity: bufferCapacity)
    }

    deinit {
        stream.cancel()
        state.withLock { $0.pump }?.cancel()
    }

    /// Every event recorded so far, in publish order.
    public var events: [AuthEvent] {
        state.withLock { $0.recorded }
    }

    /// The case names of ``events``, e.g. `["flowStarted", "challengeIssued", "signedIn"]`.
    public var kinds: [String] { events.map(\.kind.name) }

    /// The events of one flow.
    public func events(of flowID: FlowID) -> [AuthEvent] { events.filter { $0.flowID == flowID } }

    /// Suspends until at least `count` events were recorded (or the subscription ended), then
    /// returns every recorded event. Resumed by the recording itself: no sleeping. Returns
    /// what was recorded so far when the waiting task is cancelled (e.g. by a test's time
    /// limit), so a hang guard ends the test instead of leaving it suspended.
    public func waitFor(count: Int) async -> [AuthEvent] {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[AuthEvent], Never>) in
                let events = state.withLock { state -> [AuthEvent]? in
                    if state.recorded.count >= count || state.ended || Task.isCancelled { return state.recorded }
                    state.waiters.append(Waiter(id: id, count: count, continuation: continuation))
                    return nil
                }
                if let events { continuation.resume(returning: events) }
            }
        } onCancel: {
            let (waiter, events) = state.withLock { state in
                let index = state.waiters.firstIndex { $0.id == id }
                return (index.map { state.waiters.remove(at: $0) }, state.recorded)
            }
            waiter?.continuation.resume(returning: events)
        }
    }

    /// Suspends until an event named `kind` (e.g. `"signedIn"`) was recorded, and returns the
    /// first one; `nil` when the subscription ended without one.
    public func waitFor(kind: String) async -> AuthEvent? {
        var seen = 0
        while true {
            let events = await waitFor(count: seen + 1)
            if let match = events.first(where: { $0.kind.name == kind }) { return match }
            if events.count <= seen { return nil }
            seen = events.count
        }
    }

    /// Stops recording: unregisters from the bus and resumes every waiter with what was
    /// recorded.
    public func cancel() {
        stream.cancel()
        end()
    }

    /// Creates a recorder attached to no client, fed through ``sink(provider:flowID:)``: for
    /// driving a provider directly with an `AuthContext` (a bus of its own that nothing else
    /// publishes on).
    public convenience init() {
        self.init(bus: AuthEventBus(), bufferCapacity: 1)
    }

    /// An event sink for `AuthContext(events:)` that records each event at once, in the
    /// caller's task (no pump: ``events`` holds it when the provider call returns). Events are
    /// stamped with `provider`, `flowID`, the next sequence number and the Unix epoch as
    /// timestamp (no clock is read).
    public func sink(provider: AuthProviderID? = nil, flowID: FlowID? = nil) -> @Sendable (AuthEvent.Kind) -> Void {
        { [weak self] kind in
            guard let self else { return }
            let sequence = UInt64(self.state.withLock { $0.recorded.count } + 1)
            self.append(
                AuthEvent(
                    sequence: sequence, timestamp: Date(timeIntervalSince1970: 0), provider: provider, flowID: flowID,
                    kind: kind))
        }
    }

    private func append(_ event: AuthEvent) {
        let (ready, events) = state.withLock { state in
            state.recorded.append(event)
            let count = state.recorded.count
            var ready: [(CheckedContinuation<[AuthEvent], Never>)] = []
            state.waiters.removeAll { waiter in
                guard count >= waiter.count else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return (ready, state.recorded)
        }
        for continuation in ready { continuation.resume(returning: events) }
    }

    private func end() {
        let (ready, events) = state.withLock { state in
            state.ended = true
            let ready = state.waiters.map(\.continuation)
            state.waiters.removeAll()
            return (ready, state.recorded)
        }
        for continuation in ready { continuation.resume(returning: events) }
    }
}
