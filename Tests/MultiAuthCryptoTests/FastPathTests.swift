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

/// The single-pass JSON parser and the table-driven base64 decoder against the implementations
/// they replaced (Foundation's `JSONDecoder` plus the duplicate-name scan; the byte-by-byte loop).
@Suite("fast paths agree with the general implementations")
struct FastPathTests {
    enum Outcome: Equatable {
        case parsed([String: JSONValue])
        case failed(String)
    }

    static func outcome(_ body: () throws -> [String: JSONValue]) -> Outcome {
        do { return .parsed(try body()) } catch { return .failed("\(error)") }
    }

    /// A random JSON value; `depth` bounds nesting.
    static func value(_ random: inout SplitMix64, depth: Int) -> String {
        let strings = ["\"a\"", "\"iss\"", "\"\"", "\"\\u00e9t\\u00E9\"", "\"\\ud83d\\ude00\"", "\"caf\u{e9}\"", "\"x\\\"y\\\\z\\/\"",
                       "\"\\b\\f\\n\\r\\t\"", "\"tab\\tend\""]
        let numbers = ["0", "-0", "1", "-17", "1700000000", "1700000000.5", "1e3", "2E-2", "-0.0", "123456789012345678", "9007199254740993",
                       "3.141592653589793", "1.5e300"]
        switch Int.random(in: 0..<(depth > 0 ? 8 : 5), using: &random) {
        case 0: return strings.randomElement(using: &random)!
        case 1: return numbers.randomElement(using: &random)!
        case 2: return ["true", "false", "null"].randomElement(using: &random)!
        case 3, 4: return numbers.randomElement(using: &random)!
        case 5: return "[" + (0..<Int.random(in: 0...3, using: &random)).map { _ in value(&random, depth: depth - 1) }.joined(separator: ",") + "]"
        default: return object(&random, depth: depth - 1)
        }
    }

    static func object(_ random: inout SplitMix64, depth: Int) -> String {
        let names = ["\"a\"", "\"b\"", "\"iss\"", "\"exp\"", "\"\\u0061\"", "\"caf\u{e9}\"", "\"cafe\u{301}\""]
        let members = (0..<Int.random(in: 0...4, using: &random)).map { _ in
            names.randomElement(using: &random)! + [":", " : ", ":\n"].randomElement(using: &random)! + value(&random, depth: depth)
        }
        return "{" + members.joined(separator: [",", ", ", " ,\t"].randomElement(using: &random)!) + "}"
    }

    /// Valid documents, then each mutated by deleting, duplicating or replacing one byte.
    @Test("JSON objects parse as through Foundation's JSONDecoder, valid or malformed")
    func jsonParserAgreesWithFoundation() {
        let seed: UInt64 = 0x150_1234
        var random = SplitMix64(state: seed)
        var documents: [[UInt8]] = [Array(#"{"alg":"RS256","kid":"k1","typ":"JWT"}"#.utf8), Array(" { } ".utf8), Array("[]".utf8),
                                    Array("{\"a\":1,\"a\":2}".utf8), Array("{\"a\":1}x".utf8), Array("{\"a\":\"\u{1}\"}".utf8),
                                    Array("{\"a\":01}".utf8), Array("{\"a\":1.}".utf8), Array("{\"a\":\"\\ud800\"}".utf8),
                                    Array("{\"a\":1e400}".utf8), [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], Array("{\"a\":[1,]}".utf8)]
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
            let fast = Self.outcome { try JSONValue.object(from: document) }
            let reference = Self.outcome { try JSONValue.objectThroughFoundation(from: document) }
            let text = String(decoding: document, as: UTF8.self)
            // The one intended difference: RFC 8259 has no trailing commas; Foundation's decoder
            // accepts `[1,]`, the parser refuses it.
            if case .failed = fast, case .parsed = reference, text.range(of: #",\s*[\]}]"#, options: .regularExpression) != nil {
                trailingCommas += 1
                continue
            }
            #expect(fast == reference, "seed \(seed): \(text)")
            if case .parsed = fast { accepted += 1 }
        }
        #expect(accepted > 1_000)
        #expect(trailingCommas >= 1)  // at least the `{"a":[1,]}` above
        #expect(throws: CryptoError.malformedToken) { try JSONValue.object(from: Array("{\"a\":[1,]}".utf8)) }
        #expect(throws: CryptoError.malformedToken) { try JSONValue.object(from: Array("{\"a\":1,}".utf8)) }
    }

    @Test("nesting deeper than the limit is refused before any deeper work")
    func jsonDepthLimit() throws {
        let deep = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        #expect(throws: CryptoError.malformedToken) { try JSONValue.object(from: Array("{\"a\":\(deep)}".utf8)) }
        let fits = String(repeating: "[", count: JSONParser.maximumDepth - 1) + String(repeating: "]", count: JSONParser.maximumDepth - 1)
        #expect(try JSONValue.object(from: Array("{\"a\":\(fits)}".utf8))["a"] != nil)
        let hostile = "{\"a\":" + String(repeating: "[", count: 100_000)
        #expect(throws: CryptoError.malformedToken) { try JSONValue.object(from: Array(hostile.utf8)) }
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
