/// An authenticator enrolment URI in the Key URI Format:
/// `otpauth://TYPE/LABEL?secret=…&issuer=…&algorithm=…&digits=…&period=…&counter=…`.
///
/// Parsing is strict: a percent escape that is not `%XX` (RFC 3986 §2.1), an unknown
/// `algorithm`, `digits` outside 6...8, a `period` that is not a whole number of seconds above
/// 0, a missing or negative HOTP `counter`, an unknown `encoder`, or a repeated parameter is an
/// error, never a silent default. Unknown parameters (`image`, `color`, …) are ignored. An
/// empty account, and a control character (C0, DEL or C1, e.g. a decoded `%00` or `%0A`) in
/// the account or an issuer, are errors, so a URI cannot smuggle line breaks into what is
/// shown to the user.
///
/// The builder (``init(kind:issuer:labelIssuer:account:secret:algorithm:digits:period:counter:)``)
/// also refuses what the label syntax cannot carry: the Key URI Format forbids a `:` in the
/// issuer or the account, and the parser drops spaces before the account, so a `:`, or
/// leading or trailing whitespace in the account, would not come back unchanged. Whatever
/// the builder accepts parses back to exactly the same fields (Docs/Cases.md, B12).
///
/// The label is `issuer:account` or `account`, split before it is percent-decoded (at the
/// first literal `:`, else at the first `%3A`; see ``init(parsing:)``), so an issuer written
/// with an encoded colon (`Acme%3A%20Payments:alice`) stays whole. Its issuer is kept as
/// ``labelIssuer`` for display; when the `issuer` parameter is present it wins as ``issuer``
/// (a mismatch, as in Microsoft 365 enrolments, is reported by ``issuerMismatch``, not
/// rejected). In the path a `+` is a literal plus; in query values it is a space (HTML form
/// convention).
///
/// `encoder=steam` (Steam Guard, 5-character codes) is understood and kept in ``encoding``;
/// any other `encoder` is an error, so a URI is never turned into codes its service rejects.
///
/// ``uriString`` is canonical: every parameter present, the secret as upper-case unpadded
/// base32 (for a parsed URI, the characters it was given, normalized; see ``secret``),
/// everything outside the RFC 3986 unreserved characters percent-encoded (a space is `%20`,
/// never `+`), so parsing and building again gives back the same string.
///
/// The secret is never printed: `description` (which `String(reflecting:)` shows too) and the
/// mirror redact it.
public struct OTPAuthURI: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The OTP type, the URI's host part.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Time-based (RFC 6238).
        case totp
        /// Counter-based (RFC 4226).
        case hotp
    }

    /// How codes are written (the `encoder` parameter).
    public enum CodeEncoding: String, Sendable, Hashable, CaseIterable {
        /// Decimal digits (RFC 4226 §5.3): no `encoder` parameter.
        case decimal
        /// Steam Guard (`encoder=steam`): 5 characters of ``SteamGuardTOTP/alphabet``,
        /// HMAC-SHA1, TOTP only; see ``SteamGuardTOTP``.
        case steam
    }

    /// TOTP or HOTP.
    public var kind: Kind
    /// The issuer that owns the account: the `issuer` parameter, or the label's issuer when
    /// the parameter is absent; `nil` when neither is given.
    public var issuer: String?
    /// The issuer prefix of the label (before `:`), kept for display; `nil` without a prefix.
    public var labelIssuer: String?
    /// The account name from the label (after `:`, leading spaces removed), e.g. an e-mail.
    public var account: String
    /// The shared secret's bytes (the decoded `secret` parameter).
    ///
    /// Setting it replaces the secret: ``secret`` is then the canonical encoding of the new
    /// bytes.
    public var secretBytes: [UInt8] {
        didSet { secretText = nil }
    }
    /// The parsed `secret` parameter, normalized (upper case; no whitespace, `-` or `=`);
    /// `nil` when the URI was built from bytes or ``secretBytes`` was set since.
    private var secretText: String?
    /// The HMAC hash function (`algorithm`; SHA-1 when absent).
    public var algorithm: DigestAlgorithm
    /// The code length: 6...8 digits (`digits`; 6 when absent), or 5 characters for
    /// ``CodeEncoding/steam``.
    public var digits: Int
    /// The TOTP step length in seconds, above 0 (`period`; 30 when absent).
    public var period: Int64
    /// The HOTP start counter (`counter`, required for HOTP); `nil` for TOTP.
    public var counter: UInt64?
    /// How codes are written: ``CodeEncoding/decimal`` unless the URI says `encoder=steam`.
    /// ``makeTOTP()`` refuses a Steam URI (its codes are not digits); use
    /// ``makeSteamGuard()``.
    public var encoding: CodeEncoding

    /// The secret in canonical form: upper-case base32 without padding (RFC 4648 §6).
    ///
    /// For a parsed URI these are the characters it was given, only upper-cased and without
    /// whitespace, `-` and `=`: they are not re-encoded from ``secretBytes``, so a secret
    /// whose last character carries non-zero unused bits (`…ZXV`) is kept as given rather
    /// than rewritten (`…ZXU`). For a built URI, or after ``secretBytes`` is set, it is
    /// ``Base32/encode(_:)`` of the bytes. Either way it decodes to ``secretBytes``.
    public var secret: String { secretText ?? Base32.encode(secretBytes) }

    /// `true` when both the label and the `issuer` parameter name an issuer and they differ.
    public var issuerMismatch: Bool {
        guard let labelIssuer, let issuer else { return false }
        return labelIssuer != issuer
    }

    /// Creates a URI from its fields, as an enrolment screen does.
    ///
    /// - Parameters:
    ///   - kind: TOTP (default) or HOTP.
    ///   - issuer: the issuer, used both as label prefix and as `issuer` parameter; `nil` for
    ///     none. Not empty; no `:` and no control characters.
    ///   - labelIssuer: a different label prefix to show; by default `issuer`. Same rules.
    ///   - account: the account name, e.g. `user@example.com`. Not empty; no `:`, no control
    ///     characters, no leading or trailing whitespace.
    ///   - secret: the key bytes, 1 byte or more.
    ///   - algorithm: the hash function; SHA-1 by default.
    ///   - digits: code length, 6...8 digits; 6 by default.
    ///   - period: TOTP step in seconds, above 0; 30 by default.
    ///   - counter: the HOTP start counter; required for HOTP, ignored for TOTP.
    /// - Throws: ``CryptoError/invalidParameter(_:)`` (`"issuer"`, `"labelIssuer"`,
    ///   `"account"`) for a name the label cannot carry (see above),
    ///   ``CryptoError/missingParameter(_:)`` (`"account"`) for an empty account,
    ///   ``CryptoError/invalidDigits``, ``CryptoError/invalidPeriod``,
    ///   ``CryptoError/emptySecret``,
    ///   ``CryptoError/missingParameter(_:)`` (`"counter"`) for HOTP without a counter.
    public init(
        kind: Kind = .totp, issuer: String?, labelIssuer: String? = nil, account: String,
        secret: some Sequence<UInt8>, algorithm: DigestAlgorithm = .sha1, digits: Int = 6,
        period: Int64 = 30, counter: UInt64? = nil
    ) throws {
        self.kind = kind
        self.issuer = issuer
        self.labelIssuer = labelIssuer ?? issuer
        self.account = account
        self.secretBytes = Array(secret)
        self.secretText = nil
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
        self.counter = kind == .hotp ? counter : nil
        self.encoding = .decimal
        for (name, value) in [("issuer", issuer), ("labelIssuer", labelIssuer)] {
            guard let value else { continue }
            guard !value.isEmpty, !value.unicodeScalars.contains(":"), !Self.hasControlCharacter(value) else {
                throw CryptoError.invalidParameter(name)
            }
        }
        guard !account.unicodeScalars.contains(":"), !Self.hasControlCharacter(account),
            account.unicodeScalars.first?.properties.isWhitespace != true,
            account.unicodeScalars.last?.properties.isWhitespace != true
        else {
            throw CryptoError.invalidParameter("account")
        }
        try validate()
    }

    /// Parses an `otpauth://` URI.
    ///
    /// The label is split as the Key URI Format says: at its first literal `:` while still
    /// encoded (or, without one, at its first `%3A`), each part decoded on its own; when the
    /// `issuer` parameter is given and the decoded label starts with that issuer and `:`,
    /// the rest is the account, so `Acme%3A%20Payments:alice` with
    /// `issuer=Acme%3A%20Payments` is issuer `Acme: Payments`, account `alice`
    /// (`Docs/Standards.md`, "otpauth labels").
    ///
    /// - Parameter string: the URI, e.g. read from a QR code.
    /// - Throws: ``CryptoError/invalidURI`` (scheme, type, label or query syntax),
    ///   ``CryptoError/invalidPercentEscape``, ``CryptoError/missingParameter(_:)``
    ///   (`"secret"`, `"counter"`; `"account"` for an empty account),
    ///   ``CryptoError/invalidParameter(_:)`` (an empty or repeated parameter; `"account"` or
    ///   `"issuer"` for a control character after decoding; `"encoder"` for an encoder other
    ///   than `steam`, or `steam` on an HOTP URI), the base32 errors of
    ///   ``Base32/decode(_:)``, ``CryptoError/emptySecret``,
    ///   ``CryptoError/unsupportedAlgorithm`` (also any algorithm but SHA-1 with
    ///   `encoder=steam`), ``CryptoError/invalidSteamDigits`` (with `encoder=steam`, anything
    ///   but 5, including a `digits` that is not a number), ``CryptoError/invalidPeriod``, ``CryptoError/invalidCounter``.
    public init(parsing string: String) throws {
        let (kind, rawLabel, query) = try Self.uriParts(string)
        let label = try Self.label(rawLabel)
        labelIssuer = label.issuer
        account = label.account
        self.kind = kind

        let parameters = try Self.parameters(query)
        guard let secretParameter = parameters["secret"] else { throw CryptoError.missingParameter("secret") }
        secretBytes = try Base32.decode(secretParameter)
        self.secretText = Self.secretText(secretParameter)
        if let issuerParameter = parameters["issuer"] {
            guard !issuerParameter.isEmpty else { throw CryptoError.invalidParameter("issuer") }
            issuer = issuerParameter
            if let account = Self.account(in: label, issuer: issuerParameter) {
                labelIssuer = issuerParameter
                self.account = account
            }
        } else {
            issuer = labelIssuer
        }
        algorithm = try parameters["algorithm"].map { try DigestAlgorithm(name: $0) } ?? .sha1
        encoding = try Self.encoding(parameters["encoder"])
        digits = try Self.digits(parameters["digits"], encoding: encoding, kind: kind)
        period = try Self.period(parameters["period"])
        switch kind {
        case .hotp:
            guard let value = parameters["counter"] else { throw CryptoError.missingParameter("counter") }
            guard let counter = Self.unsignedInteger(value) else { throw CryptoError.invalidCounter }
            self.counter = counter
        case .totp:
            counter = nil
        }
        try validate()
    }

    // MARK: - Parsing steps of init(parsing:)

    /// The label as parsed: decoded whole, and split into issuer prefix and account when it
    /// has a separator.
    private struct ParsedLabel {
        /// The whole label, percent-decoded.
        var decoded: String
        /// The decoded prefix and account (leading spaces dropped), when the label is split.
        var split: (prefix: String, account: String)?
        /// The label's issuer prefix; `nil` when there is none or it is empty.
        var issuer: String?
        /// The account: after the separator, or the whole label.
        var account: String
    }

    /// The type, the still-encoded label and the query (if any) of `otpauth://TYPE/LABEL?QUERY`.
    private static func uriParts(_ string: String) throws -> (Kind, Substring, Substring?) {
        let scheme = "otpauth://"
        guard string.utf8.count > scheme.utf8.count,
            string.prefix(scheme.count).lowercased() == scheme
        else { throw CryptoError.invalidURI }
        let rest = string.dropFirst(scheme.count)
        guard !rest.unicodeScalars.contains("#") else { throw CryptoError.invalidURI }
        let pathAndQuery = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = pathAndQuery[0]
        guard let slash = path.firstIndex(of: "/"), let kind = Kind(rawValue: path[..<slash].lowercased()) else {
            throw CryptoError.invalidURI
        }
        return (kind, path[path.index(after: slash)...], pathAndQuery.count == 2 ? pathAndQuery[1] : nil)
    }

    /// Decodes the label, split at ``splitLabel(_:)``'s separator.
    private static func label(_ rawLabel: Substring) throws -> ParsedLabel {
        let decodedLabel = try PercentEncoding.decode(rawLabel, plusIsSpace: false)
        guard let (prefix, rest) = splitLabel(rawLabel) else {
            return ParsedLabel(decoded: decodedLabel, split: nil, issuer: nil, account: decodedLabel)
        }
        let decodedPrefix = try PercentEncoding.decode(prefix, plusIsSpace: false)
        let decodedRest = try PercentEncoding.decode(rest, plusIsSpace: false)
        let account = String(decodedRest.drop(while: { $0 == " " }))
        return ParsedLabel(
            decoded: decodedLabel, split: (decodedPrefix, account),
            issuer: decodedPrefix.isEmpty ? nil : decodedPrefix, account: account)
    }

    /// The query's parameters, decoded; a repeated parameter is refused.
    private static func parameters(_ query: Substring?) throws -> [String: String] {
        var parameters: [String: String] = [:]
        guard let query else { return parameters }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw CryptoError.invalidURI }
            let name = try PercentEncoding.decode(parts[0], plusIsSpace: true)
            guard parameters[name] == nil else { throw CryptoError.invalidParameter(name) }
            parameters[name] = try PercentEncoding.decode(parts[1], plusIsSpace: true)
        }
        return parameters
    }

    /// The `secret` parameter's data characters, upper-cased. Decoding succeeded, so only
    /// base32 letters and digits, `=`, `-` and whitespace are left.
    private static func secretText(_ secretParameter: String) -> String {
        String(
            String.UnicodeScalarView(
                secretParameter.unicodeScalars.filter {
                    $0 != "=" && $0 != "-" && !Base32.isIgnorable($0)
                })
        ).uppercased()
    }

    /// The account when the label starts with the `issuer` parameter and `:`, else `nil`.
    ///
    /// Key URI Format: a decoded label that starts with `issuer:` is that issuer and an
    /// account, even when the issuer holds a colon. The label as split is checked too, so the
    /// canonical form (which writes it that way) reads back the same.
    private static func account(in label: ParsedLabel, issuer: String) -> String? {
        guard let split = label.split else { return nil }
        for candidate in [label.decoded, split.prefix + ":" + split.account] {
            guard let rest = remainder(of: candidate, after: issuer + ":") else { continue }
            return String(rest.drop(while: { $0 == " " }))
        }
        return nil
    }

    /// The `encoder` parameter. An encoder this parser does not know would make every code
    /// wrong: refuse it rather than print decimal codes (pyotp and KeePassXC write
    /// `encoder=steam`).
    private static func encoding(_ encoder: String?) throws -> CodeEncoding {
        switch encoder?.lowercased() {
        case nil: .decimal
        case "steam": .steam
        default: throw CryptoError.invalidParameter("encoder")
        }
    }

    /// The `digits` parameter, or the encoding's default length.
    private static func digits(_ value: String?, encoding: CodeEncoding, kind: Kind) throws -> Int {
        guard let value else { return encoding == .steam ? SteamGuardTOTP.codeLength : 6 }
        // `Int(exactly:)`: a value above Int.max (e.g. digits=11644206345617323218, found by
        // Fuzz/otpauth) is an invalid length, not a trap.
        guard let digits = unsignedInteger(value).flatMap({ Int(exactly: $0) }) else {
            // Under encoder=steam the only valid length is Steam's, so a `digits` that is not a
            // number says that (not "6, 7 or 8").
            throw encoding == .steam && kind == .totp ? CryptoError.invalidSteamDigits : .invalidDigits
        }
        return digits
    }

    /// The `period` parameter, or 30 seconds.
    private static func period(_ value: String?) throws -> Int64 {
        guard let value else { return 30 }
        guard let period = unsignedInteger(value), period <= UInt64(Int64.max) else {
            throw CryptoError.invalidPeriod
        }
        return Int64(period)
    }

    /// Splits a still-encoded label into its issuer prefix and account (Key URI Format): at
    /// the first literal `:`, or, without one, at the first `%3A` (either case); `nil` when the
    /// label has neither. A colon escaped inside the issuer or account therefore stays part of
    /// it whenever the label has a literal separator (`Acme%3A%20Payments:alice`).
    ///
    /// The colon is found byte by byte, not as a `Character`: a `:` followed by a combining
    /// mark is one grapheme, and a `Character` search would miss it (Fuzz/otpauth found a
    /// label that then split differently once its canonical form encoded the colon).
    static func splitLabel(_ label: Substring) -> (prefix: Substring, rest: Substring)? {
        if let colon = label.utf8.firstIndex(of: UInt8(ascii: ":")) {
            return (label[..<colon], label[label.utf8.index(after: colon)...])
        }
        let bytes = Array(label.utf8)
        guard bytes.count >= 3 else { return nil }
        for index in 0...(bytes.count - 3)
        where bytes[index] == UInt8(ascii: "%") && bytes[index + 1] == UInt8(ascii: "3")
            && bytes[index + 2] | 0x20 == UInt8(ascii: "a")
        {
            let start = label.utf8.index(label.startIndex, offsetBy: index)
            let end = label.utf8.index(start, offsetBy: 3)
            return (label[..<start], label[end...])
        }
        return nil
    }

    /// The rest of `text` after `prefix`, compared scalar by scalar (no Unicode
    /// normalization, so what matches is exactly what was written); `nil` when `text` does
    /// not start with `prefix`.
    private static func remainder(of text: String, after prefix: String) -> String? {
        var scalars = text.unicodeScalars[...]
        for scalar in prefix.unicodeScalars {
            guard scalars.first == scalar else { return nil }
            scalars = scalars.dropFirst()
        }
        return String(String.UnicodeScalarView(scalars))
    }

    /// A whole number written only with ASCII digits (no sign, no spaces), or nil.
    private static func unsignedInteger(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy(\.isASCIIDigit) else { return nil }
        return UInt64(text)
    }

    /// The checks shared by the parser and the builder.
    private func validate() throws {
        guard !account.isEmpty else { throw CryptoError.missingParameter("account") }
        guard !Self.hasControlCharacter(account) else { throw CryptoError.invalidParameter("account") }
        for name in [issuer, labelIssuer] {
            if let name, Self.hasControlCharacter(name) { throw CryptoError.invalidParameter("issuer") }
        }
        switch encoding {
        case .decimal:
            try OTPCode.validate(digits: digits)
        case .steam:
            guard kind == .totp else { throw CryptoError.invalidParameter("encoder") }
            guard digits == SteamGuardTOTP.codeLength else { throw CryptoError.invalidSteamDigits }
            guard algorithm == .sha1 else { throw CryptoError.unsupportedAlgorithm }
        }
        guard period > 0 else { throw CryptoError.invalidPeriod }
        guard !secretBytes.isEmpty else { throw CryptoError.emptySecret }
        if kind == .hotp, counter == nil { throw CryptoError.missingParameter("counter") }
    }

    /// Whether `text` holds a control character (general category Cc: C0 U+0000–U+001F,
    /// DEL U+007F, C1 U+0080–U+009F).
    private static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Equal when every field and the canonical ``secret`` text are equal, so two values are
    /// equal exactly when their ``uriString``s are.
    public static func == (lhs: OTPAuthURI, rhs: OTPAuthURI) -> Bool {
        lhs.kind == rhs.kind && lhs.issuer == rhs.issuer && lhs.labelIssuer == rhs.labelIssuer
            && lhs.account == rhs.account && lhs.secretBytes == rhs.secretBytes && lhs.secret == rhs.secret
            && lhs.algorithm == rhs.algorithm && lhs.digits == rhs.digits && lhs.period == rhs.period
            && lhs.counter == rhs.counter && lhs.encoding == rhs.encoding
    }

    /// Hashes the fields that ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(issuer)
        hasher.combine(labelIssuer)
        hasher.combine(account)
        hasher.combine(secretBytes)
        hasher.combine(secret)
        hasher.combine(algorithm)
        hasher.combine(digits)
        hasher.combine(period)
        hasher.combine(counter)
        hasher.combine(encoding)
    }

    /// The canonical URI string. It contains the secret: treat it as a secret.
    ///
    /// Label `issuer:account` (label issuer first; `:account` when there is no colon-free
    /// issuer and the account holds a colon), then `secret`, `issuer`, `algorithm`,
    /// `digits`, `period` (TOTP) or `counter` (HOTP), and `encoder=steam` for a Steam URI,
    /// each percent-encoded outside RFC 3986 unreserved characters. Parsing it gives back the
    /// same fields.
    public var uriString: String {
        var label = PercentEncoding.encode(account)
        // The only literal colon is the separator (colons inside the names are `%3A`). Without
        // a label issuer there is no prefix, but an account that holds a colon gets an empty
        // one (`:acct`): a label without a literal colon is split at its first `%3A` (found by
        // Fuzz/otpauth).
        if let labelIssuer {
            label = PercentEncoding.encode(labelIssuer) + ":" + label
        } else if account.unicodeScalars.contains(":") {
            label = ":" + label
        }
        var query = "secret=" + secret
        if let issuer { query += "&issuer=" + PercentEncoding.encode(issuer) }
        query += "&algorithm=\(algorithm.rawValue)&digits=\(digits)"
        switch kind {
        case .totp: query += "&period=\(period)"
        case .hotp: query += "&counter=\(counter ?? 0)"
        }
        if encoding == .steam { query += "&encoder=steam" }
        return "otpauth://\(kind.rawValue)/\(label)?\(query)"
    }

    /// A TOTP generator/verifier with this URI's secret, algorithm, digits and period.
    ///
    /// - Throws: ``CryptoError/invalidParameter(_:)`` (`"encoder"`) for a Steam URI, whose
    ///   codes are not decimal (use ``makeSteamGuard()``); ``CryptoError/invalidDigits``,
    ///   ``CryptoError/invalidPeriod`` or ``CryptoError/invalidKey`` if fields were set to
    ///   invalid values after parsing.
    public func makeTOTP() throws -> TOTP {
        guard encoding == .decimal else { throw CryptoError.invalidParameter("encoder") }
        return try TOTP(secret: secretBytes, algorithm: algorithm, digits: digits, period: period)
    }

    /// An HOTP generator with this URI's secret, algorithm and digits (start at ``counter``).
    ///
    /// - Throws: ``CryptoError/invalidParameter(_:)`` (`"encoder"`) for a Steam URI;
    ///   ``CryptoError/invalidDigits`` or ``CryptoError/invalidKey``.
    public func makeHOTP() throws -> HOTP {
        guard encoding == .decimal else { throw CryptoError.invalidParameter("encoder") }
        return try HOTP(secret: secretBytes, algorithm: algorithm, digits: digits)
    }

    /// A Steam Guard generator/verifier with this URI's secret and period.
    ///
    /// - Throws: ``CryptoError/invalidParameter(_:)`` (`"encoder"`) unless the URI says
    ///   `encoder=steam`; ``CryptoError/invalidPeriod``, ``CryptoError/emptySecret``.
    public func makeSteamGuard() throws -> SteamGuardTOTP {
        guard encoding == .steam, kind == .totp else { throw CryptoError.invalidParameter("encoder") }
        return try SteamGuardTOTP(secret: secretBytes, period: period)
    }

    /// The URI with the secret replaced by `<redacted>`.
    public var description: String {
        var label = account
        if let prefix = labelIssuer ?? issuer { label = prefix + ":" + label }
        var text =
            "otpauth://\(kind.rawValue)/\(label) (secret: <redacted>, issuer: \(issuer ?? "none"), "
            + "algorithm: \(algorithm.rawValue), digits: \(digits)"
        switch kind {
        case .totp: text += ", period: \(period)s)"
        case .hotp: text += ", counter: \(counter ?? 0))"
        }
        if encoding == .steam { text.insert(contentsOf: ", encoder: steam", at: text.index(before: text.endIndex)) }
        return text
    }

    /// A mirror without the secret, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "kind": kind, "issuer": issuer as Any, "labelIssuer": labelIssuer as Any, "account": account,
                "secret": "<redacted>", "algorithm": algorithm, "digits": digits, "period": period,
                "counter": counter as Any, "encoding": encoding,
            ], displayStyle: .struct)
    }
}
