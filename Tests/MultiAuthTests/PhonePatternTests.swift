import Foundation
import MultiAuthSandbox
import Testing

@testable import MultiAuth

/// `PhonePattern` (the metadata's regex subset, matched without Foundation) against
/// `NSRegularExpression` (ICU) on every pattern of the generated table: full matches, prefix
/// matches with their length and capture groups, and transform-rule templates.
@Suite(.timeLimit(.minutes(10)))
struct PhonePatternTests {
    /// The reference: what the parser used before, `NSRegularExpression` anchored at the start.
    static func reference(_ pattern: String, _ digits: String, whole: Bool) -> (
        length: Int, groups: [Range<Int>?], expression: NSRegularExpression, match: NSTextCheckingResult
    )? {
        let source = whole ? "^(?:" + pattern + ")$" : "^(?:" + pattern + ")"
        guard let expression = try? NSRegularExpression(pattern: source),
            let match = expression.firstMatch(
                in: digits, options: [.anchored], range: NSRange(location: 0, length: digits.utf16.count))
        else { return nil }
        let groups: [Range<Int>?] = (0..<expression.numberOfCaptureGroups).map { index in
            let range = match.range(at: index + 1)
            return range.location == NSNotFound ? nil : range.location..<(range.location + range.length)
        }
        return (match.range.length, groups, expression, match)
    }

    @Test func everyTablePatternMatchesLikeICU() throws {
        let seed: UInt64 = 0x9A77_E12E
        var random = SeededRandomNumberGenerator(seed: seed)
        var patterns: [(String, String?)] = []  // pattern, transform rule
        for territories in PhoneMetadata.table.byCallingCode.values {
            for territory in territories {
                patterns.append((territory.generalPattern, nil))
                if let types = territory.typesPattern { patterns.append((types, nil)) }
                if let leading = territory.leadingDigits { patterns.append((leading, nil)) }
                if let idd = territory.internationalPrefix { patterns.append((idd, nil)) }
                if let parsing = territory.nationalPrefixForParsing {
                    patterns.append((parsing, territory.nationalPrefixTransformRule))
                }
            }
        }
        #expect(patterns.count > 500)
        var compared = 0
        var matched = 0
        for (source, rule) in patterns {
            let pattern = try #require(PhonePattern(source), "does not compile: \(source)")
            var inputs: [String] = []
            for _ in 0..<6 {
                let sample = pattern.sample(using: &random)
                inputs.append(String(decoding: sample, as: UTF8.self))
                // Near misses: one digit more, one less, one changed.
                inputs.append(
                    String(
                        decoding: sample + [UInt8(ascii: "0") + UInt8.random(in: 0...9, using: &random)], as: UTF8.self)
                )
                if !sample.isEmpty {
                    inputs.append(String(decoding: sample.dropLast(), as: UTF8.self))
                    var changed = sample
                    changed[Int.random(in: 0..<changed.count, using: &random)] =
                        UInt8(ascii: "0") + UInt8.random(in: 0...9, using: &random)
                    inputs.append(String(decoding: changed, as: UTF8.self))
                }
            }
            for _ in 0..<4 {
                inputs.append(
                    String(
                        (0..<Int.random(in: 0...17, using: &random)).map { _ in
                            Character(String(Int.random(in: 0...9, using: &random)))
                        }))
            }
            for input in inputs {
                compared += 1
                let full = Self.reference(source, input, whole: true) != nil
                #expect(pattern.fullMatch(input) == full, "seed \(seed): fullMatch \(source) on \(input)")
                let mine = pattern.prefixMatch(input)
                let theirs = Self.reference(source, input, whole: false)
                #expect(
                    mine?.length == theirs?.length && mine?.groups == theirs?.groups,
                    "seed \(seed): prefixMatch \(source) on \(input)")
                if let mine, let theirs, let rule {
                    matched += 1
                    let expected = theirs.expression.replacementString(
                        for: theirs.match, in: input, offset: 0, template: rule)
                    #expect(
                        pattern.expand(rule, match: mine, digits: Array(input.utf8)) == expected,
                        "template \(rule) for \(source) on \(input)")
                }
            }
        }
        #expect(compared > 10_000)
        #expect(matched > 100)
    }

    @Test func syntaxOutsideTheSubsetDoesNotCompile() {
        for source in ["a", "\\w", "[^1]", "1*", "1+", ".", "(?=1)", "1{2", "1{3,2}", "[]", "(1", "1)", "[9-1]"] {
            #expect(PhonePattern(source) == nil, "\(source)")
        }
        #expect(PhonePattern("(?:1|2)\\d{2,3}$|[0-3]")?.captureGroupCount == 0)
        #expect(PhonePattern("(1)(2)?")?.captureGroupCount == 2)
    }

    /// Backtracking stays bounded on a pattern built to explode without memoisation.
    @Test func nestedOptionalRepetitionIsLinear() throws {
        let pattern = try #require(PhonePattern("(?:\\d?){15}\\d{15}$"))
        #expect(pattern.fullMatch(String(repeating: "1", count: 15)))
        #expect(!pattern.fullMatch(String(repeating: "1", count: 14)))
    }
}

/// The ASCII fast paths of phone parsing (byte scan, table parse) against the general ones.
@Suite(.timeLimit(.minutes(10)))
struct PhoneFastPathTests {
    static func outcome(_ body: () throws -> PhoneNumberParser.Parsed) -> String {
        do { return "\(try body())" } catch let error as AuthError {
            return "\(error.code) \(String(describing: error.reason)) \(error.message)"
        } catch {
            return "\(error)"
        }
    }

    /// Random ASCII input (digits, separators, plus, letters, extension markers, spaces and
    /// controls at the ends, CR LF pairs, long input) parses identically through the byte scan
    /// and the general path: the same numbers and the same errors (`extensionNotSupported`
    /// included).
    @Test func asciiInputParsesAsThroughTheGeneralPath() {
        let seed: UInt64 = 0xA5C1_1F00
        var random = SeededRandomNumberGenerator(seed: seed)
        let alphabet = Array("0123456789012345678901234567890123456789 -./()[]~\t+ab\r\n\u{0B}\u{0C}xX#;,=:ext".utf8)
        let regions: [String?] = [nil, "US", "GB", "gb", "DE", "IN", "IT", "FR", "JP", "XX"]
        var inputs = [
            "+1 650-253-0000", " (212) 555-1234 ", "\t+44 (0) 20 7946 0958\r\n", "(44) 0161 496 0000",
            "0044 20 7946 0958",
            "011 44 20 7946 0958", "+39 06 6982 1234", "++1 650", "1+650", String(repeating: "1", count: 64),
            String(repeating: "1", count: 65), String(repeating: "1", count: 63) + "\r\n1", "", "   ", "()", "(12)",
            // Extensions (refused with their own reason) and Mexico's retired "+52 1".
            "+1 650-253-0000 x28", "+1 650 253 0000 ext. 123", "+1 650 253 0000;ext=123", "+1 650 253 0000 #123",
            "+1 650 253 0000, extension 7", "650 253 0000 x", "+52 1 55 1234 5678", "+52 55 1234 5678",
        ]
        for _ in 0..<3_000 {
            let length = Int.random(in: 0...24, using: &random)
            inputs.append(
                String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &random)! }, as: UTF8.self))
        }
        for input in inputs {
            for region in regions {
                let fast = Self.outcome { try PhoneNumberParser.parse(input, defaultRegion: region) }
                let general = Self.outcome {
                    try PhoneNumberParser.parse(input, defaultRegion: region, asciiFastPath: false)
                }
                #expect(fast == general, "seed \(seed): \(input.debugDescription) in \(region ?? "nil")")
            }
        }
    }

    /// The byte-scanning table parser builds the same territories as splitting the text.
    @Test func tableParseMatchesSplittingTheText() throws {
        var expected: [String: [String]] = [:]
        for line in PhoneMetadata.rawTable.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            try #require(fields.count == 11)
            expected[fields[0] + "/" + fields[1]] = fields
        }
        var seen = 0
        for territories in PhoneMetadata.table.byCallingCode.values {
            for territory in territories {
                let fields = try #require(expected[territory.region + "/" + String(territory.callingCode)])
                func field(_ value: String?) -> String { value ?? "~" }
                func lengths(_ values: [Int]) -> String {
                    values.isEmpty ? "~" : values.map(String.init).joined(separator: ",")
                }
                #expect(
                    lengths(territory.possibleLengths) == fields[2] && lengths(territory.localOnlyLengths) == fields[3])
                #expect(field(territory.nationalPrefix) == fields[4])
                #expect(territory.nationalPrefixForParsing == (fields[5] == "~" ? territory.nationalPrefix : fields[5]))
                #expect(
                    field(territory.nationalPrefixTransformRule) == fields[6]
                        && field(territory.internationalPrefix) == fields[7])
                #expect(
                    field(territory.leadingDigits) == fields[8] && territory.generalPattern == fields[9]
                        && field(territory.typesPattern) == fields[10])
                seen += 1
            }
        }
        #expect(seen == expected.count)
    }
}
