/// The identity of a provider: an open, string-backed value.
///
/// Two providers registered with one `AuthClient` must have different ids; the id keys the
/// session store, so keep it stable across releases.
public struct AuthProviderID: RawRepresentable, Hashable, Sendable, Codable, Comparable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    /// The stable string form, e.g. `"otpless"`.
    public let rawValue: String
    /// Creates an id from its string form.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates an id from its string form.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// Creates an id from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The string form.
    public var description: String { rawValue }
    /// Orders ids by their string form.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

}
