import Foundation

/// Fans ``AuthEvent``s out to subscribers, each with its own bounded buffer.
///
/// Guarantees:
/// - **Registration is synchronous.** A subscriber is in the table when ``subscribe(bufferCapacity:onTermination:)``
///   returns, so events published right after are never lost (Docs/Cases.md, B22).
/// - **Publish never suspends.** ``publish(_:provider:flowID:)`` takes a short lock, stamps the
///   event with the next sequence number and the time source's `now`, appends it to every
///   subscriber's buffer and resumes waiting consumers.
/// - **Order.** Each subscriber receives events in publish order, with rising sequence numbers
///   (consecutive unless its buffer dropped some).
/// - **Bounded buffers.** Each subscriber buffers at most `bufferCapacity` events (default
///   ``defaultBufferCapacity``). When a new event would exceed it, the bus drops, in order of
///   preference: (1) the oldest *flow* event (not ``AuthEvent/Kind/isStateEvent``), (2) the
///   oldest state event that a newer state event of the same provider supersedes. State events
///   are therefore never dropped in favour of older noise (Docs/Cases.md, B25); memory stays bounded by
///   twice the capacity, even with many provider ids (then the oldest state event goes).
///   Trimming is linear in the buffer size. Dropped events are counted
///   (``AuthEventStream/droppedCount``).
/// - **Cancellation unregisters.** Cancelling the task iterating a stream, or releasing every
///   copy of the stream, removes the subscriber and runs its termination handler once (Docs/Cases.md, B24).
/// - **Finishing** (``finish()``) ends every stream after its buffered events; finishing twice
///   is safe; a publish afterwards reaches nobody and returns ``PublishResult/terminated``.
///
/// Each `AuthClient` owns its own bus, so two clients never share subscribers.
public final class AuthEventBus: @unchecked Sendable {
    /// The buffer capacity used when `subscribe` is not given one: 256 events.
    public static let defaultBufferCapacity = 256

    /// The outcome of one publish.
    public enum PublishResult: Sendable, Equatable {
        /// Appended to this many subscribers' buffers.
        case delivered(subscribers: Int)
        /// The bus was finished; nobody received the event.
        case terminated
    }

    private let lock = NSLock()
    private var subscribers: [UInt64: EventSubscriber] = [:]
    private var nextSubscriberID: UInt64 = 0
    private var lastSequence: UInt64 = 0
    private var isFinished = false
    private let now: @Sendable () -> Date

    /// Creates a bus whose events are stamped with `timeSource.now`.
    public init(timeSource: TimeSource = .system) {
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
    public func subscribe(
        bufferCapacity: Int = AuthEventBus.defaultBufferCapacity,
        onTermination: (@Sendable () -> Void)? = nil
    ) -> AuthEventStream {
        register(bufferCapacity: bufferCapacity, initial: nil, onTermination: onTermination)
    }

    /// Registers a subscriber whose first element is produced by `initial` when the consumer
    /// first asks for one; events published meanwhile are buffered after it. Used by
    /// `AuthClient.authStates()` to deliver the current state first.
    /// - Parameters:
    ///   - bufferCapacity: The most live events buffered (at least 1).
    ///   - initial: Computes the first event's kind; it gets the sequence number of the last
    ///     event published before registration, so the live events that follow are consecutive.
    ///   - onTermination: Runs exactly once when the stream ends (cancelled, released, or the
    ///     bus finished).
    public func subscribe(
        bufferCapacity: Int = AuthEventBus.defaultBufferCapacity,
        initial: @escaping @Sendable () async -> (provider: AuthProviderID?, kind: AuthEvent.Kind),
        onTermination: (@Sendable () -> Void)? = nil
    ) -> AuthEventStream {
        register(bufferCapacity: bufferCapacity, initial: initial, onTermination: onTermination)
    }

    private func register(
        bufferCapacity: Int,
        initial: (@Sendable () async -> (provider: AuthProviderID?, kind: AuthEvent.Kind))?,
        onTermination: (@Sendable () -> Void)?
    ) -> AuthEventStream {
        lock.lock()
        let id = nextSubscriberID
        nextSubscriberID += 1
        var initialLoader: (@Sendable () async -> AuthEvent)?
        if let initial {
            let sequence = lastSequence
            let now = self.now
            initialLoader = {
                let (provider, kind) = await initial()
                return AuthEvent(sequence: sequence, timestamp: now(), provider: provider, flowID: nil, kind: kind)
            }
        }
        let subscriber = EventSubscriber(
            id: id, capacity: max(1, bufferCapacity), initialLoader: initialLoader, onTermination: onTermination)
        subscriber.bus = self
        if isFinished {
            lock.unlock()
            subscriber.finish()
        } else {
            subscribers[id] = subscriber
            lock.unlock()
        }
        return AuthEventStream(subscriber: subscriber)
    }

    /// Publishes an event to every current subscriber. Never suspends.
    /// - Returns: How many subscribers received it, or ``PublishResult/terminated`` after
    ///   ``finish()``.
    @discardableResult
    public func publish(_ kind: AuthEvent.Kind, provider: AuthProviderID? = nil, flowID: FlowID? = nil) -> PublishResult {
        let timestamp = now()
        lock.lock()
        if isFinished {
            lock.unlock()
            return .terminated
        }
        lastSequence += 1
        let event = AuthEvent(sequence: lastSequence, timestamp: timestamp, provider: provider, flowID: flowID, kind: kind)
        var wake: [(UnsafeContinuation<AuthEvent?, Never>, AuthEvent)] = []
        for subscriber in subscribers.values {
            if let waiter = subscriber.enqueue(event) { wake.append(waiter) }
        }
        let count = subscribers.count
        lock.unlock()
        for (continuation, event) in wake { continuation.resume(returning: event) }
        return .delivered(subscribers: count)
    }

    /// Ends every stream (after its buffered events) and refuses later publishes. Idempotent.
    public func finish() {
        lock.lock()
        guard !isFinished else {
            lock.unlock()
            return
        }
        isFinished = true
        let all = Array(subscribers.values)
        subscribers.removeAll()
        lock.unlock()
        for subscriber in all { subscriber.finish() }
    }

    /// The number of registered subscribers.
    public var subscriberCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return subscribers.count
    }

    /// The sequence number of the last published event (0 before the first).
    public var currentSequence: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return lastSequence
    }

    /// Whether ``finish()`` was called.
    public var isTerminated: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isFinished
    }

    func remove(_ id: UInt64) {
        lock.lock()
        subscribers[id] = nil
        lock.unlock()
    }
}

/// One subscriber's bounded buffer and waiting consumer. Internal; shared by the bus and the
/// subscriber's ``AuthEventStream``.
final class EventSubscriber: @unchecked Sendable {
    let id: UInt64
    let capacity: Int
    weak var bus: AuthEventBus?
    private let lock = NSLock()
    private var buffer: [AuthEvent] = []
    private var head = 0
    private var waiter: UnsafeContinuation<AuthEvent?, Never>?
    private var finished = false
    private var terminated = false
    private var dropped = 0
    private var initialLoader: (@Sendable () async -> AuthEvent)?
    private var onTermination: (@Sendable () -> Void)?

    init(id: UInt64, capacity: Int, initialLoader: (@Sendable () async -> AuthEvent)?, onTermination: (@Sendable () -> Void)?) {
        self.id = id
        self.capacity = capacity
        self.initialLoader = initialLoader
        self.onTermination = onTermination
    }

    /// Appends `event`, or hands it to the waiting consumer (returned, to resume outside locks).
    func enqueue(_ event: AuthEvent) -> (UnsafeContinuation<AuthEvent?, Never>, AuthEvent)? {
        lock.lock()
        defer { lock.unlock() }
        if terminated || finished { return nil }
        if initialLoader == nil, let waiter {
            self.waiter = nil
            return (waiter, event)
        }
        if buffer.count - head >= capacity { makeRoom(for: event) } else { buffer.append(event) }
        return nil
    }

    /// Applies the drop policy for a full buffer and appends `event` if it survives. O(buffer).
    private func makeRoom(for event: AuthEvent) {
        // 1. The oldest flow (non-state) event, the incoming one included.
        if let index = buffer[head...].firstIndex(where: { !$0.kind.isStateEvent }) {
            buffer.remove(at: index)
            buffer.append(event)
            dropped += 1
            return
        }
        guard event.kind.isStateEvent else {
            dropped += 1
            return
        }
        // 2. The oldest state event superseded by a newer one of the same provider (the
        //    incoming event included): one pass finds each provider's newest position.
        var newest: [AuthProviderID?: Int] = [event.provider: buffer.count]
        for index in buffer.indices[head...] { newest[buffer[index].provider] = max(newest[buffer[index].provider] ?? index, index) }
        if let index = buffer.indices[head...].first(where: { index in
            if case .initialState = buffer[index].kind { return false }
            return (newest[buffer[index].provider] ?? index) > index
        }) {
            buffer.remove(at: index)
            buffer.append(event)
            dropped += 1
            return
        }
        // 3. Every buffered event is the latest state of a distinct provider: keep them, up to
        //    twice the capacity (a hard bound even with unboundedly many provider ids); beyond
        //    that the oldest goes.
        if buffer.count - head >= capacity * 2 {
            buffer.remove(at: head)
            dropped += 1
        }
        buffer.append(event)
    }

    func next() async -> AuthEvent? {
        if let loader = takeInitialLoader() {
            let event = await loader()
            return event
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<AuthEvent?, Never>) in
                lock.lock()
                if head < buffer.count {
                    let event = buffer[head]
                    head += 1
                    if head > 32 && head * 2 > buffer.count {
                        buffer.removeFirst(head)
                        head = 0
                    }
                    lock.unlock()
                    continuation.resume(returning: event)
                } else if finished || terminated || Task.isCancelled {
                    lock.unlock()
                    continuation.resume(returning: nil)
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            self.cancel()
        }
    }

    private func takeInitialLoader() -> (@Sendable () async -> AuthEvent)? {
        lock.lock()
        defer { lock.unlock() }
        let loader = initialLoader
        initialLoader = nil
        if loader != nil, terminated { return nil }
        return loader
    }

    var droppedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return dropped
    }

    /// Ends the stream after buffered events (bus finished).
    func finish() {
        lock.lock()
        finished = true
        let waiter = head >= buffer.count ? self.waiter : nil
        if waiter != nil { self.waiter = nil }
        let handler = takeTerminationHandler()
        lock.unlock()
        waiter?.resume(returning: nil)
        handler?()
    }

    /// Ends the stream now (consumer cancelled or released): unregisters and drops the buffer.
    func cancel() {
        lock.lock()
        if terminated {
            lock.unlock()
            return
        }
        terminated = true
        buffer.removeAll()
        head = 0
        let waiter = self.waiter
        self.waiter = nil
        let handler = takeTerminationHandler()
        lock.unlock()
        bus?.remove(id)
        waiter?.resume(returning: nil)
        handler?()
    }

    /// Must be called with `lock` held. Returns the handler at most once.
    private func takeTerminationHandler() -> (@Sendable () -> Void)? {
        let handler = onTermination
        onTermination = nil
        return handler
    }
}

/// Keeps a subscriber registered while any copy of its stream or iterator is alive.
final class SubscriptionToken: Sendable {
    let subscriber: EventSubscriber
    init(_ subscriber: EventSubscriber) { self.subscriber = subscriber }
    deinit { subscriber.cancel() }
}

/// One subscriber's events: a single-consumer `AsyncSequence` backed by a bounded buffer.
///
/// Iterate it from one task. Cancelling that task, or releasing every copy of the stream and
/// its iterator, unregisters the subscriber. It ends (returns `nil`) when the bus finishes.
/// `map`, `filter` and other `AsyncSequence` operators preserve every buffered event (Docs/Cases.md, B22).
public struct AuthEventStream: AsyncSequence, Sendable {
    /// The element type.
    public typealias Element = AuthEvent
    private let token: SubscriptionToken

    init(subscriber: EventSubscriber) { token = SubscriptionToken(subscriber) }

    /// Events this subscriber's buffer dropped under its policy so far.
    public var droppedCount: Int { token.subscriber.droppedCount }

    /// Ends this subscription now: unregisters it and runs its termination handler (once).
    public func cancel() { token.subscriber.cancel() }

    /// Creates the iterator.
    public func makeAsyncIterator() -> Iterator { Iterator(token: token) }

    /// The stream's iterator.
    public struct Iterator: AsyncIteratorProtocol {
        let token: SubscriptionToken
        /// The next event, or `nil` when the stream has ended or the task was cancelled.
        public mutating func next() async -> AuthEvent? { await token.subscriber.next() }
    }
}
