import Foundation

/// A person's name as Truecaller-style flows require it: a first name and an optional last name.
///
/// Rules (Docs/Providers/Truecaller.md, "OTP flow and states"; its error 18): the first name is
/// required, holds at least one letter, is not only digits or symbols, and is under 128
/// characters; the last name is TrueSDK's rule: anything (empty, digits, symbols) of at most
/// 128 UTF-16 code units.
///
/// Names are personal data: both parts are stored as ``Secret``s, so every rendering
/// (`description`, `dump`, a debugger's variables view) shows `<redacted>` for them.
public struct PersonName: Sendable, Codable, Hashable {
    /// The first (given) name, trimmed.
    public var firstName: String { first.reveal() }
    /// The last (family) name, trimmed; may be empty.
    public var lastName: String { last.reveal() }
    /// ``firstName``, kept as a ``Secret`` so that default renderings redact it.
    private let first: Secret
    /// ``lastName``, kept as a ``Secret`` so that default renderings redact it.
    private let last: Secret

    /// The longest accepted first name, in characters (exclusive upper bound is 128).
    public static let maximumLength = 127
    /// The longest accepted last name, in UTF-16 code units (TrueSDK's `lastName.length`
    /// limit; Docs/Providers/Truecaller.md, "OTP flow and states").
    public static let maximumLastNameLength = 128
    /// The longest part read at all, in UTF-8 bytes: checked before trimming or counting
    /// characters (127 characters of any script with combining marks fit well within it).
    public static let maximumInputBytes = 2_048

    /// Validates and trims a name.
    /// - Throws: `AuthError` `.invalidInput` with reason `.invalidName`.
    public init(firstName: String, lastName: String = "") throws {
        guard firstName.utf8.count <= Self.maximumInputBytes, lastName.utf8.count <= Self.maximumInputBytes else {
            throw AuthError.invalidInput(.invalidName, "a name must be under \(Self.maximumInputBytes) bytes")
        }
        let first = firstName.trimmingCharacters(in: .whitespacesAndNewlines)
        let last = lastName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !first.isEmpty else { throw AuthError.invalidInput(.invalidName, "the first name is required") }
        try Self.check(first, part: "first name")
        guard last.utf16.count <= Self.maximumLastNameLength else {
            throw AuthError.invalidInput(
                .invalidName, "the last name must be at most \(Self.maximumLastNameLength) characters")
        }
        self.first = Secret(first)
        self.last = Secret(last)
    }

    private static func check(_ part: String, part label: String) throws {
        guard part.count <= maximumLength else {
            throw AuthError.invalidInput(.invalidName, "the \(label) must be under 128 characters")
        }
        // A letter is a scalar of a Unicode letter category (L*): combining marks alone do not count.
        let letters: Set<Unicode.GeneralCategory> = [
            .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
        ]
        guard part.unicodeScalars.contains(where: { letters.contains($0.properties.generalCategory) }) else {
            throw AuthError.invalidInput(.invalidName, "the \(label) must contain a letter")
        }
    }

    private enum CodingKeys: String, CodingKey { case firstName, lastName }

    /// Decodes a name and applies the same rules as ``init(firstName:lastName:)``, so a stored
    /// or received name can never bypass them.
    /// - Throws: `DecodingError.dataCorrupted` wrapping the `AuthError` when a rule fails.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let first = try container.decode(String.self, forKey: .firstName)
        let last = try container.decodeIfPresent(String.self, forKey: .lastName) ?? ""
        do { try self.init(firstName: first, lastName: last) } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "invalid person name", underlyingError: error))
        }
    }

    /// Encodes `firstName` and `lastName` (an empty last name too), as before.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(firstName, forKey: .firstName)
        try container.encode(lastName, forKey: .lastName)
    }

    /// The full name, first then last, separated by a space.
    public var fullName: String { lastName.isEmpty ? firstName : "\(firstName) \(lastName)" }
}
