import Foundation
import MultiAuth

/// Everything a ``TruecallerProvider`` needs: the partner app key, the app link, the base URLs
/// and the installation's identity.
///
/// Build one with ``production(appKey:appLink:deviceID:otpRegions:)`` (the hosts TrueSDK
/// 0.1.8 calls) or ``sandbox(appKey:appLink:deviceID:otpRegions:)`` (the same host layout on
/// reserved `.test` names, served by `TruecallerBackend` of `MultiAuthSandbox`); switching
/// between them is the only change an app makes (Docs/Providers/Truecaller.md).
public struct TruecallerConfiguration: Sendable, Hashable {
    /// The partner app key, sent as the `appKey` header. Public (it ships inside the app);
    /// must not be blank. A ``/MultiAuth/Secret``: renderings show `<redacted>`; read it with
    /// `reveal()`.
    public var appKey: Secret
    /// The app link (universal link) registered with Truecaller, sent as the `appLink` header.
    public var appLink: URL
    /// Base of `POST /v1/otp/installation/create` and `/verify`. Default `https://api4.truecaller.com`.
    public var otpBaseURL: URL
    /// Base of `/v1/profile` for EU/EEA numbers. Default `https://outline-eu.truecaller.com`.
    public var profileBaseURLEU: URL
    /// Base of `/v1/profile` for every other number. Default `https://outline-noneu.truecaller.com`.
    public var profileBaseURLNonEU: URL
    /// The public key endpoint (a JSON array of `{key, keyType}`). Default
    /// `https://api4.truecaller.com/v1/key` (Truecaller's server-side validation docs).
    public var keyEndpoint: URL
    /// Upper-case ISO 3166-1 alpha-2 codes whose profile calls go to ``profileBaseURLEU``.
    /// Default ``defaultEURegions``: TrueSDK's 44 codes (Docs/Providers/Truecaller.md,
    /// "Configuration").
    public var euRegions: Set<String>
    /// Regions the OTP flow accepts (upper-case ISO codes); `nil` accepts any region.
    /// Default `["IN"]`: the non-Truecaller OTP flow is India only (Truecaller's iOS docs).
    public var otpRegions: Set<String>?
    /// The installation id sent as `deviceId` and `simSerial` (the SDK sends the IDFV). The
    /// backend answers `verifiedBefore` (an access token without an OTP) for a number already
    /// verified on this installation, so keep it stable across launches. A ``/MultiAuth/Secret``
    /// for that reason: renderings show `<redacted>`; read it with `reveal()`.
    public var deviceID: Secret
    /// The app version sent as `version` (the SDK sends `CFBundleVersion`).
    public var appVersion: String
    /// The OTP length in digits used for the challenge. Default 6: [ASSUMPTION] (the real
    /// length is not published; Docs/Providers/Truecaller.md).
    public var otpLength: Int
    /// The oldest one-tap profile accepted, by its `requestTime`. Default 10 minutes:
    /// [ASSUMPTION] (Docs/Providers/Truecaller.md).
    public var maximumProfileAge: Duration
    /// The app's bundle id, used to check a one-tap payload's `verifier` (HMAC-SHA256 of the
    /// bundle id keyed with ``appKey``) when the payload carries one; `nil` skips that check.
    /// [ASSUMPTION] (Android docs describe `verifier`; whether iOS payloads carry it is unknown).
    public var bundleID: String?
    /// The app's name, sent as `appName` in the one-tap profile request (the SDK sends
    /// `CFBundleName`); `nil` sends none (Docs/Providers/Truecaller.md, "One-tap hand-off").
    public var appName: String?
    /// Where the one-tap profile request goes: `https://www.truecaller.com/userProfile`
    /// (TrueSDK's `kTCTruecallerAppURL`), a universal link the system hands to the Truecaller
    /// app. The sandbox uses the same URL: nothing is fetched from it, the emulated Truecaller
    /// app reads it.
    public var oneTapURL: URL
    /// The `titleType` of the one-tap request: the heading the Truecaller app shows (TrueSDK's
    /// `TitleType`: 0 default, 1 "Log in to", 2 "Sign up with", 3 "Sign in to", 4 "Verify with",
    /// 5 "Get started with", 6 "Register with"). Default 0; outside 0...6 is `.configuration`.
    public var oneTapTitleType: Int
    /// The `locale` of the one-tap request. Default `"en_US"` (TrueSDK's default); must not be
    /// blank.
    public var oneTapLocale: String

    /// The production OTP host, `https://api4.truecaller.com`.
    public static let productionOTPBaseURL = URL(string: "https://api4.truecaller.com")!
    /// The production EU profile host, `https://outline-eu.truecaller.com`.
    public static let productionProfileBaseURLEU = URL(string: "https://outline-eu.truecaller.com")!
    /// The production non-EU profile host, `https://outline-noneu.truecaller.com`.
    public static let productionProfileBaseURLNonEU = URL(string: "https://outline-noneu.truecaller.com")!
    /// The production key endpoint, `https://api4.truecaller.com/v1/key`.
    public static let productionKeyEndpoint = URL(string: "https://api4.truecaller.com/v1/key")!
    /// The sandbox OTP host, `https://api4.truecaller.test` (also serves `/v1/key`).
    public static let sandboxOTPBaseURL = URL(string: "https://api4.truecaller.test")!
    /// The sandbox EU profile host, `https://outline-eu.truecaller.test`.
    public static let sandboxProfileBaseURLEU = URL(string: "https://outline-eu.truecaller.test")!
    /// The sandbox non-EU profile host, `https://outline-noneu.truecaller.test`.
    public static let sandboxProfileBaseURLNonEU = URL(string: "https://outline-noneu.truecaller.test")!
    /// The app key `TruecallerBackend` accepts by default in the sandbox (a fixed demo value).
    public static let sandboxAppKey = "sandbox-app-key"
    /// The app link used by ``sandbox(appKey:appLink:deviceID:otpRegions:)`` by default.
    public static let sandboxAppLink = URL(string: "https://app.example.test/truecaller")!
    /// The one-tap hand-off URL, `https://www.truecaller.com/userProfile` (TrueSDK's
    /// `kTCTruecallerAppURL`).
    public static let defaultOneTapURL = URL(string: "https://www.truecaller.com/userProfile")!
    /// The 44 upper-case codes TrueSDK sends to the EU profile host (Docs/Providers/Truecaller.md,
    /// "Configuration"): the EU member states, Iceland, Liechtenstein, Norway, Switzerland, the
    /// United Kingdom (`GB` and TrueSDK's `UK`), Andorra, the Faroe Islands, Gibraltar,
    /// Guernsey, the Isle of Man, Jersey, Monaco, San Marino, Svalbard and Jan Mayen, the
    /// Vatican and the Åland Islands. The sandbox's backend reads the same list.
    public static let defaultEURegions: Set<String> = TruecallerProfileRegions.europe

    /// Creates a configuration for the production hosts.
    /// - Parameters:
    ///   - appKey: The partner app key.
    ///   - appLink: The registered app link.
    ///   - deviceID: A stable installation id (IDFV on iOS); a new random UUID by default,
    ///     which makes every launch a new installation.
    ///   - otpRegions: Regions the OTP flow accepts; `["IN"]` by default, `nil` for any.
    public init(appKey: String, appLink: URL, deviceID: String = UUID().uuidString, otpRegions: Set<String>? = ["IN"]) {
        self.appKey = Secret(appKey)
        self.appLink = appLink
        self.otpBaseURL = Self.productionOTPBaseURL
        self.profileBaseURLEU = Self.productionProfileBaseURLEU
        self.profileBaseURLNonEU = Self.productionProfileBaseURLNonEU
        self.keyEndpoint = Self.productionKeyEndpoint
        self.euRegions = Self.defaultEURegions
        self.otpRegions = otpRegions
        self.deviceID = Secret(deviceID)
        self.appVersion = "1"
        self.otpLength = 6
        self.maximumProfileAge = .seconds(600)
        self.bundleID = nil
        self.appName = nil
        self.oneTapURL = Self.defaultOneTapURL
        self.oneTapTitleType = 0
        self.oneTapLocale = "en_US"
    }

    /// The configuration for Truecaller's production hosts.
    /// - Parameters:
    ///   - appKey: The partner app key.
    ///   - appLink: The registered app link.
    ///   - deviceID: A stable installation id (IDFV on iOS): a number verified once on this
    ///     installation is answered `verifiedBefore` afterwards.
    ///   - otpRegions: Regions the OTP flow accepts; `["IN"]` by default, `nil` for any.
    /// - Returns: A validated configuration.
    /// - Throws: `AuthError` `.configuration` (provider code `"1"`) for a blank app key.
    public static func production(
        appKey: String, appLink: URL, deviceID: String, otpRegions: Set<String>? = ["IN"]
    ) throws -> TruecallerConfiguration {
        let configuration = TruecallerConfiguration(
            appKey: appKey, appLink: appLink, deviceID: deviceID, otpRegions: otpRegions)
        try configuration.validate()
        return configuration
    }

    /// The configuration for the emulated backend: the production host layout (OTP and key on
    /// `api4`, profiles on `outline-eu` / `outline-noneu`) on reserved `.test` names, which
    /// `TruecallerBackend.install(in:)` registers.
    /// - Parameters:
    ///   - appKey: The partner app key (default ``sandboxAppKey``).
    ///   - appLink: The app link (default ``sandboxAppLink``).
    ///   - deviceID: The installation id (default `"sandbox-device"`).
    ///   - otpRegions: Regions the OTP flow accepts; `["IN"]` by default, `nil` for any.
    /// - Returns: A validated configuration.
    /// - Throws: `AuthError` `.configuration` (provider code `"1"`) for a blank app key.
    public static func sandbox(
        appKey: String = sandboxAppKey, appLink: URL = sandboxAppLink, deviceID: String = "sandbox-device",
        otpRegions: Set<String>? = ["IN"]
    ) throws -> TruecallerConfiguration {
        var configuration = TruecallerConfiguration(
            appKey: appKey, appLink: appLink, deviceID: deviceID, otpRegions: otpRegions)
        configuration.otpBaseURL = sandboxOTPBaseURL
        configuration.profileBaseURLEU = sandboxProfileBaseURLEU
        configuration.profileBaseURLNonEU = sandboxProfileBaseURLNonEU
        configuration.keyEndpoint = sandboxOTPBaseURL.appending(path: "v1/key")
        try configuration.validate()
        return configuration
    }

    /// The configuration for the emulated backend served by `multiauth serve` (or a
    /// `SandboxServer`) at `baseURL`: the production host layout as host-prefixed paths,
    /// `<baseURL>/api4.truecaller.test` (OTP and key), `<baseURL>/outline-eu.truecaller.test` and
    /// `<baseURL>/outline-noneu.truecaller.test` (profiles) (Docs/Emulator.md, "Pointing a
    /// provider at the server").
    /// - Parameters:
    ///   - baseURL: Where the server listens, e.g. `http://127.0.0.1:4010`.
    ///   - appKey: The partner app key (default ``sandboxAppKey``).
    ///   - appLink: The app link (default ``sandboxAppLink``).
    ///   - deviceID: The installation id (default `"sandbox-device"`).
    ///   - otpRegions: Regions the OTP flow accepts; `["IN"]` by default, `nil` for any.
    /// - Returns: A validated configuration.
    /// - Throws: `AuthError` `.configuration` for a blank app key (provider code `"1"`) or a
    ///   `baseURL` that is not an `http` or `https` URL with a host.
    public static func sandbox(
        baseURL: URL, appKey: String = sandboxAppKey, appLink: URL = sandboxAppLink,
        deviceID: String = "sandbox-device",
        otpRegions: Set<String>? = ["IN"]
    ) throws -> TruecallerConfiguration {
        guard let scheme = baseURL.scheme?.lowercased(), ["http", "https"].contains(scheme), baseURL.host != nil else {
            throw AuthError(
                .configuration,
                "the sandbox server URL must be an http or https URL with a host, e.g. http://127.0.0.1:4010",
                provider: .truecaller)
        }
        var configuration = try sandbox(appKey: appKey, appLink: appLink, deviceID: deviceID, otpRegions: otpRegions)
        configuration.otpBaseURL = baseURL.appending(path: sandboxOTPBaseURL.host!)
        configuration.profileBaseURLEU = baseURL.appending(path: sandboxProfileBaseURLEU.host!)
        configuration.profileBaseURLNonEU = baseURL.appending(path: sandboxProfileBaseURLNonEU.host!)
        configuration.keyEndpoint = configuration.otpBaseURL.appending(path: "v1/key")
        return configuration
    }

    /// Creates a configuration whose OTP, profile and key calls all go to `baseURL` (one
    /// emulated host; ``sandbox(appKey:appLink:deviceID:otpRegions:)`` keeps the real layout).
    /// - Parameters:
    ///   - appKey: The partner app key.
    ///   - appLink: The registered app link.
    ///   - baseURL: The one host serving `/v1/otp/installation/*`, `/v1/profile` and `/v1/key`.
    ///   - deviceID: A stable installation id.
    ///   - otpRegions: Regions the OTP flow accepts; `["IN"]` by default, `nil` for any.
    public init(
        appKey: String, appLink: URL, baseURL: URL, deviceID: String = UUID().uuidString,
        otpRegions: Set<String>? = ["IN"]
    ) {
        self.init(appKey: appKey, appLink: appLink, deviceID: deviceID, otpRegions: otpRegions)
        self.otpBaseURL = baseURL
        self.profileBaseURLEU = baseURL
        self.profileBaseURLNonEU = baseURL
        self.keyEndpoint = baseURL.appending(path: "v1/key")
    }

    /// The profile base for a number of `region` (upper-cased before the lookup, unlike the
    /// SDK, which compares case-sensitively).
    public func profileBaseURL(forRegion region: String) -> URL {
        euRegions.contains(region.uppercased()) ? profileBaseURLEU : profileBaseURLNonEU
    }

    /// Checks what a one-tap request needs besides ``validate()``: an `https` app link with a
    /// host (the universal link the Truecaller app answers on), a `titleType` in 0...6 and a
    /// locale.
    /// - Throws: `AuthError` `.configuration` with provider code `"1"` (blank app key), `"2"`
    ///   (app link not an `https` URL with a host), or without a code (title type, locale).
    public func validateOneTap() throws {
        try validate()
        guard appLink.scheme?.lowercased() == "https", let host = appLink.host, !host.isEmpty else {
            throw TruecallerErrorCode.appLinkMissing.authError(
                "the Truecaller app link must be an https universal link with a host")
        }
        guard (0...6).contains(oneTapTitleType) else {
            throw AuthError(.configuration, "the one-tap title type must be 0 to 6", provider: .truecaller)
        }
        guard !oneTapLocale.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, oneTapLocale.utf8.count <= 64
        else {
            throw AuthError(.configuration, "the one-tap locale must be 1 to 64 bytes", provider: .truecaller)
        }
    }

    /// Checks the configuration before any network call.
    /// - Throws: `AuthError` `.configuration` with provider code `"1"` (blank app key) or
    ///   `.configuration` for an OTP length outside 4...10.
    public func validate() throws {
        guard !appKey.reveal().trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw TruecallerErrorCode.appKeyMissing.authError("the Truecaller app key is missing")
        }
        guard (4...10).contains(otpLength) else {
            throw AuthError(.configuration, "the OTP length must be 4 to 10 digits", provider: .truecaller)
        }
    }
}
