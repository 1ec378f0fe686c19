/// The parts of RFC 4226 shared by HOTP and TOTP: dynamic truncation, rendering and the
/// format check of submitted codes.
enum OTPCode {
    /// The digit counts MultiAuth accepts (RFC 4226 §5.3 requires at least 6; 8 is the most
    /// a 31-bit value can fill evenly in practice and what RFC 6238 uses).
    static let digitRange = 6...8

    static func validate(digits: Int) throws {
        guard digitRange.contains(digits) else { throw CryptoError.invalidDigits }
    }

    /// 10^digits for 6...8.
    @inline(__always)
    static func modulus(digits: Int) -> UInt32 {
        switch digits {
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        default: powerOfTen(digits)
        }
    }

    private static func powerOfTen(_ digits: Int) -> UInt32 {
        var value: UInt32 = 1
        for _ in 0..<digits { value &*= 10 }
        return value
    }

    /// Dynamic truncation (RFC 4226 §5.3): a 31-bit value taken at the offset given by the
    /// low nibble of the last MAC byte, reduced modulo 10^digits.
    ///
    /// `mac` is a whole digest (20 bytes or more), so the 4 bytes at offset 0...15 are inside it.
    @inline(__always)
    static func truncate(_ mac: UnsafeRawBufferPointer, digits: Int) -> UInt32 {
        precondition(mac.count >= 20, "an HMAC digest is at least 20 bytes")
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary = UInt32(bigEndian: mac.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) & 0x7fff_ffff
        return binary % modulus(digits: digits)
    }

    /// Renders `value` as exactly `digits` decimal characters, with leading zeros.
    static func render(_ value: UInt32, digits: Int) -> String {
        var characters = [UInt8](repeating: UInt8(ascii: "0"), count: digits)
        var rest = value
        for index in stride(from: digits - 1, through: 0, by: -1) {
            characters[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// Checks that `code` is exactly `digits` ASCII digits once every Unicode whitespace
    /// character is removed, and returns their fixed-width value.
    ///
    /// Whitespace anywhere is ignored, as in the core module's `ChallengeAnswer` (Docs/Cases.md, B34:
    /// `" 123456"`, `"123456\n"`, `"123 456"`; also U+00A0 and other Unicode spaces). Because
    /// the length is checked, leading zeros are significant: `"5924"` is rejected for 6 digits
    /// instead of being read as `005924` (Docs/Cases.md, B05), and the code is never converted to an
    /// integer before that check.
    /// - Throws: ``CryptoError/invalidCodeFormat`` for any other character (letters, signs,
    ///   non-ASCII digits) or a wrong number of digits.
    static func parse(_ code: String, digits: Int) throws -> UInt32 {
        // Fast path: an all-ASCII code is read byte by byte from its UTF-8 (a small string's
        // bytes are copied to the stack: no Unicode property lookups, no allocation). Any byte
        // of 0x80 or above means a non-ASCII scalar, which the general path classifies.
        var code = code
        let ascii = code.withUTF8 { bytes -> UInt32?? in
            var value: UInt32 = 0
            var count = 0
            for byte in bytes {
                switch byte {
                case _ where byte.isASCIIDigit:
                    guard count < digits else { return .some(nil) }
                    value = value &* 10 &+ UInt32(byte &- UInt8(ascii: "0"))
                    count += 1
                case 0x09...0x0d, 0x20:
                    // The ASCII members of Unicode White_Space: tab, LF, VT, FF, CR, space.
                    continue
                case 0x80...:
                    return nil
                default:
                    return .some(nil)
                }
            }
            return count == digits ? value : .some(nil)
        }
        switch ascii {
        case .some(.some(let value)): return value
        case .some(.none): throw CryptoError.invalidCodeFormat
        case .none: return try parseUnicode(code, digits: digits)
        }
    }

    /// The general path of ``parse(_:digits:)``: every Unicode whitespace scalar is skipped.
    static func parseUnicode(_ code: String, digits: Int) throws -> UInt32 {
        var value: UInt32 = 0
        var count = 0
        for scalar in code.unicodeScalars {
            if scalar.properties.isWhitespace { continue }
            guard scalar.isASCIIDigit, count < digits else {
                throw CryptoError.invalidCodeFormat
            }
            value = value * 10 + (scalar.value - UInt32(UInt8(ascii: "0")))
            count += 1
        }
        guard count == digits else { throw CryptoError.invalidCodeFormat }
        return value
    }
}
