/// One object of an `NSKeyedArchiver` archive: its class chain and its keyed fields, the form
/// the Truecaller one-tap envelopes travel in (Docs/Providers/Truecaller.md, "One-tap hand-off").
///
/// An archive is a binary property list `{$archiver: "NSKeyedArchiver", $version: 100000,
/// $top: {root: UID}, $objects: ["$null", …]}`: every object is a dictionary in `$objects`
/// whose `$class` references `{$classname, $classes}`, and whose fields either hold a value
/// inline (integers written with `encodeInteger:forKey:`) or reference another entry of
/// `$objects` (strings, `NSNumber`s, nested objects; index 0, `"$null"`, is `nil`).
///
/// Package-internal: shared by the Truecaller adapter and the sandbox's emulated Truecaller
/// app, not public API.
package struct KeyedArchiveObject: Sendable, Hashable {
    /// A field's value.
    package indirect enum Field: Sendable, Hashable {
        /// A string (`NSString`).
        case string(String)
        /// An integer (`NSNumber`, or written inline when read).
        case integer(Int64)
        /// An integer written inline in the object (`encodeInteger:forKey:`, `encodeInt32:forKey:`);
        /// read back as ``integer(_:)``.
        case inlineInteger(Int64)
        /// A boolean.
        case bool(Bool)
        /// `nil` (a reference to `$null`).
        case null
        /// A nested object (e.g. an `NSError`'s user info dictionary).
        case object(KeyedArchiveObject)
        /// A dictionary (`NSDictionary`: `NS.keys` / `NS.objects`) with string keys.
        case dictionary([String: Field])
        /// Anything else the reader does not interpret (data, reals, arrays).
        case other

        /// The string, if the field is one.
        package var stringValue: String? { if case .string(let value) = self { value } else { nil } }
        /// The integer, if the field is one.
        package var integerValue: Int64? {
            switch self {
            case .integer(let value), .inlineInteger(let value): value
            default: nil
            }
        }
    }

    /// The class chain, most specific first, e.g. `["TCTrueProfileRequest", "NSObject"]`.
    package var classes: [String]
    /// The fields by key.
    package var fields: [String: Field]

    /// The most specific class name (`$classname`), or `""`.
    package var className: String { classes.first ?? "" }

    /// Creates an object.
    package init(classes: [String], fields: [String: Field]) {
        self.classes = classes
        self.fields = fields
    }
}

/// Writes and reads `NSKeyedArchiver` archives of one root object, with the bounds of
/// ``BinaryPropertyList`` (Docs/Providers/Truecaller.md, "One-tap hand-off").
package enum KeyedArchive {
    /// `$version` of every archive `NSKeyedArchiver` writes.
    package static let version: Int64 = 100_000
    /// `$archiver`.
    package static let archiver = "NSKeyedArchiver"

    /// Archives `root` as `NSKeyedArchiver` does with `archivedDataWithRootObject:`: strings,
    /// numbers and nested objects in `$objects`, referenced from the fields; `nil` fields
    /// reference `$null`.
    /// - Returns: The `bplist00` bytes.
    package static func encode(_ root: KeyedArchiveObject) -> [UInt8] {
        var objects: [PropertyListValue] = [.string("$null")]
        func append(_ value: PropertyListValue) -> UInt64 {
            objects.append(value)
            return UInt64(objects.count - 1)
        }
        func store(_ object: KeyedArchiveObject) -> UInt64 {
            let index = append(.null)  // reserved: an object is numbered before its fields
            var entries: [String: PropertyListValue] = [:]
            for key in object.fields.keys.sorted() {
                entries[key] = reference(object.fields[key]!)
            }
            let classIndex = append(
                .dictionary([
                    "$classname": .string(object.className), "$classes": .array(object.classes.map { .string($0) }),
                ]))
            entries["$class"] = .uid(classIndex)
            objects[Int(index)] = .dictionary(entries)
            return index
        }
        func reference(_ field: KeyedArchiveObject.Field) -> PropertyListValue {
            switch field {
            case .null, .other: return .uid(0)
            case .string(let text): return .uid(append(.string(text)))
            case .integer(let number): return .uid(append(.integer(number)))
            case .inlineInteger(let number): return .integer(number)
            case .bool(let flag): return .uid(append(.bool(flag)))
            case .object(let nested): return .uid(store(nested))
            case .dictionary(let entries):
                let index = append(.null)
                let keys = entries.keys.sorted()
                let keyRefs = keys.map { PropertyListValue.uid(append(.string($0))) }
                let valueRefs = keys.map { reference(entries[$0]!) }
                let classIndex = append(
                    .dictionary([
                        "$classname": .string("NSDictionary"),
                        "$classes": .array([.string("NSDictionary"), .string("NSObject")]),
                    ]))
                objects[Int(index)] = .dictionary([
                    "NS.keys": .array(keyRefs), "NS.objects": .array(valueRefs), "$class": .uid(classIndex),
                ])
                return .uid(index)
            }
        }
        let rootIndex = store(root)
        return BinaryPropertyList.encode(
            .dictionary([
                "$archiver": .string(archiver), "$version": .integer(version),
                "$top": .dictionary(["root": .uid(rootIndex)]), "$objects": .array(objects),
            ]))
    }

    /// Reads the root object of an archive.
    /// - Parameters:
    ///   - bytes: The `bplist00` bytes.
    ///   - limits: The property list bounds (default ``BinaryPropertyList/Limits/envelope``).
    /// - Returns: The root object, nested objects resolved (at most 4 levels).
    /// - Throws: ``PropertyListError`` when the bytes are not a keyed archive of one object.
    package static func decode(_ bytes: [UInt8], limits: BinaryPropertyList.Limits = .envelope) throws
        -> KeyedArchiveObject
    {
        guard let top = try BinaryPropertyList.decode(bytes, limits: limits).dictionaryValue,
            top["$archiver"]?.stringValue == archiver,
            let objects = top["$objects"]?.arrayValue,
            let root = top["$top"]?.dictionaryValue?["root"]?.uidValue
        else {
            throw PropertyListError("not an NSKeyedArchiver archive")
        }
        var resolver = Resolver(objects: objects)
        guard let field = try resolver.resolve(.uid(root), depth: 0), case .object(let object) = field else {
            throw PropertyListError("the archive's root is not an object")
        }
        return object
    }

    /// Follows references into `$objects` within a budget: a shared object counts each time it
    /// is reached, so no archive can expand into more than ``budget`` fields.
    private struct Resolver {
        let objects: [PropertyListValue]
        var remaining = 4_096
        static let maximumNesting = 4

        /// The field a property list value stands for.
        mutating func resolve(_ value: PropertyListValue, depth: Int) throws -> KeyedArchiveObject.Field? {
            guard depth <= Self.maximumNesting else { throw PropertyListError("archive objects nest too deep") }
            remaining -= 1
            guard remaining >= 0 else { throw PropertyListError("the archive expands into too many fields") }
            switch value {
            case .string(let text): return .string(text)
            case .integer(let number): return .integer(number)
            case .bool(let flag): return .bool(flag)
            case .null: return .null
            case .uid(let reference):
                guard let index = Int(exactly: reference), index < objects.count else {
                    throw PropertyListError("an archive reference is out of range")
                }
                if index == 0 { return .null }
                switch objects[index] {
                case .dictionary(let entries):
                    return try object(entries, depth: depth + 1)
                case .uid:
                    throw PropertyListError("an archive reference points at a reference")
                case let other:
                    return try resolve(other, depth: depth + 1)
                }
            default:
                return .other
            }
        }

        private mutating func object(_ entries: [String: PropertyListValue], depth: Int) throws
            -> KeyedArchiveObject.Field
        {
            guard let classReference = entries["$class"]?.uidValue, let classIndex = Int(exactly: classReference),
                classIndex > 0, classIndex < objects.count, let descriptor = objects[classIndex].dictionaryValue
            else {
                throw PropertyListError("an archive object has no class")
            }
            let classes = (descriptor["$classes"]?.arrayValue ?? []).compactMap(\.stringValue)
            let name = descriptor["$classname"]?.stringValue ?? classes.first ?? ""
            let chain = classes.first == name ? classes : [name] + classes
            if let keys = entries["NS.keys"]?.arrayValue, let values = entries["NS.objects"]?.arrayValue {
                guard keys.count == values.count else {
                    throw PropertyListError("a dictionary's keys and values differ")
                }
                var dictionary: [String: KeyedArchiveObject.Field] = [:]
                for (key, value) in zip(keys, values) {
                    guard case .string(let text)? = try resolve(key, depth: depth) else { continue }
                    dictionary[text] = try resolve(value, depth: depth) ?? .other
                }
                return .dictionary(dictionary)
            }
            var fields: [String: KeyedArchiveObject.Field] = [:]
            for (key, value) in entries where key != "$class" {
                fields[key] = try resolve(value, depth: depth) ?? .other
            }
            return .object(KeyedArchiveObject(classes: chain, fields: fields))
        }
    }
}
