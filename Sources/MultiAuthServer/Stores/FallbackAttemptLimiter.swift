import Foundation
import MultiAuth
import MultiAuthCrypto

/// An explicit opt-in: a shared ``/MultiAuthCrypto/AttemptLimiter`` that, while its store cannot
/// answer, counts in this process instead of refusing (Docs/Server.md, "What fails closed").
///
/// Without it a limiter whose store is down refuses every attempt (fail closed). With it, an
/// outage of the shared store keeps code verification available, at a price written here so
/// nobody pays it by accident:
/// - during the outage each server counts alone, with the limit divided by `fleetSize`
///   (at least 1), so the fleet as a whole still allows about `limit` attempts per window;
/// - the in-process counters are bounded (the fallback's capacity); a new key beyond it is
///   refused;
/// - counts made during the outage are not carried back to the shared store.
///
/// Only ``/MultiAuthCrypto/StoreUnavailableError`` switches to the fallback; any other error
/// (invalid arguments) is thrown as is. Replay stores have no such fallback: a code is never
/// accepted without the shared store.
///
/// Concurrency: `Sendable`, as its two limiters.
public struct FallbackAttemptLimiter: AttemptLimiter {
    /// The shared limiter (e.g. ``RedisAttemptLimiter``).
    public let primary: any AttemptLimiter
    /// The bounded in-process limiter used while `primary` cannot answer.
    public let fallback: InMemoryAttemptLimiter
    /// How many servers share `primary`; the fallback allows `max(1, limit / fleetSize)`.
    public let fleetSize: Int

    /// Creates the combination.
    ///
    /// - Parameters:
    ///   - primary: the shared limiter.
    ///   - fallback: the in-process limiter; give it a small capacity (e.g. 10,000).
    ///   - fleetSize: the number of servers, 1 or more.
    public init(primary: any AttemptLimiter, fallback: InMemoryAttemptLimiter, fleetSize: Int) {
        self.primary = primary
        self.fallback = fallback
        self.fleetSize = max(1, fleetSize)
    }

    /// The primary's keyspace.
    public var keyspace: StoreKeyspace { primary.keyspace }

    /// Counts on the primary; on ``/MultiAuthCrypto/StoreUnavailableError``, on the fallback
    /// with the divided limit.
    ///
    /// - Throws: the primary's non-availability errors;
    ///   ``/MultiAuthCrypto/StoreUnavailableError`` (`capacityExhausted`) from a full fallback.
    public func hit(key: StoreKey, limit: Int, window: Duration) async throws -> AttemptDecision {
        do {
            return try await primary.hit(key: key, limit: limit, window: window)
        } catch is StoreUnavailableError {
            return try await fallback.hit(key: key, limit: max(1, limit / fleetSize), window: window)
        }
    }
}
