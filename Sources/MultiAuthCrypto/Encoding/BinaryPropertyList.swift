/// A value of an Apple binary property list (`bplist00`), the container `NSKeyedArchiver`
/// writes: the subset the Truecaller one-tap envelopes use (Docs/Providers/Truecaller.md,
/// "One-tap hand-off").
///
/// Dictionary keys are strings (an archive's keys always are). Package-internal: shared by the
/// Truecaller adapter and the sandbox's emulated Truecaller app, not public API.
package indirect enum PropertyListValue: Sendable, Hashable {
    /// A string (written as ASCII when every character is, else as UTF-16).
    case string(String)
    /// A signed integer.
    case integer(Int64)
    /// A double-precision real.
    case real(Double)
    /// A boolean.
    case bool(Bool)
    /// Raw bytes.
    case data([UInt8])
    /// A keyed archive's object reference (`CF$UID`): an index into `$objects`.
    case uid(UInt64)
    /// An ordered array.
    case array([PropertyListValue])
    /// A dictionary with string keys.
    case dictionary([String: PropertyListValue])
    /// The null object (marker `0x00`).
    case null

    /// The string, if this value is one.
    package var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The integer, if this value is one.
    package var integerValue: Int64? { if case .integer(let value) = self { value } else { nil } }
    /// The reference, if this value is one.
    package var uidValue: UInt64? { if case .uid(let value) = self { value } else { nil } }
    /// The array, if this value is one.
    package var arrayValue: [PropertyListValue]? { if case .array(let value) = self { value } else { nil } }
    /// The dictionary, if this value is one.
    package var dictionaryValue: [String: PropertyListValue]? {
        if case .dictionary(let value) = self { value } else { nil }
    }
}

/// Why a binary property list or a keyed archive was refused. Carries a reason, never the
/// input's bytes.
package struct PropertyListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, e.g. `"an object reference is out of range"`.
    package let reason: String
    /// Creates an error.
    package init(_ reason: String) { self.reason = reason }
    /// `invalid property list: <reason>`.
    package var description: String { "invalid property list: \(reason)" }
}

/// Reads and writes Apple binary property lists (`bplist00`) with hard bounds, for the
/// Truecaller one-tap envelopes (Docs/Providers/Truecaller.md, "One-tap hand-off").
///
/// The format: the magic `bplist00`, the objects (a marker byte whose high nibble is the type
/// and low nibble a size, `0xF` meaning "an integer object follows with the size"), an offset
/// table, and a 32-byte trailer (offset size, reference size, object count, top object, offset
/// table position; integers big-endian). Everything read is hostile: every offset, length and
/// reference is checked against the input before use, with checked arithmetic; nesting depth,
/// the number of objects and the number of values produced (a shared reference counts each
/// time it is expanded) are bounded, so no input can crash, loop or blow up memory.
package enum BinaryPropertyList {
    /// The limits of one read.
    package struct Limits: Sendable, Hashable {
        /// The most bytes read (the caller refuses longer input before decoding).
        package var maximumBytes: Int
        /// The most objects in the object table.
        package var maximumObjects: Int
        /// The deepest nesting of arrays and dictionaries.
        package var maximumDepth: Int
        /// The most values produced in total while expanding references.
        package var maximumValues: Int

        /// 64 KiB, 4 096 objects, depth 16, 16 384 values: far above a one-tap envelope
        /// (about 1 KiB, 20 objects) and far below anything costly.
        package static let envelope = Limits(
            maximumBytes: 65_536, maximumObjects: 4_096, maximumDepth: 16, maximumValues: 16_384)

        /// Creates limits.
        package init(maximumBytes: Int, maximumObjects: Int, maximumDepth: Int, maximumValues: Int) {
            self.maximumBytes = maximumBytes
            self.maximumObjects = maximumObjects
            self.maximumDepth = maximumDepth
            self.maximumValues = maximumValues
        }
    }

    private static let magic = Array("bplist00".utf8)

    // MARK: Writing

    /// Encodes `value` as `bplist00` (dictionary keys sorted, so equal values give equal bytes).
    /// - Returns: The bytes.
    package static func encode(_ value: PropertyListValue) -> [UInt8] {
        // First pass: number every object depth-first so references are known before writing.
        var flat: [PropertyListValue] = []
        func number(_ value: PropertyListValue) -> Int {
            let index = flat.count
            flat.append(value)
            return index
        }
        var references: [Int: [Int]] = [:]
        func walk(_ value: PropertyListValue) -> Int {
            let index = number(value)
            switch value {
            case .array(let items):
                references[index] = items.map(walk)
            case .dictionary(let entries):
                let keys = entries.keys.sorted()
                let keyRefs = keys.map { walk(.string($0)) }
                let valueRefs = keys.map { walk(entries[$0]!) }
                references[index] = keyRefs + valueRefs
            default:
                break
            }
            return index
        }
        _ = walk(value)
        let referenceSize = minimalSize(UInt64(flat.count))
        var out = magic
        var offsets: [UInt64] = []
        for (index, object) in flat.enumerated() {
            offsets.append(UInt64(out.count))
            out += serialize(object, references: references[index] ?? [], referenceSize: referenceSize)
        }
        let offsetTable = UInt64(out.count)
        let offsetSize = minimalSize(offsetTable)
        for offset in offsets { out += bigEndian(offset, size: offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        out += bigEndian(UInt64(flat.count), size: 8)
        out += bigEndian(0, size: 8)
        out += bigEndian(offsetTable, size: 8)
        return out
    }

    private static func serialize(_ value: PropertyListValue, references: [Int], referenceSize: Int) -> [UInt8] {
        switch value {
        case .null: return [0x00]
        case .bool(let flag): return [flag ? 0x09 : 0x08]
        case .integer(let number): return integer(number)
        case .real(let number): return [0x23] + bigEndian(number.bitPattern, size: 8)
        case .data(let bytes): return header(0x40, count: bytes.count) + bytes
        case .uid(let reference):
            let size = minimalSize(reference)
            return [0x80 | UInt8(size - 1)] + bigEndian(reference, size: size)
        case .string(let text):
            if text.unicodeScalars.allSatisfy(\.isASCII) {
                let bytes = Array(text.utf8)
                return header(0x50, count: bytes.count) + bytes
            }
            let units = Array(text.utf16)
            return header(0x60, count: units.count) + units.flatMap { bigEndian(UInt64($0), size: 2) }
        case .array(let items):
            return header(0xA0, count: items.count)
                + references.flatMap { bigEndian(UInt64($0), size: referenceSize) }
        case .dictionary(let entries):
            return header(0xD0, count: entries.count)
                + references.flatMap { bigEndian(UInt64($0), size: referenceSize) }
        }
    }

    private static func header(_ marker: UInt8, count: Int) -> [UInt8] {
        count < 15 ? [marker | UInt8(count)] : [marker | 0x0F] + integer(Int64(count))
    }

    private static func integer(_ number: Int64) -> [UInt8] {
        if number < 0 { return [0x13] + bigEndian(UInt64(bitPattern: number), size: 8) }
        let magnitude = UInt64(number)
        switch minimalSize(magnitude) {
        case 1: return [0x10] + bigEndian(magnitude, size: 1)
        case 2: return [0x11] + bigEndian(magnitude, size: 2)
        case 3, 4: return [0x12] + bigEndian(magnitude, size: 4)
        default: return [0x13] + bigEndian(magnitude, size: 8)
        }
    }

    /// The fewest bytes (1, 2, 4 or 8) holding `value`.
    private static func minimalSize(_ value: UInt64) -> Int {
        if value <= 0xFF { return 1 }
        if value <= 0xFFFF { return 2 }
        if value <= 0xFFFF_FFFF { return 4 }
        return 8
    }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (UInt64(size - 1 - $0) * 8)) }
    }

    // MARK: Reading

    /// Decodes `bytes` as `bplist00` within `limits`.
    /// - Returns: The top object.
    /// - Throws: ``PropertyListError`` for anything malformed or over a limit; never traps.
    package static func decode(_ bytes: [UInt8], limits: Limits = .envelope) throws -> PropertyListValue {
        guard bytes.count <= limits.maximumBytes else {
            throw PropertyListError("longer than \(limits.maximumBytes) bytes")
        }
        guard bytes.count >= magic.count + 32, Array(bytes.prefix(magic.count)) == magic else {
            throw PropertyListError("not a bplist00 document")
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        guard [1, 2, 4, 8].contains(offsetSize), [1, 2, 4, 8].contains(referenceSize) else {
            throw PropertyListError("unsupported offset or reference size")
        }
        let objectCount = try checkedInt(readUInt(bytes, at: trailer + 8, size: 8))
        let top = try checkedInt(readUInt(bytes, at: trailer + 16, size: 8))
        let tableStart = try checkedInt(readUInt(bytes, at: trailer + 24, size: 8))
        guard objectCount > 0, objectCount <= limits.maximumObjects else {
            throw PropertyListError("object count out of range")
        }
        guard top < objectCount else { throw PropertyListError("the top object is out of range") }
        let (tableBytes, overflow) = objectCount.multipliedReportingOverflow(by: offsetSize)
        guard !overflow, tableStart >= magic.count, tableStart <= trailer, tableBytes <= trailer - tableStart else {
            throw PropertyListError("the offset table is out of range")
        }
        var offsets: [Int] = []
        offsets.reserveCapacity(objectCount)
        for index in 0..<objectCount {
            let offset = try checkedInt(readUInt(bytes, at: tableStart + index * offsetSize, size: offsetSize))
            guard offset >= magic.count, offset < tableStart else {
                throw PropertyListError("an object offset is out of range")
            }
            offsets.append(offset)
        }
        var reader = Reader(
            bytes: bytes, end: tableStart, offsets: offsets, referenceSize: referenceSize, limits: limits)
        return try reader.object(top, depth: 0)
    }

    private struct Reader {
        let bytes: [UInt8]
        /// Objects live before the offset table.
        let end: Int
        let offsets: [Int]
        let referenceSize: Int
        let limits: Limits
        var produced = 0
        var open: Set<Int> = []

        mutating func object(_ index: Int, depth: Int) throws -> PropertyListValue {
            guard index >= 0, index < offsets.count else {
                throw PropertyListError("an object reference is out of range")
            }
            guard depth <= limits.maximumDepth else {
                throw PropertyListError("nested deeper than \(limits.maximumDepth)")
            }
            produced += 1
            guard produced <= limits.maximumValues else {
                throw PropertyListError("more than \(limits.maximumValues) values")
            }
            guard !open.contains(index) else { throw PropertyListError("an object contains itself") }
            let start = offsets[index]
            let marker = try byte(start)
            let kind = marker >> 4
            let low = Int(marker & 0x0F)
            switch kind {
            case 0x0:
                switch low {
                case 0x0: return .null
                case 0x8: return .bool(false)
                case 0x9: return .bool(true)
                default: throw PropertyListError("unsupported simple object")
                }
            case 0x1:
                return .integer(try integer(at: start + 1, sizeExponent: low))
            case 0x2:
                guard low == 2 || low == 3 else { throw PropertyListError("unsupported real size") }
                let size = 1 << low
                let raw = try readUInt(bytes, at: start + 1, size: size, end: end)
                return .real(
                    size == 8 ? Double(bitPattern: raw) : Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))))
            case 0x4:
                let (count, body) = try length(start, low)
                return .data(Array(try slice(body, count)))
            case 0x5:
                let (count, body) = try length(start, low)
                let raw = try slice(body, count)
                guard raw.allSatisfy({ $0 < 0x80 }) else {
                    throw PropertyListError("a non-ASCII byte in an ASCII string")
                }
                return .string(String(decoding: raw, as: UTF8.self))
            case 0x6:
                return .string(try utf16String(start, low))
            case 0x8:
                return .uid(try readUInt(bytes, at: start + 1, size: low + 1, end: end))
            case 0xA:
                let (count, body) = try length(start, low)
                let references = try referenceList(body, count)
                open.insert(index)
                defer { open.remove(index) }
                return .array(try references.map { try object($0, depth: depth + 1) })
            case 0xD:
                return .dictionary(try dictionary(index, start, low, depth: depth))
            default:
                throw PropertyListError("unsupported object type \(kind)")
            }
        }

        /// The text of the UTF-16 (big-endian) string object at `start` (type 0x6).
        func utf16String(_ start: Int, _ low: Int) throws -> String {
            let (count, body) = try length(start, low)
            let (byteCount, overflow) = count.multipliedReportingOverflow(by: 2)
            guard !overflow else { throw PropertyListError("a string length overflows") }
            let raw = try slice(body, byteCount)
            var units: [UInt16] = []
            units.reserveCapacity(count)
            var cursor = raw.startIndex
            while cursor < raw.endIndex {
                units.append(UInt16(raw[cursor]) << 8 | UInt16(raw[cursor + 1]))
                cursor += 2
            }
            var text = ""
            var decoder = UTF16()
            var iterator = units.makeIterator()
            decoding: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): text.unicodeScalars.append(scalar)
                case .emptyInput: break decoding
                case .error: throw PropertyListError("an invalid UTF-16 string")
                }
            }
            return text
        }

        /// The entries of dictionary object `index` at `start` (type 0xD): string keys, no repeats.
        mutating func dictionary(
            _ index: Int, _ start: Int, _ low: Int, depth: Int
        ) throws -> [String: PropertyListValue] {
            let (count, body) = try length(start, low)
            let (total, overflow) = count.multipliedReportingOverflow(by: 2)
            guard !overflow else { throw PropertyListError("a dictionary length overflows") }
            let references = try referenceList(body, total)
            open.insert(index)
            defer { open.remove(index) }
            var entries: [String: PropertyListValue] = [:]
            for position in 0..<count {
                guard case .string(let key) = try object(references[position], depth: depth + 1) else {
                    throw PropertyListError("a dictionary key is not a string")
                }
                guard entries[key] == nil else { throw PropertyListError("a dictionary repeats a key") }
                entries[key] = try object(references[count + position], depth: depth + 1)
            }
            return entries
        }

        func byte(_ position: Int) throws -> UInt8 {
            guard position >= 0, position < end else { throw PropertyListError("an object runs past its end") }
            return bytes[position]
        }

        func slice(_ start: Int, _ count: Int) throws -> ArraySlice<UInt8> {
            guard count >= 0, start >= 0, start <= end, count <= end - start else {
                throw PropertyListError("an object runs past its end")
            }
            return bytes[start..<(start + count)]
        }

        func integer(at position: Int, sizeExponent: Int) throws -> Int64 {
            guard sizeExponent <= 3 else { throw PropertyListError("unsupported integer size") }
            let size = 1 << sizeExponent
            let raw = try readUInt(bytes, at: position, size: size, end: end)
            // 1, 2 and 4-byte integers are unsigned; 8-byte ones are signed (the format's rule).
            return size == 8 ? Int64(bitPattern: raw) : Int64(raw)
        }

        /// The element count of a sized object at `start` whose marker's low nibble is `low`,
        /// and where its body begins.
        func length(_ start: Int, _ low: Int) throws -> (count: Int, body: Int) {
            guard low == 0x0F else { return (low, start + 1) }
            let marker = try byte(start + 1)
            guard marker >> 4 == 0x1 else { throw PropertyListError("a length is not an integer") }
            let exponent = Int(marker & 0x0F)
            let value = try integer(at: start + 2, sizeExponent: exponent)
            guard value >= 0, let count = Int(exactly: value), count <= end else {
                throw PropertyListError("a length is out of range")
            }
            return (count, start + 2 + (1 << exponent))
        }

        func referenceList(_ start: Int, _ count: Int) throws -> [Int] {
            let (byteCount, overflow) = count.multipliedReportingOverflow(by: referenceSize)
            guard !overflow else { throw PropertyListError("a reference list overflows") }
            _ = try slice(start, byteCount)
            return try (0..<count).map {
                try checkedInt(readUInt(bytes, at: start + $0 * referenceSize, size: referenceSize, end: end))
            }
        }
    }

    private static func readUInt(_ bytes: [UInt8], at position: Int, size: Int, end: Int? = nil) throws -> UInt64 {
        let limit = end ?? bytes.count
        guard size >= 1, size <= 8, position >= 0, position <= limit, size <= limit - position else {
            throw PropertyListError("a number runs past its end")
        }
        var value: UInt64 = 0
        for offset in 0..<size { value = value << 8 | UInt64(bytes[position + offset]) }
        return value
    }

    private static func checkedInt(_ value: UInt64) throws -> Int {
        guard let result = Int(exactly: value) else { throw PropertyListError("a number is out of range") }
        return result
    }
}
