/// The bounded JSON parser behind every JWT, JWKS and ``JSONValue/init(parsing:limits:)``
/// (RFC 8259), built for input an attacker controls.
///
/// - **Iterative.** Open containers live on an explicit stack, never on the call stack, so no
///   nesting can overflow a thread's stack (a 512 KiB secondary thread included).
/// - **Bounded.** The input size is checked before the first byte is read; the depth and the
///   number of values are checked as each value starts, so nothing past a limit is built.
/// - **Linear.** Every byte is examined a constant number of times and every value is built
///   once. ``Outcome/steps`` counts that work so a test can prove the bound without a clock.
///   (The `Decodable` path it replaces tried `Bool`, `Double`, `String` and `[JSONValue]`
///   with `try?` before decoding an object, and each failed attempt built a `DecodingError`
///   whose coding path has one entry per enclosing level: a document of `n` values at depth
///   `d` cost `O(n · d)`, 11 s for 7.8 KB of nested arrays.)
/// - **Strict.** Object member names must be unique (compared after unescaping, with Swift
///   `String` equality, RFC 7519 §4 allows rejecting and we do); strings must be valid
///   UTF-8 without raw control characters or unpaired surrogate escapes; numbers must follow
///   the RFC 8259 §6 grammar and be finite as a `Double`; nothing may follow the value.
/// - **Fast on the common shapes** (Docs/Performance.md, JWT rows). It reads the bytes through
///   an unsafe buffer (no per-byte bounds checks in release builds); a string without escapes
///   becomes a `String` straight from its bytes, validated as UTF-8 only when it holds a byte
///   above 0x7F; a whole number of at most 18 digits (every JWT NumericDate) is accumulated
///   as an `Int64` instead of being handed to `Double(String)`; objects
///   start with room for 8 members. Each fast path gives the same value or error as the
///   general one (`Tests/MultiAuthCryptoTests/FastPathTests.swift`).
///
/// Errors: ``CryptoError/limitExceeded(_:maximum:)`` for a limit, else
/// ``CryptoError/malformedToken`` (callers that parse something other than a token map it).
enum JSONParser {
    /// A parse result and the work it took.
    struct Outcome {
        /// The parsed value.
        let value: JSONValue
        /// Loop iterations spent: one per byte examined plus one per value finished.
        let steps: Int
    }

    /// An open container on the parser's stack.
    private enum Frame {
        case array([JSONValue])
        case object([String: JSONValue], name: String?)
    }

    /// Parses one JSON value that fills all of `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: the UTF-8 JSON text.
    ///   - limits: the depth and value limits; `maximumBytes` is checked against
    ///     `bytes.count` (as `sizeName`) unless `checkSize` is false (a JWT segment, whose
    ///     token length was already checked).
    /// - Throws: ``CryptoError/limitExceeded(_:maximum:)`` or ``CryptoError/malformedToken``.
    static func parse(
        _ bytes: [UInt8], limits: JSONLimits, sizeName: String = "document size",
        checkSize: Bool = true
    ) throws -> Outcome {
        if checkSize, bytes.count > limits.maximumBytes {
            throw CryptoError.limitExceeded(sizeName, maximum: limits.maximumBytes)
        }
        return try bytes.withUnsafeBufferPointer { try parse(buffer: $0, limits: limits) }
    }

    /// Members an object has room for before its dictionary grows: a JWT header has 2–4, a
    /// claims set usually fewer than 8.
    private static let objectCapacity = 8

    /// ``parse(_:limits:sizeName:checkSize:)`` over the bytes, whose size was checked.
    private static func parse(buffer: UnsafeBufferPointer<UInt8>, limits: JSONLimits) throws -> Outcome {
        var scanner = Scanner(bytes: buffer)
        var stack: [Frame] = []
        var values = 0
        // The value just finished, waiting to be stored in its parent (or returned).
        var finished: JSONValue?

        while true {
            scanner.skipWhitespace()
            if let value = finished {
                finished = nil
                scanner.steps += 1
                guard var frame = stack.popLast() else {
                    // The top-level value: only whitespace may follow.
                    guard scanner.isAtEnd else { throw CryptoError.malformedToken }
                    return Outcome(value: value, steps: scanner.steps)
                }
                switch frame {
                case .array(var elements):
                    frame = .array([])
                    elements.append(value)
                    frame = .array(elements)
                case .object(var members, let name?):
                    frame = .object([:], name: nil)
                    // Canonically equivalent names are one name (Swift `String` equality).
                    guard members.updateValue(value, forKey: name) == nil else { throw CryptoError.malformedToken }
                    frame = .object(members, name: nil)
                case .object:
                    throw CryptoError.malformedToken
                }
                // After a member or element: `,` continues the container, its closer ends it.
                let byte = try scanner.next()
                switch (byte, frame) {
                case (UInt8(ascii: ","), .array):
                    stack.append(frame)
                // Fall through to read the next element below.
                case (UInt8(ascii: ","), .object(let members, _)):
                    let name = try scanner.memberName()
                    stack.append(.object(members, name: name))
                case (UInt8(ascii: "]"), .array(let elements)):
                    finished = .array(elements)
                    continue
                case (UInt8(ascii: "}"), .object(let members, _)):
                    finished = .object(members)
                    continue
                default:
                    throw CryptoError.malformedToken
                }
                scanner.skipWhitespace()
            }

            // Read one value.
            values += 1
            guard values <= limits.maximumValues else {
                throw CryptoError.limitExceeded("value count", maximum: limits.maximumValues)
            }
            finished = try readValue(&scanner, stack: &stack, limits: limits)
        }
    }

    /// Reads the value that starts at the scanner (after whitespace): a scalar is returned; an
    /// empty container is returned; a container with content is opened on `stack` (with its
    /// first member's name) and `nil` is returned, so its first element is read next.
    /// Inlined into the loop of ``parse(buffer:limits:)``: the split costs no call.
    @inline(__always)
    private static func readValue(
        _ scanner: inout Scanner, stack: inout [Frame], limits: JSONLimits
    ) throws -> JSONValue? {
        let byte = try scanner.next()
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard stack.count < limits.maximumDepth else {
                throw CryptoError.limitExceeded("nesting depth", maximum: limits.maximumDepth)
            }
            scanner.skipWhitespace()
            if byte == UInt8(ascii: "[") {
                if scanner.peek() == UInt8(ascii: "]") {
                    scanner.index += 1
                    return .array([])
                }
                stack.append(.array([]))
                return nil
            } else if scanner.peek() == UInt8(ascii: "}") {
                scanner.index += 1
                return .object([:])
            } else {
                stack.append(.object(Dictionary(minimumCapacity: objectCapacity), name: try scanner.memberName()))
                return nil
            }
        case UInt8(ascii: "\""):
            return .string(try scanner.stringBody())
        case UInt8(ascii: "t"):
            try scanner.expect("rue")
            return .bool(true)
        case UInt8(ascii: "f"):
            try scanner.expect("alse")
            return .bool(false)
        case UInt8(ascii: "n"):
            try scanner.expect("ull")
            return .null
        case _ where byte == UInt8(ascii: "-") || byte.isASCIIDigit:
            scanner.index -= 1
            return .number(try scanner.number())
        default:
            throw CryptoError.malformedToken
        }
    }

    /// A cursor over the input that counts the bytes it examines.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var steps = 0

        var isAtEnd: Bool { index >= bytes.count }

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        /// The next byte, consumed.
        mutating func next() throws -> UInt8 {
            guard index < bytes.count else { throw CryptoError.malformedToken }
            steps += 1
            defer { index += 1 }
            return bytes[index]
        }

        /// Skips RFC 8259 §2 whitespace: space, tab, line feed, carriage return.
        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D:
                    steps += 1
                    index += 1
                default:
                    return
                }
            }
        }

        /// Consumes the literal's remaining bytes.
        mutating func expect(_ rest: StaticString) throws {
            let count = rest.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw CryptoError.malformedToken }
            for offset in 0..<count where bytes[index + offset] != rest.utf8Start[offset] {
                throw CryptoError.malformedToken
            }
            steps += count
            index += count
        }

        /// Reads `"name"` and the `:` after it (whitespace allowed around both).
        mutating func memberName() throws -> String {
            skipWhitespace()
            guard try next() == UInt8(ascii: "\"") else { throw CryptoError.malformedToken }
            let name = try stringBody()
            skipWhitespace()
            guard try next() == UInt8(ascii: ":") else { throw CryptoError.malformedToken }
            return name
        }

        /// Reads a string's contents after its opening quote, through the closing quote
        /// (RFC 8259 §7).
        ///
        /// Fast path: up to the closing quote with no escape, the bytes become the `String`
        /// directly (checked as UTF-8 only when one is above 0x7F). At the first backslash the
        /// bytes so far are copied and the escape-decoding loop takes over.
        mutating func stringBody() throws -> String {
            let start = index
            var highBits: UInt8 = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    index += 1
                    steps += raw.count + 1
                    // Raw bytes must be valid UTF-8 (RFC 8259 §8.1); ASCII always is.
                    guard highBits & 0x80 == 0 || Self.isValidUTF8(raw) else { throw CryptoError.malformedToken }
                    return String(decoding: raw, as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else {
                    steps += index - start + 1
                    throw CryptoError.malformedToken
                }
                highBits |= byte
                index += 1
            }
            steps += index - start
            var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while true {
                let byte = try next()
                switch byte {
                case UInt8(ascii: "\""):
                    // Raw bytes must be valid UTF-8 (RFC 8259 §8.1); escapes were encoded here.
                    guard utf8.withUnsafeBufferPointer(Self.isValidUTF8) else { throw CryptoError.malformedToken }
                    return String(decoding: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    try escape(into: &utf8)
                case 0x00..<0x20:
                    throw CryptoError.malformedToken
                default:
                    utf8.append(byte)
                }
            }
        }

        /// Whether `bytes` is well-formed UTF-8 (no overlong forms, surrogates or stray bytes).
        private static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            var decoder = UTF8()
            var iterator = bytes.makeIterator()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: return true
                case .error: return false
                }
            }
        }

        /// Decodes one escape after its backslash.
        private mutating func escape(into utf8: inout [UInt8]) throws {
            let escape = try next()
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    // A high surrogate must be followed by an escaped low surrogate.
                    guard try next() == UInt8(ascii: "\\"), try next() == UInt8(ascii: "u") else {
                        throw CryptoError.malformedToken
                    }
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw CryptoError.malformedToken }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let value = Unicode.Scalar(scalar) else { throw CryptoError.malformedToken }
                utf8.append(contentsOf: UTF8.encode(value)!)
            default:
                throw CryptoError.malformedToken
            }
        }

        private mutating func hex4() throws -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = try next()
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw CryptoError.malformedToken
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }

        /// Reads a number (RFC 8259 §6): `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`,
        /// which must be finite as a `Double`.
        ///
        /// A whole number of at most 18 digits fits an `Int64` exactly, so it is accumulated while
        /// its digits are read and converted once (`Double(Int64)` rounds to nearest, ties to
        /// even, as `Double(String)` does); anything else goes through `Double(String)`.
        mutating func number() throws -> Double {
            let start = index
            func digits(_ scanner: inout Scanner) -> Int {
                var count = 0
                while let byte = scanner.peek(), byte.isASCIIDigit {
                    scanner.index += 1
                    scanner.steps += 1
                    count += 1
                }
                return count
            }
            let negative = peek() == UInt8(ascii: "-")
            if negative { _ = try next() }
            var integer: Int64 = 0
            var integerDigits = 0
            if peek() == UInt8(ascii: "0") {
                _ = try next()
                integerDigits = 1
            } else {
                while let byte = peek(), byte.isASCIIDigit {
                    if integerDigits < 18 { integer = integer &* 10 &+ Int64(byte &- UInt8(ascii: "0")) }
                    integerDigits += 1
                    index += 1
                    steps += 1
                }
                guard integerDigits > 0 else { throw CryptoError.malformedToken }
            }
            var whole = integerDigits <= 18
            if peek() == UInt8(ascii: ".") {
                whole = false
                _ = try next()
                guard digits(&self) > 0 else { throw CryptoError.malformedToken }
            }
            if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
                whole = false
                _ = try next()
                if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { _ = try next() }
                guard digits(&self) > 0 else { throw CryptoError.malformedToken }
            }
            if whole { return negative ? -Double(integer) : Double(integer) }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else {
                throw CryptoError.malformedToken
            }
            return value
        }
    }
}
