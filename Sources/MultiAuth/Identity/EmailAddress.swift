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
/// in its `xn--` form).
///
/// The ``identityKey`` (the trimmed address lower-cased, plus tag kept) is what equality,
/// hashing and providers use, so `User.Name+OTP@Example.COM` and `user.name+otp@example.com`
/// are the same identity and `user+otp@…` is a different one from `user@…`. Case B33.
///
/// `Codable` as the ``address`` string.
public struct EmailAddress: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The address, trimmed of surrounding whitespace and newlines, case as typed.
    public let address: String
    /// The identity key: ``address`` lower-cased (local part and domain), plus tags kept.
    public let identityKey: String

    /// RFC 5321 §4.5.3.1.1: the maximum local-part length, in octets.
    public static let maximumLocalPartLength = 64
    /// RFC 5321 §4.5.3.1.3 (a 256-octet path less its angle brackets): the maximum address
    /// length, in octets.
    public static let maximumLength = 254
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
        let trimmed = input.trimmingCharacters(in: .whitespacesAndNewlines)
        try Self.validate(trimmed)
        address = trimmed
        identityKey = trimmed.lowercased()
    }

    private static func invalid(_ message: String) -> AuthError {
        AuthError.invalidInput(.invalidEmail, "not an e-mail address: \(message)")
    }

    private static func validate(_ text: String) throws {
        guard !text.isEmpty else { throw invalid("empty") }
        guard text.utf8.count <= maximumLength else { throw invalid("longer than \(maximumLength) characters") }
        guard text.unicodeScalars.allSatisfy(\.isASCII) else {
            throw invalid("non-ASCII characters are not supported")
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
        for character in local where !(character.isASCIILetterOrDigit || character == "." || localPartSymbols.contains(character)) {
            throw invalid(character.isWhitespace ? "whitespace inside the address" : "character not allowed in the local part")
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
        }
        let tld = labels[labels.count - 1]
        let isPunycode = tld.lowercased().hasPrefix("xn--") && tld.count > 4
        guard isPunycode || (tld.count >= 2 && tld.allSatisfy(\.isASCIILetter)) else {
            throw invalid("top-level domain is not alphabetic")
        }
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
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do {
            self = try EmailAddress(string)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "not an e-mail address", underlyingError: error
                )
            )
        }
    }

    /// Encodes ``address`` as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(address)
    }
}
