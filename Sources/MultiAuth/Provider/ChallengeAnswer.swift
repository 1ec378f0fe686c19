import Foundation

/// The user's answer to a ``Challenge``: a code and, for Truecaller-style flows, a
/// ``PersonName``.
///
/// The code is normalized before any use: every whitespace character (including inner spaces
/// and newlines from a paste) is removed; what remains must be ASCII digits of exactly the
/// challenge's length. It always stays a `String`: `"005924"` keeps its zeros (Docs/Cases.md, B05 and
/// B34). `description` and the mirror never show the code.
public struct ChallengeAnswer: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The code as the user typed or pasted it. Treat as secret.
    public var rawCode: String
    /// The person's name, for providers that require one to finish (Truecaller).
    public var name: PersonName?

    /// Creates an answer.
    /// - Parameters:
    ///   - code: The code as typed; normalized by ``normalizedCode(length:)``.
    ///   - name: The name, when the provider requires one.
    public init(code: String, name: PersonName? = nil) {
        self.rawCode = code
        self.name = name
    }

    /// The code with all whitespace removed, checked to be exactly `length` ASCII digits.
    /// - Parameter length: The number of digits expected; `nil` accepts 4 to 10 digits.
    /// - Returns: The normalized code, e.g. `"123456"` for `" 123 456\n"`.
    /// - Throws: `AuthError` `.invalidInput` with reason `.invalidCodeFormat` (Docs/Cases.md, B34).
    public func normalizedCode(length: Int?) throws -> String {
        let code = String(rawCode.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }.map(Character.init))
        guard !code.isEmpty, code.unicodeScalars.allSatisfy({ $0.value >= 48 && $0.value <= 57 }) else {
            throw AuthError.invalidInput(.invalidCodeFormat, "the code must contain digits only")
        }
        if let length {
            guard code.count == length else {
                throw AuthError.invalidInput(.invalidCodeFormat, "the code must have \(length) digits, got \(code.count)")
            }
        } else {
            guard (4...10).contains(code.count) else {
                throw AuthError.invalidInput(.invalidCodeFormat, "the code must have 4 to 10 digits, got \(code.count)")
            }
        }
        return code
    }

    /// `ChallengeAnswer(code: <redacted>, name: …)`.
    public var description: String { "ChallengeAnswer(code: <redacted>\(name.map { ", name: \($0)" } ?? ""))" }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// A mirror without the code.
    public var customMirror: Mirror {
        Mirror(self, children: ["code": "<redacted>", "name": name as Any], displayStyle: .struct)
    }
}

/// A person's name as Truecaller-style flows require it: a first name and an optional last name.
///
/// Rules (Docs/Providers/Truecaller.md, "OTP flow and states"; its error 18): the first name is required, holds at least one
/// letter, is not only digits or symbols, and each part is under 128 characters; the last
/// name may be empty but follows the same rules when present.
public struct PersonName: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The first (given) name, trimmed.
    public let firstName: String
    /// The last (family) name, trimmed; may be empty.
    public let lastName: String

    /// The longest accepted part, in characters (exclusive upper bound is 128).
    public static let maximumLength = 127

    /// Validates and trims a name.
    /// - Throws: `AuthError` `.invalidInput` with reason `.invalidName`.
    public init(firstName: String, lastName: String = "") throws {
        let first = firstName.trimmingCharacters(in: .whitespacesAndNewlines)
        let last = lastName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !first.isEmpty else { throw AuthError.invalidInput(.invalidName, "the first name is required") }
        try Self.check(first, part: "first name")
        if !last.isEmpty { try Self.check(last, part: "last name") }
        self.firstName = first
        self.lastName = last
    }

    private static func check(_ part: String, part label: String) throws {
        guard part.count <= maximumLength else {
            throw AuthError.invalidInput(.invalidName, "the \(label) must be under 128 characters")
        }
        // A letter is a scalar of a Unicode letter category (L*): combining marks alone do not count.
        let letters: Set<Unicode.GeneralCategory> = [.uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter]
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
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "invalid person name", underlyingError: error))
        }
    }

    /// The full name, first then last, separated by a space.
    public var fullName: String { lastName.isEmpty ? firstName : "\(firstName) \(lastName)" }

    /// Initials only (names are personal data), e.g. `PersonName(J. D.)`.
    public var description: String {
        "PersonName(\([firstName, lastName].filter { !$0.isEmpty }.map { "\($0.prefix(1))." }.joined(separator: " ")))"
    }
}
