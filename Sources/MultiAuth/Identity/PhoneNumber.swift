import Foundation

/// A phone number in ITU-T E.164 form: `+`, the country calling code, the national
/// significant number; at most 15 digits in all.
///
/// Parsed from what people type: spaces, dashes, dots, slashes and parentheses are ignored;
/// a leading `+`, a `00` international prefix (or the default region's own exit code, such as
/// `011` in the US) or a parenthesised calling code (`(+44)`; `(44)` only without a default
/// region) introduce the calling code. With a default region nothing else does: `(20) 98683078`
/// in region HU is a Hungarian national number (refused if invalid), never Egypt's `+20`. A national (trunk) prefix after the calling code — `+44 (0) 20…`, `+44 0161…` — is
/// dropped where the country uses one, and kept where the leading zero is part of the national
/// number (Italy: `+39 06…` stays `+3906…`). National input needs a default region, whose
/// trunk prefix is stripped. Numbering-plan data (calling codes, trunk prefixes, possible
/// lengths, region patterns) comes from libphonenumber's metadata, generated into
/// `PhoneMetadata+Table.swift`.
///
/// ```swift
/// let number = try PhoneNumber("098765 43210", defaultRegion: "IN")
/// number.e164          // "+919876543210"
/// number.masked        // "+91 •••••• 3210"
/// ```
///
/// Equality and hashing compare ``e164``. `Codable` as the E.164 string. Docs/Cases.md, B31.
///
/// Every rendering shows ``masked``: `description` and `String(reflecting:)` are the masked
/// form, and the digits are stored as ``Secret``s, so `dump` and a debugger's variables view
/// show `<redacted>` for them (phone numbers are personal data).
public struct PhoneNumber: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The E.164 string: `+` and 2–15 digits, e.g. `"+919876543210"`.
    public var e164: String { storedE164.reveal() }
    /// The ITU-T E.164 country calling code (1–3 digits), e.g. `91`; shared by several regions
    /// for some codes (`1`, `7`, `44`, …).
    public let countryCallingCode: Int
    /// The national significant number: the digits after the calling code, without any trunk
    /// prefix (but with Italy's leading zero), e.g. `"9876543210"`.
    public var nationalNumber: String { storedNationalNumber.reveal() }
    /// The ISO 3166-1 alpha-2 region (e.g. `"IN"`, `"CA"`, `"JE"`) when it can be determined
    /// from the calling code and libphonenumber's region patterns; `nil` for non-geographic
    /// codes (+800, +882, …) and for numbers of a shared calling code that match no region.
    public let regionCode: String?
    /// ``e164``, kept as a ``Secret`` so that default renderings redact it.
    private let storedE164: Secret
    /// ``nationalNumber``, kept as a ``Secret`` so that default renderings redact it.
    private let storedNationalNumber: Secret

    /// Parses user input into E.164.
    ///
    /// - Parameters:
    ///   - input: What the user typed or pasted, e.g. `"+44 (0) 20 7946 0958"`,
    ///     `"0044 20 7946 0958"`, `"(020) 7946 0958"` (with `defaultRegion: "GB"`).
    ///   - defaultRegion: ISO 3166-1 alpha-2 region (case-insensitive) for input without a
    ///     calling code (its trunk prefix is stripped, its exit code such as `011` recognised);
    ///     when given it must be a known region, even for input with a calling code.
    /// - Throws: ``AuthError`` with code ``AuthError/Code/invalidInput`` and reason:
    ///   ``AuthError/Reason/invalidCharacters`` (letters or symbols other than separators, a
    ///   `+` not at the start), ``AuthError/Reason/extensionNotSupported`` (a number followed
    ///   by an extension such as `x28`, `ext. 123`, `;ext=123` or `#123`; the message names the
    ///   marker and the digit count), ``AuthError/Reason/regionRequired`` (national input without
    ///   `defaultRegion`), ``AuthError/Reason/invalidCountryCode`` (unassigned calling code or
    ///   unknown `defaultRegion`), ``AuthError/Reason/tooShort`` (no digits, fewer digits than
    ///   any number of that region, a local number without its area code, or a length between
    ///   two possible lengths), ``AuthError/Reason/tooLong`` (more digits than any number of
    ///   that region, or more than 15 in E.164; Mexico's retired `+52 1` mobile form is too
    ///   long, as in libphonenumber, and the message says so — Docs/Standards.md).
    public init(_ input: String, defaultRegion: String? = nil) throws {
        let parsed = try PhoneNumberParser.parse(input, defaultRegion: defaultRegion)
        countryCallingCode = parsed.callingCode
        storedNationalNumber = Secret(parsed.nationalNumber)
        regionCode = parsed.regionCode
        storedE164 = Secret("+\(parsed.callingCode)\(parsed.nationalNumber)")
    }

    /// The masked display form: `+`, the calling code, a space, one `•` for each national digit
    /// but the last four, a space, the last four digits, e.g. `"+91 •••••• 3210"`.
    public var masked: String {
        let hidden = max(0, nationalNumber.count - 4)
        return "+\(countryCallingCode) " + String(repeating: "•", count: hidden) + " " + nationalNumber.suffix(4)
    }

    /// The masked form (phone numbers are personal data; logs and UIs get ``masked``).
    public var description: String { masked }

    /// ISO 3166-1 alpha-2 codes of every region with numbering-plan metadata (about 245).
    public static var supportedRegions: Set<String> { Set(PhoneMetadata.table.byRegion.keys) }

    /// The country calling code of a region (case-insensitive ISO 3166-1 alpha-2), e.g. `44`
    /// for `"GB"`; `nil` for an unknown region. Source: libphonenumber metadata.
    public static func callingCode(forRegion region: String) -> Int? {
        PhoneMetadata.territory(forRegion: region)?.callingCode
    }

    /// Equal when the E.164 strings are equal.
    public static func == (lhs: PhoneNumber, rhs: PhoneNumber) -> Bool { lhs.e164 == rhs.e164 }

    /// Hashes the E.164 string.
    public func hash(into hasher: inout Hasher) { hasher.combine(e164) }

    /// Decodes the E.164 string and parses it again (so ``regionCode`` is what the E.164 form
    /// alone determines: a region that came only from a default region is not kept).
    /// - Throws: `DecodingError.dataCorrupted` when the string is not a valid number.
    public init(from decoder: any Decoder) throws {
        self = try decoder.decodeParsedString({ try PhoneNumber($0) }) { error in
            "not an E.164 phone number (\(String(describing: (error as? AuthError)?.reason)))"
        }
    }

    /// Encodes ``e164`` as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(e164)
    }
}
