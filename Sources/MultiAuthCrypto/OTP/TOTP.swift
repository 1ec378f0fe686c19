import Foundation

/// Time-based one-time passwords (RFC 6238): HOTP over the time step
/// `T = floor((now - T0) / period)`.
///
/// The module never reads the clock: every method takes the time from the caller's time source,
/// as whole Unix seconds (`Int64`, exact over the whole range: integer literals and `.max` are
/// `Int64`) or, for ``code(at:)-(Date)`` and ``verify(_:at:window:lastUsedStep:replayGuard:)-(_,Date,_,_,_)``,
/// a `Date` (its fractional second floored, RFC 6238 §4.2). Codes are `String`s of exactly
/// ``digits`` characters, leading zeros kept.
public struct TOTP: Sendable {
    /// The underlying HOTP generator (key, algorithm, digits).
    public let hotp: HOTP
    /// The time step length X in seconds, above 0 (RFC 6238 §4.1; 30 by default).
    public let period: Int64
    /// The Unix time in seconds at which step 0 starts (RFC 6238 §4.1 `T0`; 0 by default).
    public let t0: Int64

    /// The HMAC hash function.
    public var algorithm: DigestAlgorithm { hotp.algorithm }
    /// The code length in digits, 6...8.
    public var digits: Int { hotp.digits }

    /// The widest drift window ``verify(_:at:window:lastUsedStep:replayGuard:)-(_,Int64,_,_,_)`` accepts: 10 steps
    /// either side (±5 minutes with 30-second steps).
    ///
    /// RFC 6238 §5.2 and §6 recommend at most one step of network delay and a small drift
    /// window; each extra step costs one HMAC and is one more value a guessed code may match.
    public static let maximumWindow = 10

    /// Creates a TOTP generator and verifier.
    ///
    /// - Parameters:
    ///   - secret: the key bytes, 1 byte or more (decode base32 with ``Base32/decode(_:)``).
    ///   - algorithm: the HMAC hash function; SHA-1 by default.
    ///   - digits: code length, 6...8 digits; 6 by default.
    ///   - period: step length in seconds, above 0; 30 by default.
    ///   - t0: Unix time in seconds of step 0; 0 by default.
    /// - Throws: ``CryptoError/invalidDigits``, ``CryptoError/invalidPeriod``,
    ///   ``CryptoError/emptySecret``.
    public init(
        secret: some Sequence<UInt8>, algorithm: DigestAlgorithm = .sha1, digits: Int = 6,
        period: Int64 = 30, t0: Int64 = 0
    ) throws {
        guard period > 0 else { throw CryptoError.invalidPeriod }
        self.hotp = try HOTP(secret: secret, algorithm: algorithm, digits: digits)
        self.period = period
        self.t0 = t0
    }

    // MARK: Time steps

    /// The time step `T` containing `unixTime` (RFC 6238 §4.2).
    ///
    /// Exact for every `Int64` time at or after `t0`: the elapsed seconds are computed in
    /// `UInt64`, so even `t0 = Int64.min` with `unixTime = Int64.max` does not overflow.
    /// - Parameter unixTime: seconds since 1970-01-01T00:00:00Z.
    /// - Throws: ``CryptoError/invalidTime`` when `unixTime < t0`.
    public func timeStep(at unixTime: Int64) throws -> UInt64 {
        try elapsedSeconds(at: unixTime) / UInt64(period)
    }

    /// Seconds from `unixTime` until the step containing it ends, 1...period.
    ///
    /// Exact for every `Int64` time at or after `t0`: no overflow, as in ``timeStep(at:)``.
    /// - Throws: ``CryptoError/invalidTime`` when `unixTime < t0`.
    public func secondsRemaining(at unixTime: Int64) throws -> Int64 {
        let intoStep = try elapsedSeconds(at: unixTime) % UInt64(period)
        // 0 <= intoStep < period, so the result is in 1...period.
        return period - Int64(intoStep)
    }

    /// `unixTime - t0` as an exact unsigned number of seconds.
    ///
    /// - Throws: ``CryptoError/invalidTime`` when `unixTime < t0`.
    private func elapsedSeconds(at unixTime: Int64) throws -> UInt64 {
        guard unixTime >= t0 else { throw CryptoError.invalidTime }
        // With unixTime >= t0 the true difference lies in 0...UInt64.max, so the wrapping
        // subtraction's bit pattern is exactly that difference.
        return UInt64(bitPattern: unixTime &- t0)
    }

    // MARK: Codes

    /// The code for time step `step`.
    public func code(forTimeStep step: UInt64) -> String { hotp.code(counter: step) }

    /// The code at `unixTime` seconds since 1970.
    ///
    /// - Throws: ``CryptoError/invalidTime`` before `t0`.
    public func code(at unixTime: Int64) throws -> String { code(forTimeStep: try timeStep(at: unixTime)) }

    /// The code at `date` (its fractional second floored, RFC 6238 §4.2): what an authenticator
    /// shows at that time.
    ///
    /// - Throws: ``CryptoError/timeOutOfRange`` for a date outside the `Int64` range of seconds,
    ///   ``CryptoError/invalidTime`` before `t0`.
    public func code(at date: Date) throws -> String { try code(at: Self.wholeSeconds(date.timeIntervalSince1970)) }

    // MARK: Verification

    /// Verifies `code` within `window` steps either side of the step at `unixTime`, refusing
    /// steps at or before `lastUsedStep` and, with a `replayGuard`, recording the matched step in
    /// it atomically (RFC 6238 §5.2, drift §6).
    ///
    /// Every step in the window is computed. When several steps share the code, the code
    /// belongs to the matching step nearest the current one (on a tie, the newer), and only
    /// that step is checked against `lastUsedStep` and the guard. So a fresh code equal to the
    /// previous step's used code is accepted for the current step, while a replay inside the
    /// step it was used in is rejected even if the next step shares the code (Docs/Cases.md,
    /// B08). Without a guard this is a pure function: the caller stores the returned step as the
    /// new last used step, atomically with the check; with a guard (or a shared store,
    /// ``verify(_:at:window:replayStore:account:skew:)-(_,Int64,_,_,_,_)``) the guard does.
    /// - Parameters:
    ///   - code: the code as entered: exactly ``digits`` ASCII digits once every Unicode
    ///     whitespace character is removed (`" 287 082\n"` reads as `287082`, Docs/Cases.md, B34).
    ///   - unixTime: the verifier's time in whole seconds since 1970.
    ///   - window: steps accepted before and after the current one,
    ///     0...``maximumWindow``; 1 by default.
    ///   - lastUsedStep: the last accepted step, or `nil` (the default).
    ///   - replayGuard: records the matched step atomically, refusing a step at or before the
    ///     one it holds; `nil` (the default) for none.
    /// - Returns: the matched time step, which is newer than `lastUsedStep` and, with a guard, now
    ///   `replayGuard.lastUsedStep`.
    /// - Throws: ``CryptoError/invalidCodeFormat`` (wrong length or non-digits; nothing is
    ///   computed), ``CryptoError/invalidCode`` (no step matches),
    ///   ``CryptoError/codeAlreadyUsed`` (only used steps match, or another caller consumed the
    ///   guard's step first), ``CryptoError/invalidTime`` (before `t0`),
    ///   ``CryptoError/invalidParameter(_:)`` (`"window"` below 0 or above ``maximumWindow``).
    public func verify(
        _ code: String, at unixTime: Int64, window: Int = 1, lastUsedStep: UInt64? = nil,
        replayGuard: TOTPReplayGuard? = nil
    ) throws -> UInt64 {
        let step = try matchingStep(code, at: unixTime, window: window)
        if let lastUsedStep, step <= lastUsedStep { throw CryptoError.codeAlreadyUsed }
        try replayGuard?.consume(step)
        return step
    }

    /// Verifies `code` at `date` (its fractional second floored, RFC 6238 §4.2) like
    /// ``verify(_:at:window:lastUsedStep:replayGuard:)-(_,Int64,_,_,_)``.
    ///
    /// - Returns: the matched time step.
    /// - Throws: as the `Int64` form, and ``CryptoError/timeOutOfRange`` for a date outside the
    ///   `Int64` range of seconds.
    public func verify(
        _ code: String, at date: Date, window: Int = 1, lastUsedStep: UInt64? = nil,
        replayGuard: TOTPReplayGuard? = nil
    ) throws -> UInt64 {
        try verify(
            code, at: Self.wholeSeconds(date.timeIntervalSince1970), window: window, lastUsedStep: lastUsedStep,
            replayGuard: replayGuard)
    }

    /// Floors fractional Unix seconds (RFC 6238 §4.2).
    ///
    /// - Throws: ``CryptoError/timeOutOfRange`` for NaN, an infinity, or a value outside
    ///   `Int64` (-2^63 ..< 2^63, both exactly representable as `Double`).
    static func wholeSeconds(_ unixTime: Double) throws -> Int64 {
        let seconds = unixTime.rounded(.down)
        guard seconds.isFinite, seconds >= -0x1p63, seconds < 0x1p63 else { throw CryptoError.timeOutOfRange }
        return Int64(seconds)
    }

    /// The time steps `window` either side of `current`, clamped at 0 and `UInt64.max`
    /// (RFC 6238 §5.2); shared with ``SteamGuardTOTP``.
    static func steps(around current: UInt64, window: Int) -> ClosedRange<UInt64> {
        let width = UInt64(window)
        let first = current >= width ? current - width : 0
        let (sum, overflow) = current.addingReportingOverflow(width)
        return first...(overflow ? UInt64.max : sum)
    }

    private func matchingStep(_ code: String, at unixTime: Int64, window: Int) throws -> UInt64 {
        guard (0...Self.maximumWindow).contains(window) else { throw CryptoError.invalidParameter("window") }
        let submitted = try OTPCode.parse(code, digits: digits)
        let current = try timeStep(at: unixTime)
        var nearest: UInt64?
        var nearestDistance = UInt64.max
        let digits = self.digits
        // Every step in the window is computed (one lock for the window's HMACs). Ascending
        // order with `<=` makes the newer step win a tie in distance.
        hotp.key.forEachCounterAuthenticationCode(Self.steps(around: current, window: window)) { step, mac in
            let distance = step >= current ? step - current : current - step
            if OTPCode.truncate(mac, digits: digits) ^ submitted == 0, distance <= nearestDistance {
                nearest = step
                nearestDistance = distance
            }
        }
        guard let nearest else { throw CryptoError.invalidCode }
        return nearest
    }
}
