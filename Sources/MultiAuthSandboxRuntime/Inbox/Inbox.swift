import Foundation
import MultiAuth

/// Where every code or link an emulated backend "sends" lands, per destination and channel,
/// with its delivery status: the sandbox's phone and mailbox.
///
/// Destinations are strings: an E.164 number (`"+15555550100"`) or an e-mail identity key
/// (`"user@example.com"`, as ``/MultiAuth/EmailAddress/identityKey``). Backends add messages
/// with ``record(host:destination:channel:code:link:status:at:)`` (usually through
/// ``SandboxContext/deliver(code:link:to:channel:)``); tests and the demo read them with
/// ``latest(for:channel:)``, ``messages(for:)`` or wait with ``next(for:channel:)``.
///
/// Thread-safe (one lock). ``next(for:channel:)`` never sleeps: it is resumed by the delivery
/// itself, so tests need no real or manual time to wait for a code.
public final class Inbox: @unchecked Sendable {
    private struct Waiter {
        let id: UInt64
        let key: CursorKey
        let continuation: CheckedContinuation<InboxMessage, any Error>
    }

    private struct CursorKey: Hashable {
        let destination: String
        let channel: DeliveryChannel?
    }

    private let lock = NSLock()
    private var stored: [InboxMessage] = []
    private var cursors: [CursorKey: Int] = [:]
    private var waiters: [Waiter] = []
    private var nextWaiterID: UInt64 = 0

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
        lock.lock()
        let message = InboxMessage(
            id: stored.count + 1, host: host, destination: destination, channel: channel, code: code, link: link,
            status: status, sentAt: at)
        stored.append(message)
        let ready = takeReadyWaiters()
        lock.unlock()
        for (continuation, message) in ready { continuation.resume(returning: message) }
        return message
    }

    /// Changes the status of message `id` (e.g. a message recorded as `.sent` is now
    /// `.delivered`), resuming waiters when it became delivered.
    /// - Returns: The updated message, or `nil` when no message has that id.
    @discardableResult
    public func updateStatus(of id: Int, to status: DeliveryStatus, at: Date) -> InboxMessage? {
        lock.lock()
        guard id >= 1, id <= stored.count else {
            lock.unlock()
            return nil
        }
        stored[id - 1].status = status
        stored[id - 1].statusChangedAt = at
        let message = stored[id - 1]
        let ready = takeReadyWaiters()
        lock.unlock()
        for (continuation, message) in ready { continuation.resume(returning: message) }
        return message
    }

    /// Every message, in sending order.
    public var allMessages: [InboxMessage] {
        lock.withLock { stored }
    }

    /// The number of messages recorded (any status).
    public var count: Int {
        lock.withLock { stored.count }
    }

    /// Every message sent to `destination` (any channel, any status), oldest first.
    public func messages(for destination: String) -> [InboxMessage] {
        lock.withLock { stored.filter { $0.destination == destination } }
    }

    /// The newest **delivered** message to `destination`, on `channel` when given; `nil` when
    /// none was delivered. Failed and in-transit messages never count: the user never saw them.
    public func latest(for destination: String, channel: DeliveryChannel? = nil) -> InboxMessage? {
        lock.lock()
        defer { lock.unlock() }
        return stored.last {
            $0.destination == destination && $0.status == .delivered && (channel == nil || $0.channel == channel)
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
        let id: UInt64 = {
            lock.lock()
            defer { lock.unlock() }
            nextWaiterID += 1
            return nextWaiterID
        }()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<InboxMessage, any Error>) in
                lock.lock()
                if let message = take(key) {
                    lock.unlock()
                    continuation.resume(returning: message)
                } else if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters.append(Waiter(id: id, key: key, continuation: continuation))
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            let index = waiters.firstIndex { $0.id == id }
            let waiter = index.map { waiters.remove(at: $0) }
            lock.unlock()
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Removes every message and resets every cursor. Waiting tasks keep waiting.
    public func removeAll() {
        lock.lock()
        stored.removeAll()
        cursors.removeAll()
        lock.unlock()
    }

    /// Must be called with `lock` held: the next unread delivered message for `key`, advancing
    /// its cursor.
    private func take(_ key: CursorKey) -> InboxMessage? {
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

    /// Must be called with `lock` held: removes the waiters that now have a message.
    private func takeReadyWaiters() -> [(CheckedContinuation<InboxMessage, any Error>, InboxMessage)] {
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
