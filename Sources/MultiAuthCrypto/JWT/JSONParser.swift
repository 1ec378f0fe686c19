/// A strict, single-pass JSON parser (RFC 8259) into ``JSONValue``, for JWT headers and claims.
///
/// It reads the bytes once, with no `Codable` machinery: objects and arrays, strings with every
/// escape (surrogate pairs combined; lone surrogates, unescaped control characters and invalid
/// UTF-8 refused), numbers in the RFC 8259 §6 grammar as `Double` (finite only), `true`,
/// `false`, `null`. Member names must be unique in each object (compared as Swift strings,
/// like ``JSONMemberNames``). Nesting deeper than ``maximumDepth`` is refused before any deeper
/// work, so the recursion is bounded and the time is linear in the input.
///
/// Every failure is ``CryptoError/malformedToken``. It replaced Foundation's `JSONDecoder` plus a
/// second scan for duplicate names (a test compares the two on random and mutated documents);
/// the one intended difference is that trailing commas (`[1,]`), which RFC 8259 §5 does not
/// allow and Foundation's decoder accepts, are refused.
struct JSONParser {
    /// The deepest nesting of objects and arrays accepted (the top-level object is level 1).
    static let maximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses `data`, which must be exactly one JSON object (surrounding whitespace allowed).
    static func object(from data: [UInt8]) throws -> [String: JSONValue] {
        try data.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer)
            parser.skipWhitespace()
            guard parser.peek() == UInt8(ascii: "{") else { throw CryptoError.malformedToken }
            let members = try parser.parseObject()
            parser.skipWhitespace()
            guard parser.index == buffer.count else { throw CryptoError.malformedToken }
            return members
        }
    }

    // MARK: Values

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0a, 0x0d: index += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard index < bytes.count, bytes[index] == byte else { throw CryptoError.malformedToken }
        index += 1
    }

    private mutating func parseValue() throws -> JSONValue {
        guard let byte = peek() else { throw CryptoError.malformedToken }
        switch byte {
        case UInt8(ascii: "{"): return .object(try parseObject())
        case UInt8(ascii: "["): return .array(try parseArray())
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw CryptoError.malformedToken
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw CryptoError.malformedToken }
        let text = word.utf8Start
        for offset in 0..<count where bytes[index + offset] != text[offset] { throw CryptoError.malformedToken }
        index += count
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= Self.maximumDepth else { throw CryptoError.malformedToken }
    }

    private mutating func parseObject() throws -> [String: JSONValue] {
        try enter()
        defer { depth -= 1 }
        index += 1  // "{"
        var members: [String: JSONValue] = Dictionary(minimumCapacity: 8)
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return members
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw CryptoError.malformedToken }
            let name = try parseString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            let value = try parseValue()
            guard members.updateValue(value, forKey: name) == nil else { throw CryptoError.malformedToken }
            skipWhitespace()
            guard let next = peek() else { throw CryptoError.malformedToken }
            index += 1
            if next == UInt8(ascii: "}") { return members }
            guard next == UInt8(ascii: ",") else { throw CryptoError.malformedToken }
        }
    }

    private mutating func parseArray() throws -> [JSONValue] {
        try enter()
        defer { depth -= 1 }
        index += 1  // "["
        var values: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return values
        }
        while true {
            skipWhitespace()
            values.append(try parseValue())
            skipWhitespace()
            guard let next = peek() else { throw CryptoError.malformedToken }
            index += 1
            if next == UInt8(ascii: "]") { return values }
            guard next == UInt8(ascii: ",") else { throw CryptoError.malformedToken }
        }
    }

    // MARK: Strings

    private mutating func parseString() throws -> String {
        index += 1  // opening quote
        let start = index
        var ascii = true
        // Fast path: no escapes up to the closing quote.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return try Self.string(raw, ascii: ascii)
            }
            if byte == UInt8(ascii: "\\") { return try parseEscapedString(from: start) }
            guard byte >= 0x20 else { throw CryptoError.malformedToken }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        throw CryptoError.malformedToken
    }

    /// A string from raw UTF-8, refusing invalid UTF-8 (which would otherwise be repaired).
    private static func string(_ raw: UnsafeBufferPointer<UInt8>, ascii: Bool) throws -> String {
        let text = String(decoding: raw, as: UTF8.self)
        if !ascii, !text.utf8.elementsEqual(raw) { throw CryptoError.malformedToken }
        return text
    }

    /// The slow path of ``parseString()``, from the first byte after the opening quote.
    private mutating func parseEscapedString(from start: Int) throws -> String {
        var utf8: [UInt8] = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                let text = String(decoding: utf8, as: UTF8.self)
                guard text.utf8.elementsEqual(utf8) else { throw CryptoError.malformedToken }
                return text
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw CryptoError.malformedToken }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0c)
                case UInt8(ascii: "n"): utf8.append(0x0a)
                case UInt8(ascii: "r"): utf8.append(0x0d)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var value = try hex4()
                    if (0xD800...0xDBFF).contains(value) {
                        // A high surrogate must be followed by an escaped low surrogate.
                        try expect(UInt8(ascii: "\\"))
                        try expect(UInt8(ascii: "u"))
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw CryptoError.malformedToken }
                        value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(value) {
                        throw CryptoError.malformedToken
                    }
                    guard let scalar = Unicode.Scalar(value) else { throw CryptoError.malformedToken }
                    utf8.append(contentsOf: UTF8.encode(scalar)!)
                default:
                    throw CryptoError.malformedToken
                }
            default:
                guard byte >= 0x20 else { throw CryptoError.malformedToken }
                utf8.append(byte)
            }
        }
        throw CryptoError.malformedToken
    }

    private mutating func hex4() throws -> UInt32 {
        guard bytes.count - index >= 4 else { throw CryptoError.malformedToken }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw CryptoError.malformedToken
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    // MARK: Numbers

    /// A number in the RFC 8259 §6 grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func parseNumber() throws -> Double {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        // Integer part; an exact Int64 accumulates for the common case of a whole number.
        guard let first = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { throw CryptoError.malformedToken }
        var integer: Int64 = 0
        var digits = 0
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                if digits < 18 { integer = integer * 10 + Int64(byte - UInt8(ascii: "0")) }
                digits += 1
                index += 1
            }
        }
        var simple = digits < 16  // exactly representable as a Double
        if peek() == UInt8(ascii: ".") {
            simple = false
            index += 1
            try digitRun()
        }
        if let byte = peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            simple = false
            index += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            try digitRun()
        }
        if simple { return negative ? -Double(integer) : Double(integer) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw CryptoError.malformedToken }
        return value
    }

    /// One or more ASCII digits.
    private mutating func digitRun() throws {
        let start = index
        while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        guard index > start else { throw CryptoError.malformedToken }
    }
}
