/// "Has this been used?" state shared by every server of a fleet: single-use identifiers and
/// TOTP time steps (RFC 6238 §5.2: a verifier must not accept a second use of a code).
///
/// Both operations are **atomic**: the check and the write are one step in the store (one
/// `SET … NX` or one script in Redis, one critical section in memory), so of any number of
/// concurrent calls from any number of processes exactly one succeeds. A check followed by a
/// separate write is not an implementation of this protocol: the store conformance kit
/// (`StoreConformance` in `MultiAuthServer`) fails it.
///
/// **Fail closed.** When the store cannot answer (unreachable, timed out, an unreadable reply)
/// an implementation throws ``StoreUnavailableError``; it never guesses `true` or `false`.
/// Verifiers turn that into a retryable refusal, never an acceptance and never "wrong code".
///
/// Implementations in MultiAuth: `InMemoryReplayStore` (one process) and `RedisReplayStore`
/// (a fleet), both in `MultiAuthServer`; Docs/Server.md explains which to use and what each
/// guarantees.
public protocol ReplayStore: KeyedStore {
    /// Marks `key` as used for `ttl`, if it is not already.
    ///
    /// - Parameters:
    ///   - key: the single-use identifier's key (a nonce, a `jti`, a link token, a grant).
    ///   - ttl: how long the use is remembered: at least as long as the identifier could still
    ///     be accepted; 1 ms to ``ReplayStoreLimits/maximumTTL``, rounded up to whole
    ///     milliseconds.
    /// - Returns: `true` for the first use (now recorded), `false` when `key` was already used
    ///   and its TTL has not run out.
    /// - Throws: ``StoreUnavailableError`` when the store cannot answer;
    ///   ``CryptoError/invalidParameter(_:)`` (`"ttl"`) before any store call.
    func consumeOnce(key: StoreKey, ttl: Duration) async throws -> Bool

    /// Records `step` as the last accepted TOTP time step for `key` if it is newer than the
    /// one recorded (compare-and-advance, atomically).
    ///
    /// - Parameters:
    ///   - key: the account's key (one per enrolled secret).
    ///   - step: the time step a code matched (RFC 6238 §4.2 `T`); compared as an unsigned
    ///     64-bit number, exactly.
    ///   - ttl: how long the step is remembered; for TOTP `(2·window + 1)·period` plus the
    ///     fleet's clock skew (`TOTP.replayTTL(window:skew:)`); 1 ms to
    ///     ``ReplayStoreLimits/maximumTTL``.
    /// - Returns: `true` when `step` is newer than the recorded step (or none is recorded) and
    ///   is now recorded with a fresh TTL; `false` when the recorded step is `step` or newer
    ///   (nothing changes).
    /// - Throws: ``StoreUnavailableError``; ``CryptoError/invalidParameter(_:)`` (`"ttl"`).
    func advance(key: StoreKey, to step: UInt64, ttl: Duration) async throws -> Bool
}

/// What ``ReplayStore`` and ``AttemptLimiter`` share: the keyspace verifiers make their keys in.
public protocol KeyedStore: Sendable {
    /// How keys for this store are made (prefix, optional hashing secret); every server of a
    /// fleet must use the same one. ``StoreKeyspace/default`` unless the implementation says
    /// otherwise.
    var keyspace: StoreKeyspace { get }
}

extension KeyedStore {
    /// ``StoreKeyspace/default``.
    public var keyspace: StoreKeyspace { .default }
}

/// A fleet-wide attempt counter: at most `limit` hits per key in a fixed window (server-side
/// attempt limits for code verification, per account or per address).
///
/// ``hit(key:limit:window:)`` increments and reads the counter **atomically** (one script in
/// Redis, one critical section in memory): of `n` concurrent hits with limit `l`, exactly
/// `min(n, l)` are allowed, whichever servers make them.
///
/// The window is fixed: it starts with the first hit of a key and lasts `window`; every hit
/// inside it counts (refused ones too, so hammering does not help), and the count starts
/// again after it.
///
/// **Fail closed.** When the store cannot answer, ``hit(key:limit:window:)`` throws
/// ``StoreUnavailableError`` and the caller refuses. An in-process fallback exists only as an
/// explicit, bounded opt-in (`FallbackAttemptLimiter` in `MultiAuthServer`).
public protocol AttemptLimiter: KeyedStore {
    /// Counts one attempt for `key`.
    ///
    /// - Parameters:
    ///   - key: what is limited (an account, a phone number's key, an address).
    ///   - limit: attempts allowed per window, 1 or more.
    ///   - window: the window's length; 1 ms to ``ReplayStoreLimits/maximumTTL``.
    /// - Returns: whether this attempt is allowed, how many remain and when the window ends.
    /// - Throws: ``StoreUnavailableError``; ``CryptoError/invalidParameter(_:)`` (`"limit"`,
    ///   `"window"`) before any store call.
    func hit(key: StoreKey, limit: Int, window: Duration) async throws -> AttemptDecision
}

/// The answer of ``AttemptLimiter/hit(key:limit:window:)``.
public struct AttemptDecision: Sendable, Hashable, CustomStringConvertible {
    /// Whether this attempt is within the limit.
    public let allowed: Bool
    /// Attempts still allowed in the current window after this one, 0 or more.
    public let remaining: Int
    /// Time until the current window ends and the count starts again; retry after it when
    /// refused. Between 0 and the window's length.
    public let retryAfter: Duration

    /// Creates a decision.
    ///
    /// - Parameters:
    ///   - allowed: whether the attempt is allowed.
    ///   - remaining: attempts left after this one (negative values are stored as 0).
    ///   - retryAfter: time until the window ends (negative values are stored as 0).
    public init(allowed: Bool, remaining: Int, retryAfter: Duration) {
        self.allowed = allowed
        self.remaining = max(0, remaining)
        self.retryAfter = max(.zero, retryAfter)
    }

    /// e.g. `allowed, 4 remaining, window ends in 899.5 seconds`.
    public var description: String {
        "\(allowed ? "allowed" : "refused"), \(remaining) remaining, window ends in \(retryAfter)"
    }
}

/// The bounds every ``ReplayStore`` and ``AttemptLimiter`` call is checked against before it
/// reaches a store.
public enum ReplayStoreLimits {
    /// The longest TTL or window: 366 days.
    public static let maximumTTL: Duration = .seconds(366 * 86_400)

    /// `duration` in whole milliseconds, rounded up (a TTL is never shortened).
    ///
    /// - Parameters:
    ///   - duration: a TTL or window.
    ///   - name: the parameter's name for the error (`"ttl"`, `"window"`).
    /// - Returns: 1 to 31,622,400,000 milliseconds.
    /// - Throws: ``CryptoError/invalidParameter(_:)`` naming `name` when `duration` is zero or
    ///   negative or longer than ``maximumTTL``.
    public static func milliseconds(_ duration: Duration, name: String) throws -> Int64 {
        guard duration > .zero, duration <= maximumTTL else { throw CryptoError.invalidParameter(name) }
        let (seconds, attoseconds) = duration.components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        let (whole, fraction) = attoseconds.quotientAndRemainder(dividingBy: perMillisecond)
        return seconds * 1000 + whole + (fraction > 0 ? 1 : 0)
    }

    /// Checks an attempt limit.
    ///
    /// - Throws: ``CryptoError/invalidParameter(_:)`` (`"limit"`) below 1 or above 1,000,000,000.
    public static func check(limit: Int) throws {
        guard (1...1_000_000_000).contains(limit) else { throw CryptoError.invalidParameter("limit") }
    }
}
