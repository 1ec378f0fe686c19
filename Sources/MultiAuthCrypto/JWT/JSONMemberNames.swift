/// Finds repeated member names in JSON objects, which `JSONDecoder` and
/// `JSONSerialization` hide by keeping one of the values.
///
/// RFC 7519 §4 and RFC 7515 §4 let a JWT parser either reject a header or claims set with
/// duplicate member names or use the lexically last one; MultiAuth rejects, so
/// `{"alg":"RS256","alg":"none"}` can never be read differently by two parsers. Names are
/// compared after unescaping (`"al\u0067"` is `"alg"`) and with Swift `String` equality
/// (Unicode canonical equivalence), which is also how the decoded `[String: JSONValue]`
/// dictionary would have merged them. Objects at every depth are checked.
enum JSONMemberNames {
    /// Throws when any object in `json` has two members with the same name.
    ///
    /// `json` should already be known to be valid JSON (it is scanned after `JSONDecoder`
    /// accepted it); anything the scanner does not expect is treated as malformed.
    /// - Throws: ``CryptoError/malformedToken``.
    static func requireUnique(in json: [UInt8]) throws {
        // One entry per open container: the names seen so far for an object, nil for an array.
        var containers: [Set<String>?] = []
        var expectingName = false
        var index = 0
        while index < json.count {
            let byte = json[index]
            switch byte {
            case UInt8(ascii: "{"):
                containers.append([])
                expectingName = true
                index += 1
            case UInt8(ascii: "["):
                containers.append(nil)
                expectingName = false
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard containers.popLast() != nil else { throw CryptoError.malformedToken }
                expectingName = false
                index += 1
            case UInt8(ascii: ","):
                // After a comma inside an object the next string is a member name.
                expectingName = containers.last.map { $0 != nil } ?? false
                index += 1
            case UInt8(ascii: ":"):
                expectingName = false
                index += 1
            case UInt8(ascii: "\""):
                let (text, next) = try string(in: json, from: index)
                if expectingName {
                    guard var names = containers.popLast() ?? nil else { throw CryptoError.malformedToken }
                    guard names.insert(text).inserted else { throw CryptoError.malformedToken }
                    containers.append(names)
                    expectingName = false
                }
                index = next
            default:
                // Whitespace, numbers, true, false, null: nothing to record.
                index += 1
            }
        }
        guard containers.isEmpty else { throw CryptoError.malformedToken }
    }

    /// Decodes the JSON string whose opening quote is at `start` (RFC 8259 §7).
    ///
    /// - Returns: the unescaped text (an unpaired surrogate escape becomes U+FFFD) and the
    ///   index just after the closing quote.
    /// - Throws: ``CryptoError/malformedToken`` for an unterminated string or a bad escape.
    static func string(in json: [UInt8], from start: Int) throws -> (String, Int) {
        var utf8: [UInt8] = []
        var index = start + 1
        func hex4() throws -> UInt32 {
            guard index + 4 <= json.count else { throw CryptoError.malformedToken }
            var value: UInt32 = 0
            for byte in json[index..<index + 4] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw CryptoError.malformedToken
                }
                value = value << 4 | UInt32(digit)
            }
            index += 4
            return value
        }
        func append(_ scalar: Unicode.Scalar) {
            utf8.append(contentsOf: String(Character(scalar)).utf8)
        }
        while index < json.count {
            let byte = json[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return (String(decoding: utf8, as: UTF8.self), index)
            case UInt8(ascii: "\\"):
                guard index < json.count else { throw CryptoError.malformedToken }
                let escape = json[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    let unit = try hex4()
                    if (0xD800...0xDBFF).contains(unit), index + 6 <= json.count,
                       json[index] == UInt8(ascii: "\\"), json[index + 1] == UInt8(ascii: "u") {
                        let save = index
                        index += 2
                        let low = try hex4()
                        if (0xDC00...0xDFFF).contains(low),
                           let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) {
                            append(scalar)
                            continue
                        }
                        index = save
                    }
                    append(Unicode.Scalar(unit) ?? "\u{FFFD}")
                default:
                    throw CryptoError.malformedToken
                }
            default:
                utf8.append(byte)
            }
        }
        throw CryptoError.malformedToken
    }
}
