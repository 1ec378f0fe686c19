import Foundation
import MultiAuthSandbox
import Testing

@testable import MultiAuth

/// IDNA labels in e-mail domains (with RFC 3492 Punycode), phone extensions and
/// Mexico's retired `+52 1` mobile form. Rules: Docs/Standards.md.
@Suite("Identity standards: IDN e-mail domains, phone extensions, +52 1")
struct IdentityStandardsTests {
    // MARK: Punycode (RFC 3492)

    /// RFC 3492 §7.1 sample strings: (label, code points, Punycode).
    static let rfc3492Samples: [(String, String, String)] = [
        (
            "A Arabic (Egyptian)",
            "0644 064A 0647 0645 0627 0628 062A 0643 0644 0645 0648 0634 0639 0631 0628 064A 061F",
            "egbpdaj6bu4bxfgehfvwxn"
        ),
        ("B Chinese (simplified)", "4ED6 4EEC 4E3A 4EC0 4E48 4E0D 8BF4 4E2D 6587", "ihqwcrb4cv8a8dqg056pqjye"),
        ("C Chinese (traditional)", "4ED6 5011 7232 4EC0 9EBD 4E0D 8AAA 4E2D 6587", "ihqwctvzc91f659drss3x8bo0yb"),
        (
            "D Czech",
            "0050 0072 006F 010D 0070 0072 006F 0073 0074 011B 006E 0065 006D 006C 0075 0076 00ED 010D 0065 0073 006B 0079",
            "Proprostnemluvesky-uyb24dma41a"
        ),
        (
            "E Hebrew",
            "05DC 05DE 05D4 05D4 05DD 05E4 05E9 05D5 05D8 05DC 05D0 05DE 05D3 05D1 05E8 05D9 05DD 05E2 05D1 05E8 05D9 05EA",
            "4dbcagdahymbxekheh6e0a7fei0b"
        ),
        (
            "F Hindi (Devanagari)",
            "092F 0939 0932 094B 0917 0939 093F 0928 094D 0926 0940 0915 094D 092F 094B 0902 0928 0939 0940 0902 092C 094B 0932 0938 0915 0924 0947 0939 0948 0902",
            "i1baa7eci9glrd9b2ae1bj0hfcgg6iyaf8o0a1dig0cd"
        ),
        (
            "G Japanese (kanji and hiragana)",
            "306A 305C 307F 3093 306A 65E5 672C 8A9E 3092 8A71 3057 3066 304F 308C 306A 3044 306E 304B",
            "n8jok5ay5dzabd5bym9f0cm5685rrjetr6pdxa"
        ),
        ("L 3<nen>B<gumi><kinpachi><sensei>", "0033 5E74 0042 7D44 91D1 516B 5148 751F", "3B-ww4c5e180e575a65lsy2b"),
        (
            "M <amuro><namie>-with-SUPER-MONKEYS",
            "5B89 5BA4 5948 7F8E 6075 002D 0077 0069 0074 0068 002D 0053 0055 0050 0045 0052 002D 004D 004F 004E 004B 0045 0059 0053",
            "-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n"
        ),
        ("Q <pafii>de<runba>", "30D1 30D5 30A3 30FC 0064 0065 30EB 30F3 30D0", "de-jg4avhby1noc0d"),
        ("R <sono><supiido><de>", "305D 306E 30B9 30D4 30FC 30C9 3067", "d9juau41awczczp"),
        ("S -> $1.00 <-", "002D 003E 0020 0024 0031 002E 0030 0030 0020 003C 002D", "-> $1.00 <--"),
    ]

    @Test("Punycode decodes and encodes the RFC 3492 §7.1 sample strings")
    func rfc3492SampleStrings() {
        for (name, codePoints, encoded) in Self.rfc3492Samples {
            let scalars = codePoints.split(separator: " ").compactMap {
                UInt32($0, radix: 16).flatMap(Unicode.Scalar.init)
            }
            #expect(Punycode.decode(encoded) == scalars, "\(name)")
            #expect(Punycode.encode(scalars) == encoded, "\(name)")
        }
        // Digits are read in either case (§5: "case-insensitive").
        #expect(Punycode.decode("EGBPDAJ6BU4BXFGEHFVWXN") == Punycode.decode("egbpdaj6bu4bxfgehfvwxn"))
    }

    @Test("Punycode refuses what RFC 3492 §6.2 says to fail on")
    func punycodeFailures() {
        // "en32g": U+110000 (above Unicode); "ib9b": U+D800 (a surrogate); "q0902716a": 2^32 + 5
        // (overflow).
        for bad in ["zz", "ss-bb", "99999999999", "-9ca", "ü-9ca", "abc!", "b-a~", "en32g", "ib9b", "q0902716a"] {
            #expect(Punycode.decode(bad) == nil, "\(bad)")
        }
        #expect(Punycode.decode("a") == [Unicode.Scalar(0x80)!])
        #expect(Punycode.decode("abc-") == ["a", "b", "c"])
        #expect(Punycode.decode("") == [])
    }

    @Test("every lower-case payload that decodes is the encoding of what it decodes to (seeded)")
    func decodeThenEncodeIsTheIdentity() {
        let seed: UInt64 = 0x1D4A_5EED
        var random = SeededRandomNumberGenerator(seed: seed)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789-")
        var decoded = 0
        for _ in 0..<20_000 {
            let payload = String(
                (0..<Int.random(in: 1...10, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            guard let scalars = Punycode.decode(payload) else { continue }
            decoded += 1
            #expect(Punycode.encode(scalars) == payload, "payload \(payload), seed \(seed)")
        }
        #expect(decoded > 1_000, "seed \(seed)")
    }

    // MARK: E-mail IDN labels (RFC 5890/5891)

    private func expectInvalidEmail(
        _ input: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(sourceLocation: sourceLocation) {
            _ = try EmailAddress(input)
        } throws: { error in
            guard let error = error as? AuthError else { return false }
            return error.code == .invalidInput && error.reason == .invalidEmail
                && error.message == "not an e-mail address: " + message
        }
    }

    @Test("invalid A-labels and reserved '--' labels are refused, each with the rule it breaks")
    func invalidALabels() {
        let reserved =
            "domain label has '--' as its third and fourth characters, which only an IDNA 'xn--' label may have"
        expectInvalidEmail("user@ex--ample.com", reserved)
        expectInvalidEmail("user@ab--cd.com", reserved)
        expectInvalidEmail("user@mail.xy--z.example", reserved)
        let disallowed = "'xn--' domain label decodes to characters a domain name cannot hold"
        expectInvalidEmail("user@xn--a.com", disallowed)  // U+0080, a control character
        expectInvalidEmail("user@xn--abc.com", disallowed)  // U+0082 U+0081 U+0080
        expectInvalidEmail("user@xn--ls8h.la", disallowed)  // a symbol (emoji)
        expectInvalidEmail("user@xn--1ch.com", disallowed)  // U+2260 NOT EQUAL TO
        expectInvalidEmail("user@example.xn--a", disallowed)
        let punycode = "'xn--' domain label is not valid Punycode (RFC 3492)"
        expectInvalidEmail("user@xn--zz.com", punycode)
        expectInvalidEmail("user@xn--ss-bb.com", punycode)
        expectInvalidEmail("user@xn---9ca.com", punycode)
        expectInvalidEmail("user@xn--.com", "domain label starts or ends with '-'")
        expectInvalidEmail("user@xn--abc-.com", "domain label starts or ends with '-'")
        expectInvalidEmail("user@xn--ab-.com", "domain label starts or ends with '-'")
        // Only basic characters would need a trailing delimiter, which a label cannot end with.
        expectInvalidEmail("user@xn--abc-.example", "domain label starts or ends with '-'")
    }

    @Test("valid A-labels are accepted and keyed in lower case")
    func validALabels() throws {
        for input in [
            "user@xn--bcher-kva.example", "user@xn--mnchen-3ya.de", "user@example.xn--p1ai",
            "user@xn--80ak6aa92e.xn--p1ai",
            "user@xn--fiq228c.com", "user@xn--9ca.com", "user@xn--nxasmq6b.com", "user@xn--ca-2ia.com",
        ] {
            #expect(try EmailAddress(input).identityKey == input, "\(input)")
        }
        let upper = try EmailAddress("User@XN--BCHER-KVA.Example")
        #expect(upper.identityKey == "user@xn--bcher-kva.example")
        #expect(upper.address == "User@XN--BCHER-KVA.Example")
        // Ordinary hyphens elsewhere are fine.
        #expect(try EmailAddress("user@my-domain.example").identityKey == "user@my-domain.example")
        #expect(try EmailAddress("user@a-b--c.example").identityKey == "user@a-b--c.example")
    }

    @Test("U-labels: a Unicode domain is refused with a pointer to its xn-- form")
    func uLabelsAreRefused() {
        expectInvalidEmail("user@münchen.de", "non-ASCII domain; write it in its IDNA 'xn--' form (A-label)")
        expectInvalidEmail("user@例え.jp", "non-ASCII domain; write it in its IDNA 'xn--' form (A-label)")
        expectInvalidEmail("üser@example.com", "non-ASCII characters are not supported")
        expectInvalidEmail("üser@münchen.de", "non-ASCII characters are not supported")
    }

    @Test("U-label checks: case, NFC, NFKC, leading marks and hyphen rules")
    func uLabelRules() {
        func scalars(_ text: String) -> [Unicode.Scalar] { Array(text.unicodeScalars) }
        #expect(EmailAddress.isValidULabel(scalars("bücher")))
        #expect(EmailAddress.isValidULabel(scalars("中文")))
        #expect(!EmailAddress.isValidULabel(scalars("Bücher")))  // upper case
        #expect(!EmailAddress.isValidULabel(scalars("bu\u{0308}cher")))  // not NFC
        #expect(!EmailAddress.isValidULabel(scalars("\u{FB01}x")))  // "ﬁ" changes under NFKC
        #expect(!EmailAddress.isValidULabel(scalars("\u{0308}a")))  // leading combining mark
        #expect(!EmailAddress.isValidULabel(scalars("-ü")))
        #expect(!EmailAddress.isValidULabel(scalars("ü-")))
        #expect(!EmailAddress.isValidULabel(scalars("ab--ü")))
        #expect(!EmailAddress.isValidULabel(scalars("a\u{200D}ü")))  // ZERO WIDTH JOINER (format)
        #expect(!EmailAddress.isValidULabel([]))
        #expect(EmailAddress.isValidULabel(scalars("straße")))  // ß: a PVALID exception (RFC 5892 §2.6)
        #expect(EmailAddress.isValidULabel(scalars("λόγος")))  // final sigma, the same
        #expect(!EmailAddress.isValidULabel(scalars("ab\u{0345}")))  // changes under NFKC case folding
        #expect(!EmailAddress.isValidULabel(scalars("ab\u{034F}c")))  // default-ignorable
        #expect(!EmailAddress.isValidULabel(scalars("\u{0634}\u{0640}\u{0648}")))  // ARABIC TATWEEL (§2.6)
        #expect(!EmailAddress.isValidULabel(scalars("\u{1100}\u{1161}")))  // conjoining Hangul jamo (§2.9)
        #expect(EmailAddress.isValidULabel(scalars("\u{AC00}")))  // a precomposed syllable is fine
        #expect(!EmailAddress.isValidULabel(scalars("\u{0628}\u{0661}\u{06F1}")))  // both kinds of Arabic-Indic digits
        #expect(EmailAddress.isValidULabel(scalars("\u{0628}\u{0661}\u{0662}")))
    }

    // MARK: Phone extensions and Mexico's +52 1

    private func phoneError(_ input: String, region: String? = nil) -> AuthError? {
        do {
            _ = try PhoneNumber(input, defaultRegion: region)
            return nil
        } catch {
            return error as? AuthError
        }
    }

    @Test(
        "an extension is recognised and refused with its own reason, naming the marker",
        arguments: [
            ("+1 650 253 0000 x28", "x", 2), ("+1 650 253 0000x28", "x", 2), ("+1 650 253 0000 ext. 123", "ext.", 3),
            ("+1 650 253 0000 ext 123", "ext", 3), ("+1-650-253-0000;ext=123", "ext", 3),
            ("+1 650 253 0000 #123", "#", 3),
            ("+44 20 7946 0958 extn 5", "extn", 1), ("+44 20 7946 0958, Extension: 4567", "Extension", 4),
            ("020 7946 0958 X 12#", "X", 2),
        ])
    func extensionsAreRefused(input: String, marker: String, digits: Int) throws {
        let error = try #require(phoneError(input, region: "GB"))
        #expect(error.code == .invalidInput)
        #expect(error.reason == .extensionNotSupported)
        let unit = digits == 1 ? "digit" : "digits"
        #expect(
            error.message
                == "phone number has an extension (\"\(marker)\" and \(digits) \(unit)); sign-in needs the number without it"
        )
        // The message never repeats the number or the extension's digits.
        #expect(!error.message.contains("123") && !error.message.contains("650"))
    }

    @Test(
        "what is not an extension stays invalidCharacters",
        arguments: [
            "x28", "#31#", "+44 20 7946 0958 ext. 12 b", "+44 20 7946 0958 ext", "+44 20 7946 0958 ext 12345678",
            "+44 20 7946 0958 xx 12", "+44 20 7946 0958 # 1 # 2",
        ])
    func notAnExtension(input: String) throws {
        #expect(phoneError(input)?.reason == .invalidCharacters)
    }

    @Test("+52 1 and 10 digits is too long, as in libphonenumber 9; the message names the retired form")
    func mexicoLegacyMobile() throws {
        for input in ["+52 1 55 1234 5678", "+5215512345678", "+521 81 1234 5678", "0052 1 222 123 4567"] {
            let error = try #require(phoneError(input))
            #expect(error.reason == .tooLong, "\(input)")
            #expect(
                error.message
                    == "11 digits is longer than any number of +52: \"+52 1\" before 10 digits is Mexico's retired mobile prefix; write the number without the 1"
            )
        }
        #expect(phoneError("1 55 1234 5678", region: "MX")?.reason == .tooLong)
        #expect(try PhoneNumber("+52 55 1234 5678").e164 == "+525512345678")
        // Other too-long numbers keep the plain message.
        #expect(phoneError("+52 55 1234 56789")?.message == "11 digits is longer than any number of +52")
        #expect(phoneError("+52 1 55 1234 56789")?.message == "12 digits is longer than any number of +52")
    }
}
