/// What the user asked to sign in with: an identity plus optional channel and provider options.
///
/// Build one with ``phone(_:channel:options:)``, ``email(_:channel:options:)-(EmailAddress,_,_)`` or
/// ``oauth(_:options:)``. Identities are parsed types, so an invalid phone number or e-mail is
/// rejected when the request is built, before any network call.
///
/// `description` is a masked summary; the mirror is Swift's default one, which shows the parsed
/// identity masked and the options' values as `<redacted>` (they are kept as ``Secret``s: a
/// value may be personal data, e.g. a name, or a token; Docs/Security.md, "Redaction").
public struct SignInRequest: Sendable, Hashable, CustomStringConvertible {
    /// The identity to sign in.
    public enum Identity: Sendable, Hashable {
        /// A phone number (E.164).
        case phone(PhoneNumber)
        /// An e-mail address.
        case email(EmailAddress)
        /// An OAuth / social login.
        case oauth(OAuthProviderName)
        /// A passkey the user picks on the device (a discoverable credential, W3C WebAuthn
        /// Level 3 §6.2.2): no account name is typed; a provider that offers passkeys answers
        /// with a ``Challenge/Kind/passkey(_:)`` assertion ceremony.
        case passkey
    }

    /// The identity.
    public var identity: Identity
    /// The delivery channel the user picked explicitly; `nil` lets the provider choose (and
    /// fall back automatically, Docs/Cases.md, B29).
    public var channel: DeliveryChannel?
    /// Provider-specific options (e.g. `"otpLength": "4"`), documented by each provider; read
    /// and written as plain strings, kept as ``Secret``s so that no rendering shows a value.
    public var options: [String: String] {
        get { storedOptions.mapValues { $0.reveal() } }
        set { storedOptions = newValue.mapValues { Secret($0) } }
    }
    /// The options as stored.
    private var storedOptions: [String: Secret]

    /// Creates a request.
    public init(identity: Identity, channel: DeliveryChannel? = nil, options: [String: String] = [:]) {
        self.identity = identity
        self.channel = channel
        self.storedOptions = options.mapValues { Secret($0) }
    }

    /// Sign in with a phone number.
    public static func phone(_ number: PhoneNumber, channel: DeliveryChannel? = nil, options: [String: String] = [:])
        -> SignInRequest
    {
        SignInRequest(identity: .phone(number), channel: channel, options: options)
    }

    /// Sign in with a phone number typed by the user.
    /// - Parameters:
    ///   - input: The number as typed.
    ///   - defaultRegion: ISO 3166-1 alpha-2 region for national input.
    ///   - channel: The delivery channel the user picked, or `nil` to let the provider choose.
    ///   - options: Provider-specific options (e.g. a captcha token).
    /// - Throws: `AuthError` `.invalidInput` (see ``PhoneNumber/init(_:defaultRegion:)``).
    public static func phone(
        _ input: String, defaultRegion: String? = nil, channel: DeliveryChannel? = nil, options: [String: String] = [:]
    ) throws -> SignInRequest {
        .phone(try PhoneNumber(input, defaultRegion: defaultRegion), channel: channel, options: options)
    }

    /// Sign in with an e-mail address.
    public static func email(_ address: EmailAddress, channel: DeliveryChannel? = nil, options: [String: String] = [:])
        -> SignInRequest
    {
        SignInRequest(identity: .email(address), channel: channel, options: options)
    }

    /// Sign in with an e-mail address typed by the user.
    /// - Throws: `AuthError` `.invalidInput` with reason `.invalidEmail`.
    public static func email(_ input: String, channel: DeliveryChannel? = nil, options: [String: String] = [:]) throws
        -> SignInRequest
    {
        .email(try EmailAddress(input), channel: channel, options: options)
    }

    /// Sign in through an OAuth / social provider.
    public static func oauth(_ name: OAuthProviderName, options: [String: String] = [:]) -> SignInRequest {
        SignInRequest(identity: .oauth(name), options: options)
    }

    /// Sign in with a passkey the user picks on the device (Docs/Passkeys.md).
    public static func passkey(options: [String: String] = [:]) -> SignInRequest {
        SignInRequest(identity: .passkey, options: options)
    }

    /// A masked summary, e.g. `phone(+91 •••••• 3210, channel: whatsapp)`.
    public var description: String {
        let id: String
        switch identity {
        case .phone(let number): id = "phone(\(number.masked)"
        case .email(let email): id = "email(\(email.masked)"
        case .oauth(let name): id = "oauth(\(name)"
        case .passkey: id = "passkey("
        }
        return id + (channel.map { ", channel: \($0))" } ?? ")")
    }
}
