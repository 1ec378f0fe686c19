/// HMAC-based one-time passwords (RFC 4226), with SHA-1, SHA-256 or SHA-512.
///
/// Codes are `String`s of exactly ``digits`` characters with leading zeros kept; they are
/// never handled as integers.
public struct HOTP: Sendable {
    /// The HMAC hash function (RFC 4226 uses SHA-1; RFC 6238 §1.2 allows SHA-256/512).
    public let algorithm: DigestAlgorithm
    /// The number of decimal digits per code, 6...8.
    public let digits: Int
    let key: HMACKey

    /// The largest look-ahead ``verify(_:counter:lookAhead:)`` accepts: 1000 counters.
    ///
    /// Every counter in the window costs one HMAC, so the bound keeps one verification cheap
    /// (`Int.max` would never finish). RFC 4226 §7.4 asks for a small look-ahead: each extra
    /// counter is one more value a guessed code may match.
    public static let maximumLookAhead = 1000

    /// Creates a generator for the shared secret `secret`.
    ///
    /// - Parameters:
    ///   - secret: the key bytes (decode a base32 secret with ``Base32/decode(_:)``); 1 byte
    ///     or more, RFC 4226 §4 recommends 20.
    ///   - algorithm: the HMAC hash function; SHA-1 by default.
    ///   - digits: the code length in digits, 6...8; 6 by default.
    /// - Throws: ``CryptoError/invalidDigits``; ``CryptoError/emptySecret`` for an empty secret.
    public init(secret: some Sequence<UInt8>, algorithm: DigestAlgorithm = .sha1, digits: Int = 6) throws {
        try OTPCode.validate(digits: digits)
        let bytes = Array(secret)
        guard !bytes.isEmpty else { throw CryptoError.emptySecret }
        self.algorithm = algorithm
        self.digits = digits
        self.key = try HMACKey(bytes, algorithm: algorithm)
    }

    /// The code for `counter` (RFC 4226 §5.3): HMAC of the 8-byte big-endian counter, dynamic
    /// truncation, modulo 10^digits, zero-padded to ``digits`` characters.
    public func code(counter: UInt64) -> String {
        OTPCode.render(value(counter: counter), digits: digits)
    }

    func value(counter: UInt64) -> UInt32 {
        key.withAuthenticationCode(forCounter: counter) { OTPCode.truncate($0, digits: digits) }
    }

    /// Verifies `code` against counters `counter ... counter + lookAhead` (RFC 4226 §7.4
    /// resynchronisation) and returns the matching counter; the caller stores `matched + 1`
    /// as the next expected counter.
    ///
    /// - Parameters:
    ///   - code: the code as entered: exactly ``digits`` ASCII digits once all Unicode
    ///     whitespace is removed (`" 755 224\n"` is read as `755224`).
    ///   - counter: the next counter value the server expects.
    ///   - lookAhead: how many further counters to try, 0...``maximumLookAhead``.
    /// - Returns: the lowest matching counter.
    /// - Throws: ``CryptoError/invalidCodeFormat`` for a wrong length or non-digits (no MAC is
    ///   computed); ``CryptoError/invalidCode`` when nothing matches;
    ///   ``CryptoError/invalidParameter(_:)`` (`"lookAhead"`) for a look-ahead below 0 or
    ///   above ``maximumLookAhead``.
    public func verify(_ code: String, counter: UInt64, lookAhead: Int = 0) throws -> UInt64 {
        guard (0...Self.maximumLookAhead).contains(lookAhead) else { throw CryptoError.invalidParameter("lookAhead") }
        let submitted = try OTPCode.parse(code, digits: digits)
        var matched: UInt64?
        var candidate = counter
        for _ in 0...lookAhead {
            // Every counter in the window is computed, so timing does not reveal which matched.
            if value(counter: candidate) ^ submitted == 0, matched == nil { matched = candidate }
            let (next, overflow) = candidate.addingReportingOverflow(1)
            if overflow { break }
            candidate = next
        }
        guard let matched else { throw CryptoError.invalidCode }
        return matched
    }
}
