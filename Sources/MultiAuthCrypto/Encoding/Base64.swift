/// Base64 (RFC 4648 §4) with the standard alphabet, as in Truecaller's signed payloads.
///
/// The decoder is shared with ``Base64URL``, which differs only in two alphabet characters
/// and in not using padding.
public enum Base64 {
    /// Encodes `bytes` with the standard alphabet and `=` padding to a multiple of 4 characters.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        encode(Array(bytes), alphabet: standardAlphabet, padded: true)
    }

    /// Decodes standard base64; trailing `=` padding is optional but, when present, must
    /// complete the last 4-character group.
    ///
    /// - Throws: ``CryptoError/invalidBase64`` for a character outside `A–Z a–z 0–9 + /`, a
    ///   length whose remainder modulo 4 is 1, misplaced padding, or non-zero unused bits.
    public static func decode(_ string: some StringProtocol) throws -> [UInt8] {
        var body = Substring(string)
        var padding = 0
        while body.last == "=" {
            body.removeLast()
            padding += 1
        }
        if padding > 0 {
            guard padding <= 2, (body.utf8.count + padding) % 4 == 0 else { throw CryptoError.invalidBase64 }
        }
        return try decode(body.utf8, urlSafe: false)
    }

    static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8], alphabet: [UInt8], padded: Bool) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            if remaining > 1 {
                out.append(alphabet[Int(group >> 6 & 63)])
            } else if padded {
                out.append(UInt8(ascii: "="))
            }
            if remaining > 2 { out.append(alphabet[Int(group & 63)]) } else if padded { out.append(UInt8(ascii: "=")) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The 6-bit value of a base64 character, or nil if it is outside the alphabet.
    private static func value(of character: UInt8, urlSafe: Bool) -> UInt32? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(character - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(character - UInt8(ascii: "a") + 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(character - UInt8(ascii: "0") + 52)
        case UInt8(ascii: "+") where !urlSafe, UInt8(ascii: "-") where urlSafe: 62
        case UInt8(ascii: "/") where !urlSafe, UInt8(ascii: "_") where urlSafe: 63
        default: nil
        }
    }

    /// Decodes unpadded base64 characters of one alphabet.
    static func decode(_ characters: some Collection<UInt8>, urlSafe: Bool) throws -> [UInt8] {
        if let decoded = try characters.withContiguousStorageIfAvailable({ try decode(buffer: $0, urlSafe: urlSafe) }) {
            return decoded
        }
        let count = characters.count
        guard count % 4 != 1 else { throw CryptoError.invalidBase64 }
        var out = [UInt8]()
        out.reserveCapacity(count * 3 / 4)
        var regrouper = BitRegrouper()
        for character in characters {
            guard let sextet = value(of: character, urlSafe: urlSafe) else { throw CryptoError.invalidBase64 }
            regrouper.append(sextet, width: 6, to: &out)
        }
        // Unused trailing bits must be zero, so every byte string has exactly one encoding
        // (RFC 4648 §3.5); otherwise a token could be altered without changing its bytes.
        guard regrouper.pending == 0 else { throw CryptoError.invalidBase64 }
        return out
    }

    /// Sextet values of the standard and URL-safe alphabets (0xFF: not in the alphabet).
    private static let standardValues = sextetTable(standardAlphabet)
    private static let urlValues = sextetTable(urlAlphabet)

    private static func sextetTable(_ alphabet: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }

    /// The same decoding over contiguous bytes, four characters at a time through a table:
    /// same results and errors as the general loop.
    private static func decode(buffer: UnsafeBufferPointer<UInt8>, urlSafe: Bool) throws -> [UInt8] {
        let count = buffer.count
        guard count % 4 != 1 else { throw CryptoError.invalidBase64 }
        let outputCount = count / 4 * 3 + max(0, count % 4 - 1)
        return try (urlSafe ? urlValues : standardValues).withUnsafeBufferPointer { table in
            try [UInt8](unsafeUninitializedCapacity: outputCount) { output, initialized in
                var read = 0
                var written = 0
                if let input = buffer.baseAddress, let values = table.baseAddress, let out = output.baseAddress {
                    // Bounds are checked by the loop condition: 4 characters in, 3 bytes out.
                    while count - read >= 4 {
                        let a = UInt32(values[Int(input[read])])
                        let b = UInt32(values[Int(input[read + 1])])
                        let c = UInt32(values[Int(input[read + 2])])
                        let d = UInt32(values[Int(input[read + 3])])
                        guard (a | b | c | d) < 64 else { throw CryptoError.invalidBase64 }
                        let group = a << 18 | b << 12 | c << 6 | d
                        out[written] = UInt8(truncatingIfNeeded: group >> 16)
                        out[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                        out[written + 2] = UInt8(truncatingIfNeeded: group)
                        read += 4
                        written += 3
                        initialized = written
                    }
                }
                let rest = count - read
                if rest > 0 {
                    var group: UInt32 = 0
                    for offset in 0..<rest {
                        let value = UInt32(table[Int(buffer[read + offset])])
                        guard value < 64 else { throw CryptoError.invalidBase64 }
                        group = group << 6 | value
                    }
                    // 2 characters carry 1 byte and 4 spare bits; 3 carry 2 bytes and 2 spare bits.
                    let spareBits = rest == 2 ? 4 : 2
                    guard group & ((1 << UInt32(spareBits)) - 1) == 0 else { throw CryptoError.invalidBase64 }
                    group >>= UInt32(spareBits)
                    if rest == 3 {
                        output[written] = UInt8(truncatingIfNeeded: group >> 8)
                        output[written + 1] = UInt8(truncatingIfNeeded: group)
                        written += 2
                    } else {
                        output[written] = UInt8(truncatingIfNeeded: group)
                        written += 1
                    }
                    initialized = written
                }
            }
        }
    }
}
