import Foundation
import MultiAuth

/// How an ``OTPlessProvider`` reaches its backend and which channels it may use.
///
/// The app id is public (OTPLESS client calls carry no secret, providers.md §1.12). The
/// channel policy is checked when the provider is built (case B29): a preferred channel the
/// merchant did not enable is a configuration error then, not at send time.
public struct OTPlessConfiguration: Sendable, Hashable {
    /// The merchant's public app id, e.g. `"ABCD1234"`; its lower-cased form names the deep-link
    /// scheme `otpless.{appid}` (providers.md §1.9).
    public var appID: String
    /// The headless client API, `https://user-auth.otpless.app` by default (providers.md §1.1).
    public var baseURL: URL
    /// The session API used by sign-out, `https://api.otpless.com` by default (providers.md §1.2 #10).
    public var sessionBaseURL: URL
    /// The SmartAuth order used when the system chooses the channel, e.g. `[.whatsapp, .sms]`;
    /// empty lets the merchant's dashboard order apply. Sent in `clientMetaData.channels`
    /// ([ASSUMPTION]: the headless wire has no documented field for it; providers.md §1.8).
    public var preferredChannels: [DeliveryChannel]
    /// The delivery channels the merchant enabled (`sms`, `whatsapp`, `email`, …) and OAuth
    /// channel names (`google`, `whatsapp`, …) when known at build time. Known channels make the
    /// 4003 check local and the policy check happen in `init`; `nil` reads the merchant config
    /// once (providers.md §1.4).
    public var enabledChannels: Set<DeliveryChannel>?
    /// Whether the device has WhatsApp installed (`hasWhatsapp` on the wire).
    public var hasWhatsApp: Bool
    /// The bundle id sent as `packageName` / `package`.
    public var packageName: String
    /// A SmartAuth template id (`tid` in `clientMetaData`), if the merchant uses one.
    public var smartAuthTemplateID: String?

    /// The default headless host, `https://user-auth.otpless.app`.
    public static let defaultBaseURL = URL(string: "https://user-auth.otpless.app")!
    /// The default session host, `https://api.otpless.com`.
    public static let defaultSessionBaseURL = URL(string: "https://api.otpless.com")!

    /// Creates a configuration.
    /// - Parameters:
    ///   - appID: The public app id (non-empty, letters and digits).
    ///   - baseURL: The headless API base URL.
    ///   - sessionBaseURL: The session API base URL.
    ///   - preferredChannels: SmartAuth order for system-chosen channels.
    ///   - enabledChannels: The merchant's enabled channels, when known.
    ///   - hasWhatsApp: Whether WhatsApp is installed.
    ///   - packageName: The app's bundle id.
    ///   - smartAuthTemplateID: A SmartAuth template id.
    public init(
        appID: String, baseURL: URL = OTPlessConfiguration.defaultBaseURL,
        sessionBaseURL: URL = OTPlessConfiguration.defaultSessionBaseURL, preferredChannels: [DeliveryChannel] = [],
        enabledChannels: Set<DeliveryChannel>? = nil, hasWhatsApp: Bool = true, packageName: String = "com.example.app",
        smartAuthTemplateID: String? = nil
    ) {
        self.appID = appID
        self.baseURL = baseURL
        self.sessionBaseURL = sessionBaseURL
        self.preferredChannels = preferredChannels
        self.enabledChannels = enabledChannels
        self.hasWhatsApp = hasWhatsApp
        self.packageName = packageName
        self.smartAuthTemplateID = smartAuthTemplateID
    }

    /// The deep-link scheme, `otpless.` followed by the lower-cased app id (providers.md §1.9).
    public var deepLinkScheme: String { "otpless." + appID.lowercased() }

    /// The default `loginUri`, `otpless.{appid-lowercased}://otpless` (providers.md §1.2).
    public var loginURI: String { deepLinkScheme + "://otpless" }

    /// Checks the configuration (case B29).
    /// - Throws: `AuthError` `.configuration` when the app id is empty or not alphanumeric, a
    ///   preferred channel is not a delivery channel OTPLESS knows, or a preferred channel is
    ///   missing from ``enabledChannels`` (providerCode `4003`).
    public func validate() throws {
        guard !appID.isEmpty, appID.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) && $0.isASCII }) else {
            throw AuthError(.configuration, "the OTPLESS app id must be non-empty ASCII letters and digits", provider: .otpless)
        }
        for channel in preferredChannels {
            guard OTPlessChannel.deliveryMode(for: channel) != nil else {
                throw AuthError(.configuration, "preferred channel '\(channel)' is not an OTPLESS delivery channel", provider: .otpless)
            }
            if let enabledChannels, !enabledChannels.contains(channel) {
                throw AuthError(
                    .configuration, "the channel policy needs '\(channel)', which the merchant has not enabled",
                    provider: .otpless, providerCode: "4003")
            }
        }
    }
}
