import Foundation
import MultiAuth
import MultiAuthCrypto

/// Server-side TOTP verification that holds across a fleet (RFC 6238 §5.2; Docs/Server.md):
/// a server-side attempt limit, the code check, then the time step recorded in a shared
/// ``/MultiAuthCrypto/ReplayStore`` atomically — of any number of concurrent submissions of one
/// code, on any number of servers, exactly one is accepted.
///
/// In this order, for each call:
/// 1. the code's format (exactly `digits` digits once whitespace is removed): a malformed code
///    is `.invalidInput(.invalidCodeFormat)` and costs no attempt and no store call;
/// 2. one attempt counted on the ``attemptLimiter`` under the account's key (when one is set):
///    over the limit is `.rateLimited` with `retryAfter` (the window's end);
/// 3. the code matched in the window (`.invalidCode` with `attemptsRemaining`);
/// 4. the matched step advanced in the store with TTL `(2·window + 1)·period + skew`
///    (`.codeAlreadyUsed` when this step or a newer one was accepted before).
///
/// **Fail closed.** When the limiter or the store cannot answer, the call throws
/// `.storageUnavailable` (retryable, with the store's `retryAfter` when known) and accepts
/// nothing; use a ``FallbackAttemptLimiter`` to keep limiting in-process during an outage.
///
/// Concurrency: a `Sendable` value; safe to share. The code check runs in the calling task,
/// outside any actor or lock: the TOTP's HMACs start from key states computed once per secret
/// and copied per step (``/MultiAuthCrypto/HMACKey``), so verifications from many tasks run in
/// parallel and only the limiter and store calls wait. Time comes only from the injected
/// `TimeSource`.
public struct TOTPVerifier: Sendable {
    /// Attempts allowed per account per window.
    public struct AttemptLimit: Sendable, Hashable {
        /// Attempts per window, 1 or more.
        public var attempts: Int
        /// The window's length.
        public var window: Duration

        /// Creates a limit.
        ///
        /// - Parameters:
        ///   - attempts: attempts per window, 1 or more.
        ///   - window: the window's length, 1 ms to 366 days.
        public init(attempts: Int, window: Duration) {
            self.attempts = attempts
            self.window = window
        }

        /// 5 attempts per 15 minutes (NIST SP 800-63B §5.2.2 asks verifiers to limit failed
        /// attempts; 5 per 15 minutes keeps a 6-digit guess below 1 in 10⁵ per window).
        public static let standard = AttemptLimit(attempts: 5, window: .seconds(900))
    }

    /// The namespace of attempt-limit keys: `totp.attempts`.
    public static let attemptNamespace = "totp.attempts"

    /// The shared store of last accepted steps.
    public let replayStore: any ReplayStore
    /// The shared attempt limiter, or `nil` for no server-side attempt limit.
    public let attemptLimiter: (any AttemptLimiter)?
    /// The attempt limit applied with ``attemptLimiter``.
    public let attemptLimit: AttemptLimit
    /// Steps accepted either side of the current one (RFC 6238 §5.2, §6).
    public let window: Int
    /// The largest clock difference between the fleet's servers, added to the replay TTL.
    public let skew: Duration
    private let time: TimeSource

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - replayStore: the shared store (``RedisReplayStore`` for a fleet).
    ///   - attemptLimiter: the shared limiter, or `nil` for none.
    ///   - attemptLimit: attempts per account per window; ``AttemptLimit/standard`` by default.
    ///   - window: steps either side, 0...`TOTP.maximumWindow`; 1 by default.
    ///   - skew: the fleet's largest clock difference; 30 s by default.
    ///   - time: the verifier's time source.
    /// - Throws: `AuthError` `.configuration` for a window outside 0...10, a negative skew, or an
    ///   attempt limit below 1 or with a window outside 1 ms...366 days.
    public init(
        replayStore: any ReplayStore, attemptLimiter: (any AttemptLimiter)?, attemptLimit: AttemptLimit = .standard,
        window: Int = 1, skew: Duration = .seconds(30), time: TimeSource
    ) throws {
        guard (0...TOTP.maximumWindow).contains(window) else {
            throw AuthError(.configuration, "the TOTP window must be 0...\(TOTP.maximumWindow) steps")
        }
        guard skew >= .zero else { throw AuthError(.configuration, "the clock skew must not be negative") }
        do {
            try ReplayStoreLimits.check(limit: attemptLimit.attempts)
            _ = try ReplayStoreLimits.milliseconds(attemptLimit.window, name: "window")
        } catch {
            throw AuthError(.configuration, "the attempt limit is out of range (\(error))", underlying: error)
        }
        self.replayStore = replayStore
        self.attemptLimiter = attemptLimiter
        self.attemptLimit = attemptLimit
        self.window = window
        self.skew = skew
        self.time = time
    }

    /// What an accepted code tells the caller.
    public struct Acceptance: Sendable, Hashable {
        /// The time step the code matched, now recorded as the account's last used step.
        public let step: UInt64
        /// Attempts left in the current window, or `nil` without a limiter.
        public let attemptsRemaining: Int?
    }

    /// Verifies `code` for `account`'s enrolled `totp` at the time source's `now`.
    ///
    /// - Parameters:
    ///   - code: the code as entered.
    ///   - totp: the account's generator (secret, digits, period).
    ///   - account: identifies the enrolment (a user id); hashed into the store keys, never
    ///     stored. Use the same value on every server.
    /// - Returns: the accepted step and the attempts left.
    /// - Throws: `AuthError` `.invalidInput` (`.invalidCodeFormat`; nothing counted),
    ///   `.rateLimited` (over the attempt limit; `retryAfter` is the window's end),
    ///   `.invalidCode` (`attemptsRemaining` set when limited), `.codeAlreadyUsed` (a replay,
    ///   or a concurrent submission won), `.storageUnavailable` (retryable: the store or the
    ///   limiter cannot answer; nothing accepted), `.configuration` (the time is before `T0`
    ///   or out of range).
    public func verify(_ code: String, for totp: TOTP, account: String) async throws -> Acceptance {
        // 1. Format first: a malformed code costs nothing.
        guard totp.isWellFormedCode(code) else {
            throw AuthError.invalidInput(.invalidCodeFormat, "the code must be \(totp.digits) digits")
        }
        // 2. The attempt, counted before the code is compared (correct codes count too).
        var remaining: Int?
        if let attemptLimiter {
            let decision = try await Self.storeCall {
                try await attemptLimiter.hit(
                    key: try attemptLimiter.keyspace.key(Self.attemptNamespace, account), limit: attemptLimit.attempts,
                    window: attemptLimit.window)
            }
            guard decision.allowed else {
                throw AuthError(
                    .rateLimited, "too many attempts for this account; retry after the window ends",
                    retryAfter: decision.retryAfter, attemptsRemaining: 0)
            }
            remaining = decision.remaining
        }
        // 3 and 4. Match, then advance atomically in the shared store.
        do {
            let step = try await Self.storeCall {
                try await totp.verify(
                    code, at: time.now, window: window, replayStore: replayStore, account: account, skew: skew)
            }
            return Acceptance(step: step, attemptsRemaining: remaining)
        } catch CryptoError.invalidCode {
            throw AuthError(.invalidCode, "the code does not match", attemptsRemaining: remaining)
        } catch CryptoError.codeAlreadyUsed {
            throw AuthError(.codeAlreadyUsed, "this code was already used")
        } catch CryptoError.invalidCodeFormat {
            throw AuthError.invalidInput(.invalidCodeFormat, "the code must be \(totp.digits) digits")
        } catch let error as CryptoError {
            throw AuthError(.configuration, "TOTP verification is misconfigured (\(error))", underlying: error)
        }
    }

    /// Runs a store call, turning ``/MultiAuthCrypto/StoreUnavailableError`` into the retryable
    /// `.storageUnavailable`.
    static func storeCall<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StoreUnavailableError {
            throw AuthError(
                .storageUnavailable, "the shared store cannot answer; nothing was accepted (\(error.cause))",
                retryAfter: error.retryAfter, underlying: error)
        }
    }
}
