import Foundation
import MultiAuthLocking

/// One subscriber's bounded buffer (``EventBuffer``) and waiting consumer. Internal; shared by
/// the bus and the subscriber's ``AuthEventStream``. Its state is guarded by the lock of the
/// bus's `Locked` table (shared, so it outlives the bus if the stream does).
// @unchecked: its fields are guarded by the lock of the bus's table (``EventBusTable``), not by
// a box of its own, so that a publish takes one lock for every subscriber (Docs/Events.md, "Cost").
final class EventSubscriber: @unchecked Sendable {
    let id: UInt64
    /// This subscriber's index in the bus's fan-out array, or -1 when not registered; guarded
    /// by the lock of ``table``.
    @exclusivity(unchecked) var slot = -1
    /// The bus's table, whose lock guards every field below.
    private let table: Locked<EventBusTable>
    @exclusivity(unchecked) private var buffer: EventBuffer
    @exclusivity(unchecked) private var waiter: UnsafeContinuation<AuthEvent?, Never>?
    @exclusivity(unchecked) private var finished = false
    @exclusivity(unchecked) private var terminated = false
    /// The sequence number of the last element handed to the consumer (the bus's sequence at
    /// registration before the first); an ``AuthEvent/Kind/eventsDropped(count:)`` marker repeats it.
    @exclusivity(unchecked) private var lastDelivered: UInt64
    @exclusivity(unchecked) private var initialLoader: (@Sendable () async -> AuthEvent)?
    @exclusivity(unchecked) private var onTermination: (@Sendable () -> Void)?
    /// For a stream that starts with a state (`authStates()`): the state its consumer has seen,
    /// so a state event that repeats it is skipped. Touched only by the single consumer.
    @exclusivity(unchecked) private var view: StateView?
    private let skipRepeats: Bool

    init(
        id: UInt64, capacity: Int, lastSequence: UInt64, table: Locked<EventBusTable>,
        initialLoader: (@Sendable () async -> AuthEvent)?,
        skipRepeats: Bool = false,
        onTermination: (@Sendable () -> Void)?
    ) {
        self.skipRepeats = skipRepeats
        self.id = id
        self.buffer = EventBuffer(capacity: capacity)
        self.lastDelivered = lastSequence
        self.table = table
        self.initialLoader = initialLoader
        self.onTermination = onTermination
    }

    /// Appends `event`, or hands it to the waiting consumer (returned, to resume outside the
    /// lock of ``table``, which the caller holds).
    func enqueueLocked(_ event: AuthEvent) -> (UnsafeContinuation<AuthEvent?, Never>, AuthEvent)? {
        if terminated || finished { return nil }
        if initialLoader == nil, let waiter {
            // A consumer waits only on an empty buffer with no pending gap.
            self.waiter = nil
            lastDelivered = event.sequence
            return (waiter, event)
        }
        buffer.append(event)
        return nil
    }

    /// The next element for the consumer, with the lock of ``table`` held: a gap marker if events were dropped
    /// since the last element, else the oldest buffered event.
    private func takeNext() -> AuthEvent? {
        if buffer.gap > 0 {
            let gap = buffer.takeGap()
            return AuthEvent(
                sequence: lastDelivered, timestamp: gap.timestamp, provider: nil, flowID: nil,
                kind: .eventsDropped(count: gap.count))
        }
        guard let event = buffer.popFirst() else { return nil }
        lastDelivered = event.sequence
        return event
    }

    func next() async -> AuthEvent? {
        if let loader = takeInitialLoader() {
            let event = await loader()
            if skipRepeats, case .initialState(let state) = event.kind { view = StateView(state) }
            return event
        }
        while true {
            guard let event = await nextBuffered() else { return nil }
            if view?.repeats(event) != true { return event }
        }
    }

    private func nextBuffered() async -> AuthEvent? {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<AuthEvent?, Never>) in
                let ready: AuthEvent?? = table.withLock { _ in
                    if let event = takeNext() { return .some(event) }
                    if finished || terminated || Task.isCancelled { return .some(nil) }
                    waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            self.cancel()
        }
    }

    /// Takes the initial loader, once; `nil` when there is none or the stream was cancelled. A
    /// cancelled stream's loader is dropped after the lock of ``table``, not inside it: it may hold
    /// the last reference to the client, whose release may publish on this bus or cancel a
    /// stream, which takes that lock.
    private func takeInitialLoader() -> (@Sendable () async -> AuthEvent)? {
        let (loader, cancelled) = table.withLock { _ in
            let loader = initialLoader
            initialLoader = nil
            return (loader, terminated)
        }
        return cancelled ? nil : loader
    }

    var droppedCount: Int {
        table.withLock { _ in buffer.totalDropped }
    }

    /// Ends the stream after buffered events (bus finished).
    func finish() {
        let (waiter, handler) = table.withLock { _ in
            finished = true
            let waiter = buffer.count == 0 && buffer.gap == 0 ? self.waiter : nil
            if waiter != nil { self.waiter = nil }
            return (waiter, takeTerminationHandler())
        }
        waiter?.resume(returning: nil)
        handler?()
    }

    /// Ends the stream now (consumer cancelled or released): unregisters and drops the buffer.
    func cancel() {
        let ended: (UnsafeContinuation<AuthEvent?, Never>?, (@Sendable () -> Void)?)? = table.withLock { table in
            if terminated { return nil }
            terminated = true
            buffer.removeAll()
            let waiter = self.waiter
            self.waiter = nil
            let handler = takeTerminationHandler()
            table.remove(self)
            return (waiter, handler)
        }
        guard let ended else { return }
        ended.0?.resume(returning: nil)
        ended.1?()
    }

    /// Must be called with the lock of ``table`` held. Returns the handler at most once.
    private func takeTerminationHandler() -> (@Sendable () -> Void)? {
        let handler = onTermination
        onTermination = nil
        return handler
    }
}

/// What the consumer of a state stream has seen per provider: a session (its version) or none.
/// A state event outside any flow that changes nothing in it repeats what the stream already
/// showed (a session in the initial state that `restoreSessions()` then announces, or a refresh
/// or sign-out that an initial state read after the subscription already reflects); it is
/// skipped, so every state change appears once on the stream. A flow's `signedIn` is always
/// delivered: it ends the flow's events (Docs/Events.md, "Every state change once").
struct StateView {
    /// Per provider, the session last shown (`.some(nil)`: none shown).
    private var shown: [AuthProviderID: AuthSession?] = [:]
    /// Whether a provider without an entry is known to have no session (after an initial
    /// state) rather than unknown (after dropped events).
    private var complete = true
    /// Providers whose store was unavailable at the initial state: unknown.
    private var unknown: Set<AuthProviderID> = []

    init(_ state: AuthState) {
        for (provider, entry) in state.sessions { shown[provider] = .some(entry.session) }
        unknown = Set(state.unavailable.keys)
    }

    /// Whether `event` repeats the state shown; otherwise folds it in.
    mutating func repeats(_ event: AuthEvent) -> Bool {
        let next: AuthSession?
        switch event.kind {
        case .eventsDropped:
            // After a gap nothing is assumed.
            shown.removeAll()
            complete = false
            return false
        case .initialState(let state):
            self = StateView(state)
            return false
        case .signedIn(let session), .sessionRestored(let session), .sessionRefreshed(let session):
            next = session
        case .signedOut, .sessionExpired:
            next = nil
        default:
            return false
        }
        guard let provider = event.provider else { return false }
        // A flow's events are delivered whole: its `signedIn` ends it even when an initial state
        // read after the subscription already shows the session.
        let partOfAFlow = event.flowID != nil
        let before: AuthSession??
        if let entry = shown[provider] {
            before = .some(entry)
        } else if complete && !unknown.contains(provider) {
            before = .some(nil)
        } else {
            before = .none
        }
        shown[provider] = .some(next)
        unknown.remove(provider)
        guard !partOfAFlow, case .some(let old) = before else { return false }
        return AuthSession.isSameVersion(old, next)
    }
}
