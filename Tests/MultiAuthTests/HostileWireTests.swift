import Foundation
import MultiAuthSandbox
import Testing

@testable import MultiAuth

/// What crosses the wire is hostile (Docs/Security.md, "Numbers from the wire", "Redaction",
/// "Input bounds"): numbers become Swift values only through checked conversions, identity
/// input is bounded by UTF-8 length before any Unicode work, codes typed on any digit keyboard
/// are read, and an error's causes never carry a request URL.
@Suite(.timeLimit(.minutes(10)))
struct HostileWireTests {
    // MARK: Numbers

    @Test func durationIntervalSaturatesInsteadOfTrapping() {
        #expect(Duration.interval(1e300) == Duration.interval(WireNumber.maximumInterval))
        #expect(Duration.interval(-1e300) == Duration.interval(-WireNumber.maximumInterval))
        #expect(Duration.interval(.infinity) == Duration.interval(WireNumber.maximumInterval))
        #expect(Duration.interval(.nan) == .zero)
        #expect(Duration.interval(1.2345) == .milliseconds(1235))
    }

    @Test func lifetimesAndExpiriesAreFiniteAndAtMostTenYears() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(try WireNumber.lifetime(seconds: 600, field: "ttl", provider: "p") == 600)
        for bad in [0, -1, 1e300, .infinity, .nan, WireNumber.maximumLifetime + 1] {
            let error = #expect(throws: AuthError.self, "\(bad)") {
                _ = try WireNumber.lifetime(seconds: bad, field: "ttl", provider: "p")
            }
            #expect(error?.code == .malformedResponse)
        }
        #expect(
            try WireNumber.expiry(unixSeconds: 1_700_003_600, now: now, field: "exp", provider: nil)
                == Date(timeIntervalSince1970: 1_700_003_600))
        // An expiry in the past is valid (refresh due); one before 1970 or past 10 years is not.
        #expect(
            try WireNumber.expiry(unixSeconds: 1_000, now: now, field: "exp", provider: nil).timeIntervalSince1970
                == 1_000)
        for bad in [-1, 1e300, 1e19, .infinity, .nan] {
            let error = #expect(throws: AuthError.self) {
                _ = try WireNumber.expiry(unixSeconds: bad, now: now, field: "exp", provider: nil)
            }
            #expect(error?.code == .malformedResponse)
        }
    }

    @Test func timersAreClampedToADayAndWaitsNeverRefused() throws {
        #expect(try WireNumber.timer(3, unit: 1, field: "t", provider: nil) == .seconds(3))
        #expect(try WireNumber.timer(1e300, unit: 1, field: "t", provider: nil) == WireNumber.maximumTimer)
        #expect(try WireNumber.timer(200, unit: 0.001, field: "t", provider: nil) == .milliseconds(200))
        #expect(
            try WireNumber.timer(0, unit: 1, minimum: .milliseconds(100), field: "t", provider: nil)
                == .milliseconds(100))
        for bad in [-1, Double.infinity, .nan] {
            #expect(throws: AuthError.self) { _ = try WireNumber.timer(bad, unit: 1, field: "t", provider: nil) }
        }
        #expect(WireNumber.wait(seconds: .max) == WireNumber.maximumTimer)
        #expect(WireNumber.wait(seconds: -5) == .zero)
        #expect(WireNumber.wait(1e300) == WireNumber.maximumTimer)
        #expect(WireNumber.wait(.nan) == nil)
        let huge = HTTPResponse(status: 429, headers: ["Retry-After": "9223372036854775807"], body: Data())
        #expect(huge.retryAfter == WireNumber.maximumTimer)
    }

    @Test func numericStringsFollowRFC8259AndCodesStayStrings() {
        #expect(WireNumber.number(nil, text: "3600") == 3600)
        #expect(WireNumber.number(nil, text: " 1.5e3 ") == 1500)
        for bad in ["inf", "-inf", "Infinity", "nan", "NaN", "1e999", "0x10", "+1", "1.", ".5", "", "01"] {
            #expect(WireNumber.number(nil, text: bad) == nil, "\(bad)")
        }
        #expect(WireNumber.number(.infinity, text: nil) == nil)
        #expect(WireNumber.code(7118, text: nil) == "7118")
        #expect(WireNumber.code(1e19, text: nil) == "1e+19")
        #expect(WireNumber.code(-9.3e18, text: nil) == "-9.3e+18")
        #expect(WireNumber.code(1e300, text: nil) == "1e+300")
        #expect(WireNumber.code(nil, text: "E_42") == "E_42")
        #expect(WireNumber.integer(1e19) == nil)
        #expect(WireNumber.integer(-42) == -42)
        #expect(WireNumber.integer(1.5) == nil)
    }

    /// A stored session whose expiry is absurdly far (as a hostile server's `1e300` would have
    /// made it) no longer traps the background refresh task: the wait saturates.
    @Test func autoRefreshSurvivesAnAbsurdExpiry() async throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        var session = FakeProvider.session(provider: "fake", access: "A1", refresh: "R1", at: start)
        session.credentials.expiresAt = Date(timeIntervalSince1970: 1e300)
        let fixture = ClientWorld(sessions: [session], autoRefresh: AutoRefresh(jitterSeed: 7))
        await fixture.client.restoreSessions()
        await fixture.clock.waitForBackgroundSleepers(count: 1)
        #expect(fixture.client.autoRefreshTaskCount == 1)
        fixture.clock.advance(by: .seconds(86_400))
        #expect(await fixture.server.refreshRequests.isEmpty)
        _ = try await fixture.client.signOut("fake")
    }

    // MARK: Identity input: bounded before Unicode work

    @Test func identityParsersCheckTheUTF8LengthFirst() {
        // One grapheme of 100,000 combining marks: one Character, 200 KB.
        let marks = "1" + String(repeating: "\u{0301}", count: 100_000)
        let phone = #expect(throws: AuthError.self) { try PhoneNumber("+4420" + marks) }
        #expect(phone?.reason == .tooLong)
        let email = #expect(throws: AuthError.self) { try EmailAddress("a" + marks + "@example.com") }
        #expect(email?.message.contains("longer than") == true)
        let name = #expect(throws: AuthError.self) { try PersonName(firstName: "A" + marks) }
        #expect(name?.message.contains("bytes") == true)
        let code = #expect(throws: AuthError.self) { try ChallengeAnswer(code: marks).normalizedCode(length: 6) }
        #expect(code?.message.contains("bytes") == true)
    }

    // MARK: Codes typed on any digit keyboard

    @Test(arguments: [
        ("١٢٣٤٥٦", "Arabic-Indic"), ("۱۲۳۴۵۶", "Persian (extended Arabic-Indic)"), ("１２３４５６", "full-width"),
        ("१२३४५६", "Devanagari"), ("١٢٣ ٤٥٦", "Arabic-Indic with a space"), ("12٣٤56", "mixed"),
    ])
    func codesInAnyDecimalDigitScriptNormalizeToASCII(typed: String, script: String) throws {
        #expect(try ChallengeAnswer(code: typed).normalizedCode(length: 6) == "123456", "\(script)")
    }

    @Test func nonDecimalNumeralsAreStillRefused() {
        // Superscripts (No), Roman numerals (Nl) and circled digits are numbers but not Nd.
        for typed in ["¹²³⁴⁵⁶", "ⅠⅡⅢⅣⅤⅥ", "①②③④⑤⑥", "12345x"] {
            let error = #expect(throws: AuthError.self, "\(typed)") {
                _ = try ChallengeAnswer(code: typed).normalizedCode(length: 6)
            }
            #expect(error?.reason == .invalidCodeFormat)
        }
    }

    // MARK: E-mail: invisible format characters are refused, not trimmed

    @Test(arguments: ["\u{200B}", "\u{FEFF}", "\u{200E}", "\u{2060}", "\u{00AD}"])
    func formatCharactersAnywhereAreRefused(character: String) {
        for address in [
            character + "user@example.com", "user@example.com" + character, "us" + character + "er@example.com",
            " " + character + "user@example.com ",
        ] {
            let error = #expect(throws: AuthError.self) { try EmailAddress(address) }
            #expect(error?.reason == .invalidEmail)
            #expect(error?.message.contains("invisible") == true, "\(error?.message ?? "")")
        }
    }

    @Test func ordinaryWhitespaceIsStillTrimmed() throws {
        #expect(try EmailAddress(" \t user@example.com \n").address == "user@example.com")
        #expect(try EmailAddress("\u{00A0}user@example.com\u{3000}").address == "user@example.com")
    }

    // MARK: Causes are redacted

    @Test func underlyingKeepsHostAndRedactedPathNeverTheQueryOrASecret() throws {
        let url = URL(
            string: "https://api.example.com/v4/session/493817/tok3nABCdef12345?code=582941&state=s3cr3tState")!
        let cause = URLError(
            .timedOut,
            userInfo: [NSURLErrorFailingURLErrorKey: url, "NSErrorFailingURLStringKey": url.absoluteString])
        let error = AuthError(.network, "timed out", underlying: cause)
        let redacted = try #require(error.underlying as? RedactedError)
        #expect(redacted.host == "api.example.com")
        #expect(redacted.redactedPath == "/v4/session/<redacted>/<redacted>")
        #expect(redacted.code == URLError.timedOut.rawValue)
        var texts = [String(describing: redacted), String(reflecting: redacted)]
        texts += (redacted as NSError).userInfo.values.map { String(describing: $0) }
        for text in texts {
            for secret in ["493817", "tok3nABCdef12345", "582941", "s3cr3tState", "code="] {
                #expect(!text.contains(secret), "\(text)")
            }
        }
        // Setting it later redacts too; an AuthError cause is kept as it is.
        var later = AuthError(.generic)
        later.underlying = cause
        #expect(later.underlying is RedactedError)
        later.underlying = AuthError(.network, "inner")
        #expect((later.underlying as? AuthError)?.message == "inner")
    }
}
