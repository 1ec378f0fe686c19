import Foundation

/// The events of one `AuthClient`, for subscribers: what ``AuthClient/events`` hands an app.
///
/// Subscribe-only. Only the client publishes on its bus, through the guard that drops every
/// event of a flow after its `flowCancelled` (Docs/Architecture.md, "Invariants", 6), and the
/// client's bus is never finished by an app: a subscriber ends its own subscription by
/// cancelling the task that iterates it, calling ``AuthEventStream/cancel()`` or releasing the
/// stream. ``AuthClient/authStates(bufferCapacity:)`` subscribes with the current state first.
///
/// The guarantees of every subscription — registration before `subscribe` returns, publish
/// order, bounded buffers with the drop policy and the `eventsDropped(count:)` marker — are
/// listed in Docs/Events.md.
///
/// Concurrency: a `Sendable` value; subscribe from any task or thread.
public struct AuthEventSource: Sendable {
    /// The buffer capacity used when `subscribe` is not given one: 256 events.
    public static let defaultBufferCapacity = 256

    /// The client's bus.
    package let bus: AuthEventBus

    /// A view of `bus` (the client's, or a test's own).
    package init(bus: AuthEventBus) { self.bus = bus }

    /// Registers a subscriber for live events and returns its stream. The subscriber is
    /// registered before this returns, so an event published right after is not missed
    /// (Docs/Cases.md, B22); past events are not replayed.
    /// - Parameters:
    ///   - bufferCapacity: The most events buffered for this subscriber (at least 1); a lagging
    ///     subscriber keeps the latest state event of every provider, then the newest flow
    ///     events (Docs/Events.md, "Buffers and overflow").
    ///   - onTermination: Runs exactly once when the stream ends (cancelled or released).
    /// - Returns: A single-consumer `AsyncSequence` of events.
    public func subscribe(
        bufferCapacity: Int = AuthEventSource.defaultBufferCapacity, onTermination: (@Sendable () -> Void)? = nil
    ) -> AuthEventStream {
        bus.subscribe(bufferCapacity: bufferCapacity, onTermination: onTermination)
    }

    /// The sequence number of the last event published so far (0 before the first): an event
    /// with this number or lower has already happened.
    public var currentSequence: UInt64 { bus.currentSequence }

    /// Publishes on the client's bus without the client's guards (package tests and tools).
    @discardableResult
    package func publish(_ kind: AuthEvent.Kind, provider: AuthProviderID? = nil, flowID: FlowID? = nil)
        -> AuthEventBus.PublishResult
    {
        bus.publish(kind, provider: provider, flowID: flowID)
    }

    /// Finishes the client's bus: every stream ends after its buffered events (package tests).
    package func finish() { bus.finish() }

    /// The number of registered subscribers.
    package var subscriberCount: Int { bus.subscriberCount }
}
