import Foundation

/// A secret string — an access, id or refresh token, a one-time code, a client secret, a
/// ``ProviderState`` value — whose every rendering is redacted by construction.
///
/// `description`, `debugDescription`, `String(reflecting:)`, `dump` and the mirror (no
/// children) all show ``redactionMarker`` (`<redacted>`), so a container whose secrets are
/// `Secret` fields can keep Swift's default rendering: nothing it prints, dumps or shows in a
/// debugger's variables view holds the value. The value itself is read only through
/// ``reveal()``, at the few places that put it on the wire, into a store or through a verifier.
/// Interpolating a `Secret` (`"Bearer \(token)"`) does not compile, as it would write
/// `<redacted>` where the value was meant: call ``reveal()``, or `String(describing:)` to render
/// it redacted on purpose.
///
/// `Codable` as the bare string (`"abc"`, not `{"value":"abc"}`): a stored session or
/// ``ProviderState`` written while these fields were `String`s reads back unchanged, and
/// re-encoding writes the same bytes.
///
/// Equality compares the UTF-8 bytes in time that depends only on the lengths, not on where
/// the first difference is. `Hashable` hashes the value (a hash is not a rendering).
///
/// A string literal is a `Secret` (`let token: Secret = "abc"`), for tests and fixed values.
///
/// Concurrency: an immutable value; `Sendable`. Docs/Security.md, "Redaction".
public struct Secret: Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible,
    CustomReflectable
{
    /// What every rendering of a secret shows: `<redacted>`.
    public static let redactionMarker = "<redacted>"

    /// The value; read only through ``reveal()``.
    private let value: String

    /// Wraps `value`.
    /// - Parameter value: the secret text, kept as it is (no normalization).
    public init(_ value: String) { self.value = value }

    /// Wraps a string literal.
    public init(stringLiteral value: String) { self.value = value }

    /// Decodes the bare string a `String` field of the same name was encoded as.
    /// - Throws: `DecodingError` when the value is not a string.
    public init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the bare string, exactly as a `String` field would be.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    /// The secret's text, for the places that must send, store or verify it. No copy beyond
    /// the `String` itself (which shares its storage). Never log or print the result.
    @inline(__always)
    public func reveal() -> String { value }

    /// Whether the secret is the empty string.
    public var isEmpty: Bool { value.isEmpty }

    /// The value's length in UTF-8 bytes (not secret: a length is shown by sizes in logs anyway).
    public var utf8Count: Int { value.utf8.count }

    /// Compares the UTF-8 bytes in time that depends only on the two lengths.
    public static func == (lhs: Secret, rhs: Secret) -> Bool {
        let left = lhs.value.utf8
        let right = rhs.value.utf8
        var difference: UInt8 = left.count == right.count ? 0 : 1
        var rightIndex = right.startIndex
        for byte in left {
            let other: UInt8
            if rightIndex != right.endIndex {
                other = right[rightIndex]
                right.formIndex(after: &rightIndex)
            } else {
                other = ~byte
            }
            difference |= byte ^ other
        }
        return difference == 0
    }

    /// Hashes the value.
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }

    /// `<redacted>`; also what `String(reflecting:)`, `debugPrint` and a playground show, as
    /// they fall back to `description` for a type that is only `CustomStringConvertible`.
    public var description: String { Self.redactionMarker }

    /// A mirror with no children: `dump` and a debugger's variables view show `<redacted>`.
    public var customMirror: Mirror { Mirror(self, children: [:], displayStyle: .struct) }
}
