import Foundation

/// Strict percent-encoding (RFC 3986 §2.1) for otpauth URIs.
enum PercentEncoding {
    /// Encodes every byte of the UTF-8 form of `string` except the RFC 3986 §2.3 unreserved
    /// characters (`A–Z a–z 0–9 - . _ ~`) as `%XX` with upper-case hex; a space becomes `%20`.
    static func encode(_ string: some StringProtocol) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 15)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` escapes.
    ///
    /// - Parameters:
    ///   - string: the encoded component.
    ///   - plusIsSpace: `true` for query values (HTML form convention, as other otpauth
    ///     parsers read them); `false` for the path, where `+` is a literal plus.
    /// - Throws: ``CryptoError/invalidPercentEscape`` for `%` not followed by two hex digits,
    ///   or escapes that do not form valid UTF-8.
    static func decode(_ string: some StringProtocol, plusIsSpace: Bool) throws -> String {
        var out = [UInt8]()
        var iterator = Array(string.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    throw CryptoError.invalidPercentEscape
                }
                out.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                out.append(UInt8(ascii: " "))
            default:
                out.append(byte)
            }
        }
        guard let decoded = String(bytes: out, encoding: .utf8) else { throw CryptoError.invalidPercentEscape }
        return decoded
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
