import Foundation
import MultiAuthCrypto

/// A ``/MultiAuthCrypto/ReplayStore`` in Redis (or Valkey), shared by every server of a fleet
/// (Docs/Server.md, "Redis").
///
/// - `consumeOnce` is `SET key 1 NX PX ttl`: Redis applies it atomically, so of any number of
///   concurrent calls from any number of servers exactly one gets `OK`.
/// - `advance` is one Lua script (compare-and-advance: read the step, write the newer one with
///   `PX ttl`), atomic because Redis runs a script to completion before any other command.
/// - When Redis cannot answer, both throw ``/MultiAuthCrypto/StoreUnavailableError``; a reply
///   other than the expected ones is refused the same way. Nothing is ever guessed.
///
/// **Replication.** Redis acknowledges a write before its replicas have it; a failover right
/// after can lose it, and the code or nonce it recorded is then accepted once more. With
/// `replicaAcknowledgements` > 0 each write is followed by `WAIT` in the same round trip and
/// refused (fail closed) when fewer replicas confirm — which narrows, but does not close, that
/// window (Redis does not become strongly consistent). Where a lost write is unacceptable,
/// use a store with synchronous commits (PostgreSQL). Docs/Server.md, "Guarantees and their
/// limits".
///
/// Concurrency: `Sendable`; the client's pool bounds concurrent commands.
public struct RedisReplayStore: ReplayStore {
    /// The client.
    public let client: RedisClient
    /// The keyspace verifiers use (the same on every server of the fleet).
    public let keyspace: StoreKeyspace
    /// Replicas that must confirm each write (`WAIT`), 0 by default (no `WAIT`).
    public let replicaAcknowledgements: Int
    /// How long `WAIT` waits for them.
    public let replicationTimeout: Duration

    /// Creates a store on `client`.
    ///
    /// - Parameters:
    ///   - client: the Redis client (one per process, shared by the stores).
    ///   - keyspace: how keys are made; every server must use the same one.
    ///   - replicaAcknowledgements: replicas that must confirm each write; 0 by default.
    ///   - replicationTimeout: the `WAIT` timeout; 100 ms by default.
    public init(
        client: RedisClient, keyspace: StoreKeyspace = .default, replicaAcknowledgements: Int = 0,
        replicationTimeout: Duration = .milliseconds(100)
    ) {
        self.client = client
        self.keyspace = keyspace
        self.replicaAcknowledgements = max(0, replicaAcknowledgements)
        self.replicationTimeout = replicationTimeout
    }

    private var waitMilliseconds: Int64 {
        max(1, (try? ReplayStoreLimits.milliseconds(replicationTimeout, name: "")) ?? 100)
    }

    /// `SET key 1 NX PX ttl`.
    ///
    /// - Returns: `true` on `OK`; `false` on the null reply (the key exists).
    /// - Throws: ``/MultiAuthCrypto/CryptoError/invalidParameter(_:)`` (`"ttl"`) before any
    ///   round trip; ``/MultiAuthCrypto/StoreUnavailableError``.
    public func consumeOnce(key: StoreKey, ttl: Duration) async throws -> Bool {
        let milliseconds = try ReplayStoreLimits.milliseconds(ttl, name: "ttl")
        let reply = try await client.command(
            ["SET", key.storageKey, "1", "NX", "PX", String(milliseconds)], replicas: replicaAcknowledgements,
            replicationTimeout: waitMilliseconds)
        switch reply {
        case .simpleString("OK"): return true
        case .bulkString(nil): return false
        default: throw StoreUnavailableError(.malformedReply, "Redis answered SET NX with neither OK nor null")
        }
    }

    /// The compare-and-advance script.
    ///
    /// - Returns: `true` when `step` was recorded; `false` when the stored step is the same or
    ///   newer.
    /// - Throws: ``/MultiAuthCrypto/CryptoError/invalidParameter(_:)`` (`"ttl"`);
    ///   ``/MultiAuthCrypto/StoreUnavailableError`` (also for a stored value that is not a step).
    public func advance(key: StoreKey, to step: UInt64, ttl: Duration) async throws -> Bool {
        let milliseconds = try ReplayStoreLimits.milliseconds(ttl, name: "ttl")
        let digits = String(step)
        let padded = String(repeating: "0", count: 20 - digits.count) + digits
        let reply = try await client.run(
            .advance, key: key.storageKey, arguments: [padded, String(milliseconds)],
            replicas: replicaAcknowledgements, replicationTimeout: waitMilliseconds)
        switch reply {
        case .integer(1): return true
        case .integer(0): return false
        default: throw StoreUnavailableError(.malformedReply, "the advance script answered neither 0 nor 1")
        }
    }

    /// The key's remaining time to live (`PTTL`), or `nil` when it does not exist or has no
    /// expiry (diagnostics and the conformance kit).
    ///
    /// - Throws: ``/MultiAuthCrypto/StoreUnavailableError``.
    public func remainingTTL(of key: StoreKey) async throws -> Duration? {
        try await client.remainingTTL(of: key.storageKey)
    }
}

extension RedisClient {
    /// `PTTL key` as a duration; `nil` for -2 (no key) and -1 (no expiry).
    func remainingTTL(of key: String) async throws -> Duration? {
        let reply = try await command(["PTTL", key], replicas: 0, replicationTimeout: 0)
        guard case .integer(let milliseconds) = reply, milliseconds >= -2,
            milliseconds <= (try ReplayStoreLimits.milliseconds(ReplayStoreLimits.maximumTTL, name: "ttl"))
        else {
            throw StoreUnavailableError(.malformedReply, "Redis answered PTTL with a value out of range")
        }
        return milliseconds < 0 ? nil : .milliseconds(milliseconds)
    }
}
