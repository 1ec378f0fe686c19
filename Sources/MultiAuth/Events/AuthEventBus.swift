import Foundation
import MultiAuthLocking

/// Fans ``AuthEvent``s out to subscribers, each with its own bounded buffer.
///
/// Guarantees:
/// - **Registration is synchronous.** A subscriber is in the table when ``subscribe(bufferCapacity:onTermination:)``
///   returns, so events published right after are never lost (Docs/Cases.md, B22).
/// - **Publish never suspends.** ``publish(_:provider:flowID:)`` takes a short lock (the one of
///   the bus's `Locked` table), stamps the event with the next sequence number and the time
///   source's `now`, appends it to every subscriber's buffer and resumes waiting consumers.
/// - **Order.** Each subscriber receives events in publish order, with rising sequence numbers
///   (consecutive unless its buffer dropped some; a gap marker repeats the number before it).
/// - **Bounded buffers.** Each subscriber buffers at most `bufferCapacity` events (default
///   ``defaultBufferCapacity``). When a subscriber lags and a new event would exceed that, its
///   buffer drops, in order of preference: (1) a state event (``AuthEvent/Kind/isStateEvent``)
///   superseded by a newer state event of the same provider, (2) the oldest flow event. A lagging
///   subscriber therefore keeps the latest state event of every provider, then the newest flow
///   events; when every buffered event is the latest state of a distinct provider, the buffer
///   may grow to twice the capacity before the oldest goes. Dropping costs O(1) amortised per
///   publish (no scan of the buffer), so a subscriber that never reads does not slow the
///   publisher. Before the events that follow a drop, the subscriber receives one
///   ``AuthEvent/Kind/eventsDropped(count:)`` marker with the number dropped
///   (Docs/Events.md, "Buffers and overflow"); ``AuthEventStream/droppedCount`` is the total.
/// - **Registration is O(1).** Subscribing appends to the fan-out array and cancelling swaps
///   the leaving subscriber with the last one (each subscriber knows its slot), both O(1)
///   amortised under the short lock, so 16,000 subscribers coming and going never hold up a
///   publisher for more than one step each (Docs/Events.md, "Cost").
/// - **Cancellation unregisters.** Cancelling the task iterating a stream, or releasing every
///   copy of the stream, removes the subscriber and runs its termination handler once (Docs/Cases.md, B24).
/// - **Finishing** (``finish()``) ends every stream after its buffered events; finishing twice
///   is safe; a publish afterwards reaches nobody and returns ``PublishResult/terminated``.
///
/// Each `AuthClient` owns its own bus, so two clients never share subscribers. Apps see it
/// through ``AuthEventSource`` (subscribe-only): only the client publishes, through the guard
/// that nothing of a flow follows its `flowCancelled`, and only the package's own tests and
/// tools publish or finish directly.
package final class AuthEventBus: Sendable {
    /// The buffer capacity used when `subscribe` is not given one (``AuthEventSource/defaultBufferCapacity``).
    package static let defaultBufferCapacity = AuthEventSource.defaultBufferCapacity

    /// The outcome of one publish.
    package enum PublishResult: Sendable, Equatable {
        /// Appended to this many subscribers' buffers.
        case delivered(subscribers: Int)
        /// The bus was finished; nobody received the event.
        case terminated
    }

    /// The bus's table, in one box shared with every subscriber: its lock is also the lock of
    /// every subscriber's buffer, so a publish takes one lock once, however many subscribers
    /// there are.
    private let table = Locked(EventBusTable())
    private let now: @Sendable () -> Date

    /// Creates a bus whose events are stamped with `timeSource.now`.
    package init(timeSource: TimeSource = .system) {
        self.now = { timeSource.now }
    }

    /// Registers a subscriber and returns its stream. The subscriber is registered before this
    /// returns.
    /// - Parameters:
    ///   - bufferCapacity: The most events buffered for this subscriber (at least 1).
    ///   - onTermination: Runs exactly once when the stream ends (cancelled, released, or the
    ///     bus finished).
    /// - Returns: A single-consumer `AsyncSequence` of events; a stream from a finished bus is
    ///   already finished.
    package func subscribe(
        bufferCapacity: Int = AuthEventBus.defaultBufferCapacity,
        onTermination: (@Sendable () -> Void)? = nil
    ) -> AuthEventStream {
        register(bufferCapacity: bufferCapacity, initial: nil, skipRepeats: false, onTermination: onTermination)
    }

    /// Registers a subscriber whose first element is produced by `initial` when the consumer
    /// first asks for one; events published meanwhile are buffered after it. Used by
    /// `AuthClient.authStates()` to deliver the current state first.
    /// - Parameters:
    ///   - bufferCapacity: The most live events buffered (at least 1).
    ///   - initial: Computes the first event's kind; it gets the sequence number of the last
    ///     event published before registration, so the live events that follow are consecutive.
    ///   - skipRepeats: Whether a state event that repeats the state the stream has shown is
    ///     skipped (``StateView``); the skipped event's sequence number is then missing.
    ///   - onTermination: Runs exactly once when the stream ends (cancelled, released, or the
    ///     bus finished).
    package func subscribe(
        bufferCapacity: Int = AuthEventBus.defaultBufferCapacity,
        initial: @escaping @Sendable () async -> (provider: AuthProviderID?, kind: AuthEvent.Kind),
        skipRepeats: Bool = false,
        onTermination: (@Sendable () -> Void)? = nil
    ) -> AuthEventStream {
        register(
            bufferCapacity: bufferCapacity, initial: initial, skipRepeats: skipRepeats, onTermination: onTermination)
    }

    private func register(
        bufferCapacity: Int,
        initial: (@Sendable () async -> (provider: AuthProviderID?, kind: AuthEvent.Kind))?,
        skipRepeats: Bool,
        onTermination: (@Sendable () -> Void)?
    ) -> AuthEventStream {
        let now = self.now
        let (subscriber, finished) = table.withLock { [table] state -> (EventSubscriber, Bool) in
            let id = state.nextSubscriberID
            state.nextSubscriberID += 1
            var initialLoader: (@Sendable () async -> AuthEvent)?
            if let initial {
                let sequence = state.lastSequence
                initialLoader = {
                    let (provider, kind) = await initial()
                    return AuthEvent(sequence: sequence, timestamp: now(), provider: provider, flowID: nil, kind: kind)
                }
            }
            let subscriber = EventSubscriber(
                id: id, capacity: bufferCapacity, lastSequence: state.lastSequence, table: table,
                initialLoader: initialLoader, skipRepeats: skipRepeats, onTermination: onTermination)
            if state.isFinished { return (subscriber, true) }
            subscriber.slot = state.fanOut.count
            state.fanOut.append(subscriber)
            state.slotWrites += 1
            return (subscriber, false)
        }
        if finished { subscriber.finish() }
        return AuthEventStream(subscriber: subscriber)
    }

    /// Publishes an event to every current subscriber. Never suspends.
    /// - Returns: How many subscribers received it, or ``PublishResult/terminated`` after
    ///   ``finish()``.
    @discardableResult
    package func publish(_ kind: AuthEvent.Kind, provider: AuthProviderID? = nil, flowID: FlowID? = nil)
        -> PublishResult
    {
        let timestamp = now()
        let delivered = table.withLock {
            state -> (wake: [(UnsafeContinuation<AuthEvent?, Never>, AuthEvent)], count: Int)? in
            if state.isFinished { return nil }
            state.lastSequence += 1
            let event = AuthEvent(
                sequence: state.lastSequence, timestamp: timestamp, provider: provider, flowID: flowID, kind: kind)
            var wake: [(UnsafeContinuation<AuthEvent?, Never>, AuthEvent)] = []
            state.fanOut.withUnsafeBufferPointer { subscribers in
                for subscriber in subscribers {
                    if let waiter = subscriber.enqueueLocked(event) { wake.append(waiter) }
                }
            }
            return (wake, state.fanOut.count)
        }
        guard let delivered else { return .terminated }
        for (continuation, event) in delivered.wake { continuation.resume(returning: event) }
        return .delivered(subscribers: delivered.count)
    }

    /// Ends every stream (after its buffered events) and refuses later publishes. Idempotent.
    package func finish() {
        let all: [EventSubscriber] = table.withLock { state in
            guard !state.isFinished else { return [] }
            state.isFinished = true
            let all = state.fanOut
            for subscriber in all { subscriber.slot = -1 }
            state.fanOut.removeAll()
            return all
        }
        for subscriber in all { subscriber.finish() }
    }

    /// The number of registered subscribers.
    package var subscriberCount: Int {
        table.withLock { $0.fanOut.count }
    }

    /// Subscriber slots written so far by registrations and removals: at most one per
    /// subscribe and two per removal, whatever the number of subscribers (test seam for the
    /// O(1) registration guarantee).
    package var registrationWork: Int {
        table.withLock { $0.slotWrites }
    }

    /// The sequence number of the last published event (0 before the first).
    package var currentSequence: UInt64 {
        table.withLock { $0.lastSequence }
    }

    /// Whether ``finish()`` was called.
    package var isTerminated: Bool {
        table.withLock { $0.isFinished }
    }
}

/// What an ``AuthEventBus`` keeps, in the one `Locked` box the bus shares with its
/// subscribers: the box's lock also guards every subscriber's buffer (``EventSubscriber``).
struct EventBusTable {
    /// The registered subscribers, in no particular order; each one's ``EventSubscriber/slot``
    /// is its index here, so removal is a swap with the last element.
    var fanOut: [EventSubscriber] = []
    /// Subscriber slots written by registrations and removals (one per subscribe, at most two
    /// per removal): the work the table does, for the complexity test.
    var slotWrites = 0
    var nextSubscriberID: UInt64 = 0
    var lastSequence: UInt64 = 0
    var isFinished = false

    /// Unregisters `subscriber` in O(1) (the last subscriber takes its slot); runs inside the
    /// box's `withLock`. A subscriber not in the table (already removed, or the bus finished) is
    /// left alone.
    mutating func remove(_ subscriber: EventSubscriber) {
        let slot = subscriber.slot
        guard slot >= 0, slot < fanOut.count, fanOut[slot] === subscriber else { return }
        let last = fanOut.removeLast()
        slotWrites += 1
        if last !== subscriber {
            fanOut[slot] = last
            last.slot = slot
            slotWrites += 1
        }
        subscriber.slot = -1
    }
}
