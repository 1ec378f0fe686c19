import Foundation

/// An e-mail address as the user typed it (trimmed), with a case-folded identity key.
///
/// Accepted: an RFC 5322 dot-atom local part (ASCII letters, digits and
/// ``EmailAddress/localPartSymbols``, dots not first, last or doubled — so plus tags such as
/// `user+otp` and apostrophes such as `o'brien` are fine), `@`, and a domain name of two or
/// more labels (ASCII letters, digits and inner hyphens, 1–63 characters each) whose last
/// label (the TLD) is alphabetic with at least two letters (any length: `.photography`), or
/// an IDNA `xn--` label. Limits from RFC 5321 §4.5.3.1: local part at most 64 octets, domain
/// at most 253, the whole address at most 254. Not accepted: quoted local parts, comments,
/// IP-address literals, dotless domains, and non-ASCII addresses (RFC 6531; give the domain
/// in its `xn--` form: mapping typed Unicode to an A-label, UTS #46, differs between peers).
///
/// Internationalized labels (RFC 5890 §2.3.1, RFC 5891 §4.2.3.1): `--` in the third and
/// fourth characters is reserved, so only an `xn--` A-label may have it (`ex--ample.com` is
/// refused), and an A-label must be the Punycode (RFC 3492) of a U-label: it decodes, and its
/// characters are lower-case letters, marks, digits and hyphens in NFC that NFKC case folding
/// leaves unchanged (`xn--a.com`, which decodes to a control character, is refused; see
/// `isValidULabel`). Most contextual rules of RFC 5892 and the Bidi rule of RFC 5893 are not
/// applied; `Docs/Standards.md` ("E-mail domains") lists where this differs from Python's
/// `idna`.
///
/// Only ordinary whitespace (Unicode `White_Space`: spaces, tabs, line breaks) is trimmed from
/// the ends. An invisible format character (general category Cf: zero-width space U+200B,
/// byte-order mark U+FEFF, bidi controls, …), as pasted from chat apps, is refused wherever it
/// stands, never silently removed, and input over ``maximumInputBytes`` UTF-8 bytes is refused
/// before any Unicode work.
///
/// The ``identityKey`` (the trimmed address lower-cased, plus tag kept) is what equality,
/// hashing and providers use, so `User.Name+OTP@Example.COM` and `user.name+otp@example.com`
/// are the same identity and `user+otp@…` is a different one from `user@…`. Docs/Cases.md, B33.
///
/// `Codable` as the ``address`` string.
///
/// Every rendering shows ``masked``: `description` and `String(reflecting:)` are the masked
/// form, and the address is stored as ``Secret``s, so `dump` and a debugger's variables view
/// show `<redacted>` for it (addresses are personal data).
public struct EmailAddress: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The address, trimmed of surrounding whitespace (Unicode `White_Space`), case as typed.
    public var address: String { storedAddress.reveal() }
    /// The identity key: ``address`` lower-cased (local part and domain), plus tags kept.
    public var identityKey: String { storedIdentityKey.reveal() }
    /// ``address``, kept as a ``Secret`` so that default renderings redact it.
    private let storedAddress: Secret
    /// ``identityKey``, kept as a ``Secret`` so that default renderings redact it.
    private let storedIdentityKey: Secret

    /// RFC 5321 §4.5.3.1.1: the maximum local-part length, in octets.
    public static let maximumLocalPartLength = 64
    /// RFC 5321 §4.5.3.1.3 (a 256-octet path less its angle brackets): the maximum address
    /// length, in octets.
    public static let maximumLength = 254
    /// The longest input read at all, in UTF-8 bytes, before trimming: checked before any
    /// Unicode work (an address is at most ``maximumLength`` octets, so this leaves ample room
    /// for surrounding whitespace).
    public static let maximumInputBytes = 1_024
    /// RFC 1035 §2.3.4: the maximum length of one domain label, in octets.
    public static let maximumLabelLength = 63
    /// The symbols RFC 5322 `atext` allows in a local part besides ASCII letters and digits.
    public static let localPartSymbols: Set<Character> = [
        "!", "#", "$", "%", "&", "'", "*", "+", "-", "/", "=", "?", "^", "_", "`", "{", "|", "}", "~",
    ]

    /// Validates and normalizes an address.
    /// - Parameter input: What the user typed, e.g. `"  User.Name+OTP@Example.COM "`.
    /// - Throws: ``AuthError`` with code ``AuthError/Code/invalidInput`` and reason
    ///   ``AuthError/Reason/invalidEmail`` (the message names the broken rule, never the address).
    public init(_ input: String) throws {
        guard input.utf8.count <= Self.maximumInputBytes else {
            throw Self.invalid("longer than \(Self.maximumLength) characters")
        }
        guard !input.unicodeScalars.contains(where: { $0.properties.generalCategory == .format }) else {
            throw Self.invalid("an invisible format character (such as a zero-width space)")
        }
        let scalars = input.unicodeScalars
        let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }) ?? scalars.endIndex
        let end = scalars.lastIndex(where: { !$0.properties.isWhitespace }).map(scalars.index(after:)) ?? start
        let trimmed = String(scalars[start..<max(start, end)])
        try Self.validate(trimmed)
        storedAddress = Secret(trimmed)
        storedIdentityKey = Secret(trimmed.lowercased())
    }

    private static func invalid(_ message: String) -> AuthError {
        AuthError.invalidInput(.invalidEmail, "not an e-mail address: \(message)")
    }

    private static func validate(_ text: String) throws {
        guard !text.isEmpty else { throw invalid("empty") }
        guard text.utf8.count <= maximumLength else { throw invalid("longer than \(maximumLength) characters") }
        guard text.unicodeScalars.allSatisfy(\.isASCII) else {
            let localIsASCII = text.lastIndex(of: "@").map { text[..<$0].unicodeScalars.allSatisfy(\.isASCII) } ?? false
            throw invalid(
                localIsASCII
                    ? "non-ASCII domain; write it in its IDNA 'xn--' form (A-label)"
                    : "non-ASCII characters are not supported")
        }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw invalid(parts.count < 2 ? "no '@'" : "more than one '@'")
        }
        try validateLocalPart(parts[0])
        try validateDomain(parts[1])
    }

    private static func validateLocalPart(_ local: Substring) throws {
        guard !local.isEmpty else { throw invalid("nothing before '@'") }
        guard local.utf8.count <= maximumLocalPartLength else {
            throw invalid("local part longer than \(maximumLocalPartLength) characters")
        }
        for character in local
        where !(character.isASCIILetterOrDigit || character == "." || localPartSymbols.contains(character)) {
            throw invalid(
                character.isWhitespace ? "whitespace inside the address" : "character not allowed in the local part")
        }
        guard local.first != ".", local.last != "." else { throw invalid("local part starts or ends with '.'") }
        guard !local.contains("..") else { throw invalid("consecutive dots in the local part") }
    }

    private static func validateDomain(_ domain: Substring) throws {
        guard !domain.isEmpty else { throw invalid("nothing after '@'") }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { throw invalid("domain has no dot") }
        for label in labels {
            guard !label.isEmpty else { throw invalid("empty domain label") }
            guard label.utf8.count <= maximumLabelLength else {
                throw invalid("domain label longer than \(maximumLabelLength) characters")
            }
            guard label.allSatisfy({ $0.isASCIILetterOrDigit || $0 == "-" }) else {
                throw invalid("character not allowed in the domain")
            }
            guard label.first != "-", label.last != "-" else { throw invalid("domain label starts or ends with '-'") }
            try validateReservedHyphens(label)
        }
        let tld = labels[labels.count - 1]
        let isPunycode = tld.lowercased().hasPrefix("xn--") && tld.count > 4
        guard isPunycode || (tld.count >= 2 && tld.allSatisfy(\.isASCIILetter)) else {
            throw invalid("top-level domain is not alphabetic")
        }
    }

    /// RFC 5891 §4.2.3.1 and §5.4: a label with `--` in its third and fourth characters is
    /// only valid as an `xn--` A-label that is the Punycode of a valid U-label.
    private static func validateReservedHyphens(_ label: Substring) throws {
        let lower = label.lowercased()
        let bytes = Array(lower.utf8)
        guard bytes.count >= 4, bytes[2] == UInt8(ascii: "-"), bytes[3] == UInt8(ascii: "-") else { return }
        guard lower.hasPrefix("xn--") else {
            throw invalid(
                "domain label has '--' as its third and fourth characters, which only an IDNA 'xn--' label may have")
        }
        let payload = String(lower.dropFirst(4))
        guard let scalars = Punycode.decode(payload), !scalars.isEmpty else {
            throw invalid("'xn--' domain label is not valid Punycode (RFC 3492)")
        }
        // RFC 5891 §5.4 also asks that the U-label encode back to the A-label. With the label
        // lower-cased and the decoder strict about a leading delimiter (RFC 3492 §6.2), every
        // payload that decodes is the encoding of what it decodes to (checked in the tests).
        guard isValidULabel(scalars) else {
            throw invalid("'xn--' domain label decodes to characters a domain name cannot hold")
        }
    }

    /// Whether decoded A-label `scalars` form a U-label this type accepts (RFC 5891 §5.4 with
    /// the code-point rules of RFC 5892 that Unicode properties can express): no leading or
    /// trailing hyphen, no `--` in the third and fourth characters, no leading combining mark,
    /// NFC; every character a lower-case ASCII letter, digit or hyphen, or a Unicode letter
    /// (lower-case, other, modifier), mark or decimal digit that NFKC case folding leaves
    /// unchanged (§2.2) and that is not default-ignorable or a noncharacter (§2.3), a
    /// conjoining Hangul jamo (§2.9) or one of the §2.6 exceptions made DISALLOWED (U+0640
    /// ARABIC TATWEEL, …); the §2.6 PVALID exceptions (`ß`, `ς`, …) are allowed; Arabic-Indic
    /// and extended Arabic-Indic digits do not mix (RFC 5892 Appendix A.8, A.9). Not applied:
    /// the other contextual rules (so U+00B7, U+0375, U+05F3, U+05F4, U+30FB, U+200C, U+200D
    /// are refused) and the Bidi rule of RFC 5893.
    static func isValidULabel(_ scalars: [Unicode.Scalar]) -> Bool {
        guard let first = scalars.first, let last = scalars.last, first != "-", last != "-" else { return false }
        if scalars.count >= 4, scalars[2] == "-", scalars[3] == "-" { return false }
        if [.nonspacingMark, .spacingMark, .enclosingMark].contains(first.properties.generalCategory) { return false }
        let allowed: Set<Unicode.GeneralCategory> = [
            .lowercaseLetter, .otherLetter, .modifierLetter, .nonspacingMark, .spacingMark, .decimalNumber,
        ]
        for scalar in scalars {
            if scalar.isASCII {
                guard ("a"..."z").contains(scalar) || scalar.isASCIIDigit || scalar == "-" else { return false }
                continue
            }
            if pvalidExceptions.contains(scalar.value) { continue }
            let properties = scalar.properties
            guard allowed.contains(properties.generalCategory), !properties.changesWhenNFKCCaseFolded,
                !properties.isDefaultIgnorableCodePoint, !properties.isNoncharacterCodePoint,
                !disallowedExceptions.contains(scalar.value), !isConjoiningJamo(scalar.value)
            else { return false }
        }
        let arabicIndic = scalars.contains { (0x0660...0x0669).contains($0.value) }
        let extendedArabicIndic = scalars.contains { (0x06F0...0x06F9).contains($0.value) }
        if arabicIndic && extendedArabicIndic { return false }
        let text = String(String.UnicodeScalarView(scalars))
        return text.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(scalars)
    }

    /// RFC 5892 §2.6: code points PVALID whatever their properties say (ß, final sigma, …).
    private static let pvalidExceptions: Set<UInt32> = [0x00DF, 0x03C2, 0x06FD, 0x06FE, 0x0F0B, 0x3007]
    /// RFC 5892 §2.6: code points DISALLOWED whatever their properties say (U+0640 ARABIC
    /// TATWEEL, U+07FA NKO LAJANYALAN, the vertical kana repeat marks, …).
    private static let disallowedExceptions: Set<UInt32> = [
        0x0640, 0x07FA, 0x302E, 0x302F, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303B,
    ]

    /// RFC 5892 §2.9: conjoining Hangul jamo (Hangul_Syllable_Type L, V or T) are DISALLOWED.
    private static func isConjoiningJamo(_ value: UInt32) -> Bool {
        (0x1100...0x11FF).contains(value) || (0xA960...0xA97F).contains(value) || (0xD7B0...0xD7FF).contains(value)
    }

    /// A masked display form: the first character of the local part, `•••`, `@` and the
    /// lower-cased domain, e.g. `"u•••@example.com"`.
    public var masked: String {
        let at = identityKey.lastIndex(of: "@") ?? identityKey.endIndex
        return String(identityKey[..<at].prefix(1)) + "•••" + identityKey[at...]
    }

    /// The masked form (addresses are personal data; logs and UIs get ``masked``).
    public var description: String { masked }

    /// Equal when the identity keys are equal.
    public static func == (lhs: EmailAddress, rhs: EmailAddress) -> Bool { lhs.identityKey == rhs.identityKey }

    /// Hashes the identity key.
    public func hash(into hasher: inout Hasher) { hasher.combine(identityKey) }

    /// Decodes the address string and validates it again.
    /// - Throws: `DecodingError.dataCorrupted` when the string is not a valid address.
    public init(from decoder: any Decoder) throws {
        self = try decoder.decodeParsedString(
            { try EmailAddress($0) }, describingFailure: { _ in "not an e-mail address" })
    }

    /// Encodes ``address`` as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(address)
    }
}
