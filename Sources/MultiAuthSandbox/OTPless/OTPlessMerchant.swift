import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

/// The merchant set-up an ``OTPlessBackend`` emulates: app id, server credentials, the channels
/// enabled on the dashboard, the auth type per identifier, the SmartAuth timing and the
/// session lifetime (Docs/Providers/OTPless.md, "Sandbox").
public struct OTPlessMerchant: Sendable, Hashable {
    /// How the server authenticates an identifier (the intent answer's `quantumLeap.channel`).
    public enum AuthType: String, Sendable, Hashable {
        /// A one-time code.
        case otp = "OTP"
        /// A magic link only.
        case magicLink = "MAGICLINK"
        /// A code and a link carrying the same grant.
        case otpLink = "OTP_LINK"
    }

    /// The public app id, e.g. `"SANDBOXAPP"`.
    public var appID: String
    /// The server API client id (validate token, id-token `aud`).
    public var clientID: String
    /// The server API client secret (every rendering shows `<redacted>`).
    public var clientSecret: Secret
    /// Phone delivery channels in SmartAuth order, e.g. `[.whatsapp, .sms]`; empty disables phone
    /// OTP (with ``silentAuthEnabled``: an SNA-only merchant).
    public var phoneChannels: [DeliveryChannel]
    /// Whether e-mail delivery is enabled.
    public var emailEnabled: Bool
    /// OAuth (`BUTTON`) channels enabled, e.g. `["google", "whatsapp"]`.
    public var oauthChannels: [OAuthProviderName]
    /// The auth type for phone numbers.
    public var phoneAuthType: AuthType
    /// The auth type for e-mail addresses.
    public var emailAuthType: AuthType
    /// Whether silent network auth is enabled (`merchant.config.isSilentAuthEnabled`).
    public var silentAuthEnabled: Bool
    /// Whether MFA is enabled (the headless SDK refuses it with 4001).
    public var mfaEnabled: Bool
    /// The default OTP length, 4 or 6.
    public var otpLength: Int
    /// A guess: the wait before SmartAuth falls back to the next channel when the code was not
    /// verified (an undeliverable channel falls back at once).
    public var fallbackDelay: Duration
    /// The lifetime of the session JWTs (`sessionInfo.sessionTokenJWT`) it issues (default 24 h).
    public var sessionLifetime: Duration

    /// Creates a merchant (defaults: app id `SANDBOXAPP`, WhatsApp then SMS, e-mail, Google and
    /// WhatsApp login, OTP, no SNA, 6 digits).
    public init(
        appID: String = "SANDBOXAPP", clientID: String = "sandbox-client", clientSecret: Secret = "sandbox-secret",
        phoneChannels: [DeliveryChannel] = [.whatsapp, .sms], emailEnabled: Bool = true,
        oauthChannels: [OAuthProviderName] = [.google, .whatsapp], phoneAuthType: AuthType = .otp,
        emailAuthType: AuthType = .otp, silentAuthEnabled: Bool = false, mfaEnabled: Bool = false, otpLength: Int = 6,
        fallbackDelay: Duration = .seconds(30), sessionLifetime: Duration = .seconds(86_400)
    ) {
        self.appID = appID
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.phoneChannels = phoneChannels
        self.emailEnabled = emailEnabled
        self.oauthChannels = oauthChannels
        self.phoneAuthType = phoneAuthType
        self.emailAuthType = emailAuthType
        self.silentAuthEnabled = silentAuthEnabled
        self.mfaEnabled = mfaEnabled
        self.otpLength = otpLength
        self.fallbackDelay = fallbackDelay
        self.sessionLifetime = sessionLifetime
    }
}
