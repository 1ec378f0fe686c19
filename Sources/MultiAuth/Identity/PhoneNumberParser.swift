import Foundation

/// The parsing algorithm behind ``PhoneNumber/init(_:defaultRegion:)``.
///
/// It follows the steps of libphonenumber's `parse` (international prefix, calling code,
/// national prefix with the "still viable" rule, possible lengths), restricted to what a
/// sign-in form needs: no vanity letters, no RFC 3966 URIs, and no extensions — an extension
/// libphonenumber would split off (`x28`, `ext. 123`, `;ext=123`, `#123`) is recognised and
/// refused with its own reason instead of "invalid characters" (Docs/Standards.md).
enum PhoneNumberParser {
    /// The parse result before it becomes a ``PhoneNumber``.
    struct Parsed: Equatable {
        /// The country calling code.
        var callingCode: Int
        /// The national significant number.
        var nationalNumber: String
        /// The region, when determinable.
        var regionCode: String?
    }

    /// Longest input accepted at all, in characters (anything longer is not a phone number).
    static let maximumInputLength = 64
    /// Longest input read at all, in UTF-8 bytes: checked before any trimming or grapheme
    /// counting (64 characters of any script's digits and separators, 4 bytes each at most,
    /// with room for surrounding whitespace).
    static let maximumInputBytes = 1_024
    /// ITU-T E.164: at most 15 digits including the calling code.
    static let maximumE164Digits = 15

    /// What the character scan found.
    private struct Scanned {
        var digits = ""
        var hasPlus = false
        /// The digits of a parenthesised group that opens the input, e.g. `44` in `(44) 0161…`.
        var leadingParenthesisedDigits: String?
    }

    /// Parses `input`; `defaultRegion` is used for national input.
    /// - Throws: `AuthError.invalidInput` with reason `invalidCharacters`,
    ///   `extensionNotSupported`, `regionRequired`, `invalidCountryCode`, `tooShort` or
    ///   `tooLong`.
    static func parse(_ input: String, defaultRegion: String?, asciiFastPath: Bool = true) throws -> Parsed {
        guard input.utf8.count <= maximumInputBytes else {
            throw AuthError.invalidInput(.tooLong, "phone number input is longer than \(maximumInputBytes) bytes")
        }
        let scanned: Scanned
        if asciiFastPath, let ascii = try scanASCII(input) {
            scanned = ascii
        } else {
            let trimmed = input.trimmingCharacters(in: .whitespacesAndNewlines)
            guard trimmed.count <= maximumInputLength else {
                throw AuthError.invalidInput(
                    .tooLong, "phone number input is longer than \(maximumInputLength) characters")
            }
            scanned = try scan(trimmed)
        }
        guard !scanned.digits.isEmpty else {
            throw AuthError.invalidInput(.tooShort, "phone number has no digits")
        }

        var home: PhoneMetadata.Territory?
        if let defaultRegion {
            guard let territory = PhoneMetadata.territory(forRegion: defaultRegion) else {
                throw AuthError.invalidInput(.invalidCountryCode, "unknown default region")
            }
            home = territory
        }

        if scanned.hasPlus {
            return try parseInternational(scanned.digits)
        }
        if let afterPrefix = stripInternationalPrefix(scanned.digits, home: home) {
            return try parseInternational(afterPrefix)
        }
        guard let home else {
            // "(44) 0161 496 0000": a parenthesised calling code without "+". When the rest is
            // not a number of that code ("(212) 555-1234" is a US area code, not Morocco), the
            // input is national and needs a region.
            if let group = scanned.leadingParenthesisedDigits, isCallingCode(group),
                let parsed = try? parseInternational(scanned.digits)
            {
                return parsed
            }
            throw AuthError.invalidInput(.regionRequired, "national number without a default region")
        }
        // With a default region, a calling code is read only after "+" or the region's
        // international prefix (above). A parenthesised group such as "(20) 98683078" is part
        // of the national number here (an area code), never a guessed calling code: guessing
        // would send a one-time code to another country (Docs/Standards.md, "Phone numbers: a
        // default region never guesses a calling code").
        return try parseNational(scanned.digits, home: home)
    }

    // MARK: - Characters

    /// Separators people type or paste between digits (ASCII and common Unicode variants).
    private static let separators: Set<Character> = [
        " ", "-", ".", "/", "(", ")", "[", "]", "~",
        // no-break, figure, thin, narrow, ideographic spaces
        "\u{00A0}", "\u{2007}", "\u{2009}", "\u{202F}", "\u{3000}",
        "\u{2010}", "\u{2011}", "\u{2012}", "\u{2013}", "\u{2014}", "\u{2015}", "\u{2212}",  // dashes, minus
        "\u{FF0D}", "\u{FF0E}", "\u{FF0F}", "\u{FF08}", "\u{FF09}", "\u{30FC}",  // full-width forms
        "\u{00AD}", "\u{200B}", "\u{2060}",  // soft hyphen, zero-width space, word joiner
        "\t",
    ]

    /// The ASCII fast path of trimming, the length check and ``scan(_:)``: the same results and
    /// errors for input that is all ASCII digits and separators, read from its UTF-8 bytes;
    /// `nil` for any other input (non-ASCII, an extension, an invalid character), which takes
    /// the general path.
    private static func scanASCII(_ input: String) throws -> Scanned? {
        var input = input
        return try input.withUTF8 { bytes -> Scanned? in
            // Trim what `.whitespacesAndNewlines` trims among ASCII: tab, LF, VT, FF, CR, space.
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0d).contains(byte) }
            var start = 0
            var end = bytes.count
            while start < end, isSpace(bytes[start]) { start += 1 }
            while end > start, isSpace(bytes[end - 1]) { end -= 1 }
            var characters = end - start
            for index in start..<end {
                let byte = bytes[index]
                if byte >= 0x80 { return nil }
                // CR LF is one Character.
                if byte == 0x0a, index > start, bytes[index - 1] == 0x0d { characters -= 1 }
            }
            guard characters <= maximumInputLength else {
                throw AuthError.invalidInput(
                    .tooLong, "phone number input is longer than \(maximumInputLength) characters")
            }
            var result = Scanned()
            var digits: [UInt8] = []
            digits.reserveCapacity(end - start)
            var groupDigits: [UInt8] = []
            var inLeadingGroup = false
            var leadingGroupDone = false
            for index in start..<end {
                let byte = bytes[index]
                switch byte {
                case _ where byte.isASCIIDigit:
                    digits.append(byte)
                    if inLeadingGroup { groupDigits.append(byte) } else { leadingGroupDone = true }
                case UInt8(ascii: "+"):
                    guard digits.isEmpty, !result.hasPlus else {
                        throw AuthError.invalidInput(.invalidCharacters, "a '+' may only start the number")
                    }
                    result.hasPlus = true
                case UInt8(ascii: "("):
                    if digits.isEmpty && !leadingGroupDone { inLeadingGroup = true }
                case UInt8(ascii: ")"):
                    if inLeadingGroup {
                        inLeadingGroup = false
                        leadingGroupDone = true
                        if !groupDigits.isEmpty {
                            result.leadingParenthesisedDigits = String(decoding: groupDigits, as: UTF8.self)
                        }
                    }
                case UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "["),
                    UInt8(ascii: "]"), UInt8(ascii: "~"), UInt8(ascii: "\t"):
                    break
                default:
                    // Not a digit or separator: an extension (`x28`, `;ext=1`, `#12`) or an
                    // invalid character. The general path tells them apart, with the same
                    // errors, so the fast path hands such input over.
                    return nil
                }
            }
            result.digits = String(decoding: digits, as: UTF8.self)
            return result
        }
    }

    /// Keeps the digits (any script's decimal digits, as ASCII), notes a leading plus and a
    /// leading parenthesised group; anything else is `invalidCharacters`.
    private static func scan(_ text: String) throws -> Scanned {
        var result = Scanned()
        var inLeadingGroup = false
        var leadingGroupDone = false
        var groupDigits = ""
        for index in text.indices {
            let character = text[index]
            if let digit = asciiDigit(character) {
                result.digits.append(digit)
                if inLeadingGroup { groupDigits.append(digit) } else { leadingGroupDone = true }
            } else if character == "+" || character == "\u{FF0B}" {
                guard result.digits.isEmpty, !result.hasPlus else {
                    throw AuthError.invalidInput(.invalidCharacters, "a '+' may only start the number")
                }
                result.hasPlus = true
            } else if separators.contains(character) {
                if character == "(" || character == "\u{FF08}" {
                    if result.digits.isEmpty && !leadingGroupDone { inLeadingGroup = true }
                } else if character == ")" || character == "\u{FF09}" {
                    if inLeadingGroup {
                        inLeadingGroup = false
                        leadingGroupDone = true
                        if !groupDigits.isEmpty { result.leadingParenthesisedDigits = groupDigits }
                    }
                }
            } else {
                if !result.digits.isEmpty, let (marker, digits) = extensionSuffix(text[index...]) {
                    // The extension's digits are not repeated: messages never echo the number.
                    throw AuthError.invalidInput(
                        .extensionNotSupported,
                        "phone number has an extension (\"\(marker)\" and \(digits) digit\(digits == 1 ? "" : "s")); sign-in needs the number without it"
                    )
                }
                throw AuthError.invalidInput(
                    .invalidCharacters, "phone number contains a character that is not a digit or separator")
            }
        }
        return result
    }

    /// The extension markers libphonenumber splits off, longest first (its `EXTN_PATTERNS`,
    /// the common Latin-script subset).
    private static let extensionMarkers = ["extension", "extn", "ext", "x", "#"]

    /// When `tail` (the input from its first character that is not a digit or separator) is
    /// an extension — an optional `,` or `;`, a marker (`ext`, `ext.`, `extn`, `extension`,
    /// `x`, `#`, or RFC 3966's `;ext=`), an optional `:`, `.` or `=`, then 1 to 7 digits and
    /// an optional closing `#` — the marker as typed and the number of digits; else `nil`.
    static func extensionSuffix(_ tail: Substring) -> (marker: String, digits: Int)? {
        var rest = tail.drop(while: \.isWhitespace)
        if let first = rest.first, first == "," || first == ";" { rest = rest.dropFirst().drop(while: \.isWhitespace) }
        guard let marker = extensionMarkers.first(where: { rest.lowercased().hasPrefix($0) }) else { return nil }
        var typed = String(rest.prefix(marker.count))
        rest = rest.dropFirst(marker.count)
        if rest.first == "." {
            typed += "."
            rest = rest.dropFirst()
        }
        rest = rest.drop(while: \.isWhitespace)
        if let first = rest.first, first == ":" || first == "=" { rest = rest.dropFirst().drop(while: \.isWhitespace) }
        var digits = 0
        while let first = rest.first, asciiDigit(first) != nil {
            digits += 1
            rest = rest.dropFirst()
        }
        if rest.first == "#" { rest = rest.dropFirst() }
        guard (1...7).contains(digits), rest.allSatisfy(\.isWhitespace) else { return nil }
        return (typed, digits)
    }

    /// The ASCII digit for any Unicode decimal digit (e.g. Arabic-Indic or full-width), else `nil`.
    private static func asciiDigit(_ character: Character) -> Character? {
        if character.isASCIIDigit { return character }
        guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first,
            scalar.properties.numericType == .decimal, let value = character.wholeNumberValue,
            (0...9).contains(value)
        else { return nil }
        return Character(String(value))
    }

    // MARK: - Calling code

    /// Whether `digits` is exactly an assigned calling code.
    private static func isCallingCode(_ digits: String) -> Bool {
        guard digits.utf8.count <= 3, !digits.hasPrefix("0"), let code = Int(digits) else { return false }
        return !PhoneMetadata.territories(forCallingCode: code).isEmpty
    }

    /// Strips an international prefix (the default region's exit code, or `00`) when one is
    /// followed by a non-zero digit; `nil` when the digits do not start with one.
    private static func stripInternationalPrefix(_ digits: String, home: PhoneMetadata.Territory?) -> String? {
        func after(_ length: Int) -> String? {
            let rest = digits.dropFirst(length)
            guard let first = rest.first, first != "0" else { return nil }
            return String(rest)
        }
        if let match = home?.prefixMatch(.internationalPrefix, digits), match.length > 0, let rest = after(match.length)
        {
            return rest
        }
        if digits.hasPrefix("00") { return after(2) }
        return nil
    }

    /// Parses digits that start with a calling code (after `+`, `00` or an exit code).
    private static func parseInternational(_ digits: String) throws -> Parsed {
        guard digits.utf8.count > 2 else {
            throw AuthError.invalidInput(.tooShort, "too few digits after the international prefix")
        }
        guard digits.first != "0" else {
            throw AuthError.invalidInput(.invalidCountryCode, "calling codes do not start with 0")
        }
        for length in 1...3 {
            guard let code = Int(digits.prefix(length)) else { break }
            let territories = PhoneMetadata.territories(forCallingCode: code)
            guard let main = territories.first else { continue }
            // Like libphonenumber, the main region's plan strips the trunk prefix and checks lengths.
            let national = String(digits.dropFirst(length))
            return try finish(callingCode: code, national: national, territory: main, fallbackRegion: nil)
        }
        throw AuthError.invalidInput(.invalidCountryCode, "unknown country calling code")
    }

    /// Parses digits without an international prefix, in the default region.
    private static func parseNational(_ digits: String, home: PhoneMetadata.Territory) throws -> Parsed {
        var national = digits
        // The default region's calling code typed without "+" ("44 20 7946 0958" in GB): taken
        // as the calling code when the rest is a better fit than the whole (libphonenumber's rule).
        let code = String(home.callingCode)
        if digits.hasPrefix(code) {
            let potential = stripNationalPrefix(String(digits.dropFirst(code.count)), territory: home)
            if (!home.fullMatch(.general, digits) && home.fullMatch(.general, potential))
                || lengthCheck(digits, territory: home) == .tooLong
            {
                national = potential
            }
        }
        let fallback = home.isNonGeographic ? nil : home.region
        return try finish(callingCode: home.callingCode, national: national, territory: home, fallbackRegion: fallback)
    }

    // MARK: - National number

    /// Strips the trunk prefix, checks lengths and determines the region.
    private static func finish(
        callingCode: Int, national: String, territory: PhoneMetadata.Territory, fallbackRegion: String?
    ) throws -> Parsed {
        guard national.utf8.count >= 2 else {
            throw AuthError.invalidInput(.tooShort, "national number has fewer than 2 digits")
        }
        var number = national
        let stripped = stripNationalPrefix(national, territory: territory)
        switch lengthCheck(stripped, territory: territory) {
        case .tooShort, .localOnly, .invalidLength: break
        case .possible, .tooLong: number = stripped
        }
        if String(callingCode).utf8.count + number.utf8.count > maximumE164Digits {
            throw AuthError.invalidInput(.tooLong, "more than \(maximumE164Digits) digits in E.164")
        }
        let detected = detectRegion(callingCode: callingCode, national: number)
        var check = lengthCheck(number, territory: territory)
        if check != .possible, let detected, detected != territory.region,
            let other = PhoneMetadata.territory(forRegion: detected), lengthCheck(number, territory: other) == .possible
        {
            // The number matches another region of a shared calling code, whose plan has numbers
            // of this length (+1 310-1234 is a Canadian number; the US has no 7-digit numbers).
            check = .possible
        }
        switch check {
        case .possible: break
        case .tooLong:
            if callingCode == 52, number.count == 11, number.hasPrefix("1"),
                lengthCheck(String(number.dropFirst()), territory: territory) == .possible
            {
                // Mexico dropped the mobile "1" in 2019; libphonenumber no longer strips it,
                // so "+52 1" and 10 digits is too long there too (Docs/Standards.md).
                throw AuthError.invalidInput(
                    .tooLong,
                    "11 digits is longer than any number of +52: \"+52 1\" before 10 digits is Mexico's retired mobile prefix; write the number without the 1"
                )
            }
            throw AuthError.invalidInput(
                .tooLong, "\(number.count) digits is longer than any number of +\(callingCode)")
        case .tooShort:
            throw AuthError.invalidInput(
                .tooShort, "\(number.count) digits is shorter than any number of +\(callingCode)")
        case .localOnly:
            throw AuthError.invalidInput(
                .tooShort, "\(number.count) digits is a local number; the area code is missing")
        case .invalidLength:
            throw AuthError.invalidInput(
                .tooShort, "no number of +\(callingCode) has \(number.count) digits; a digit is missing")
        }
        let region = detected ?? fallbackRegion
        return Parsed(callingCode: callingCode, nationalNumber: number, regionCode: region)
    }

    /// The outcome of comparing a national number's length with the possible lengths.
    enum LengthCheck: Equatable {
        case possible, tooShort, tooLong, localOnly, invalidLength
    }

    /// Compares the length of `national` with the territory's possible lengths.
    static func lengthCheck(_ national: String, territory: PhoneMetadata.Territory) -> LengthCheck {
        let count = national.utf8.count  // ASCII digits: one byte per character
        if territory.localOnlyLengths.contains(count) { return .localOnly }
        guard let shortest = territory.possibleLengths.first, let longest = territory.possibleLengths.last else {
            return .invalidLength
        }
        if count < shortest { return .tooShort }
        if count > longest { return .tooLong }
        return territory.possibleLengths.contains(count) ? .possible : .invalidLength
    }

    /// Removes the national (trunk) prefix and carrier code when the rest is still a viable
    /// number (or the original was not); applies the region's transform rule when it has one.
    /// Italy has no national prefix, so its leading `0` always stays.
    static func stripNationalPrefix(_ number: String, territory: PhoneMetadata.Territory) -> String {
        guard !number.isEmpty, let pattern = territory.compiled(.nationalPrefixForParsing),
            let match = pattern.prefixMatch(number)
        else { return number }
        let originalViable = territory.fullMatch(.general, number)
        let digits = Array(number.utf8)
        let rest = String(decoding: digits[match.length...], as: UTF8.self)
        let groups = pattern.captureGroupCount
        let candidate: String
        if let rule = territory.nationalPrefixTransformRule, groups > 0, match.groups[groups - 1] != nil {
            candidate = pattern.expand(rule, match: match, digits: digits) + rest
        } else {
            candidate = rest
        }
        if originalViable && !territory.fullMatch(.general, candidate) { return number }
        return candidate
    }

    // MARK: - Region

    /// The region of a number whose calling code several regions share: the first (main
    /// region first) whose leading digits match, or, without leading digits, whose number-type
    /// patterns match. The single region otherwise; `nil` for non-geographic codes.
    static func detectRegion(callingCode: Int, national: String) -> String? {
        let territories = PhoneMetadata.territories(forCallingCode: callingCode)
        if territories.count == 1 {
            return territories[0].isNonGeographic ? nil : territories[0].region
        }
        for territory in territories {
            if territory.leadingDigits != nil {
                if territory.prefixMatch(.leadingDigits, national) != nil { return territory.region }
            } else if territory.fullMatch(.general, national), territory.typesPattern != nil,
                territory.fullMatch(.types, national)
            {
                return territory.region
            }
        }
        return nil
    }
}
