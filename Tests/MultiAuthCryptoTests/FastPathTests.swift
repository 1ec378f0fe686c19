import Foundation
import Testing

@testable import MultiAuthCrypto

/// A small seeded generator (SplitMix64) for reproducible random inputs.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The JSON parser's fast paths (strings without escapes, whole numbers) and the table-driven
/// base64 decoder against general implementations: Foundation's `JSONDecoder` (plus a member
/// count, since it merges repeated names instead of refusing them) and the byte-by-byte loop.
@Suite("fast paths agree with the general implementations")
struct FastPathTests {
    enum FastPathOutcome: Equatable {
        case parsed([String: JSONValue])
        case failed(String)
    }

    static func outcome(_ body: () throws -> [String: JSONValue]) -> FastPathOutcome {
        do { return .parsed(try body()) } catch { return .failed("\(error)") }
    }

    /// The parser under test, as a JWT segment is parsed.
    static func parsed(_ document: [UInt8]) throws -> [String: JSONValue] {
        try JSONValue.object(from: document, limits: .jwt)
    }

    /// The reference: Foundation's `JSONDecoder`, then a refusal when the document has more
    /// members (one `:` outside strings each, in valid JSON) than the decoded objects hold,
    /// i.e. when an object repeated a name and Foundation kept one of the values.
    static func reference(_ document: [UInt8]) throws -> [String: JSONValue] {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(document)),
            case .object(let members) = value
        else {
            throw CryptoError.malformedToken
        }
        func memberCount(_ value: JSONValue) -> Int {
            switch value {
            case .object(let members): members.count + members.values.reduce(0) { $0 + memberCount($1) }
            case .array(let elements): elements.reduce(0) { $0 + memberCount($1) }
            default: 0
            }
        }
        var colons = 0
        var inString = false
        var escaped = false
        for byte in document {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: ":") {
                colons += 1
            }
        }
        guard memberCount(value) == colons else { throw CryptoError.malformedToken }
        return members
    }

    /// A random JSON value; `depth` bounds nesting.
    static func value(_ random: inout SplitMix64, depth: Int) -> String {
        let strings = [
            "\"a\"", "\"iss\"", "\"\"", "\"\\u00e9t\\u00E9\"", "\"\\ud83d\\ude00\"", "\"caf\u{e9}\"",
            "\"x\\\"y\\\\z\\/\"",
            "\"\\b\\f\\n\\r\\t\"", "\"tab\\tend\"", "\"\u{1F600} emoji\"", "\"https://issuer.example/path?q=1\"",
        ]
        let numbers = [
            "0", "-0", "1", "-17", "1700000000", "1700000000.5", "1e3", "2E-2", "-0.0", "123456789012345678",
            "9007199254740993",
            "3.141592653589793", "1.5e300", "999999999999999", "1000000000000000", "-9999999999999999",
            "12345678901234567890",
        ]
        switch Int.random(in: 0..<(depth > 0 ? 8 : 5), using: &random) {
        case 0: return strings.randomElement(using: &random)!
        case 1: return numbers.randomElement(using: &random)!
        case 2: return ["true", "false", "null"].randomElement(using: &random)!
        case 3, 4: return numbers.randomElement(using: &random)!
        case 5:
            return "["
                + (0..<Int.random(in: 0...3, using: &random)).map { _ in value(&random, depth: depth - 1) }.joined(
                    separator: ",") + "]"
        default: return object(&random, depth: depth - 1)
        }
    }

    static func object(_ random: inout SplitMix64, depth: Int) -> String {
        let names = ["\"a\"", "\"b\"", "\"iss\"", "\"exp\"", "\"\\u0061\"", "\"caf\u{e9}\"", "\"cafe\u{301}\""]
        let members = (0..<Int.random(in: 0...4, using: &random)).map { _ in
            names.randomElement(using: &random)! + [":", " : ", ":\n"].randomElement(using: &random)!
                + value(&random, depth: depth)
        }
        return "{" + members.joined(separator: [",", ", ", " ,\t"].randomElement(using: &random)!) + "}"
    }

    /// Valid documents, then each mutated by deleting, duplicating or replacing one byte.
    @Test("JSON objects parse as through Foundation's JSONDecoder, valid or malformed")
    func jsonParserAgreesWithFoundation() {
        let seed: UInt64 = 0x150_1234
        var random = SplitMix64(state: seed)
        var documents: [[UInt8]] = [
            Array(#"{"alg":"RS256","kid":"k1","typ":"JWT"}"#.utf8), Array(" { } ".utf8), Array("[]".utf8),
            Array("{\"a\":1,\"a\":2}".utf8), Array("{\"a\":1}x".utf8), Array("{\"a\":\"\u{1}\"}".utf8),
            Array("{\"a\":01}".utf8), Array("{\"a\":1.}".utf8), Array("{\"a\":\"\\ud800\"}".utf8),
            Array("{\"a\":1e400}".utf8), [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], Array("{\"a\":[1,]}".utf8),
        ]
        for _ in 0..<1_500 {
            let document = Array(Self.object(&random, depth: 3).utf8)
            documents.append(document)
            guard !document.isEmpty else { continue }
            var mutated = document
            let index = Int.random(in: 0..<mutated.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: mutated.remove(at: index)
            case 1: mutated.insert(mutated[index], at: index)
            default: mutated[index] = Array("{}[]\",:0-.e\\ ".utf8).randomElement(using: &random)!
            }
            documents.append(mutated)
        }
        var accepted = 0
        var trailingCommas = 0
        for document in documents {
            let fast = Self.outcome { try Self.parsed(document) }
            let reference = Self.outcome { try Self.reference(document) }
            let text = String(decoding: document, as: UTF8.self)
            // The one intended difference: RFC 8259 has no trailing commas; Foundation's decoder
            // accepts `[1,]`, the parser refuses it.
            if case .failed = fast, case .parsed = reference,
                text.range(of: #",\s*[\]}]"#, options: .regularExpression) != nil
            {
                trailingCommas += 1
                continue
            }
            #expect(fast == reference, "seed \(seed): \(text)")
            if case .parsed = fast { accepted += 1 }
        }
        #expect(accepted > 1_000)
        #expect(trailingCommas >= 1)  // at least the `{"a":[1,]}` above
        #expect(throws: CryptoError.malformedToken) { try Self.parsed(Array("{\"a\":[1,]}".utf8)) }
        #expect(throws: CryptoError.malformedToken) { try Self.parsed(Array("{\"a\":1,}".utf8)) }
    }

    @Test("the whole-number fast path gives the same Double as parsing the text, at every length")
    func numberFastPath() throws {
        var texts: [String] = ["0", "-0", "7", "-7", "10", "1700000000", "-1700000000"]
        for digits in 1...22 {
            texts.append(String(repeating: "9", count: digits))
            texts.append("-" + String(repeating: "9", count: digits))
            texts.append("1" + String(repeating: "0", count: digits - 1))
            texts.append(String("12345678901234567890123".prefix(digits)))
        }
        texts += [
            "9007199254740992", "9007199254740993", "9007199254740995", "-9223372036854775808", "18446744073709551616",
        ]
        for text in texts {
            let value = try JSONValue(parsing: Array(text.utf8))
            #expect(value == .number(Double(text)!), "\(text)")
            #expect(value.doubleValue?.sign == Double(text)!.sign, "\(text)")
        }
        #expect(throws: CryptoError.malformedToken) { try JSONValue(parsing: Array("-".utf8)) }
        #expect(throws: CryptoError.malformedToken) { try JSONValue(parsing: Array("00".utf8)) }
        #expect(throws: CryptoError.malformedToken) { try JSONValue(parsing: Array("-01".utf8)) }
    }

    @Test("the unescaped-string fast path keeps strict UTF-8 and control-character rules")
    func stringFastPath() throws {
        #expect(try JSONValue(parsing: Array(#""plain ascii""#.utf8)) == .string("plain ascii"))
        #expect(try JSONValue(parsing: Array("\"caf\u{e9} \u{1F600}\"".utf8)) == .string("caf\u{e9} \u{1F600}"))
        #expect(try JSONValue(parsing: Array(#""before\nafter""#.utf8)) == .string("before\nafter"))
        #expect(try JSONValue(parsing: Array("\"caf\u{e9}\\t\u{1F600}\"".utf8)) == .string("caf\u{e9}\t\u{1F600}"))
        let refused: [[UInt8]] = [
            [0x22, 0x61, 0x0A, 0x22],  // raw line feed
            [0x22, 0x61, 0xFF, 0x22],  // not UTF-8
            [0x22, 0xC3, 0x22],  // truncated sequence
            [0x22, 0xE0, 0x80, 0x80, 0x22],  // overlong
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate
            [0x22, 0x61, 0x5C, 0x6E, 0xFF, 0x22],  // invalid byte after an escape
            [0x22, 0x61, 0x62],  // unterminated
        ]
        for bytes in refused {
            #expect(throws: CryptoError.malformedToken, "\(bytes)") { try JSONValue(parsing: bytes) }
        }
    }

    /// A collection without contiguous storage, to force the general decoding loop.
    struct Scattered: Collection {
        let bytes: [UInt8]
        var startIndex: Int { 0 }
        var endIndex: Int { bytes.count }
        func index(after index: Int) -> Int { index + 1 }
        subscript(index: Int) -> UInt8 { bytes[index] }
    }

    @Test("table-driven base64 decoding agrees with the general loop on valid and invalid input")
    func base64FastPathAgrees() {
        var random = SplitMix64(state: 0xB64)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=. ".utf8)
        for _ in 0..<5_000 {
            let length = Int.random(in: 0...40, using: &random)
            let text = (0..<length).map { _ in alphabet.randomElement(using: &random)! }
            for urlSafe in [true, false] {
                let fast = Result { try Base64.decode(text, urlSafe: urlSafe) }
                let general = Result { try Base64.decode(Scattered(bytes: text), urlSafe: urlSafe) }
                #expect("\(fast)" == "\(general)", "\(String(decoding: text, as: UTF8.self))")
            }
        }
    }
}
