import Foundation
import Testing

@testable import MultiAuth

/// User-facing error texts by code and reason, English built in, translatable.
@Suite(.serialized) struct AuthErrorLocalizationTests {
    /// The names of the `public static let x = <Type>("…")` constants of `AuthError.swift`, read
    /// from the source so a constant added later without text fails here.
    static func constants(of type: String) throws -> [String] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Sources/MultiAuth/Errors/AuthError.swift")
        let text = try String(contentsOf: file, encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"public static let \w+ = \#(type)\("(\w+)"\)"#)
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    @Test func everyCodeConstantHasEnglishText() throws {
        let codes = try Self.constants(of: "Code")
        #expect(codes.count >= 20, "found only \(codes)")
        for raw in codes {
            let error = AuthError(AuthError.Code(raw))
            let description = try #require(AuthError.englishStrings["error.\(raw)"], "no English text for code \(raw)")
            let recovery = try #require(
                AuthError.englishStrings["error.\(raw).recovery"], "no English recovery for code \(raw)")
            #expect(error.errorDescription == description)
            #expect(error.recoverySuggestion == recovery)
            #expect(error.localizedDescription == description)
        }
    }

    @Test func everyReasonConstantHasEnglishText() throws {
        let reasons = try Self.constants(of: "Reason")
        #expect(reasons.count >= 11, "found only \(reasons)")
        var descriptions: Set<String> = []
        for raw in reasons {
            let error = AuthError.invalidInput(AuthError.Reason(raw), "developer text")
            let description = try #require(
                AuthError.englishStrings["error.invalidInput.\(raw)"], "no English text for reason \(raw)")
            #expect(AuthError.englishStrings["error.invalidInput.\(raw).recovery"] == error.recoverySuggestion)
            #expect(error.errorDescription == description)
            descriptions.insert(description)
        }
        #expect(descriptions.count == reasons.count, "two reasons share a text")
    }

    /// The same code from two providers, with different developer messages and raw codes,
    /// reads the same; the developer message never shows.
    @Test func theSameCodeFromTwoProvidersReadsTheSame() {
        let dynamic = AuthError(
            .invalidCode, "the code is not correct", provider: "dynamic",
            providerCode: "wrong_email_verification_token",
            attemptsRemaining: 2)
        let truecaller = AuthError(.invalidCode, "InvalidOTP", provider: "truecaller", providerCode: "4001")
        #expect(dynamic.errorDescription == truecaller.errorDescription)
        #expect(dynamic.recoverySuggestion == truecaller.recoverySuggestion)
        #expect(dynamic.errorDescription == "The code is incorrect.")
        #expect(!(dynamic.errorDescription ?? "").contains("not correct"))
        #expect(dynamic.message == "the code is not correct")
    }

    /// A reason only picks the text of `invalidInput`; unknown codes and reasons fall back.
    @Test func unknownCodesAndReasonsFallBack() {
        #expect(AuthError(AuthError.Code("somethingNew")).errorDescription == AuthError.englishStrings["error.generic"])
        #expect(
            AuthError.invalidInput(AuthError.Reason("somethingNew")).errorDescription
                == AuthError.englishStrings["error.invalidInput"])
        #expect(AuthError(.network, reason: .tooShort).errorDescription == AuthError.englishStrings["error.network"])
    }

    /// Translations come through the localizer: a custom lookup, a strings table in a bundle;
    /// keys without an entry stay English.
    @Test func translationsComeThroughTheLocalizer() throws {
        let saved = AuthError.localizer
        defer { AuthError.localizer = saved }
        AuthError.localizer = AuthErrorLocalizer { key, english in
            key == "error.invalidCode" ? "Le code est incorrect." : english
        }
        #expect(AuthError(.invalidCode).errorDescription == "Le code est incorrect.")
        #expect(AuthError(.invalidCode).recoverySuggestion == "Check the code and try again.")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multiauth-l10n-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let lproj = directory.appendingPathComponent("Resources/en.lproj")
        try FileManager.default.createDirectory(at: lproj, withIntermediateDirectories: true)
        try Data(#""error.expired" = "Expired (from the table).";"#.utf8).write(
            to: lproj.appendingPathComponent("MultiAuth.strings"))
        let bundle = try #require(Bundle(path: directory.path))
        AuthError.localizer = .bundle(bundle)
        #expect(AuthError(.expired).errorDescription == "Expired (from the table).")
        #expect(AuthError(.network).errorDescription == "The connection was lost.")
        AuthError.localizer = .english
        #expect(AuthError(.expired).errorDescription == "The code or link has expired.")
    }

    /// No planted value reaches the user-facing texts, whatever the message holds.
    @Test func userFacingTextsNeverShowTheMessageOrRawCode() {
        let error = AuthError(
            .invalidCode, "code 482913 rejected", provider: "otpless", providerCode: "SECRET-RAW", attemptsRemaining: 1)
        for text in [error.errorDescription, error.recoverySuggestion, error.localizedDescription] {
            #expect(!(text ?? "").contains("482913"))
            #expect(!(text ?? "").contains("SECRET-RAW"))
        }
    }

    /// Docs/Errors.md lists every key with its English texts, and nothing else.
    @Test func theKeysInDocsErrorsAreTheEnglishTable() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Docs/Errors.md")
        let text = try String(contentsOf: file, encoding: .utf8)
        var documented: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `error.") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 3 else {
                Issue.record("malformed row: \(line)")
                continue
            }
            let key = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            documented[key] = cells[1]
            documented[key + ".recovery"] = cells[2]
        }
        #expect(documented == AuthError.englishStrings)
    }
}
