import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking

/// A ``/MultiAuthCrypto/ReplayStore`` in this process's memory: right for one server, wrong for
/// a fleet (each server would accept a code once; use ``RedisReplayStore`` there,
/// Docs/Server.md).
///
/// TTLs run on the injected clock (`time.clock`: a `ManualClock` in tests). Memory is bounded:
/// at most `capacity` unexpired entries per kind (single-use keys, TOTP steps); expired ones are
/// dropped as they expire. A new key beyond that is refused with
/// ``/MultiAuthCrypto/StoreUnavailableError`` (`capacityExhausted`): the store fails closed
/// rather than forgetting a key early.
///
/// Concurrency: `Sendable`; every operation is one critical section under one lock, so
/// `consumeOnce` and `advance` are atomic among all tasks of the process.
public final class InMemoryReplayStore: ReplayStore, Sendable {
    /// The keyspace verifiers use for this store.
    public let keyspace: StoreKeyspace
    /// The most unexpired entries kept per kind.
    public let capacity: Int
    private let clock: ElapsedClock
    private struct State {
        var used: ExpiringTable<Void>
        var steps: ExpiringTable<UInt64>
    }

    /// The single-use keys and the TOTP steps; read and changed only inside `withLock`.
    private let state: Locked<State>

    /// Creates an empty store.
    ///
    /// - Parameters:
    ///   - time: the time source whose clock measures TTLs (`ManualClock().timeSource` in tests,
    ///     `.system` in production).
    ///   - keyspace: how verifiers make keys for this store; ``/MultiAuthCrypto/StoreKeyspace/default``.
    ///   - capacity: the most unexpired entries per kind, 1 or more; 100,000 by default
    ///     (about 20 MB at most).
    public init(time: TimeSource, keyspace: StoreKeyspace = .default, capacity: Int = 100_000) {
        self.keyspace = keyspace
        self.capacity = max(1, capacity)
        self.clock = ElapsedClock(time.clock)
        self.state = Locked(
            State(used: ExpiringTable(capacity: max(1, capacity)), steps: ExpiringTable(capacity: max(1, capacity))))
    }

    /// Marks `key` used for `ttl` unless it already is (atomic).
    ///
    /// - Returns: `true` for the first use; `false` while an earlier use is remembered.
    /// - Throws: ``/MultiAuthCrypto/CryptoError/invalidParameter(_:)`` (`"ttl"`);
    ///   ``/MultiAuthCrypto/StoreUnavailableError`` (`capacityExhausted`).
    public func consumeOnce(key: StoreKey, ttl: Duration) async throws -> Bool {
        let milliseconds = try ReplayStoreLimits.milliseconds(ttl, name: "ttl")
        let now = clock.elapsed()
        return try state.withLock { state in
            state.used.removeExpired(now: now)
            if state.used.value(key.storageKey, now: now) != nil { return false }
            try state.used.set(key.storageKey, (), deadline: now + .milliseconds(milliseconds))
            return true
        }
    }

    /// Records `step` for `key` if it is newer than the recorded one (atomic).
    ///
    /// - Returns: `true` when recorded (with a fresh TTL); `false` when the recorded step is
    ///   `step` or newer.
    /// - Throws: ``/MultiAuthCrypto/CryptoError/invalidParameter(_:)`` (`"ttl"`);
    ///   ``/MultiAuthCrypto/StoreUnavailableError`` (`capacityExhausted`).
    public func advance(key: StoreKey, to step: UInt64, ttl: Duration) async throws -> Bool {
        let milliseconds = try ReplayStoreLimits.milliseconds(ttl, name: "ttl")
        let now = clock.elapsed()
        return try state.withLock { state in
            state.steps.removeExpired(now: now)
            if let last = state.steps.value(key.storageKey, now: now), last >= step { return false }
            try state.steps.set(key.storageKey, step, deadline: now + .milliseconds(milliseconds))
            return true
        }
    }

    /// How long `key` is still remembered as used (single-use or TOTP step), or `nil`
    /// (diagnostics and the conformance kit).
    public func remainingTTL(of key: StoreKey) -> Duration? {
        let now = clock.elapsed()
        return state.withLock { state in
            state.used.remaining(key.storageKey, now: now) ?? state.steps.remaining(key.storageKey, now: now)
        }
    }

    /// The number of unexpired entries, single-use keys and TOTP steps together.
    public var count: Int {
        let now = clock.elapsed()
        return state.withLock { state in
            state.used.removeExpired(now: now)
            state.steps.removeExpired(now: now)
            return state.used.count + state.steps.count
        }
    }
}
