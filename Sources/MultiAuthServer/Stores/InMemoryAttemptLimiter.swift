import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking

/// A fixed-window ``/MultiAuthCrypto/AttemptLimiter`` in this process's memory: right for one
/// server; a fleet needs ``RedisAttemptLimiter`` (each server would allow `limit` attempts,
/// so the fleet would allow `limit × servers`).
///
/// Windows run on the injected clock. Memory is bounded: at most `capacity` live counters; a new
/// key beyond that is refused with ``/MultiAuthCrypto/StoreUnavailableError``
/// (`capacityExhausted`), so an attacker spraying keys cannot reset anyone's counter.
///
/// Concurrency: `Sendable`; each hit is one critical section under a lock.
public final class InMemoryAttemptLimiter: AttemptLimiter, Sendable {
    /// The keyspace verifiers use for this limiter.
    public let keyspace: StoreKeyspace
    /// The most live counters kept.
    public let capacity: Int
    private let clock: ElapsedClock
    /// The live counters; read and changed only inside `withLock`.
    private let counters: Locked<ExpiringTable<Int>>

    /// Creates an empty limiter.
    ///
    /// - Parameters:
    ///   - time: the time source whose clock measures windows.
    ///   - keyspace: how verifiers make keys; ``/MultiAuthCrypto/StoreKeyspace/default``.
    ///   - capacity: the most live counters, 1 or more; 100,000 by default.
    public init(time: TimeSource, keyspace: StoreKeyspace = .default, capacity: Int = 100_000) {
        self.keyspace = keyspace
        self.capacity = max(1, capacity)
        self.clock = ElapsedClock(time.clock)
        self.counters = Locked(ExpiringTable(capacity: max(1, capacity)))
    }

    /// Counts one attempt for `key` (atomic).
    ///
    /// - Returns: allowed while the window's count is at most `limit`; `retryAfter` is the
    ///   time left in the window.
    /// - Throws: ``/MultiAuthCrypto/CryptoError/invalidParameter(_:)`` (`"limit"`, `"window"`);
    ///   ``/MultiAuthCrypto/StoreUnavailableError`` (`capacityExhausted`).
    public func hit(key: StoreKey, limit: Int, window: Duration) async throws -> AttemptDecision {
        try ReplayStoreLimits.check(limit: limit)
        let milliseconds = try ReplayStoreLimits.milliseconds(window, name: "window")
        let now = clock.elapsed()
        return try counters.withLock { counters in
            counters.removeExpired(now: now)
            let count: Int
            let left: Duration
            if let current = counters.value(key.storageKey, now: now),
                let remaining = counters.remaining(key.storageKey, now: now)
            {
                count = current == Int.max ? current : current + 1
                counters.update(key.storageKey, count)
                left = remaining
            } else {
                count = 1
                left = .milliseconds(milliseconds)
                try counters.set(key.storageKey, 1, deadline: now + left)
            }
            return AttemptDecision(allowed: count <= limit, remaining: limit - count, retryAfter: left)
        }
    }
}
