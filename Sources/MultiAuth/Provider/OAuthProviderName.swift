/// An OAuth / social identity provider name used with ``SignInRequest/oauth(_:options:)``.
public struct OAuthProviderName: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The string form, lower case, e.g. `"google"`.
    public let rawValue: String
    /// Creates a name from its string form (lower-cased).
    public init(rawValue: String) { self.rawValue = rawValue.lowercased() }
    /// Creates a name from a literal.
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    /// The string form.
    public var description: String { rawValue }

    /// Google.
    public static let google: OAuthProviderName = "google"
    /// Sign in with Apple.
    public static let apple: OAuthProviderName = "apple"
    /// WhatsApp login (OTPLESS).
    public static let whatsapp: OAuthProviderName = "whatsapp"
    /// GitHub.
    public static let github: OAuthProviderName = "github"
}
