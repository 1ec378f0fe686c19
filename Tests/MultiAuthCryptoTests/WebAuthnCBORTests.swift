import Foundation
import Testing

@testable import MultiAuthCrypto

/// The bounded CBOR decoder (RFC 8949) and its encoder: the examples of RFC 8949 Appendix A
/// that WebAuthn's subset covers, and hostile inputs, each refused with its own error kind
/// before any large allocation.
@Suite("WebAuthn CBOR: RFC 8949 subset, limits, hostile input")
struct WebAuthnCBORTests {
    static func decode(_ hex: String, limits: CBORLimits = .webAuthn) throws(CBORError) -> CBORValue {
        try CBORValue(decoding: Hex.decode(hex), limits: limits)
    }

    static func kind(_ bytes: [UInt8], limits: CBORLimits = .webAuthn) -> CBORError.Kind? {
        do {
            _ = try CBORValue(decoding: bytes, limits: limits)
            return nil
        } catch {
            return error.kind
        }
    }

    @Test func rfc8949AppendixAExamples() throws {
        #expect(try Self.decode("00") == .unsigned(0))
        #expect(try Self.decode("17") == .unsigned(23))
        #expect(try Self.decode("1818") == .unsigned(24))
        #expect(try Self.decode("1903e8") == .unsigned(1000))
        #expect(try Self.decode("1a000f4240") == .unsigned(1_000_000))
        #expect(try Self.decode("1bffffffffffffffff") == .unsigned(UInt64.max))
        #expect(try Self.decode("20") == .negative(0))
        #expect(try Self.decode("3903e7").intValue == -1000)
        #expect(try Self.decode("3bffffffffffffffff") == .negative(UInt64.max))
        #expect(try Self.decode("3bffffffffffffffff").intValue == nil)
        #expect(try Self.decode("40") == .bytes([]))
        #expect(try Self.decode("4401020304") == .bytes([1, 2, 3, 4]))
        #expect(try Self.decode("6449455446") == .text("IETF"))
        #expect(try Self.decode("62c3bc") == .text("ü"))
        #expect(try Self.decode("83010203") == .array([.unsigned(1), .unsigned(2), .unsigned(3)]))
        #expect(try Self.decode("a201020304") == .map([.unsigned(1): .unsigned(2), .unsigned(3): .unsigned(4)]))
        #expect(try Self.decode("f4") == .bool(false))
        #expect(try Self.decode("f5") == .bool(true))
        #expect(try Self.decode("f6") == .null)
    }

    @Test func nonShortestArgumentsAreAcceptedLeniently() throws {
        #expect(try Self.decode("1800") == .unsigned(0))
        #expect(try Self.decode("5a0000000101") == .bytes([1]))
    }

    @Test func encoderRoundTripsAndSortsKeysLengthFirst() throws {
        let value = CBORValue.map([
            .text("fmt"): .text("none"), .int(-1): .int(1), .int(3): .int(-257),
            .text("a"): .array([.bool(true), .null]),
            .int(1000): .bytes(Array(repeating: 7, count: 300)),
        ])
        let encoded = CBOREncoder.encode(value)
        #expect(try CBORValue(decoding: encoded) == value)
        // 0x03 (1 byte) < 0x20 (1 byte) < 0x61 'a' (2 bytes) < 0x1903e8 (3 bytes) < "fmt" (4 bytes).
        #expect(Array(encoded.prefix(3)) == [0xA5, 0x03, 0x39])
        #expect(CBOREncoder.encode(.int(-257)) == [0x39, 0x01, 0x00])
        #expect(CBOREncoder.encode(.unsigned(UInt64.max)) == Hex.decode("1bffffffffffffffff"))
    }

    @Test func decodePrefixReportsTheEnd() throws {
        let bytes = Hex.decode("a10102ff00")
        let (value, end) = try CBORValue.decodePrefix(bytes, from: 0)
        #expect(value == .map([.unsigned(1): .unsigned(2)]))
        #expect(end == 3)
        #expect(Self.kind(bytes) == .trailingBytes)
        #expect(Self.kind(Hex.decode("a1010200")) == .trailingBytes)
    }

    @Test func hostileInputsAreRefusedWithTheirKind() {
        // 60,000 nested arrays: refused at depth 17, no stack growth; 100,000 bytes: over the size limit.
        #expect(Self.kind([UInt8](repeating: 0x81, count: 60_000) + [0x00]) == .depthExceeded)
        #expect(Self.kind([UInt8](repeating: 0x81, count: 100_000) + [0x00]) == .sizeExceeded)
        // Lengths and counts far beyond the input: refused before any allocation.
        #expect(Self.kind(Hex.decode("5bffffffffffffffff")) == .lengthExceedsInput)
        #expect(Self.kind(Hex.decode("7b7fffffffffffffff41")) == .lengthExceedsInput)
        #expect(Self.kind(Hex.decode("9b00000000ffffffff00")) == .lengthExceedsInput)
        #expect(Self.kind(Hex.decode("bb00000000ffffffff0000")) == .lengthExceedsInput)
        #expect(Self.kind(Hex.decode("a2010203")) == .lengthExceedsInput)
        // Indefinite lengths, tags, floats, undefined, other simple values, reserved encodings.
        #expect(Self.kind(Hex.decode("5f4101ff")) == .indefiniteLength)
        #expect(Self.kind(Hex.decode("9f01ff")) == .indefiniteLength)
        #expect(Self.kind(Hex.decode("bf0102ff")) == .indefiniteLength)
        #expect(Self.kind(Hex.decode("ff")) == .indefiniteLength)
        #expect(Self.kind(Hex.decode("c074323031332d30332d32315432303a30343a30305a")) == .unsupportedType)
        #expect(Self.kind(Hex.decode("f93c00")) == .unsupportedType)
        #expect(Self.kind(Hex.decode("fb3ff199999999999a")) == .unsupportedType)
        #expect(Self.kind(Hex.decode("f7")) == .unsupportedType)
        #expect(Self.kind(Hex.decode("f820")) == .unsupportedType)
        #expect(Self.kind(Hex.decode("1c")) == .reservedEncoding)
        #expect(Self.kind(Hex.decode("fc")) == .reservedEncoding)
        // Duplicate keys, also when one is spelled in a longer form.
        #expect(Self.kind(Hex.decode("a201010102")) == .duplicateKey)
        #expect(Self.kind(Hex.decode("a20101180102")) == .duplicateKey)
        #expect(Self.kind(Hex.decode("a2616101616102")) == .duplicateKey)
        // Truncation anywhere.
        #expect(Self.kind([]) == .truncated)
        #expect(Self.kind(Hex.decode("1901")) == .truncated)
        #expect(Self.kind(Hex.decode("811901")) == .truncated)
        #expect(Self.kind(Hex.decode("830102")) == .lengthExceedsInput)
        #expect(Self.kind(Hex.decode("62c3")) == .lengthExceedsInput)
        // Invalid UTF-8 in a text string.
        #expect(Self.kind(Hex.decode("62c328")) == .invalidUTF8)
        #expect(Self.kind(Hex.decode("63eda080")) == .invalidUTF8)
    }

    @Test func itemCountAndSizeLimits() {
        let small = CBORLimits(maximumBytes: 64, maximumDepth: 4, maximumItems: 10)
        #expect(Self.kind([0x8A] + [UInt8](repeating: 0, count: 10), limits: small) == .itemCountExceeded)
        #expect(Self.kind([0x89] + [UInt8](repeating: 0, count: 9), limits: small) == nil)
        #expect(Self.kind([0x58, 0x40] + [UInt8](repeating: 0, count: 64), limits: small) == .sizeExceeded)
        #expect(Self.kind([0x81, 0x81, 0x81, 0x81, 0x00], limits: small) == .depthExceeded)
        #expect(Self.kind([0x81, 0x81, 0x81, 0x00], limits: small) == nil)
        // A depth limit set past 64 (also through the mutable property) still stops at 65 levels.
        var deep = CBORLimits(maximumBytes: 1_000, maximumDepth: 1_000, maximumItems: 1_000)
        #expect(deep.maximumDepth == 64)
        deep.maximumDepth = 10_000
        #expect(Self.kind([UInt8](repeating: 0x81, count: 64) + [0x00], limits: deep) == .depthExceeded)
        #expect(Self.kind([UInt8](repeating: 0x81, count: 63) + [0x00], limits: deep) == nil)
    }

    @Test func errorsDescribeKindAndOffsetOnly() {
        let error = CBORError(.duplicateKey, at: 3)
        #expect(error.description == "CBOR duplicateKey at byte 3")
    }
}
