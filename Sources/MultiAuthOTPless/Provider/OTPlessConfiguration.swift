import Foundation
import MultiAuth

/// How an ``OTPlessProvider`` reaches its backend and which channels it may use.
///
/// Build it with ``production(appID:packageName:preferredChannels:enabledChannels:hasWhatsApp:smartAuthTemplateID:installationID:)``
/// (the real hosts) or ``sandbox(appID:packageName:preferredChannels:enabledChannels:hasWhatsApp:smartAuthTemplateID:installationID:)``
/// (the reserved `.test` hosts the sandbox's `OTPlessBackend` answers); the memberwise
/// ``init(appID:baseURL:sessionBaseURL:preferredChannels:enabledChannels:hasWhatsApp:packageName:smartAuthTemplateID:installationID:)``
/// stays available for other hosts.
///
/// The app id is public (OTPLESS client calls carry no secret; Docs/Providers/OTPless.md,
/// "Security"). The bundle id (``packageName``) is required: the SDK always sends the app's
/// bundle identifier, so an empty one is a configuration error, never a made-up default. The
/// channel policy is checked when the provider is built (Docs/Cases.md, B29): a preferred channel the
/// merchant did not enable is a configuration error then, not at send time.
public struct OTPlessConfiguration: Sendable, Hashable {
    /// The merchant's public app id, e.g. `"ABCD1234"`; its lower-cased form names the deep-link
    /// scheme `otpless.{appid}` (Docs/Providers/OTPless.md, "Deep links").
    public var appID: String
    /// The headless client API, `https://user-auth.otpless.app` in production.
    public var baseURL: URL
    /// The session API used by refresh and sign-out, `https://api.otpless.com` in production.
    public var sessionBaseURL: URL
    /// The SmartAuth order you expect when the system chooses the channel, e.g.
    /// `[.whatsapp, .sms]`.
    ///
    /// **Production: OTPLESS does not take this order from the app.** The real SDK sends no
    /// channel order on the wire (one channel is forced with `deliveryMethod`, nothing else);
    /// the order is the one set on the OTPLESS dashboard (Docs/Providers/OTPless.md,
    /// "Channels"). Against the real hosts the adapter uses this list locally only: the policy
    /// check (a channel missing from ``enabledChannels`` is `.configuration`, providerCode
    /// `4003`) and the channel assumed until the server names one.
    ///
    /// **Sandbox**: configurations built with `.sandbox(…)` also send the order as
    /// `clientMetaData.channels`, a key only the sandbox's `OTPlessBackend` reads, so demos and
    /// tests can choose the order the dashboard would.
    public var preferredChannels: [DeliveryChannel]
    /// The delivery channels the merchant enabled (`sms`, `whatsapp`, `email`, …) and OAuth
    /// channel names (`google`, `whatsapp`, …) when known at build time. Known channels make the
    /// 4003 check local and the policy check happen in `init`; `nil` reads the merchant config
    /// once.
    public var enabledChannels: Set<DeliveryChannel>?
    /// Whether the device has WhatsApp installed (`hasWhatsapp` on the wire).
    public var hasWhatsApp: Bool
    /// The app's bundle identifier (`Bundle.main.bundleIdentifier` on Apple platforms), sent as
    /// `packageName` and `package`. Required: empty is a `.configuration` error.
    public var packageName: String
    /// A SmartAuth template id (`tid` in `clientMetaData`), if the merchant uses one.
    public var smartAuthTemplateID: String?
    /// The installation id sent as `inId`. The SDK makes one per installation and keeps it;
    /// pass the one your app persists, or `nil` for an id derived from ``appID`` and
    /// ``packageName`` (stable for this configuration).
    public var installationID: String?
    /// Whether the intent carries ``preferredChannels`` as `clientMetaData.channels`: set by
    /// the `.sandbox(…)` constructors only, because only the sandbox reads that key (the real
    /// SDK never sends it; Docs/Providers/OTPless.md, "Channels").
    var sendsChannelOrderToSandbox = false

    /// The production headless host, `https://user-auth.otpless.app`.
    public static let productionBaseURL = URL(string: "https://user-auth.otpless.app")!
    /// The production session host, `https://api.otpless.com`.
    public static let productionSessionBaseURL = URL(string: "https://api.otpless.com")!
    /// The sandbox headless host, `https://user-auth.otpless.test` (a reserved `.test` name).
    public static let sandboxBaseURL = URL(string: "https://user-auth.otpless.test")!
    /// The sandbox session host, `https://api.otpless.test`.
    public static let sandboxSessionBaseURL = URL(string: "https://api.otpless.test")!
    /// The sandbox merchant's app id, `SANDBOXAPP`.
    public static let sandboxAppID = "SANDBOXAPP"
    /// The bundle id the sandbox configuration sends, `com.multiauth.sandbox`.
    public static let sandboxPackageName = "com.multiauth.sandbox"
    /// The default headless host (``productionBaseURL``).
    public static let defaultBaseURL = productionBaseURL
    /// The default session host (``productionSessionBaseURL``).
    public static let defaultSessionBaseURL = productionSessionBaseURL

    /// Creates a configuration for any hosts.
    /// - Parameters:
    ///   - appID: The public app id (non-empty, letters and digits).
    ///   - baseURL: The headless API base URL.
    ///   - sessionBaseURL: The session API base URL.
    ///   - preferredChannels: The SmartAuth order you expect (checked locally; sent to no
    ///     server by this initializer, see ``preferredChannels``).
    ///   - enabledChannels: The merchant's enabled channels, when known.
    ///   - hasWhatsApp: Whether WhatsApp is installed.
    ///   - packageName: The app's bundle id; required (``validate()`` refuses an empty one).
    ///   - smartAuthTemplateID: A SmartAuth template id.
    ///   - installationID: The persisted installation id, or `nil` to derive one.
    public init(
        appID: String, baseURL: URL = OTPlessConfiguration.defaultBaseURL,
        sessionBaseURL: URL = OTPlessConfiguration.defaultSessionBaseURL, preferredChannels: [DeliveryChannel] = [],
        enabledChannels: Set<DeliveryChannel>? = nil, hasWhatsApp: Bool = true, packageName: String = "",
        smartAuthTemplateID: String? = nil, installationID: String? = nil
    ) {
        self.appID = appID
        self.baseURL = baseURL
        self.sessionBaseURL = sessionBaseURL
        self.preferredChannels = preferredChannels
        self.enabledChannels = enabledChannels
        self.hasWhatsApp = hasWhatsApp
        self.packageName = packageName
        self.smartAuthTemplateID = smartAuthTemplateID
        self.installationID = installationID
    }

    /// A configuration for the real OTPLESS service: headless API `https://user-auth.otpless.app`,
    /// session API `https://api.otpless.com`.
    /// - Parameters:
    ///   - appID: The merchant's public app id.
    ///   - packageName: The app's bundle identifier (what the SDK sends; required).
    ///   - preferredChannels: The SmartAuth order you expect; checked locally, never sent: the
    ///     real order is the OTPLESS dashboard's (see ``preferredChannels``).
    ///   - enabledChannels: The merchant's enabled channels, when known.
    ///   - hasWhatsApp: Whether WhatsApp is installed.
    ///   - smartAuthTemplateID: A SmartAuth template id.
    ///   - installationID: The persisted installation id, or `nil` to derive one.
    /// - Returns: The configuration; ``validate()`` runs when the provider is built.
    public static func production(
        appID: String, packageName: String, preferredChannels: [DeliveryChannel] = [],
        enabledChannels: Set<DeliveryChannel>? = nil, hasWhatsApp: Bool = true, smartAuthTemplateID: String? = nil,
        installationID: String? = nil
    ) -> OTPlessConfiguration {
        OTPlessConfiguration(
            appID: appID, baseURL: productionBaseURL, sessionBaseURL: productionSessionBaseURL,
            preferredChannels: preferredChannels, enabledChannels: enabledChannels, hasWhatsApp: hasWhatsApp,
            packageName: packageName, smartAuthTemplateID: smartAuthTemplateID, installationID: installationID)
    }

    /// A configuration for the sandbox's emulated OTPLESS server: `https://user-auth.otpless.test`
    /// and `https://api.otpless.test`, the hosts `OTPlessBackend` registers on.
    /// - Parameters:
    ///   - appID: The app id of the emulated merchant (default ``sandboxAppID``).
    ///   - packageName: The bundle id sent (default ``sandboxPackageName``).
    ///   - preferredChannels: SmartAuth order for system-chosen channels, sent to the sandbox
    ///     as `clientMetaData.channels` (see ``preferredChannels``).
    ///   - enabledChannels: The merchant's enabled channels, when known.
    ///   - hasWhatsApp: Whether WhatsApp is installed.
    ///   - smartAuthTemplateID: A SmartAuth template id.
    ///   - installationID: The installation id, or `nil` to derive one.
    /// - Returns: The configuration.
    public static func sandbox(
        appID: String = sandboxAppID, packageName: String = sandboxPackageName,
        preferredChannels: [DeliveryChannel] = [],
        enabledChannels: Set<DeliveryChannel>? = nil, hasWhatsApp: Bool = true, smartAuthTemplateID: String? = nil,
        installationID: String? = nil
    ) -> OTPlessConfiguration {
        var configuration = OTPlessConfiguration(
            appID: appID, baseURL: sandboxBaseURL, sessionBaseURL: sandboxSessionBaseURL,
            preferredChannels: preferredChannels, enabledChannels: enabledChannels, hasWhatsApp: hasWhatsApp,
            packageName: packageName, smartAuthTemplateID: smartAuthTemplateID, installationID: installationID)
        configuration.sendsChannelOrderToSandbox = true
        return configuration
    }

    /// A configuration for the emulated OTPLESS server served by `multiauth serve` (or a
    /// `SandboxServer`) at `baseURL`: `<baseURL>/user-auth.otpless.test` and
    /// `<baseURL>/api.otpless.test`, the server's host-prefixed routes to `OTPlessBackend`
    /// (Docs/Emulator.md, "Pointing a provider at the server").
    /// - Parameters:
    ///   - baseURL: Where the server listens, e.g. `http://127.0.0.1:4010`.
    ///   - appID: The app id of the emulated merchant (default ``sandboxAppID``).
    ///   - packageName: The bundle id sent (default ``sandboxPackageName``).
    ///   - preferredChannels: SmartAuth order for system-chosen channels, sent to the sandbox
    ///     as `clientMetaData.channels` (see ``preferredChannels``).
    ///   - enabledChannels: The merchant's enabled channels, when known.
    ///   - hasWhatsApp: Whether WhatsApp is installed.
    ///   - smartAuthTemplateID: A SmartAuth template id.
    ///   - installationID: The installation id, or `nil` to derive one.
    /// - Returns: The configuration.
    public static func sandbox(
        baseURL: URL, appID: String = sandboxAppID, packageName: String = sandboxPackageName,
        preferredChannels: [DeliveryChannel] = [], enabledChannels: Set<DeliveryChannel>? = nil,
        hasWhatsApp: Bool = true, smartAuthTemplateID: String? = nil, installationID: String? = nil
    ) -> OTPlessConfiguration {
        var configuration = OTPlessConfiguration(
            appID: appID, baseURL: baseURL.appending(path: sandboxBaseURL.host!),
            sessionBaseURL: baseURL.appending(path: sandboxSessionBaseURL.host!), preferredChannels: preferredChannels,
            enabledChannels: enabledChannels, hasWhatsApp: hasWhatsApp, packageName: packageName,
            smartAuthTemplateID: smartAuthTemplateID, installationID: installationID)
        configuration.sendsChannelOrderToSandbox = true
        return configuration
    }

    /// The deep-link scheme, `otpless.` followed by the lower-cased app id.
    public var deepLinkScheme: String { "otpless." + appID.lowercased() }

    /// The default `loginUri`, `otpless.{appid-lowercased}://otpless`.
    public var loginURI: String { deepLinkScheme + "://otpless" }

    /// Checks the configuration (Docs/Cases.md, B29).
    /// - Throws: `AuthError` `.configuration` when the app id is empty or not alphanumeric, the
    ///   bundle id (``packageName``) is empty or contains whitespace, a preferred channel is not
    ///   a delivery channel OTPLESS knows, or a preferred channel is missing from
    ///   ``enabledChannels`` (providerCode `4003`).
    public func validate() throws {
        guard !appID.isEmpty, appID.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) && $0.isASCII })
        else {
            throw AuthError(
                .configuration, "the OTPLESS app id must be non-empty ASCII letters and digits", provider: .otpless)
        }
        let trimmed = packageName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed == packageName, !packageName.contains(where: \.isWhitespace) else {
            throw AuthError(
                .configuration,
                "set OTPlessConfiguration.packageName to your app's bundle identifier (Bundle.main.bundleIdentifier); OTPLESS receives it with every request",
                provider: .otpless)
        }
        for channel in preferredChannels {
            guard OTPlessChannel.deliveryMode(for: channel) != nil else {
                throw AuthError(
                    .configuration, "preferred channel '\(channel)' is not an OTPLESS delivery channel",
                    provider: .otpless)
            }
            if let enabledChannels, !enabledChannels.contains(channel) {
                throw AuthError(
                    .configuration, "the channel policy needs '\(channel)', which the merchant has not enabled",
                    provider: .otpless, providerCode: "4003")
            }
        }
    }
}
