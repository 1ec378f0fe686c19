/// A channel a one-time code or link is delivered on: open, string-backed.
public struct DeliveryChannel: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The string form, lower case, e.g. `"whatsapp"`.
    public let rawValue: String
    /// Creates a channel from its string form (lower-cased).
    public init(rawValue: String) { self.rawValue = rawValue.lowercased() }
    /// Creates a channel from a literal.
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    /// The string form.
    public var description: String { rawValue }

    /// SMS text message.
    public static let sms: DeliveryChannel = "sms"
    /// WhatsApp message.
    public static let whatsapp: DeliveryChannel = "whatsapp"
    /// E-mail.
    public static let email: DeliveryChannel = "email"
    /// Voice call.
    public static let voice: DeliveryChannel = "voice"
    /// Silent network authentication through the mobile carrier (no code is shown).
    public static let silentNetworkAuth: DeliveryChannel = "sna"
    /// An authenticator app (TOTP); nothing is delivered.
    public static let authenticatorApp: DeliveryChannel = "authenticator"
}
