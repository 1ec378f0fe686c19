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
    /// Letters are case-insensitive; spaces, tabs, line breaks and `-` are ignored (secrets
    /// are often shown in groups of 4). Trailing `=` padding is optional and its amount is
    /// not checked. Unused bits of the last character are dropped, as other decoders do.
    /// - Parameter string: the secret as typed, pasted or read from an otpauth URI.
    /// - Returns: the key bytes (5 bytes per 8 characters).
    /// - Throws: ``CryptoError/invalidCharacter`` for a character outside `A–Z 2–7`;
    ///   ``CryptoError/invalidPadding`` for a `=` followed by a data character;
    ///   ``CryptoError/invalidLength`` when the number of data characters modulo 8 is 1, 3 or
    ///   6, which no whole number of bytes encodes to.
    public static func decode(_ string: some StringProtocol) throws -> [UInt8] {
        var out = [UInt8]()
        var accumulator: UInt32 = 0
        var bits = 0
        var count = 0
        var paddingSeen = false
        for character in string.utf8 {
            switch character {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "-"):
                continue
            case UInt8(ascii: "="):
                paddingSeen = true
                continue
            default:
                break
            }
            let value: UInt32
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(character - UInt8(ascii: "a"))
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = UInt32(character - UInt8(ascii: "2") + 26)
            default: throw CryptoError.invalidCharacter
            }
            guard !paddingSeen else { throw CryptoError.invalidPadding }
            count += 1
            accumulator = accumulator << 5 | value
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        switch count % 8 {
        case 1, 3, 6: throw CryptoError.invalidLength
        default: return out
        }
    }
}
