/// One CBOR data item (RFC 8949 §3), restricted to what WebAuthn carries: integers, byte and
/// text strings, arrays, maps and the simple values `false`, `true` and `null`.
///
/// Decode untrusted bytes with ``init(decoding:limits:)`` (exactly one item) or
/// ``decodePrefix(_:from:limits:)`` (one item followed by more data, as the credential public
/// key inside authenticator data, W3C WebAuthn Level 3 §6.5.1). Floats, tags, `undefined`,
/// other simple values and indefinite lengths are refused (WebAuthn's CTAP2 canonical CBOR
/// never uses them). Concurrency: an immutable value.
public indirect enum CBORValue: Sendable, Hashable {
    /// An unsigned integer, major type 0 (RFC 8949 §3.1).
    case unsigned(UInt64)
    /// A negative integer, major type 1: the payload `n` stands for `-1 - n` (RFC 8949 §3.1).
    case negative(UInt64)
    /// A byte string, major type 2.
    case bytes([UInt8])
    /// A UTF-8 text string, major type 3 (invalid UTF-8 is refused, RFC 8949 §3.1).
    case text(String)
    /// An array, major type 4.
    case array([CBORValue])
    /// A map, major type 5; a key appears at most once (duplicates are refused, RFC 8949 §5.6).
    case map([CBORValue: CBORValue])
    /// `false` or `true` (major type 7, simple values 20 and 21).
    case bool(Bool)
    /// `null` (major type 7, simple value 22).
    case null

    /// The value as an `Int` when it is an integer that fits one, else `nil`.
    public var intValue: Int? {
        switch self {
        case .unsigned(let value): Int(exactly: value)
        case .negative(let value): Int(exactly: value).map { -1 - $0 }
        default: nil
        }
    }

    /// Decodes exactly one data item that fills all of `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: the encoded item.
    ///   - limits: size, depth and item-count limits; ``CBORLimits/webAuthn`` by default.
    /// - Throws: ``CBORError`` (`trailingBytes` when anything follows the item; see
    ///   ``CBORError/Kind`` for the rest). Concurrency: pure; time linear in `bytes.count`.
    public init(decoding bytes: [UInt8], limits: CBORLimits = .webAuthn) throws(CBORError) {
        let (value, end) = try Self.decodePrefix(bytes, from: 0, limits: limits)
        guard end == bytes.count else { throw CBORError(.trailingBytes, at: end) }
        self = value
    }

    /// Decodes the one data item that starts at `offset` and says where it ends; bytes after
    /// it are left alone (RFC 8949 §5.1 "CBOR sequences" style reading).
    ///
    /// - Parameters:
    ///   - bytes: the buffer.
    ///   - offset: where the item starts, `0...bytes.count`.
    ///   - limits: size, depth and item-count limits.
    /// - Returns: the item and the offset of the first byte after it.
    /// - Throws: ``CBORError``. Concurrency: pure.
    public static func decodePrefix(
        _ bytes: [UInt8], from offset: Int, limits: CBORLimits = .webAuthn
    ) throws(CBORError) -> (value: CBORValue, end: Int) {
        guard bytes.count <= limits.maximumBytes else { throw CBORError(.sizeExceeded, at: 0) }
        guard offset >= 0, offset <= bytes.count else { throw CBORError(.truncated, at: offset) }
        var reader = CBORReader(bytes: bytes, index: offset, limits: limits)
        reader.maximumDepth = min(64, limits.maximumDepth)
        let value = try reader.item(depth: 1)
        return (value, reader.index)
    }
}

/// The limits ``CBORValue`` checks while it decodes, each before any allocation it guards.
///
/// Concurrency: a plain value.
public struct CBORLimits: Sendable, Hashable {
    /// The largest input, in bytes.
    public var maximumBytes: Int
    /// The deepest nesting: a top-level item is depth 1, an item inside an array or map at
    /// depth 1 is depth 2, and so on. Values above 64 are read as 64.
    public var maximumDepth: Int
    /// The most data items one input may hold (every array element, map key and map value
    /// counts, as does the top-level item).
    public var maximumItems: Int

    /// Creates limits; every value is clamped to at least 1, the depth to at most 64 (the
    /// decoder recurses once per level, so the depth bounds its stack use).
    ///
    /// - Parameters:
    ///   - maximumBytes: input size in bytes.
    ///   - maximumDepth: nesting levels, 1 to 64.
    ///   - maximumItems: data items.
    public init(maximumBytes: Int, maximumDepth: Int, maximumItems: Int) {
        self.maximumBytes = max(1, maximumBytes)
        self.maximumDepth = min(64, max(1, maximumDepth))
        self.maximumItems = max(1, maximumItems)
    }

    /// The limits for attestation objects and authenticator data: 64 KiB (65,536 bytes), 16
    /// levels, 4,096 items.
    public static let webAuthn = CBORLimits(maximumBytes: 65_536, maximumDepth: 16, maximumItems: 4_096)
}

/// Why ``CBORValue`` refused its input, and where.
///
/// Concurrency: a plain value. Never carries input bytes.
public struct CBORError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Kind: String, Sendable, Hashable {
        /// The input ended inside an item.
        case truncated
        /// A declared length or element count is larger than what remains of the input
        /// (checked before anything is allocated).
        case lengthExceedsInput
        /// An indefinite-length string, array or map (additional information 31, RFC 8949
        /// §3.2), refused here.
        case indefiniteLength
        /// Additional information 28–30, reserved by RFC 8949 §3.
        case reservedEncoding
        /// A tag (major type 6), a float, `undefined` or another simple value: not used by
        /// WebAuthn, refused.
        case unsupportedType
        /// A map repeats a key (RFC 8949 §5.6: such a map is not valid here).
        case duplicateKey
        /// A text string is not valid UTF-8.
        case invalidUTF8
        /// Nesting deeper than ``CBORLimits/maximumDepth``.
        case depthExceeded
        /// More items than ``CBORLimits/maximumItems``.
        case itemCountExceeded
        /// The input is larger than ``CBORLimits/maximumBytes``.
        case sizeExceeded
        /// Bytes follow the one item that was expected to fill the input.
        case trailingBytes
    }

    /// What was wrong.
    public let kind: Kind
    /// The byte offset at which it was found.
    public let offset: Int

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - kind: what was wrong.
    ///   - offset: where, in bytes from the start of the input.
    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    /// e.g. `CBOR truncated at byte 12`.
    public var description: String { "CBOR \(kind.rawValue) at byte \(offset)" }
}

/// The recursive-descent reader behind ``CBORValue``; recursion is bounded by the depth limit.
struct CBORReader {
    let bytes: [UInt8]
    var index: Int
    let limits: CBORLimits
    var maximumDepth: Int
    var items = 0

    init(bytes: [UInt8], index: Int, limits: CBORLimits) {
        self.bytes = bytes
        self.index = index
        self.limits = limits
        self.maximumDepth = limits.maximumDepth
    }

    var remaining: Int { bytes.count - index }

    mutating func byte() throws(CBORError) -> UInt8 {
        guard index < bytes.count else { throw CBORError(.truncated, at: index) }
        defer { index += 1 }
        return bytes[index]
    }

    /// The argument of a head (RFC 8949 §3): the additional information itself, or the 1, 2,
    /// 4 or 8 bytes after it. Non-shortest arguments are accepted (a lenient reader; WebAuthn
    /// relying parties need not check CTAP2 canonical form).
    mutating func argument(_ info: UInt8, at start: Int) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24...27:
            let count = 1 << Int(info - 24)
            guard remaining >= count else { throw CBORError(.truncated, at: index) }
            var value: UInt64 = 0
            for _ in 0..<count { value = value << 8 | UInt64(try byte()) }
            return value
        case 31: throw CBORError(.indefiniteLength, at: start)
        default: throw CBORError(.reservedEncoding, at: start)
        }
    }

    /// A length or count, refused when above `remaining / perElement` (each element needs at
    /// least `perElement` bytes), so nothing is reserved for input that is not there.
    mutating func length(_ info: UInt8, at start: Int, perElement: Int) throws(CBORError) -> Int {
        let argument = try argument(info, at: start)
        guard let count = Int(exactly: argument), count <= remaining / perElement else {
            throw CBORError(.lengthExceedsInput, at: start)
        }
        return count
    }

    mutating func item(depth: Int) throws(CBORError) -> CBORValue {
        let start = index
        guard depth <= maximumDepth else { throw CBORError(.depthExceeded, at: start) }
        items += 1
        guard items <= limits.maximumItems else { throw CBORError(.itemCountExceeded, at: start) }
        let head = try byte()
        let major = head >> 5
        let info = head & 0x1F
        switch major {
        case 0: return .unsigned(try argument(info, at: start))
        case 1: return .negative(try argument(info, at: start))
        case 2:
            let count = try length(info, at: start, perElement: 1)
            defer { index += count }
            return .bytes(Array(bytes[index..<index + count]))
        case 3:
            let count = try length(info, at: start, perElement: 1)
            guard let text = String(validating: bytes[index..<index + count], as: UTF8.self) else {
                throw CBORError(.invalidUTF8, at: start)
            }
            index += count
            return .text(text)
        case 4:
            let count = try length(info, at: start, perElement: 1)
            var elements: [CBORValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try item(depth: depth + 1)) }
            return .array(elements)
        case 5:
            let count = try length(info, at: start, perElement: 2)
            var members: [CBORValue: CBORValue] = [:]
            members.reserveCapacity(count)
            for _ in 0..<count {
                let keyStart = index
                let key = try item(depth: depth + 1)
                let value = try item(depth: depth + 1)
                guard members.updateValue(value, forKey: key) == nil else {
                    throw CBORError(.duplicateKey, at: keyStart)
                }
            }
            return .map(members)
        case 6: throw CBORError(.unsupportedType, at: start)
        default:
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 28...30: throw CBORError(.reservedEncoding, at: start)
            case 31: throw CBORError(.indefiniteLength, at: start)
            default: throw CBORError(.unsupportedType, at: start)
            }
        }
    }
}

/// A CBOR encoder for the software authenticator and the tests: definite lengths, shortest
/// arguments, and map keys sorted by their encoded bytes, length first (CTAP2 canonical CBOR,
/// as RFC 8949 §4.2.3 describes the length-first ordering).
package enum CBOREncoder {
    /// The encoding of `value`.
    package static func encode(_ value: CBORValue) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    private static func head(_ major: UInt8, _ argument: UInt64, to out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: out.append(type | UInt8(truncatingIfNeeded: argument))
        case 24...0xFF: out += [type | 24, UInt8(truncatingIfNeeded: argument)]
        case 0x100...0xFFFF:
            out.append(type | 25)
            for shift in stride(from: 8, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: argument >> shift))
            }
        case 0x1_0000...0xFFFF_FFFF:
            out.append(type | 26)
            for shift in stride(from: 24, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: argument >> shift))
            }
        default:
            out.append(type | 27)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: argument >> shift))
            }
        }
    }

    private static func append(_ value: CBORValue, to out: inout [UInt8]) {
        switch value {
        case .unsigned(let number): head(0, number, to: &out)
        case .negative(let number): head(1, number, to: &out)
        case .bytes(let bytes):
            head(2, UInt64(bytes.count), to: &out)
            out += bytes
        case .text(let text):
            head(3, UInt64(text.utf8.count), to: &out)
            out += text.utf8
        case .array(let elements):
            head(4, UInt64(elements.count), to: &out)
            for element in elements { append(element, to: &out) }
        case .map(let members):
            head(5, UInt64(members.count), to: &out)
            let encoded = members.map { (key: encode($0.key), value: encode($0.value)) }
            let sorted = encoded.sorted { lhs, rhs in
                lhs.key.count != rhs.key.count
                    ? lhs.key.count < rhs.key.count : lhs.key.lexicographicallyPrecedes(rhs.key)
            }
            for member in sorted { out += member.key + member.value }
        case .bool(let flag): out.append(flag ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        }
    }
}

extension CBORValue {
    /// An integer value (`.unsigned` for 0 and above, `.negative` below).
    package static func int(_ value: Int) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    /// The member of a map under the text key `key`, else `nil`.
    subscript(text key: String) -> CBORValue? {
        guard case .map(let members) = self else { return nil }
        return members[.text(key)]
    }

    /// The member of a map under the integer key `key`, else `nil`.
    subscript(int key: Int) -> CBORValue? {
        guard case .map(let members) = self else { return nil }
        return members[.int(key)]
    }

    /// The bytes of a byte string, else `nil`.
    var byteString: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }
}
