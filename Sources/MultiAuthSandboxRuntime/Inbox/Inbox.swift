import Foundation
import MultiAuth
import MultiAuthLocking

/// Where every code or link an emulated backend "sends" lands, per destination and channel,
/// with its delivery status: the sandbox's phone and mailbox.
///
/// Destinations are strings: an E.164 number (`"+15555550100"`) or an e-mail identity key
/// (`"user@example.com"`, as ``/MultiAuth/EmailAddress/identityKey``). Backends add messages
/// with ``record(host:destination:channel:code:link:status:at:)`` (usually through
/// ``SandboxContext/deliver(code:link:to:channel:)``); tests and the demo read them with
/// ``latest(for:channel:)``, ``messages(for:)`` or wait with ``next(for:channel:)``.
///
/// Thread-safe (its fields are in one `Locked` state). ``next(for:channel:)`` never sleeps: it is resumed by the delivery
/// itself, so tests need no real or manual time to wait for a code.
public final class Inbox: Sendable {
    private struct Waiter: Sendable {
        let id: UInt64
        let key: CursorKey
        let continuation: CheckedContinuation<InboxMessage, any Error>
    }

    private struct CursorKey: Hashable, Sendable {
        let destination: String
        let channel: DeliveryChannel?
    }

    /// The inbox's mutable fields, only touched inside `state.withLock`.
    private struct State {
        var stored: [InboxMessage] = []
        var cursors: [CursorKey: Int] = [:]
        var waiters: [Waiter] = []
        var nextWaiterID: UInt64 = 0

        /// The next unread delivered message for `key`, advancing its cursor.
        mutating func take(_ key: CursorKey) -> InboxMessage? {
            let start = cursors[key, default: 0]
            guard start < stored.count else { return nil }
            for index in start..<stored.count {
                let message = stored[index]
                if message.destination == key.destination, message.status == .delivered,
                    key.channel == nil || message.channel == key.channel
                {
                    cursors[key] = index + 1
                    return message
                }
            }
            return nil
        }

        /// Removes the waiters that now have a message.
        mutating func takeReadyWaiters() -> [(CheckedContinuation<InboxMessage, any Error>, InboxMessage)] {
            var ready: [(CheckedContinuation<InboxMessage, any Error>, InboxMessage)] = []
            var index = 0
            while index < waiters.count {
                if let message = take(waiters[index].key) {
                    ready.append((waiters.remove(at: index).continuation, message))
                } else {
                    index += 1
                }
            }
            return ready
        }
    }

    private let state = Locked(State())

    /// Creates an empty inbox.
    public init() {}

    /// Adds a message and resumes a task waiting in ``next(for:channel:)`` for it (when
    /// delivered).
    /// - Parameters:
    ///   - host: The sending backend's host.
    ///   - destination: E.164 number or e-mail identity key.
    ///   - channel: The delivery channel.
    ///   - code: The one-time code, if any.
    ///   - link: The magic link, if any.
    ///   - status: `.delivered`, `.failed` or `.sent` (in transit; complete it with
    ///     ``updateStatus(of:to:at:)``).
    ///   - at: The server time of sending.
    /// - Returns: The stored message with its ``InboxMessage/id``.
    @discardableResult
    public func record(
        host: String, destination: String, channel: DeliveryChannel, code: String?, link: URL?,
        status: DeliveryStatus, at: Date
    ) -> InboxMessage {
        let (message, ready) = state.withLock { state in
            let message = InboxMessage(
                id: state.stored.count + 1, host: host, destination: destination, channel: channel, code: code,
                link: link, status: status, sentAt: at)
            state.stored.append(message)
            return (message, state.takeReadyWaiters())
        }
        for (continuation, message) in ready { continuation.resume(returning: message) }
        return message
    }

    /// Changes the status of message `id` (e.g. a message recorded as `.sent` is now
    /// `.delivered`), resuming waiters when it became delivered.
    /// - Returns: The updated message, or `nil` when no message has that id.
    @discardableResult
    public func updateStatus(of id: Int, to status: DeliveryStatus, at: Date) -> InboxMessage? {
        let updated = state.withLock {
            state -> (InboxMessage, [(CheckedContinuation<InboxMessage, any Error>, InboxMessage)])? in
            guard id >= 1, id <= state.stored.count else { return nil }
            state.stored[id - 1].status = status
            state.stored[id - 1].statusChangedAt = at
            return (state.stored[id - 1], state.takeReadyWaiters())
        }
        guard let (message, ready) = updated else { return nil }
        for (continuation, message) in ready { continuation.resume(returning: message) }
        return message
    }

    /// Every message, in sending order.
    public var allMessages: [InboxMessage] {
        state.withLock { $0.stored }
    }

    /// The number of messages recorded (any status).
    public var count: Int {
        state.withLock { $0.stored.count }
    }

    /// Every message sent to `destination` (any channel, any status), oldest first.
    public func messages(for destination: String) -> [InboxMessage] {
        state.withLock { $0.stored.filter { $0.destination == destination } }
    }

    /// The newest **delivered** message to `destination`, on `channel` when given; `nil` when
    /// none was delivered. Failed and in-transit messages never count: the user never saw them.
    public func latest(for destination: String, channel: DeliveryChannel? = nil) -> InboxMessage? {
        state.withLock { state in
            state.stored.last {
                $0.destination == destination && $0.status == .delivered && (channel == nil || $0.channel == channel)
            }
        }
    }

    /// The next delivered message to `destination` (on `channel` when given) that this method
    /// has not returned before, waiting until one is delivered.
    ///
    /// Each (destination, channel) pair has its own cursor, so consecutive calls walk the
    /// delivered messages in order: a code already delivered is returned at once, a code not
    /// yet sent is returned the moment a backend delivers it. No real time passes. A message
    /// still in transit (`.sent`) when a later one is returned is skipped by the cursor.
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    public func next(for destination: String, channel: DeliveryChannel? = nil) async throws -> InboxMessage {
        let key = CursorKey(destination: destination, channel: channel)
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<InboxMessage, any Error>) in
                enum Outcome {
                    case message(InboxMessage)
                    case cancelled
                    case waiting
                }
                let outcome = state.withLock { state -> Outcome in
                    if let message = state.take(key) { return .message(message) }
                    if Task.isCancelled { return .cancelled }
                    state.waiters.append(Waiter(id: id, key: key, continuation: continuation))
                    return .waiting
                }
                switch outcome {
                case .message(let message): continuation.resume(returning: message)
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                let index = state.waiters.firstIndex { $0.id == id }
                return index.map { state.waiters.remove(at: $0) }
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Removes every message and resets every cursor. Waiting tasks keep waiting.
    public func removeAll() {
        state.withLock { state in
            state.stored.removeAll()
            state.cursors.removeAll()
        }
    }
}
