/// Base32 (RFC 4648 §6), the encoding of authenticator (HOTP/TOTP) secrets.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Encodes `bytes` in the canonical form used by MultiAuth: upper case, no `=` padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out = [UInt8]()
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = accumulator << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[Int(accumulator >> UInt32(bits) & 31)])
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { out.append(alphabet[Int(accumulator << UInt32(5 - bits) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes a base32 secret as people paste it.
    ///
    /// Letters are case-insensitive; `-` and every Unicode whitespace character (Unicode
    /// `White_Space`: spaces, tabs, line breaks, no-break space U+00A0, ideographic space
    /// U+3000, …) are ignored, since secrets are often shown in groups of 4 and copied from
    /// web pages. Trailing `=` padding is optional and its amount is not checked. Unused bits
    /// of the last character are dropped, as other decoders do. An empty or
    /// whitespace-only string decodes to no bytes (OTP generators reject that as
    /// ``CryptoError/emptySecret``).
    /// - Parameter string: the secret as typed, pasted or read from an otpauth URI.
    /// - Returns: the key bytes (5 bytes per 8 characters).
    /// - Throws: ``CryptoError/invalidCharacter`` for a character outside `A–Z 2–7`;
    ///   ``CryptoError/invalidPadding`` for a `=` followed by a data character;
    ///   ``CryptoError/invalidLength`` when the number of data characters modulo 8 is 1, 3 or
    ///   6, which no whole number of bytes encodes to.
    public static func decode(_ string: some StringProtocol) throws -> [UInt8] {
        var out = [UInt8]()
        var regrouper = BitRegrouper()
        var count = 0
        var paddingSeen = false
        for scalar in string.unicodeScalars {
            if scalar == "-" || isIgnorable(scalar) { continue }
            if scalar == "=" {
                paddingSeen = true
                continue
            }
            guard scalar.isASCII else { throw CryptoError.invalidCharacter }
            let character = UInt8(truncatingIfNeeded: scalar.value)
            let value: UInt32
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(character - UInt8(ascii: "a"))
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = UInt32(character - UInt8(ascii: "2") + 26)
            default: throw CryptoError.invalidCharacter
            }
            guard !paddingSeen else { throw CryptoError.invalidPadding }
            count += 1
            regrouper.append(value, width: 5, to: &out)
        }
        switch count % 8 {
        case 1, 3, 6: throw CryptoError.invalidLength
        default: return out
        }
    }

    /// Whitespace that separates groups of a pasted secret: the Unicode `White_Space`
    /// property, which covers ASCII space, tab and line breaks as well as U+00A0, U+2000–U+200A,
    /// U+202F, U+3000 and the other Unicode spaces.
    static func isIgnorable(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace
    }
}
