import Foundation
import Testing

@testable import MultiAuthCrypto

/// The bounded `bplist00` and `NSKeyedArchiver` codec of the Truecaller one-tap envelopes
/// (Docs/Providers/Truecaller.md, "One-tap hand-off"): bytes written by an independent writer
/// (Python's plistlib) read right, our bytes read back, and hostile bytes refused, never a
/// crash, loop or blow-up.
@Suite("binary property lists and keyed archives")
struct PropertyListTests {
    /// `plistlib.dumps(…, fmt=FMT_BINARY, sort_keys=True)` of a dictionary of every supported
    /// type (Python 3, an independent writer): ASCII and UTF-16 strings (a surrogate pair
    /// included), negative and 8-byte integers, a real, booleans, data, nesting, a UID.
    static let python =
        "YnBsaXN0MDDcAQIDBAUGBwgJCgsMDQ4PEBUWFxgZGhscVWFzY2lpU2JpZ1RkYXRhVGxpc3RUbG9uZ1NuZWdSbm9UcmVhbFVzbWFsbFN1aWRXdW5pY29kZVN5ZXNVaGVsbG8TAAABAAAAAABDAAECoxESE1FhEAGhFBACXxAUeHh4eHh4eHh4eHh4eHh4eHh4eHgT/////////9YIIz/4AAAAAAAAEAeBASxpAEEBWwBoAGEAICcTACDYNN0eCQghJyswNTo+QUZMUFhcYmtvc3V3eXuSm5ylp6q9AAAAAAAAAQEAAAAAAAAAHQAAAAAAAAAAAAAAAAAAAL4="

    static let expected = PropertyListValue.dictionary([
        "ascii": .string("hello"), "unicode": .string("Aśha ✓ 𝄞"), "neg": .integer(-42), "big": .integer(1 << 40),
        "small": .integer(7), "real": .real(1.5), "yes": .bool(true), "no": .bool(false), "data": .data([0, 1, 2]),
        "list": .array([.string("a"), .integer(1), .array([.integer(2)])]), "uid": .uid(300),
        "long": .string(String(repeating: "x", count: 20)),
    ])

    @Test("bytes written by Python's plistlib read as written")
    func readsAnIndependentWriter() throws {
        #expect(try BinaryPropertyList.decode(try Base64.decode(Self.python)) == Self.expected)
    }

    @Test("our bytes read back to the same value")
    func roundTrips() throws {
        #expect(try BinaryPropertyList.decode(BinaryPropertyList.encode(Self.expected)) == Self.expected)
        let many = PropertyListValue.array((0..<300).map { .string("item \($0)") })
        #expect(try BinaryPropertyList.decode(BinaryPropertyList.encode(many)) == many)
        let object = KeyedArchiveObject(
            classes: ["TCError", "NSError", "NSObject"],
            fields: [
                "NSCode": .inlineInteger(3), "NSDomain": .string("TrueSDKErrorDomain"), "missing": .null,
                "NSUserInfo": .dictionary(["NSLocalizedDescription": .string("declined")]),
                "count": .integer(12),
            ])
        let read = try KeyedArchive.decode(KeyedArchive.encode(object))
        #expect(read.classes == object.classes)
        #expect(read.fields["NSCode"]?.integerValue == 3)
        #expect(read.fields["count"] == .integer(12))
        #expect(read.fields["missing"] == .null)
        #expect(read.fields["NSUserInfo"] == .dictionary(["NSLocalizedDescription": .string("declined")]))
    }

    /// A hand-built `bplist00`: `objects` are raw object bytes (references one byte wide).
    static func document(_ objects: [[UInt8]], top: UInt8 = 0) -> [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(out.count))
            out += object
        }
        let table = UInt8(out.count)
        out += offsets
        out += [0, 0, 0, 0, 0, 0, 1, 1]
        out += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)]
        out += [0, 0, 0, 0, 0, 0, 0, top]
        out += [0, 0, 0, 0, 0, 0, 0, table]
        return out
    }

    @Test("hostile bytes are refused with PropertyListError, never a crash")
    func hostileBytesAreRefused() throws {
        let valid = BinaryPropertyList.encode(Self.expected)
        var cases: [(String, [UInt8])] = [
            ("empty", []), ("magic only", Array("bplist00".utf8)), ("wrong magic", Array("bplist01".utf8) + valid),
            ("a cycle", Self.document([[0xA1, 0x00]])),
            ("a reference out of range", Self.document([[0xA1, 0x05]])),
            ("a dictionary with a number key", Self.document([[0xD1, 0x01, 0x01], [0x10, 0x01]])),
            ("a length past the end", Self.document([[0x5F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]])),
            ("a negative length", Self.document([[0x5F, 0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]])),
            ("a 16-byte integer", Self.document([[0x14] + [UInt8](repeating: 0, count: 16)])),
            ("non-ASCII in an ASCII string", Self.document([[0x51, 0xC3]])),
            ("a lone surrogate", Self.document([[0x61, 0xD8, 0x00]])),
            ("a top object out of range", Self.document([[0x08]], top: 3)),
        ]
        // Expansion: 14 arrays, each holding the next one twice, expand to 2^14 values.
        var bomb: [[UInt8]] = (0..<14).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        bomb.append([0x08])
        cases.append(("an expansion bomb", Self.document(bomb)))
        // Depth: 40 nested arrays.
        var deep: [[UInt8]] = (0..<40).map { [0xA1, UInt8($0 + 1)] }
        deep.append([0x08])
        cases.append(("too deep", Self.document(deep)))
        // Every truncation and a corrupted trailer of a valid document.
        for length in stride(from: 0, to: valid.count, by: 7) {
            cases.append(("truncated", Array(valid.prefix(length))))
        }
        var trailer = valid
        trailer[trailer.count - 9] = 0xFF
        cases.append(("a corrupted top object", trailer))
        var sizes = valid
        sizes[sizes.count - 26] = 3
        cases.append(("reference size 3", sizes))
        cases.append(("too long", valid + [UInt8](repeating: 0, count: 70_000)))
        for (name, bytes) in cases {
            #expect(throws: PropertyListError.self, "\(name)") { try BinaryPropertyList.decode(bytes) }
        }
    }

    @Test("a keyed archive that is not one, or expands without end, is refused")
    func hostileArchivesAreRefused() throws {
        #expect(throws: PropertyListError.self) { try KeyedArchive.decode(BinaryPropertyList.encode(.array([]))) }
        let noClass = BinaryPropertyList.encode(
            .dictionary([
                "$archiver": .string("NSKeyedArchiver"), "$top": .dictionary(["root": .uid(1)]),
                "$objects": .array([.string("$null"), .dictionary(["a": .uid(0)])]),
            ]))
        #expect(throws: PropertyListError.self) { try KeyedArchive.decode(noClass) }
        // Object 1 (class 3) has 64 fields that all reference object 2 (class 3), which has 64
        // fields referencing object 1's strings: bounded by the field budget, not 64^4.
        var wide: [String: PropertyListValue] = ["$class": .uid(3)]
        var inner: [String: PropertyListValue] = ["$class": .uid(3)]
        for index in 0..<64 {
            wide["f\(index)"] = .uid(2)
            inner["g\(index)"] = .uid(1)
        }
        let cyclic = BinaryPropertyList.encode(
            .dictionary([
                "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
                "$top": .dictionary(["root": .uid(1)]),
                "$objects": .array([
                    .string("$null"), .dictionary(wide), .dictionary(inner),
                    .dictionary(["$classname": .string("X"), "$classes": .array([.string("X")])]),
                ]),
            ]))
        #expect(throws: PropertyListError.self) { try KeyedArchive.decode(cyclic) }
    }
}
