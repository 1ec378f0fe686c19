import Foundation
import MultiAuthCrypto

/// A fleet-wide fixed-window ``/MultiAuthCrypto/AttemptLimiter`` in Redis: one Lua script
/// (`INCR`, `PEXPIRE` on the first hit, `PTTL` as retry-after), so of `n` concurrent hits on
/// any servers exactly `min(n, limit)` are allowed (Docs/Server.md, "Attempt limits").
///
/// When Redis cannot answer, ``hit(key:limit:window:)`` throws
/// ``/MultiAuthCrypto/StoreUnavailableError`` and the caller refuses; wrap it in a
/// ``FallbackAttemptLimiter`` to count in-process instead (an explicit opt-in).
///
/// Concurrency: `Sendable`.
public struct RedisAttemptLimiter: AttemptLimiter {
    /// The client.
    public let client: RedisClient
    /// The keyspace verifiers use.
    public let keyspace: StoreKeyspace

    /// Creates a limiter on `client`.
    ///
    /// - Parameters:
    ///   - client: the Redis client.
    ///   - keyspace: how keys are made; every server must use the same one.
    public init(client: RedisClient, keyspace: StoreKeyspace = .default) {
        self.client = client
        self.keyspace = keyspace
    }

    /// Counts one attempt.
    ///
    /// The script's reply is checked: a count of at least 1 and a remaining TTL of 0 or more
    /// (one longer than `window`, left by a caller with a longer window, is reported as
    /// `window`).
    /// - Throws: ``/MultiAuthCrypto/CryptoError/invalidParameter(_:)`` (`"limit"`, `"window"`);
    ///   ``/MultiAuthCrypto/StoreUnavailableError``.
    public func hit(key: StoreKey, limit: Int, window: Duration) async throws -> AttemptDecision {
        try ReplayStoreLimits.check(limit: limit)
        let milliseconds = try ReplayStoreLimits.milliseconds(window, name: "window")
        let reply = try await client.run(
            .counter, key: key.storageKey, arguments: [String(milliseconds)], replicas: 0, replicationTimeout: 0)
        guard case .array(let elements?) = reply, elements.count == 2, case .integer(let count) = elements[0],
            case .integer(let ttl) = elements[1], count >= 1, ttl >= 0
        else {
            throw StoreUnavailableError(
                .malformedReply, "the counter script answered something other than {count, ttl}")
        }
        let clampedCount = Int(clamping: count)
        return AttemptDecision(
            allowed: clampedCount <= limit, remaining: limit - min(clampedCount, limit),
            retryAfter: .milliseconds(min(ttl, milliseconds)))
    }
}
