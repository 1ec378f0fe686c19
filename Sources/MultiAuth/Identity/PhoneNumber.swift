import Foundation

/// A phone number in E.164 form (ITU-T E.164: `+`, country calling code, national number,
/// at most 15 digits).
///
/// Interim implementation: accepts only input that already starts with `+`. The full parser
/// (regional metadata, trunk prefixes, default region) replaces this file.
public struct PhoneNumber: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The E.164 string, e.g. `"+919876543210"`.
    public let e164: String
    /// The country calling code, e.g. `91`.
    public let countryCallingCode: Int
    /// The national significant number (digits after the calling code), e.g. `"9876543210"`.
    public let nationalNumber: String
    /// The ISO 3166-1 alpha-2 region when known, e.g. `"IN"`.
    public let regionCode: String?

    /// Parses user input into E.164.
    /// - Parameters:
    ///   - input: What the user typed.
    ///   - defaultRegion: ISO 3166-1 alpha-2 region for national input.
    /// - Throws: `AuthError` `.invalidInput` with a ``AuthError/Reason``.
    public init(_ input: String, defaultRegion: String? = nil) throws {
        let digits = input.filter(\.isASCIIDigit)
        guard input.hasPrefix("+"), digits.count >= 8, digits.count <= 15 else {
            throw AuthError.invalidInput(.invalidCharacters, "phone number must be in + form")
        }
        let cc = digits.hasPrefix("1") ? 1 : (digits.hasPrefix("7") ? 7 : Int(digits.prefix(2))!)
        e164 = "+" + digits
        countryCallingCode = cc
        nationalNumber = String(digits.dropFirst(String(cc).count))
        regionCode = nil
    }

    /// The masked display form, e.g. `"+91 •••••• 3210"`: calling code and last four digits.
    public var masked: String {
        "+\(countryCallingCode) " + String(repeating: "•", count: max(0, nationalNumber.count - 4)) + " "
            + nationalNumber.suffix(4)
    }

    /// The masked form (phone numbers are personal data; logs get the masked form).
    public var description: String { masked }
}

extension Character {
    /// Whether this is one of the ASCII digits `0`–`9`.
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
