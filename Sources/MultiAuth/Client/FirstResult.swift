import Foundation

/// The first of several offered values, awaited once: the racing side of a bounded wait (a
/// remote revoke against its time bound). Later offers are ignored.
///
/// Concurrency: lock-protected; ``value()`` may be awaited by one task, offers come from any.
final class FirstResult<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Value?
    private var waiter: CheckedContinuation<Value, Never>?

    /// Offers `value`; only the first offer counts.
    func offer(_ value: Value) {
        let waiter: CheckedContinuation<Value, Never>? = lock.withLock {
            guard result == nil else { return nil }
            result = value
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume(returning: value)
    }

    /// The first value offered, once there is one.
    func value() async -> Value {
        await withCheckedContinuation { continuation in
            let ready: Value? = lock.withLock {
                if let result { return result }
                waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
