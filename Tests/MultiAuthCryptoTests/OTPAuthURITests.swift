import Testing

@testable import MultiAuthCrypto

@Suite("otpauth:// Key URI Format")
struct OTPAuthURITests {
    @Test("B02: parse and build again gives the same canonical secret every time")
    func b02RoundTrip() throws {
        let uri = try OTPAuthURI(
            parsing: "otpauth://totp/Demo:alice?secret=S46SQCPPTCNPROMHWYBDCTBZXV======&issuer=Demo")
        #expect(uri.secretBytes == Hex.decode("973d2809ef989af8b987b602314c39bd"))
        let first = uri.uriString
        #expect(!first.contains("%3D"))
        // The given characters, normalized (no padding), not re-encoded from the bytes.
        #expect(
            first
                == "otpauth://totp/Demo:alice?secret=S46SQCPPTCNPROMHWYBDCTBZXV&issuer=Demo&algorithm=SHA1&digits=6&period=30"
        )
        let again = try OTPAuthURI(parsing: first)
        #expect(again == uri)
        #expect(again.uriString == first)
        #expect(try again.makeTOTP().code(at: Int64(1_612_380_872)) == "100172")
        #expect(try again.makeTOTP().code(at: Int64(1_612_380_872)) == "100172")
        #expect(again.uriString == first)
    }

    @Test("B03: algorithm=SHA256 and digits=8 are honoured")
    func b03() throws {
        let uri = try OTPAuthURI(
            parsing:
                "otpauth://totp/Example:user%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA&issuer=Example&algorithm=SHA256&digits=8&period=30"
        )
        #expect(uri.secretBytes == Keys.k32)
        #expect(uri.algorithm == .sha256)
        #expect(uri.digits == 8)
        #expect(uri.period == 30)
        #expect(uri.account == "user@example.com")
        #expect(uri.issuer == "Example")
        let code = try uri.makeTOTP().code(at: Int64(59))
        #expect(code == "46119246")
        #expect(code != "97599872")
    }

    @Test("B04: secrets inside URIs: percent-encoded padding and bad characters")
    func b04() throws {
        let uri = try OTPAuthURI(parsing: "otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY%3D%3D%3D%3D%3D%3D")
        #expect(uri.secretBytes == Keys.k16)
        #expect(throws: CryptoError.invalidCharacter) {
            try OTPAuthURI(parsing: "otpauth://totp/x?secret=JBSWY3DPEHPK3PX1")
        }
        #expect(throws: CryptoError.invalidLength) { try OTPAuthURI(parsing: "otpauth://totp/x?secret=JBSWY3DPE") }
        #expect(throws: CryptoError.invalidPadding) {
            try OTPAuthURI(parsing: "otpauth://totp/x?secret=JBSW%3DY3DPEHPK3PXP")
        }
        let lower = try OTPAuthURI(parsing: "otpauth://totp/x?secret=jbswy3dpehpk3pxp")
        #expect(try lower.makeTOTP().code(at: Int64(1_700_000_000)) == "324550")
    }

    @Test("B06: period=60 is used; zero, negative and non-numeric periods are errors")
    func b06() throws {
        let uri = try OTPAuthURI(
            parsing: "otpauth://totp/Example:user%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&period=60")
        #expect(uri.period == 60)
        #expect(try uri.makeTOTP().code(at: Int64(1_111_111_109)) == "360094")
        for bad in ["0", "-30", "abc", "30s", "", " 30", "+30", "1e2", "99999999999999999999"] {
            #expect(throws: CryptoError.invalidPeriod, "period=\(bad)") {
                try OTPAuthURI(parsing: "otpauth://totp/x?secret=GEZDGNBVGY3TQOJQ&period=\(bad)")
            }
        }
    }

    @Test("B09: the issuer parameter wins; the label issuer is kept for display")
    func b09() throws {
        let uri = try OTPAuthURI(
            parsing: "otpauth://totp/Example+Corp%3Auser%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Microsoft")
        #expect(uri.issuer == "Microsoft")
        #expect(uri.labelIssuer == "Example+Corp")
        #expect(uri.account == "user@example.com")
        #expect(uri.secretBytes == Keys.kh)
        #expect(uri.algorithm == .sha1 && uri.digits == 6 && uri.period == 30)
        #expect(uri.issuerMismatch)
        #expect(try OTPAuthURI(parsing: uri.uriString) == uri)
        let same = try OTPAuthURI(parsing: "otpauth://totp/ACME:bob?secret=JBSWY3DPEHPK3PXP&issuer=ACME")
        #expect(!same.issuerMismatch)
        let labelOnly = try OTPAuthURI(parsing: "otpauth://totp/ACME:%20%20bob?secret=JBSWY3DPEHPK3PXP")
        #expect(labelOnly.issuer == "ACME" && labelOnly.account == "bob" && !labelOnly.issuerMismatch)
        let none = try OTPAuthURI(parsing: "otpauth://totp/bob?secret=JBSWY3DPEHPK3PXP")
        #expect(none.issuer == nil && none.labelIssuer == nil && none.account == "bob")
    }

    @Test("B12: the canonical enrolment URI, its round trip, and a stray %")
    func b12() throws {
        let uri = try OTPAuthURI(
            issuer: "Acme Co", account: "user@example.com", secret: try Base32.decode("JBSWY3DPEHPK3PXP"),
            algorithm: .sha1, digits: 6, period: 30)
        let expected =
            "otpauth://totp/Acme%20Co:user%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme%20Co&algorithm=SHA1&digits=6&period=30"
        #expect(uri.uriString == expected)
        let parsed = try OTPAuthURI(parsing: expected)
        #expect(parsed == uri)
        #expect(
            parsed.issuer == "Acme Co" && parsed.account == "user@example.com" && parsed.secret == "JBSWY3DPEHPK3PXP")
        #expect(parsed.algorithm == .sha1 && parsed.digits == 6 && parsed.period == 30)
        #expect(throws: CryptoError.invalidPercentEscape) {
            try OTPAuthURI(
                parsing:
                    "otpauth://totp/Acme%20Co:user%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme%20Co&algorithm=%SHA1&digits=6"
            )
        }
        #expect(throws: CryptoError.invalidPercentEscape) {
            try OTPAuthURI(parsing: "otpauth://totp/Acme%2:bob?secret=JBSWY3DPEHPK3PXP")
        }
    }

    @Test("explicit bad values are errors, never defaults")
    func badValues() throws {
        let base = "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP"
        for algorithm in ["MD5", "", "SHA3", "sha-384"] {
            #expect(throws: CryptoError.unsupportedAlgorithm) {
                try OTPAuthURI(parsing: base + "&algorithm=\(algorithm)")
            }
        }
        #expect(try OTPAuthURI(parsing: base + "&algorithm=sha512").algorithm == .sha512)
        for digits in ["5", "9", "", "six", "-6", "10"] {
            #expect(throws: CryptoError.invalidDigits) { try OTPAuthURI(parsing: base + "&digits=\(digits)") }
        }
        #expect(try OTPAuthURI(parsing: base + "&digits=7").digits == 7)
        // Found by Fuzz/otpauth: a digits value above Int.max trapped instead of throwing.
        for digits in [
            "00000000000011644206345617323218", "9223372036854775808", "18446744073709551615", "18446744073709551616",
        ] {
            #expect(throws: CryptoError.invalidDigits, "digits=\(digits)") {
                try OTPAuthURI(parsing: base + "&digits=\(digits)")
            }
        }
        #expect(throws: CryptoError.missingParameter("secret")) { try OTPAuthURI(parsing: "otpauth://totp/x?issuer=A") }
        #expect(throws: CryptoError.emptySecret) { try OTPAuthURI(parsing: "otpauth://totp/x?secret=") }
        #expect(throws: CryptoError.invalidParameter("secret")) { try OTPAuthURI(parsing: base + "&secret=GEZDGNBV") }
        for uri in [
            "http://totp/x?secret=JBSWY3DPEHPK3PXP", "otpauth://motp/x?secret=JBSWY3DPEHPK3PXP",
            "otpauth://totp?secret=JBSWY3DPEHPK3PXP", "otpauth://", "otpauth://totp/x?secret", base + "#frag",
        ] {
            #expect(throws: CryptoError.invalidURI, "\(uri)") { try OTPAuthURI(parsing: uri) }
        }
        #expect(throws: CryptoError.invalidPeriod) {
            try OTPAuthURI(issuer: nil, account: "x", secret: Keys.k20, period: 0)
        }
    }

    @Test("HOTP URIs need a counter")
    func hotp() throws {
        let uri = try OTPAuthURI(
            parsing: "otpauth://hotp/Co:bob?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Co&counter=5")
        #expect(uri.kind == .hotp && uri.counter == 5)
        #expect(try uri.makeHOTP().code(counter: uri.counter ?? 0) == "254676")
        #expect(
            uri.uriString
                == "otpauth://hotp/Co:bob?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Co&algorithm=SHA1&digits=6&counter=5"
        )
        #expect(try OTPAuthURI(parsing: uri.uriString) == uri)
        #expect(throws: CryptoError.missingParameter("counter")) {
            try OTPAuthURI(parsing: "otpauth://hotp/bob?secret=JBSWY3DPEHPK3PXP")
        }
        for bad in ["-1", "x", ""] {
            #expect(throws: CryptoError.invalidCounter) {
                try OTPAuthURI(parsing: "otpauth://hotp/bob?secret=JBSWY3DPEHPK3PXP&counter=\(bad)")
            }
        }
    }

    @Test("unicode, plus signs and reserved characters survive a round trip")
    func encodingRoundTrip() throws {
        let uri = try OTPAuthURI(issuer: "Zürich & Co+", account: "a+b c/d?e=f@x.io", secret: Keys.k20)
        #expect(uri.uriString.hasPrefix("otpauth://totp/Z%C3%BCrich%20%26%20Co%2B:a%2Bb%20c%2Fd%3Fe%3Df%40x.io?"))
        #expect(try OTPAuthURI(parsing: uri.uriString) == uri)
        #expect(try OTPAuthURI(parsing: "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&issuer=Acme+Co").issuer == "Acme Co")
    }

    @Test("duplicate parameters are rejected, unknown ones ignored")
    func parameters() throws {
        #expect(throws: CryptoError.invalidParameter("secret")) {
            try OTPAuthURI(parsing: "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&secret=GEZDGNBVGY3TQOJQ")
        }
        let uri = try OTPAuthURI(
            parsing: "otpauth://TOTP/x?secret=JBSWY3DPEHPK3PXP&image=https%3A%2F%2Fexample.com%2Fa.png")
        #expect(uri.kind == .totp)
    }

    @Test("descriptions, debug descriptions and dumps never show the secret")
    func redaction() throws {
        let uri = try OTPAuthURI(issuer: "Acme Co", account: "user@example.com", secret: Keys.kh)
        var dumped = ""
        dump(uri, to: &dumped)
        for text in [uri.description, "\(uri)", String(reflecting: uri), dumped] {
            #expect(!text.contains("JBSWY3DPEHPK3PXP"))
            #expect(!text.contains("72, 101"))
            #expect(text.contains("redacted"))
        }
    }
}

// MARK: Review fixes (builder/parser symmetry, control characters, the given secret)

extension OTPAuthURITests {
    @Test("B12: the builder refuses names the label cannot carry, so build → parse gives back the fields")
    func builderRefusesAmbiguousNames() throws {
        func build(issuer: String?, labelIssuer: String? = nil, account: String) throws -> OTPAuthURI {
            try OTPAuthURI(issuer: issuer, labelIssuer: labelIssuer, account: account, secret: Keys.kh)
        }
        #expect(throws: CryptoError.invalidParameter("issuer")) {
            try build(issuer: "Acme:Corp", account: "user@example.com")
        }
        #expect(throws: CryptoError.invalidParameter("issuer")) { try build(issuer: ":", account: "bob") }
        #expect(throws: CryptoError.invalidParameter("issuer")) { try build(issuer: "", account: "bob") }
        #expect(throws: CryptoError.invalidParameter("issuer")) { try build(issuer: "Evil\ncanonical", account: "bob") }
        #expect(throws: CryptoError.invalidParameter("labelIssuer")) {
            try build(issuer: "A", labelIssuer: "A:B", account: "bob")
        }
        #expect(throws: CryptoError.invalidParameter("account")) { try build(issuer: nil, account: "x:y") }
        #expect(throws: CryptoError.invalidParameter("account")) {
            try build(issuer: "Acme", account: "Corp:user@example.com")
        }
        for account in [" leading", "trailing ", "\u{00A0}nbsp", "tab\t", "\nline", "a\u{0000}b", "del\u{7F}"] {
            #expect(throws: CryptoError.invalidParameter("account"), "\(account.debugDescription)") {
                try build(issuer: "Acme", account: account)
            }
        }
        #expect(throws: CryptoError.missingParameter("account")) { try build(issuer: "Acme", account: "") }
        // Everything the builder accepts comes back exactly.
        let names: [(String?, String)] = [
            ("Acme Co", "user@example.com"), (nil, "bob"), ("Zürich & Co+", "a+b c/d?e=f@x.io"),
            ("100% sure", "50%3Aoff"),
            ("  Spaced  ", "inner  space"), ("日本", "ユーザー"), ("a%3Ab", "x%3Ay"), ("Acme", "+plus"),
        ]
        for (issuer, account) in names {
            let built = try build(issuer: issuer, account: account)
            let parsed = try OTPAuthURI(parsing: built.uriString)
            #expect(parsed == built, "\(built.uriString)")
            #expect(parsed.issuer == issuer && parsed.labelIssuer == issuer && parsed.account == account)
            #expect(parsed.uriString == built.uriString)
        }
    }

    @Test("the parser rejects control characters in the label and issuer, and an empty account")
    func parserRejectsControlsAndEmptyAccount() throws {
        let secret = "secret=JBSWY3DPEHPK3PXP"
        for control in ["%00", "%0A", "%0D", "%09", "%1B", "%7F", "%C2%85"] {
            #expect(throws: CryptoError.invalidParameter("account"), "\(control)") {
                try OTPAuthURI(parsing: "otpauth://totp/Acme:bob\(control)?\(secret)")
            }
            #expect(throws: CryptoError.invalidParameter("issuer"), "\(control)") {
                try OTPAuthURI(parsing: "otpauth://totp/Ac\(control)me:bob?\(secret)")
            }
            #expect(throws: CryptoError.invalidParameter("issuer"), "\(control)") {
                try OTPAuthURI(parsing: "otpauth://totp/Acme:bob?\(secret)&issuer=Evil\(control)canonical")
            }
        }
        for empty in [
            "otpauth://totp/?\(secret)", "otpauth://totp/Acme:?\(secret)", "otpauth://totp/Acme:%20%20?\(secret)",
        ] {
            #expect(throws: CryptoError.missingParameter("account"), "\(empty)") { try OTPAuthURI(parsing: empty) }
        }
        // Printable Unicode is fine.
        #expect(try OTPAuthURI(parsing: "otpauth://totp/%C3%9Cber:b%C3%B6b?\(secret)").account == "böb")
    }

    @Test("B02: a parsed secret is kept as given (normalized), not re-encoded from its bytes")
    func parsedSecretIsKept() throws {
        let uri = try OTPAuthURI(parsing: "otpauth://totp/Demo:alice?secret=S46SQCPPTCNPROMHWYBDCTBZXV&issuer=Demo")
        #expect(uri.secret == "S46SQCPPTCNPROMHWYBDCTBZXV")
        #expect(uri.uriString.contains("secret=S46SQCPPTCNPROMHWYBDCTBZXV&"))
        #expect(try uri.makeTOTP().code(at: 1_612_380_872) == "100172")
        // Lower case, groups, dashes and (encoded) padding are normalized away.
        let spaced = try OTPAuthURI(
            parsing: "otpauth://totp/Demo:alice?secret=s46s%20qcpp-tcnp+romh%C2%A0wybd%20ctbz%20xv%3D%3D%3D%3D%3D%3D")
        #expect(spaced.secret == "S46SQCPPTCNPROMHWYBDCTBZXV")
        #expect(spaced.uriString == uri.uriString)
        #expect(spaced == uri)
        // Stable: every round trip prints the same.
        var text = uri.uriString
        for _ in 0..<3 {
            let again = try OTPAuthURI(parsing: text)
            #expect(again.uriString == text)
            text = again.uriString
        }
        // Setting the bytes replaces the secret, and the text follows the bytes.
        var changed = uri
        changed.secretBytes = Keys.kh
        #expect(changed.secret == "JBSWY3DPEHPK3PXP")
        #expect(changed.uriString.contains("secret=JBSWY3DPEHPK3PXP&"))
        changed.secretBytes = uri.secretBytes
        #expect(changed.secret == "S46SQCPPTCNPROMHWYBDCTBZXU")
        #expect(changed != uri)
        // Built from bytes: the canonical encoding.
        let built = try OTPAuthURI(issuer: "Demo", account: "alice", secret: uri.secretBytes)
        #expect(built.secret == "S46SQCPPTCNPROMHWYBDCTBZXU")
        #expect(Set([uri, spaced, built]).count == 2)
    }

    @Test("an empty secret says so, from the parser and the builder")
    func emptySecret() throws {
        #expect(throws: CryptoError.emptySecret) { try OTPAuthURI(parsing: "otpauth://totp/x?secret=%20%20") }
        #expect(throws: CryptoError.emptySecret) { try OTPAuthURI(issuer: nil, account: "x", secret: []) }
    }

    @Test("a parsed account holding a colon survives the canonical form (Fuzz/otpauth crash)")
    func colonInParsedAccountRoundTrips() throws {
        for input in [
            "otpauth://totp/:o:?secret=ot", "otpauth://totp/Acme:a:b?secret=JBSWY3DPEHPK3PXP",
            "otpauth://totp/a:b?secret=JBSWY3DPEHPK3PXP&issuer=x%3Ay",
            // Fuzz/otpauth (CI, 2026-12-01): the account's colon is followed by a combining mark
            // (U+065E), so a `Character` test for ":" missed it and the canonical form had no
            // leading ":"; re-parsed, the label split at the encoded colon.
            "otpauth://totp/:+/totp/W]30\u{FFFD}_e.c:\u{065E}om?secret=JB",
        ] {
            let uri = try OTPAuthURI(parsing: input)
            let again = try OTPAuthURI(parsing: uri.uriString)
            #expect(again.account == uri.account, "\(input)")
            #expect(again.issuer == uri.issuer, "\(input)")
            #expect(again.secretBytes == uri.secretBytes)
            #expect(again == uri && again.uriString == uri.uriString, "\(input)")
        }
        #expect(try OTPAuthURI(parsing: "otpauth://totp/:o:?secret=ot").uriString.hasPrefix("otpauth://totp/:o%3A?"))
    }
}
