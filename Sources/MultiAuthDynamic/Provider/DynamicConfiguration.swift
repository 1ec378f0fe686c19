import Foundation
import MultiAuth

/// How a ``DynamicProvider`` (and a ``DynamicTokenVerifier``) reaches one Dynamic environment:
/// its environment id, the API base URL, and the values Dynamic does not publish.
///
/// Build one with ``production(environmentID:sessionPublicKey:socialRedirectURL:)`` (the real host) or ``sandbox(environmentID:sessionPublicKey:socialRedirectURL:)``
/// (the emulated backend of `MultiAuthSandbox`, host `app.dynamic.test`); switching between
/// them is the only change an app makes. Every path is `baseURL + /sdk/{environmentID}/…`.
/// The defaults marked **[ASSUMPTION]** apply only because the real values are not published
/// (Docs/Providers/Dynamic.md, "Verified against"); override them when the truth is known.
public struct DynamicConfiguration: Sendable, Hashable {
    /// The production API base URL, `https://app.dynamicauth.com/api/v0` (the SDK's
    /// installation guide; Docs/Providers/Dynamic.md).
    public static let productionBaseURL = URL(string: "https://app.dynamicauth.com/api/v0")!
    /// The reserved host the sandbox's emulated Dynamic backend answers on: `app.dynamic.test`.
    public static let sandboxHost = "app.dynamic.test"
    /// The sandbox API base URL, `https://app.dynamic.test/api/v0`.
    public static let sandboxBaseURL = URL(string: "https://\(sandboxHost)/api/v0")!
    /// The environment id the sandbox backend serves by default (a fixed demo value).
    public static let sandboxEnvironmentID = "6b1c2d3e-0000-4000-8000-00000000d7a1"

    /// The environment id (a UUID string) that appears as `{env}` in every path and as the
    /// JWT's `environment_id` claim.
    public var environmentID: String
    /// The API base URL, without the `/sdk/{env}` part, e.g. ``productionBaseURL``.
    public var baseURL: URL
    /// How long a code stays answerable after it is sent: **[ASSUMPTION]** 10 minutes (the
    /// send-limit window; Dynamic publishes no OTP lifetime).
    public var codeLifetime: Duration
    /// Wrong codes the server allows per verification: 3 (third-party observation,
    /// Docs/Providers/Dynamic.md).
    public var maximumAttempts: Int
    /// The send-limit window, used as `retryAfter` when a `429` carries no `Retry-After`
    /// header: 10 minutes (documented "3 per 10 minutes per address" for e-mail; the SMS
    /// window is an **[ASSUMPTION]**).
    public var sendLimitWindow: Duration
    /// The session public key an embedded-wallet environment registers with the session, sent
    /// as `sessionPublicKey` on the code sign-in (`…/signin`), where the Dynamic SDK's request
    /// types carry it (Docs/Providers/Dynamic.md, "Flow"). `nil` (the default) sends nothing.
    /// Its form is Dynamic's to check (the SDK types it as a non-empty string): a blank value
    /// is `.configuration` before any request; surrounding whitespace is trimmed; a key the
    /// server refuses (`422 invalid_session_public_key`) is `.configuration`.
    public var sessionPublicKey: String?

    /// The app's deep link for social login (the SDK's `deepLinkUrl`, e.g.
    /// `myapp://auth/callback`), whitelisted in the Dynamic dashboard ("Whitelist Mobile
    /// Deeplink"): sent as `redirectUrl` to `initAuth`, and the URL the social return comes back
    /// on (Docs/Providers/Dynamic.md, "Social login"). `nil` (the default for
    /// ``production(environmentID:sessionPublicKey:socialRedirectURL:)``) refuses social sign-ins with
    /// `.configuration`; ``sandbox(environmentID:sessionPublicKey:socialRedirectURL:)`` sets
    /// ``sandboxSocialRedirectURL``.
    public var socialRedirectURL: URL?
    /// How long a social sign-in waits for its return: **[ASSUMPTION]** 10 minutes (Dynamic
    /// publishes no lifetime for an OAuth `state`).
    public var socialLoginLifetime: Duration

    /// The longest ``sessionPublicKey`` read, in UTF-8 bytes (a bound, not a format rule).
    public static let maximumSessionPublicKeyBytes = 4_096
    /// The sandbox's social deep link, `multiauth-sandbox://dynamic/callback`.
    public static let sandboxSocialRedirectURL = URL(string: "multiauth-sandbox://dynamic/callback")!

    /// Creates a configuration.
    /// - Parameters:
    ///   - environmentID: The Dynamic environment id; must not be empty.
    ///   - baseURL: The API base URL (default ``productionBaseURL``).
    ///   - codeLifetime: Code lifetime (default 600 s, an [ASSUMPTION]).
    ///   - maximumAttempts: Wrong codes per verification (default 3).
    ///   - sendLimitWindow: The send-limit window (default 600 s).
    ///   - sessionPublicKey: The embedded-wallet session public key, or `nil`.
    public init(
        environmentID: String, baseURL: URL = DynamicConfiguration.productionBaseURL,
        codeLifetime: Duration = .seconds(600),
        maximumAttempts: Int = 3, sendLimitWindow: Duration = .seconds(600), sessionPublicKey: String? = nil
    ) {
        self.environmentID = environmentID
        self.baseURL = baseURL
        self.codeLifetime = codeLifetime
        self.maximumAttempts = maximumAttempts
        self.sendLimitWindow = sendLimitWindow
        self.sessionPublicKey = sessionPublicKey
        self.socialRedirectURL = nil
        self.socialLoginLifetime = .seconds(600)
    }

    /// The configuration for Dynamic's production API (``productionBaseURL``).
    /// - Parameters:
    ///   - environmentID: The environment id from the Dynamic dashboard.
    ///   - sessionPublicKey: The embedded-wallet session public key (``sessionPublicKey``), or `nil`.
    ///   - socialRedirectURL: The app's whitelisted deep link for social login
    ///     (``socialRedirectURL``), or `nil`.
    /// - Returns: A validated configuration.
    /// - Throws: `AuthError` `.configuration` when the environment id is empty or contains `/`,
    ///   the session public key is blank or over ``maximumSessionPublicKeyBytes``, or the deep
    ///   link has no scheme.
    public static func production(
        environmentID: String, sessionPublicKey: String? = nil, socialRedirectURL: URL? = nil
    ) throws -> DynamicConfiguration {
        var configuration = DynamicConfiguration(
            environmentID: environmentID, baseURL: productionBaseURL, sessionPublicKey: sessionPublicKey)
        configuration.socialRedirectURL = socialRedirectURL
        try configuration.validate(provider: .dynamic)
        return configuration
    }

    /// The configuration for the emulated backend (`DynamicBackend` of `MultiAuthSandbox`,
    /// registered on ``sandboxHost``).
    /// - Parameters:
    ///   - environmentID: The environment id (default ``sandboxEnvironmentID``, the one the
    ///     backend serves by default).
    ///   - sessionPublicKey: The embedded-wallet session public key (``sessionPublicKey``), or `nil`.
    ///   - socialRedirectURL: The deep link social returns come back on (default
    ///     ``sandboxSocialRedirectURL``).
    /// - Returns: A validated configuration.
    /// - Throws: `AuthError` `.configuration` when the environment id is empty or contains `/`,
    ///   the session public key is blank or over ``maximumSessionPublicKeyBytes``, or the deep
    ///   link has no scheme.
    public static func sandbox(
        environmentID: String = sandboxEnvironmentID, sessionPublicKey: String? = nil,
        socialRedirectURL: URL? = sandboxSocialRedirectURL
    ) throws -> DynamicConfiguration {
        var configuration = DynamicConfiguration(
            environmentID: environmentID, baseURL: sandboxBaseURL, sessionPublicKey: sessionPublicKey)
        configuration.socialRedirectURL = socialRedirectURL
        try configuration.validate(provider: .dynamic)
        return configuration
    }

    /// The configuration for the emulated backend served by `multiauth serve` (or a
    /// `SandboxServer`) at `baseURL`: the API base is `<baseURL>/app.dynamic.test/api/v0`, the
    /// server's host-prefixed route to the same backend (Docs/Emulator.md, "Pointing a
    /// provider at the server").
    /// - Parameters:
    ///   - baseURL: Where the server listens, e.g. `http://127.0.0.1:4010` (a path is kept:
    ///     `http://127.0.0.1:4010/x` gives `http://127.0.0.1:4010/x/app.dynamic.test/api/v0`).
    ///   - environmentID: The environment id (default ``sandboxEnvironmentID``).
    /// - Returns: A validated configuration.
    /// - Throws: `AuthError` `.configuration` when the environment id is empty or contains `/`,
    ///   or `baseURL` is not an `http` or `https` URL with a host.
    public static func sandbox(baseURL: URL, environmentID: String = sandboxEnvironmentID) throws
        -> DynamicConfiguration
    {
        guard let scheme = baseURL.scheme?.lowercased(), ["http", "https"].contains(scheme), baseURL.host != nil else {
            throw AuthError(
                .configuration,
                "the sandbox server URL must be an http or https URL with a host, e.g. http://127.0.0.1:4010",
                provider: .dynamic)
        }
        var configuration = DynamicConfiguration(
            environmentID: environmentID, baseURL: baseURL.appending(path: sandboxHost).appending(path: "api/v0"))
        configuration.socialRedirectURL = sandboxSocialRedirectURL
        try configuration.validate(provider: .dynamic)
        return configuration
    }

    /// The URL of `path` under `/sdk/{environmentID}/`, e.g. `endpoint("emailVerifications/create")`.
    /// - Parameter path: A path relative to the environment, without a leading slash.
    public func endpoint(_ path: String) -> URL {
        var url = baseURL.appendingPathComponent("sdk").appendingPathComponent(environmentID)
        for component in path.split(separator: "/") { url.appendPathComponent(String(component)) }
        return url
    }

    /// The environment's JWKS URL, `…/sdk/{env}/.well-known/jwks`.
    public var jwksURL: URL { endpoint(".well-known/jwks") }

    /// Checks the configuration before any network call.
    /// - Throws: `AuthError` `.configuration` when the environment id is empty or contains `/`,
    ///   or ``sessionPublicKey`` is blank or over ``maximumSessionPublicKeyBytes``.
    func validate(provider: AuthProviderID) throws {
        if let link = socialRedirectURL, link.scheme?.isEmpty ?? true {
            throw AuthError(
                .configuration, "DynamicConfiguration.socialRedirectURL must be an absolute deep link (with a scheme)",
                provider: provider)
        }
        let id = environmentID.trimmingCharacters(in: .whitespaces)
        guard !id.isEmpty, !id.contains("/") else {
            throw AuthError(
                .configuration,
                "the Dynamic environment id is empty or malformed: set the environment id from the Dynamic dashboard",
                provider: provider)
        }
        if let sessionPublicKey {
            guard sessionPublicKey.utf8.count <= Self.maximumSessionPublicKeyBytes, wireSessionPublicKey != nil else {
                throw AuthError(
                    .configuration,
                    "DynamicConfiguration.sessionPublicKey is blank or longer than \(Self.maximumSessionPublicKeyBytes) bytes: set the session key's public half, or nil",
                    provider: provider)
            }
        }
    }

    /// ``sessionPublicKey`` as sent: trimmed; `nil` when unset or blank.
    var wireSessionPublicKey: String? {
        guard let key = sessionPublicKey?.trimmingCharacters(in: .whitespacesAndNewlines), !key.isEmpty else {
            return nil
        }
        return key
    }
}
