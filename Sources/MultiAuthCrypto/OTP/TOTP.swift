import Foundation

/// Time-based one-time passwords (RFC 6238): HOTP over the time step
/// `T = floor((now - T0) / period)`.
///
/// The module never reads the clock: every method takes the time as Unix seconds
/// (`Int64` or `Double`) or a `Date` from the caller's time source. Codes are `String`s of
/// exactly ``digits`` characters, leading zeros kept.
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

    /// Creates a TOTP generator and verifier.
    ///
    /// - Parameters:
    ///   - secret: the key bytes, 1 byte or more (decode base32 with ``Base32/decode(_:)``).
    ///   - algorithm: the HMAC hash function; SHA-1 by default.
    ///   - digits: code length, 6...8 digits; 6 by default.
    ///   - period: step length in seconds, above 0; 30 by default.
    ///   - t0: Unix time in seconds of step 0; 0 by default.
    /// - Throws: ``CryptoError/invalidDigits``, ``CryptoError/invalidPeriod``,
    ///   ``CryptoError/invalidKey`` (empty secret).
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
    /// - Parameter unixTime: seconds since 1970-01-01T00:00:00Z.
    /// - Throws: ``CryptoError/invalidTime`` when `unixTime < t0`.
    public func timeStep(at unixTime: Int64) throws -> UInt64 {
        guard unixTime >= t0 else { throw CryptoError.invalidTime }
        let elapsed = unixTime.subtractingReportingOverflow(t0)
        guard !elapsed.overflow else { throw CryptoError.invalidTime }
        return UInt64(elapsed.partialValue / period)
    }

    /// The time step containing `unixTime`, a possibly fractional number of seconds since
    /// 1970 (the fraction is floored, RFC 6238 §4.2).
    ///
    /// - Throws: ``CryptoError/invalidTime`` before `t0`, or for a non-finite time.
    public func timeStep(at unixTime: Double) throws -> UInt64 {
        try timeStep(at: Self.wholeSeconds(unixTime))
    }

    /// The time step containing `date`.
    ///
    /// - Throws: ``CryptoError/invalidTime`` before `t0`.
    public func timeStep(at date: Date) throws -> UInt64 {
        try timeStep(at: date.timeIntervalSince1970)
    }

    /// Seconds from `unixTime` until the step containing it ends, 1...period.
    ///
    /// - Throws: ``CryptoError/invalidTime`` when `unixTime < t0`.
    public func secondsRemaining(at unixTime: Int64) throws -> Int64 {
        guard unixTime >= t0 else { throw CryptoError.invalidTime }
        return period - (unixTime - t0) % period
    }

    // MARK: Codes

    /// The code for time step `step`.
    public func code(forTimeStep step: UInt64) -> String { hotp.code(counter: step) }

    /// The code at `unixTime` seconds since 1970.
    ///
    /// - Throws: ``CryptoError/invalidTime`` before `t0`.
    public func code(at unixTime: Int64) throws -> String { code(forTimeStep: try timeStep(at: unixTime)) }

    /// The code at `unixTime`, fractional seconds since 1970.
    ///
    /// - Throws: ``CryptoError/invalidTime`` before `t0`.
    public func code(at unixTime: Double) throws -> String { code(forTimeStep: try timeStep(at: unixTime)) }

    /// The code at `date`.
    ///
    /// - Throws: ``CryptoError/invalidTime`` before `t0`.
    public func code(at date: Date) throws -> String { code(forTimeStep: try timeStep(at: date)) }

    // MARK: Verification

    /// Verifies `code` within `window` steps either side of the step at `unixTime`, skipping
    /// steps at or before `lastUsedStep` (RFC 6238 §5.2, drift §6).
    ///
    /// Every step in the window is computed. When several steps share the code, the code
    /// belongs to the matching step nearest the current one (on a tie, the newer), and only
    /// that step is checked against `lastUsedStep`. So a fresh code equal to the previous
    /// step's used code is accepted for the current step, while a replay inside the step it
    /// was used in is rejected even if the next step shares the code (case B08). This is a
    /// pure function: the caller stores the returned step as the new last used step,
    /// atomically with the check (or use ``verify(_:at:window:replayGuard:)``).
    /// - Parameters:
    ///   - code: the code as entered, trimmed; exactly ``digits`` ASCII digits.
    ///   - unixTime: the verifier's time in seconds since 1970.
    ///   - window: steps accepted before and after the current one, 0 or more; 1 by default.
    ///   - lastUsedStep: the last accepted step, or `nil`.
    /// - Returns: the matched time step, which is newer than `lastUsedStep`.
    /// - Throws: ``CryptoError/invalidCodeFormat`` (wrong length or non-digits; nothing is
    ///   computed), ``CryptoError/invalidCode`` (no step matches),
    ///   ``CryptoError/codeAlreadyUsed`` (only used steps match),
    ///   ``CryptoError/invalidTime``, ``CryptoError/invalidParameter(_:)`` (`"window"` < 0).
    public func verify(_ code: String, at unixTime: Int64, window: Int = 1, lastUsedStep: UInt64? = nil) throws -> UInt64 {
        let step = try matchingStep(code, at: unixTime, window: window)
        if let lastUsedStep, step <= lastUsedStep { throw CryptoError.codeAlreadyUsed }
        return step
    }

    /// Verifies `code` like ``verify(_:at:window:lastUsedStep:)`` and records the matched
    /// step in `replayGuard` atomically.
    ///
    /// - Returns: the matched time step, now `replayGuard.lastUsedStep`.
    /// - Throws: as ``verify(_:at:window:lastUsedStep:)``; ``CryptoError/codeAlreadyUsed``
    ///   when another caller consumed this step first.
    public func verify(_ code: String, at unixTime: Int64, window: Int = 1, replayGuard: TOTPReplayGuard) throws -> UInt64 {
        let step = try matchingStep(code, at: unixTime, window: window)
        try replayGuard.consume(step)
        return step
    }

    /// Verifies `code` at `date`; see the `Int64` overload.
    public func verify(_ code: String, at date: Date, window: Int = 1, lastUsedStep: UInt64? = nil) throws -> UInt64 {
        try verify(code, at: Self.wholeSeconds(date.timeIntervalSince1970), window: window, lastUsedStep: lastUsedStep)
    }

    /// Verifies `code` at `date` with a replay guard; see
    /// the `Int64` overload.
    public func verify(_ code: String, at date: Date, window: Int = 1, replayGuard: TOTPReplayGuard) throws -> UInt64 {
        try verify(code, at: Self.wholeSeconds(date.timeIntervalSince1970), window: window, replayGuard: replayGuard)
    }

    /// Floors fractional Unix seconds (RFC 6238 §4.2); non-finite or out-of-range is an error.
    private static func wholeSeconds(_ unixTime: Double) throws -> Int64 {
        let seconds = unixTime.rounded(.down)
        guard seconds.isFinite, seconds >= -9.2e18, seconds <= 9.2e18 else { throw CryptoError.invalidTime }
        return Int64(seconds)
    }

    private func matchingStep(_ code: String, at unixTime: Int64, window: Int) throws -> UInt64 {
        guard window >= 0 else { throw CryptoError.invalidParameter("window") }
        let submitted = try OTPCode.parse(code, digits: digits)
        let current = try timeStep(at: unixTime)
        let width = UInt64(window)
        let first = current >= width ? current - width : 0
        let last = current.addingReportingOverflow(width).overflow ? UInt64.max : current + width
        var nearest: UInt64?
        var nearestDistance = UInt64.max
        var step = first
        while true {
            // Ascending order with `<=` makes the newer step win a tie in distance.
            let distance = step >= current ? step - current : current - step
            if hotp.value(counter: step) ^ submitted == 0, distance <= nearestDistance {
                nearest = step
                nearestDistance = distance
            }
            if step == last { break }
            step += 1
        }
        guard let nearest else { throw CryptoError.invalidCode }
        return nearest
    }
}
