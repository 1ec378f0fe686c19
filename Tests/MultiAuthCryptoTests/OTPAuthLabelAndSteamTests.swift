import Foundation
import Testing

@testable import MultiAuthCrypto

/// The Key URI Format's label split (encoded colons inside an issuer) and Steam
/// Guard's `encoder=steam`. Rules: Docs/Standards.md.
@Suite("otpauth labels and encoder=steam")
struct OTPAuthLabelAndSteamTests {
    static let secret = "secret=JBSWY3DPEHPK3PXP"

    @Test("an encoded colon inside the issuer stays in the issuer; the canonical URI keeps it")
    func encodedColonInsideTheIssuer() throws {
        let uri = try OTPAuthURI(
            parsing: "otpauth://totp/Acme%3A%20Payments:alice?\(Self.secret)&issuer=Acme%3A%20Payments")
        #expect(uri.issuer == "Acme: Payments")
        #expect(uri.labelIssuer == "Acme: Payments")
        #expect(uri.account == "alice")
        #expect(!uri.issuerMismatch)
        #expect(
            uri.uriString
                == "otpauth://totp/Acme%3A%20Payments:alice?secret=JBSWY3DPEHPK3PXP&issuer=Acme%3A%20Payments&algorithm=SHA1&digits=6&period=30"
        )
        let again = try OTPAuthURI(parsing: uri.uriString)
        #expect(again == uri)
        #expect(again.uriString == uri.uriString)
        // Without the issuer parameter the label alone says the same.
        let labelOnly = try OTPAuthURI(parsing: "otpauth://totp/Acme%3A%20Payments:alice?\(Self.secret)")
        #expect(
            labelOnly.issuer == "Acme: Payments" && labelOnly.labelIssuer == "Acme: Payments"
                && labelOnly.account == "alice")
        #expect(try OTPAuthURI(parsing: labelOnly.uriString) == labelOnly)
    }

    @Test("a decoded label that starts with the issuer parameter and ':' has the rest as its account")
    func issuerParameterPrefixRule() throws {
        // Literal colons inside the issuer: the first literal colon alone would split "Acme".
        let literal = try OTPAuthURI(
            parsing: "otpauth://totp/Acme:%20Payments:alice?\(Self.secret)&issuer=Acme:%20Payments")
        #expect(
            literal.issuer == "Acme: Payments" && literal.labelIssuer == "Acme: Payments" && literal.account == "alice")
        #expect(!literal.issuerMismatch)
        #expect(literal.uriString.hasPrefix("otpauth://totp/Acme%3A%20Payments:alice?"))
        #expect(try OTPAuthURI(parsing: literal.uriString) == literal)
        // Only a prefix match counts: a different issuer keeps the split label (Docs/Cases.md, B09 style).
        let other = try OTPAuthURI(parsing: "otpauth://totp/Acme:%20Payments:alice?\(Self.secret)&issuer=Acme%20Pay")
        #expect(other.issuer == "Acme Pay" && other.labelIssuer == "Acme" && other.account == "Payments:alice")
        #expect(other.issuerMismatch)
        #expect(try OTPAuthURI(parsing: other.uriString) == other)
        // The issuer itself as the whole label leaves no account.
        #expect(throws: CryptoError.missingParameter("account")) {
            try OTPAuthURI(parsing: "otpauth://totp/Acme%3AB:?\(Self.secret)&issuer=Acme%3AB")
        }
    }

    @Test("the label splits at its first literal colon, else at its first %3A or %3a")
    func splitPoints() throws {
        let cases: [(String, String?, String)] = [
            ("Example%3aalice", "Example", "alice"),
            ("Example%3Aalice%3Ab", "Example", "alice:b"),
            ("Acme:a%3Ab", "Acme", "a:b"),
            ("Acme%3Ab:c", "Acme:b", "c"),
            ("Acme:%20%20bob", "Acme", "bob"),
            ("%3Abob", nil, "bob"),
            ("a%253Ab", nil, "a%3Ab"),
            ("Ex%2BCo%3A%20me", "Ex+Co", "me"),
            // The Key URI Format's own examples of valid labels.
            ("Big%20Corporation%3A%20alice%40bigco.com", "Big Corporation", "alice@bigco.com"),
            ("Provider1:Alice%20Smith", "Provider1", "Alice Smith"),
            // A literal colon followed by a combining mark (U+065E) is one grapheme, but still the
            // separator (Fuzz/otpauth: a Character search missed it and the round trip changed).
            ("Acme:\u{65E}om", "Acme", "\u{65E}om"),
            ("W%5D30_e.c:%D9%9Eom", "W]30_e.c", "\u{65E}om"),
        ]
        for (label, labelIssuer, account) in cases {
            let uri = try OTPAuthURI(parsing: "otpauth://totp/\(label)?\(Self.secret)")
            #expect(uri.labelIssuer == labelIssuer, "\(label)")
            #expect(uri.issuer == labelIssuer, "\(label)")
            #expect(uri.account == account, "\(label)")
            #expect(try OTPAuthURI(parsing: uri.uriString) == uri, "\(label) → \(uri.uriString)")
        }
        #expect(OTPAuthURI.splitLabel("abc") == nil)
        #expect(OTPAuthURI.splitLabel("a%3") == nil)
    }

    @Test("every parsed URI's canonical form parses back to the same fields and the same string")
    func canonicalFormIsAFixedPoint() throws {
        let inputs = [
            "otpauth://totp/Acme%3A%20Payments:alice?\(Self.secret)&issuer=Acme%3A%20Payments",
            "otpauth://totp/Acme:%20Payments:alice?\(Self.secret)&issuer=Acme:%20Payments",
            // The split label matches the issuer only once its leading spaces are dropped.
            "otpauth://totp/L:%20%3Ax:y?\(Self.secret)&issuer=L%3A",
            "otpauth://totp/L%3A%20%20x?\(Self.secret)&issuer=L%3Ax",
            "otpauth://totp/bob?\(Self.secret)&issuer=Acme",
            "otpauth://totp/:bob?\(Self.secret)&issuer=Acme",
            "otpauth://totp/%20bob?\(Self.secret)",
            "otpauth://totp/a:b?\(Self.secret)&issuer=x%3Ay",
            "otpauth://totp/:o:?secret=ot",
            "otpauth://totp/Example+Corp%3Auser%40example.com?\(Self.secret)&issuer=Microsoft",
            "otpauth://hotp/Co%3AX:bob?\(Self.secret)&issuer=Co%3AX&counter=5",
        ]
        for input in inputs {
            let uri = try OTPAuthURI(parsing: input)
            let again = try OTPAuthURI(parsing: uri.uriString)
            #expect(again == uri, "\(input) → \(uri.uriString)")
            #expect(again.uriString == uri.uriString, "\(input)")
        }
        // A label without an issuer prefix is not given one: the fields stay as parsed.
        let bare = try OTPAuthURI(parsing: "otpauth://totp/bob?\(Self.secret)&issuer=Acme")
        #expect(bare.labelIssuer == nil && bare.issuer == "Acme")
        #expect(bare.uriString.hasPrefix("otpauth://totp/bob?"))
        #expect(try OTPAuthURI(parsing: "otpauth://totp/L:%20%3Ax:y?\(Self.secret)&issuer=L%3A").account == "x:y")
    }

    @Test("the fuzz corpus round-trips exactly (all fields, the same string)")
    func fuzzCorpusRoundTrips() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/otpauth")
        let files = try FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil)
        #expect(files.count >= 5)
        var parsed = 0
        for file in files {
            let input = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            for candidate in [input, "otpauth://totp/" + input] {
                guard let uri = try? OTPAuthURI(parsing: candidate) else { continue }
                parsed += 1
                let again = try OTPAuthURI(parsing: uri.uriString)
                #expect(again == uri, "\(file.lastPathComponent)")
                #expect(again.uriString == uri.uriString, "\(file.lastPathComponent)")
            }
        }
        #expect(parsed >= 4)
    }

    // MARK: encoder=steam

    @Test("encoder=steam gives Steam Guard codes (pyotp's SteamTOTP known answers)")
    func steamGuardKnownAnswers() throws {
        // pyauth/pyotp test.py, class SteamTOTP (commit 0a964ba156f250e4203fcb9a0de6d02a6bbac810).
        let vectors: [(String, [(Int64, String)])] = [
            (
                "FMXNK4QEGKVPULRTADY6JIDK5VHUBGZW",
                [
                    (0, "C5V56"), (30, "QJY8Y"), (60, "R3WQY"), (90, "JG3T3"), (1_662_884_261, "V6WKJ"),
                    (946_681_223, "4MK54"),
                ]
            ),
            (
                "BASE32SECRET32323232323232",
                [
                    (0, "WYMY2"), (30, "HG48B"), (60, "WTM99"), (90, "BKYDG"), (1_662_883_100, "FW33J"),
                    (946_681_223, "BDJKQ"),
                ]
            ),
            // The older 80-bit example secret (pyotp now refuses keys under 112 bits; Steam's
            // are 160 bits): same algorithm, same answers.
            (
                "BASE32SECRET3232",
                [
                    (0, "2TC8B"), (30, "YKKK4"), (60, "M4HQB"), (90, "DTVB3"), (1_662_883_100, "N3G63"),
                    (946_681_223, "7VP3X"),
                ]
            ),
        ]
        for (secret, answers) in vectors {
            let uri = try OTPAuthURI(parsing: "otpauth://totp/Steam:alice?secret=\(secret)&issuer=Steam&encoder=steam")
            #expect(uri.encoding == .steam)
            #expect(uri.digits == 5)
            let steam = try uri.makeSteamGuard()
            for (time, code) in answers {
                #expect(try steam.code(at: time) == code, "\(secret) at \(time)")
                #expect(try steam.verify(code, at: time, window: 0) == UInt64(time / 30))
            }
        }
    }

    @Test("a Steam URI never yields decimal codes; its canonical form keeps encoder=steam")
    func steamURIRefusesDecimalCodes() throws {
        let uri = try OTPAuthURI(
            parsing: "otpauth://totp/Steam:alice?secret=FMXNK4QEGKVPULRTADY6JIDK5VHUBGZW&issuer=Steam&encoder=steam")
        #expect(throws: CryptoError.invalidParameter("encoder")) { try uri.makeTOTP() }
        #expect(throws: CryptoError.invalidParameter("encoder")) { try uri.makeHOTP() }
        #expect(
            uri.uriString
                == "otpauth://totp/Steam:alice?secret=FMXNK4QEGKVPULRTADY6JIDK5VHUBGZW&issuer=Steam&algorithm=SHA1&digits=5&period=30&encoder=steam"
        )
        #expect(try OTPAuthURI(parsing: uri.uriString) == uri)
        #expect(uri.description.contains("encoder: steam"))
        // A decimal URI has no Steam generator.
        let decimal = try OTPAuthURI(parsing: "otpauth://totp/Acme:bob?\(Self.secret)")
        #expect(decimal.encoding == .decimal)
        #expect(throws: CryptoError.invalidParameter("encoder")) { try decimal.makeSteamGuard() }
        #expect(!decimal.uriString.contains("encoder"))
        var changed = decimal
        changed.encoding = .steam
        #expect(changed != decimal)
    }

    @Test("encoder parameter: steam (any case, digits=5) is accepted; anything else is an error")
    func encoderParameterValues() throws {
        let base = "otpauth://totp/Steam:alice?secret=FMXNK4QEGKVPULRTADY6JIDK5VHUBGZW"
        #expect(try OTPAuthURI(parsing: base + "&encoder=steam&digits=5").digits == 5)
        #expect(try OTPAuthURI(parsing: base + "&encoder=Steam").encoding == .steam)
        #expect(try OTPAuthURI(parsing: base + "&encoder=steam&period=60&algorithm=SHA1").makeSteamGuard().period == 60)
        for bad in ["yandex", "", "steam2", "motp"] {
            #expect(throws: CryptoError.invalidParameter("encoder"), "encoder=\(bad)") {
                try OTPAuthURI(parsing: base + "&encoder=\(bad)")
            }
        }
        // Not a number at all is also "what Steam needs" under encoder=steam (breaker finding).
        for digits in ["6", "8", "4", "abc", "-5", ""] {
            #expect(throws: CryptoError.invalidSteamDigits, "digits=\(digits)") {
                try OTPAuthURI(parsing: base + "&encoder=steam&digits=\(digits)")
            }
        }
        // The message says what Steam needs, not the decimal rule "6, 7 or 8" (breaker finding).
        #expect(
            CryptoError.invalidSteamDigits.description
                == "invalid digits for encoder=steam: Steam Guard codes have 5 characters; write digits=5 or leave digits out"
        )
        #expect(throws: CryptoError.unsupportedAlgorithm) {
            try OTPAuthURI(parsing: base + "&encoder=steam&algorithm=SHA256")
        }
        #expect(throws: CryptoError.invalidParameter("encoder")) {
            try OTPAuthURI(
                parsing: "otpauth://hotp/Steam:alice?secret=FMXNK4QEGKVPULRTADY6JIDK5VHUBGZW&counter=1&encoder=steam")
        }
    }

    @Test("Steam Guard verification: window, case, whitespace and format errors")
    func steamGuardVerification() throws {
        let steam = try SteamGuardTOTP(secret: Base32.decode("FMXNK4QEGKVPULRTADY6JIDK5VHUBGZW"))
        #expect(steam.period == 30)
        #expect(try steam.verify("qjy8y", at: 30, window: 0) == 1)
        #expect(try steam.verify(" QJY 8Y\n", at: 45) == 1)
        #expect(try steam.verify("C5V56", at: 45, window: 1) == 0)
        #expect(try steam.verify("R3WQY", at: 45, window: 1) == 2)
        #expect(throws: CryptoError.invalidCode) { try steam.verify("R3WQY", at: 45, window: 0) }
        #expect(throws: CryptoError.invalidCode) { try steam.verify("JG3T3", at: 15, window: 1) }
        for bad in ["C5V5", "C5V566", "C5V5A", "C5V50", "C5V5É", "12345", ""] {
            #expect(throws: CryptoError.invalidCodeFormat, "\(bad)") { try steam.verify(bad, at: 0) }
        }
        #expect(throws: CryptoError.invalidParameter("window")) { try steam.verify("C5V56", at: 0, window: 11) }
        #expect(throws: CryptoError.invalidTime) { try steam.code(at: -1) }
        #expect(try steam.secondsRemaining(at: 31) == 29)
        #expect(throws: CryptoError.invalidPeriod) { try SteamGuardTOTP(secret: [1], period: 0) }
        #expect(throws: CryptoError.emptySecret) { try SteamGuardTOTP(secret: []) }
        #expect(SteamGuardTOTP.alphabet.count == 26)
    }
}
