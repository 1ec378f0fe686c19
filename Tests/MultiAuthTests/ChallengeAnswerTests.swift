import Foundation
import MultiAuth
import Testing

/// Docs/Cases.md, B34 and the name rules of Truecaller-style flows.
@Suite struct ChallengeAnswerTests {
    @Test(arguments: [" 123456", "123456\n", "123 456", "\t12 34 56\r\n", "123\u{00A0}456"])
    func whitespaceIsRemoved(_ input: String) throws {
        #expect(try ChallengeAnswer(code: input).normalizedCode(length: 6) == "123456")
    }

    @Test(arguments: ["12345", "12345a", "1234567", "", "12-3456", "¹²³⁴⁵⁶", "+12345"])
    func malformedCodesAreInvalidCodeFormat(_ input: String) {
        let error = #expect(throws: AuthError.self) { try ChallengeAnswer(code: input).normalizedCode(length: 6) }
        #expect(error?.code == .invalidInput)
        #expect(error?.reason == .invalidCodeFormat)
        #expect(error?.message.contains(input.isEmpty ? "\u{0}" : input) == false)
    }

    @Test func leadingZerosStayAString() throws {
        #expect(try ChallengeAnswer(code: "005924").normalizedCode(length: 6) == "005924")
        #expect(try ChallengeAnswer(code: "0059").normalizedCode(length: nil) == "0059")
        #expect(throws: AuthError.self) { try ChallengeAnswer(code: "123").normalizedCode(length: nil) }
    }

    @Test func namesFollowTheRules() throws {
        let name = try PersonName(firstName: "  Ana ", lastName: "")
        #expect(name.firstName == "Ana" && name.lastName == "")
        #expect(try PersonName(firstName: "José", lastName: "O'Brien-Núñez").fullName == "José O'Brien-Núñez")
        #expect(try PersonName(firstName: "李", lastName: "小龙").fullName == "李 小龙")
        for (first, last) in [
            ("", "Smith"), ("   ", ""), ("1234", ""), ("!!", ""), ("Ana", String(repeating: "b", count: 129)),
            (String(repeating: "a", count: 128), ""), ("\u{301}", ""), ("1\u{301}", ""),
        ] {
            let error = #expect(throws: AuthError.self) { try PersonName(firstName: first, lastName: last) }
            #expect(error?.reason == .invalidName)
        }
        #expect(try PersonName(firstName: String(repeating: "a", count: 127)).firstName.count == 127)
        // The last name follows TrueSDK: its length only (Docs/Providers/Truecaller.md).
        #expect(try PersonName(firstName: "Ana", lastName: "42").lastName == "42")
    }

    @Test func decodingAppliesTheNameRules() throws {
        let name = try JSONDecoder().decode(
            PersonName.self, from: Data(#"{"firstName":" Ana ","lastName":"Lima"}"#.utf8))
        #expect(name.fullName == "Ana Lima")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(PersonName.self, from: Data(#"{"firstName":"1234","lastName":""}"#.utf8))
        }
    }
}
