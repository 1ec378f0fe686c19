import Foundation
import Testing

@testable import MultiAuth

@Suite struct PhoneNumberTests {
    /// Expects `body` to throw `AuthError.invalidInput` with `reason`.
    private func expectReason(_ reason: AuthError.Reason, _ input: String, region: String? = nil) {
        #expect {
            _ = try PhoneNumber(input, defaultRegion: region)
        } throws: { error in
            guard let error = error as? AuthError else { return false }
            return error.code == .invalidInput && error.reason == reason
        }
    }

    // MARK: B31 (Docs/Cases.md)

    @Test(
        "B31: trunk zero after the calling code dropped, Italian zero kept",
        arguments: [
            ("+44 (0) 20 7946 0958", "+442079460958"),
            ("+44 0161 496 0000", "+441614960000"),
            ("(44) 0161 496 0000", "+441614960000"),
            ("+49 (0) 30 5555 0100", "+493055550100"),
            ("+39 06 5555 0100", "+390655550100"),
            ("(+44) 07700 900123", "+447700900123"),
        ])
    func b31(input: String, expected: String) throws {
        let number = try PhoneNumber(input)
        #expect(number.e164 == expected)
    }

    @Test func b31Parts() throws {
        let london = try PhoneNumber("+44 (0) 20 7946 0958")
        #expect(london.countryCallingCode == 44)
        #expect(london.nationalNumber == "2079460958")
        #expect(london.regionCode == "GB")
        let rome = try PhoneNumber("+39 06 5555 0100")
        #expect(rome.countryCallingCode == 39)
        #expect(rome.nationalNumber == "0655550100")
        #expect(rome.regionCode == "IT")
    }

    // MARK: Formats

    @Test(
        "separators, prefixes and digit forms",
        arguments: [
            ("+91 98765 43210", "+919876543210"),
            ("+91-98765-43210", "+919876543210"),
            ("+91.98765.43210", "+919876543210"),
            ("+91 (98765) 43210", "+919876543210"),
            ("+91/98765/43210", "+919876543210"),
            ("  +919876543210\n", "+919876543210"),
            ("0091 98765 43210", "+919876543210"),
            ("00 44 20 7946 0958", "+442079460958"),
            ("+44 20 7946 0958", "+442079460958"),
            ("＋９１ ９８７６５ ４３２１０", "+919876543210"),  // full-width
            ("+91\u{00A0}98765\u{2013}43210", "+919876543210"),  // no-break space, en dash
            ("+800 1234 5678", "+80012345678"),  // non-geographic
        ])
    func formats(input: String, expected: String) throws {
        #expect(try PhoneNumber(input).e164 == expected)
    }

    @Test(
        "national input with a default region",
        arguments: [
            ("098765 43210", "IN", "+919876543210"),
            ("98765 43210", "IN", "+919876543210"),
            ("081234 56789", "IN", "+918123456789"),
            ("(201) 555-0123", "US", "+12015550123"),
            ("1 201 555 0123", "US", "+12015550123"),
            ("201.555.0123", "us", "+12015550123"),
            ("020 7946 0958", "GB", "+442079460958"),
            ("07400 123456", "GB", "+447400123456"),
            ("0121 234 5678", "GB", "+441212345678"),
            ("030 123456", "DE", "+4930123456"),
            ("01512 3456789", "DE", "+4915123456789"),
            ("02 1234 5678", "IT", "+390212345678"),
            ("312 345 6789", "IT", "+393123456789"),
            ("06 12 34 56 78", "FR", "+33612345678"),
            ("01 23 45 67 89", "FR", "+33123456789"),
            ("(11) 96123-4567", "BR", "+5511961234567"),
            ("(11) 2345-6789", "BR", "+551123456789"),
            ("090-1234-5678", "JP", "+819012345678"),
            ("03-1234-5678", "JP", "+81312345678"),
            ("011 15-2345-6789", "AR", "+5491123456789"),  // trunk 0 and mobile 15 → 9
            ("8 (912) 345-67-89", "RU", "+79123456789"),
        ])
    func national(input: String, region: String, expected: String) throws {
        let number = try PhoneNumber(input, defaultRegion: region)
        #expect(number.e164 == expected)
        #expect(number.regionCode == region.uppercased())
    }

    @Test func defaultRegionDoesNotOverrideAnInternationalNumber() throws {
        #expect(try PhoneNumber("+44 20 7946 0958", defaultRegion: "IN").e164 == "+442079460958")
        #expect(try PhoneNumber("011 44 20 7946 0958", defaultRegion: "US").e164 == "+442079460958")
        #expect(try PhoneNumber("0044 20 7946 0958", defaultRegion: "US").e164 == "+442079460958")
        #expect(try PhoneNumber("44 20 7946 0958", defaultRegion: "GB").e164 == "+442079460958")
    }

    /// Breaker finding: with a default region a parenthesised group is an area code, never a
    /// guessed calling code (Docs/Standards.md, "Phone numbers: a default region never guesses
    /// a calling code"); python-phonenumbers gives the same national reading.
    @Test(
        "a default region never guesses a calling code from a parenthesised group",
        arguments: [
            ("(20) 98683078", "HU"),  // was +2098683078 (Egypt)
            ("(44) 0161 496 0000", "US"),  // was +441614960000 (UK)
            ("(91) 98765 43210", "US"),  // was +919876543210 (India)
            ("(1) 650 253 0000", "GB"),  // was +16502530000 (US)
        ])
    func parenthesisedGroupIsNational(input: String, region: String) throws {
        // Read as national, the digits are too long for the region (phonenumbers: TOO_LONG).
        do {
            let number = try PhoneNumber(input, defaultRegion: region)
            Issue.record("\(input) in \(region) parsed as \(number.e164)")
        } catch let error as AuthError {
            #expect(error.code == .invalidInput)
            #expect(error.reason == .tooLong, "\(error)")
        }
    }

    @Test func parenthesisedGroupWithADefaultRegionStaysInThatRegion() throws {
        // An area code in parentheses is national; the calling code comes only after + or 00.
        #expect(try PhoneNumber("(36) 20 986 8307", defaultRegion: "HU").e164 == "+36209868307")
        #expect(try PhoneNumber("(020) 7946 0958", defaultRegion: "GB").e164 == "+442079460958")
        #expect(try PhoneNumber("(212) 555-1234", defaultRegion: "US").e164 == "+12125551234")
        #expect(try PhoneNumber("(+20) 100 123 4567", defaultRegion: "HU").e164 == "+201001234567")
        #expect(try PhoneNumber("00 20 100 123 4567", defaultRegion: "HU").e164 == "+201001234567")
        // Without a default region the parenthesised calling code is still read (B31).
        #expect(try PhoneNumber("(44) 0161 496 0000").e164 == "+441614960000")
    }

    // MARK: Regions

    @Test(
        "shared calling codes: region detection",
        arguments: [
            ("+1 201 555 0123", "US"),
            ("+1 613 555 0123", "CA"),
            ("+1 506 234 5678", "CA"),
            ("+1 809 234 5678", "DO"),
            ("+1 310-1234", "CA"),  // a 7-digit Canadian number: CA's lengths, not the US's
            ("+7 912 345 67 89", "RU"),
            ("+7 701 123 4567", "KZ"),
            ("+44 20 7946 0958", "GB"),
            ("+44 1534 456789", "JE"),
            ("+44 1481 256789", "GG"),
            ("+44 1624 756789", "IM"),
            ("+61 412 345 678", "AU"),
            ("+61 8 9164 1234", "CX"),
            ("+47 21 23 45 67", "NO"),
            ("+47 79 12 34 56", "SJ"),
            ("+358 18 1234567", "AX"),
            ("+358 13 1234567", "FI"),
        ])
    func sharedCallingCode(input: String, region: String) throws {
        #expect(try PhoneNumber(input).regionCode == region)
    }

    @Test func regionIsNilWhenNotDeterminable() throws {
        #expect(try PhoneNumber("+800 1234 5678").regionCode == nil)
        #expect(try PhoneNumber("+1 555 555 5555").regionCode == nil)  // +1 but no NANP region's pattern
        #expect(try PhoneNumber("+91 98765 43210").regionCode == "IN")
    }

    @Test func metadataCoversEveryRegion() {
        #expect(PhoneNumber.supportedRegions.count >= 240)
        #expect(PhoneNumber.callingCode(forRegion: "gb") == 44)
        #expect(PhoneNumber.callingCode(forRegion: "JE") == 44)
        #expect(PhoneNumber.callingCode(forRegion: "XX") == nil)
        #expect(PhoneMetadata.sourceVersion.isEmpty == false)
    }

    @Test func everyMetadataPatternCompiles() {
        var broken: [String] = []
        for territory in PhoneMetadata.table.byCallingCode.values.joined() {
            let patterns = [
                territory.generalPattern, territory.nationalPrefixForParsing, territory.internationalPrefix,
                territory.leadingDigits, territory.typesPattern,
            ]
            for case let pattern? in patterns where !PhonePattern.compiles(pattern) {
                broken.append("\(territory.region) \(pattern.prefix(30))")
            }
        }
        #expect(broken.isEmpty)
    }

    // MARK: Errors

    @Test(
        "invalidCharacters",
        arguments: [
            "+44 20 7946 095O", "call +44 20 7946 0958", "+44 20 7946 0958 ext. 12 b",
            "+44*20", "44+20 7946 0958", "++44 20 7946 0958", "#31#",
        ])
    func invalidCharacters(input: String) {
        expectReason(.invalidCharacters, input)
    }

    @Test("regionRequired", arguments: ["020 7946 0958", "98765 43210", "(212) 555-1234"])
    func regionRequired(input: String) {
        expectReason(.regionRequired, input)
    }

    @Test func invalidCountryCode() {
        expectReason(.invalidCountryCode, "+999 1234 5678")
        expectReason(.invalidCountryCode, "+0 1234 5678")
        expectReason(.invalidCountryCode, "00 999 1234 5678")
        expectReason(.invalidCountryCode, "020 7946 0958", region: "XX")
        expectReason(.invalidCountryCode, "020 7946 0958", region: "001")
    }

    @Test func tooShort() {
        expectReason(.tooShort, "")
        expectReason(.tooShort, "  - ")
        expectReason(.tooShort, "+44")
        expectReason(.tooShort, "+91 9876 5")  // 5 digits; India's shortest numbers have 8
        expectReason(.tooShort, "+49 30 1")  // 3 digits: only dialable locally in Germany
        expectReason(.tooShort, "+44 20 7946", region: nil)
        expectReason(.tooShort, "555 0123", region: "US")  // local-only: no area code
        expectReason(.tooShort, "12", region: "GB")
    }

    @Test func tooLong() {
        expectReason(.tooLong, "+44 20 7946 09581")  // 11 digits; the UK's longest have 10
        expectReason(.tooLong, "+44 20 7946 0958 0958")
        expectReason(.tooLong, "+1 201 555 01234")
        expectReason(.tooLong, "+49 30 1234 5678 9012 34")  // more than 15 digits in E.164
        expectReason(.tooLong, String(repeating: "1", count: 100))
    }

    // MARK: Masking, equality, Codable

    @Test func masked() throws {
        let india = try PhoneNumber("+91 98765 43210")
        #expect(india.masked == "+91 •••••• 3210")
        #expect(india.description == "+91 •••••• 3210")
        #expect("\(india)" == "+91 •••••• 3210")
        #expect(try PhoneNumber("+44 20 7946 0958").masked == "+44 •••••• 0958")
        #expect(try PhoneNumber("+39 06 5555 0100").masked == "+39 •••••• 0100")
        #expect(!String(describing: india).contains("98765"))
    }

    @Test func equalityUsesE164() throws {
        let a = try PhoneNumber("+44 (0) 20 7946 0958")
        let b = try PhoneNumber("020 7946 0958", defaultRegion: "GB")
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
    }

    @Test func codableRoundTrip() throws {
        let numbers = [
            try PhoneNumber("+91 98765 43210"), try PhoneNumber("+1 613 555 0123"),
            try PhoneNumber("+39 06 5555 0100"),
        ]
        let data = try JSONEncoder().encode(numbers)
        #expect(String(decoding: data, as: UTF8.self) == #"["+919876543210","+16135550123","+390655550100"]"#)
        let decoded = try JSONDecoder().decode([PhoneNumber].self, from: data)
        #expect(decoded == numbers)
        #expect(decoded.map(\.regionCode) == ["IN", "CA", "IT"])
        #expect(decoded.map(\.nationalNumber) == ["9876543210", "6135550123", "0655550100"])
    }

    @Test func decodingRejectsAnInvalidNumber() {
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode([PhoneNumber].self, from: Data(#"["+999 12"]"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode([PhoneNumber].self, from: Data(#"[44]"#.utf8))
        }
    }

    @Test func parsesConcurrently() async throws {
        let inputs = ["+44 (0) 20 7946 0958", "+1 613 555 0123", "+7 701 123 4567", "011 15-2345-6789"]
        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<200 {
                let input = inputs[index % inputs.count]
                group.addTask { try PhoneNumber(input, defaultRegion: "AR").e164 }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(results == ["+442079460958", "+16135550123", "+77011234567", "+5491123456789"])
    }

    @Test func asciiDigitHelper() {
        #expect(Character("7").isASCIIDigit)
        #expect(!Character("٧").isASCIIDigit)
        #expect(!Character("a").isASCIIDigit)
    }
}
