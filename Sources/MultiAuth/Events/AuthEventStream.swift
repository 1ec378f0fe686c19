import Foundation

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
