import Foundation

/// An e-mail address as the user typed it (trimmed), with a case-folded identity key.
///
/// Interim implementation; the full validator replaces this file.
public struct EmailAddress: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The address, trimmed of surrounding whitespace, case as typed.
    public let address: String
    /// The identity key: the trimmed address lower-cased (plus tags kept). Case B33.
    public let identityKey: String

    /// Validates and normalizes an address.
    /// - Throws: `AuthError` `.invalidInput` with reason `.invalidEmail`.
    public init(_ input: String) throws {
        let trimmed = input.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains(".") else {
            throw AuthError.invalidInput(.invalidEmail, "not an e-mail address")
        }
        address = trimmed
        identityKey = trimmed.lowercased()
    }

    /// A masked display form, e.g. `"u•••@example.com"`.
    public var masked: String {
        let parts = identityKey.split(separator: "@")
        return String(parts[0].prefix(1)) + "•••@" + parts[1]
    }

    /// The masked form.
    public var description: String { masked }

    /// Equality and hashing use the identity key.
    public static func == (lhs: EmailAddress, rhs: EmailAddress) -> Bool { lhs.identityKey == rhs.identityKey }
    /// Hashes the identity key.
    public func hash(into hasher: inout Hasher) { hasher.combine(identityKey) }
}
