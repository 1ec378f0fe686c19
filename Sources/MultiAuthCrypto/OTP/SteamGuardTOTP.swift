import Foundation

/// Steam Guard mobile-authenticator codes: TOTP with HMAC-SHA1 and 30-second steps (RFC 6238
/// §4), whose 31-bit dynamically truncated value (RFC 4226 §5.3, without the decimal modulus)
/// is written as 5 characters of Steam's 26-symbol alphabet ``alphabet``, least significant
/// symbol first.
///
/// This is what an otpauth URI with `encoder=steam` describes (see ``OTPAuthURI/encoding``);
/// a decimal ``TOTP`` for such a secret would print 6-digit codes Steam never accepts.
/// The algorithm and the known answers in the tests are cross-checked against two public
/// implementations (pyotp's `contrib.Steam` and its test vectors; DoctorMcKay's
/// `node-steam-totp`), as recorded in `Docs/Standards.md` ("Steam Guard codes").
///
/// Like ``TOTP`` it never reads the clock: every method takes the time as Unix seconds.
/// Instances are immutable and safe to share across tasks.
public struct SteamGuardTOTP: Sendable {
    /// Steam's code alphabet: digits and consonants without look-alikes (`0`, `1`, `A`, `E`,
    /// `I`, `L`, `O`, `S`, `U`, `Z` are missing), 26 symbols.
    public static let alphabet = "23456789BCDFGHJKMNPQRTVWXY"
    /// The length of a Steam Guard code, in characters.
    public static let codeLength = 5

    /// The step length in seconds, above 0 (Steam uses 30).
    public var period: Int64 { steps.period }

    /// The time-step arithmetic (RFC 6238 §4.2); its decimal codes are never used.
    private let steps: TOTP
    private let key: HMACKey
    private static let symbols: [UInt8] = Array(alphabet.utf8)

    /// Creates a Steam Guard generator and verifier.
    ///
    /// - Parameters:
    ///   - secret: the key bytes, 1 byte or more (Steam's `shared_secret`: base64 in Steam's
    ///     own files, base32 in an otpauth URI).
    ///   - period: step length in seconds, above 0; 30 by default, as Steam uses.
    /// - Throws: ``CryptoError/invalidPeriod``, ``CryptoError/emptySecret``.
    public init(secret: some Sequence<UInt8>, period: Int64 = 30) throws {
        let bytes = Array(secret)
        guard period > 0 else { throw CryptoError.invalidPeriod }
        guard !bytes.isEmpty else { throw CryptoError.emptySecret }
        steps = try TOTP(secret: bytes, algorithm: .sha1, digits: 6, period: period)
        key = try HMACKey(bytes, algorithm: .sha1)
    }

    /// The time step containing `unixTime` (RFC 6238 §4.2, `T0` = 0).
    /// - Throws: ``CryptoError/invalidTime`` for a time before 1970.
    public func timeStep(at unixTime: Int64) throws -> UInt64 { try steps.timeStep(at: unixTime) }

    /// Seconds until the current code expires, 1...``period``.
    /// - Throws: ``CryptoError/invalidTime`` for a time before 1970.
    public func secondsRemaining(at unixTime: Int64) throws -> Int64 { try steps.secondsRemaining(at: unixTime) }

    /// The 5-character code of time step `step`.
    public func code(forTimeStep step: UInt64) -> String {
        var value = truncatedValue(step)
        var characters = [UInt8]()
        characters.reserveCapacity(Self.codeLength)
        for _ in 0..<Self.codeLength {
            characters.append(Self.symbols[Int(value % 26)])
            value /= 26
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// The code at `unixTime` seconds since 1970.
    /// - Throws: ``CryptoError/invalidTime`` for a time before 1970.
    public func code(at unixTime: Int64) throws -> String { code(forTimeStep: try timeStep(at: unixTime)) }

    /// Verifies `code` within `window` steps either side of the step at `unixTime` and returns
    /// the matching step nearest the current one (the newer on a tie).
    ///
    /// Every step in the window is computed, so timing does not reveal which one matched.
    /// - Parameters:
    ///   - code: 5 characters of ``alphabet`` once Unicode whitespace is removed; lower-case
    ///     letters are read as upper case.
    ///   - unixTime: the verifier's time in seconds since 1970.
    ///   - window: steps accepted before and after the current one, 0...``TOTP/maximumWindow``.
    /// - Returns: the matched time step.
    /// - Throws: ``CryptoError/invalidCodeFormat`` (wrong length or a character outside the
    ///   alphabet; nothing is computed), ``CryptoError/invalidCode`` (no step matches),
    ///   ``CryptoError/invalidTime``, ``CryptoError/invalidParameter(_:)`` (`"window"`).
    public func verify(_ code: String, at unixTime: Int64, window: Int = 1) throws -> UInt64 {
        guard (0...TOTP.maximumWindow).contains(window) else { throw CryptoError.invalidParameter("window") }
        let submitted = try Self.normalize(code)
        let current = try timeStep(at: unixTime)
        var nearest: UInt64?
        var nearestDistance = UInt64.max
        for step in TOTP.steps(around: current, window: window) {
            let distance = step >= current ? step - current : current - step
            let candidate = Array(self.code(forTimeStep: step).utf8)
            if ConstantTime.equals(candidate, submitted), distance <= nearestDistance {
                nearest = step
                nearestDistance = distance
            }
        }
        guard let nearest else { throw CryptoError.invalidCode }
        return nearest
    }

    /// The submitted code as upper-case alphabet bytes, whitespace removed.
    private static func normalize(_ code: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for scalar in code.unicodeScalars {
            if scalar.properties.isWhitespace { continue }
            guard scalar.isASCII, bytes.count < codeLength else { throw CryptoError.invalidCodeFormat }
            var byte = UInt8(scalar.value)
            if byte >= UInt8(ascii: "a"), byte <= UInt8(ascii: "z") { byte -= 0x20 }
            guard symbols.contains(byte) else { throw CryptoError.invalidCodeFormat }
            bytes.append(byte)
        }
        guard bytes.count == codeLength else { throw CryptoError.invalidCodeFormat }
        return bytes
    }

    /// Dynamic truncation (RFC 4226 §5.3): the 31-bit value at the offset in the low nibble of
    /// the last MAC byte, without the decimal modulus.
    private func truncatedValue(_ step: UInt64) -> UInt32 {
        key.withAuthenticationCode(forCounter: step) { mac in
            let offset = Int(mac[mac.count - 1] & 0x0f)
            return UInt32(mac[offset] & 0x7f) << 24 | UInt32(mac[offset + 1]) << 16
                | UInt32(mac[offset + 2]) << 8 | UInt32(mac[offset + 3])
        }
    }
}
