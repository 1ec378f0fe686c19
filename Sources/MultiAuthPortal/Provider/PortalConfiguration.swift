import Foundation
import MultiAuth

/// The settings of one ``PortalProvider``: the auth environment, the redirect URL the backend
/// appends grants to, the API host, and the magic-link sender (Docs/Providers/Portal.md).
///
/// Build one with ``production(authEnvironmentID:redirectURL:fromEmail:templateID:isAccountAbstracted:)``
/// (the real host) or ``sandbox(authEnvironmentID:redirectURL:fromEmail:templateID:isAccountAbstracted:)``
/// (the emulated backend of `MultiAuthSandbox` on `api.portal.test`); switching between them is
/// the only change an app makes.
///
/// Validated when created, so a misconfigured provider fails before any network call. Magic
/// links need both ``fromEmail`` and ``templateID``: Portal's backend requires them, and its
/// SDK refuses to send a link without them (`PortalAuth.sendMagicLink`,
/// `SendMagicLinkRequest`). Give both, or neither (an OAuth-only app: then an e-mail sign-in
/// is refused locally with a message naming the two fields).
public struct PortalConfiguration: Sendable, Hashable {
    /// The production API host, `api.portalhq.io`.
    public static let defaultAPIHost = "api.portalhq.io"
    /// The reserved host the sandbox's emulated Portal backend answers on: `api.portal.test`.
    public static let sandboxAPIHost = "api.portal.test"
    /// The auth environment id the sandbox backend accepts by default (a fixed demo value).
    public static let sandboxEnvironmentID = "sandbox-auth-environment"
    /// The redirect URL the sandbox backend allow-lists by default.
    public static let sandboxRedirectURL = URL(string: "multiauth-portal://auth/callback")!
    /// The magic-link sender the sandbox uses by default.
    public static let sandboxFromEmail = "login@portal.example.test"
    /// The magic-link template the sandbox uses by default.
    public static let sandboxTemplateID = "sandbox-magic-link-template"
    /// The `providerCode` of the refusal to send a magic link without ``fromEmail`` and
    /// ``templateID`` (the SDK's `magicLinkNotConfigured`).
    public static let magicLinkNotConfiguredCode = "magicLinkNotConfigured"

    /// The auth environment id, sent as `x-portal-auth-environment-id` on every call.
    public let authEnvironmentID: String
    /// The redirect URL the backend appends `?token=…&authMethod=…` (or `login_type=…`,
    /// `error=…`) to. It must be allow-listed byte for byte on the backend.
    public let redirectURL: URL
    /// The API host, without scheme, e.g. `api.portalhq.io` or `localhost:3000`.
    public let apiHost: String
    /// `fromEmail` sent with `POST /magic-links` (the sender address the environment allows);
    /// `nil` only together with ``templateID`` (no magic links).
    public let fromEmail: String?
    /// `templateId` sent with `POST /magic-links` (the e-mail template); `nil` only together
    /// with ``fromEmail``.
    public let templateID: String?
    /// `isAccountAbstracted` sent with magic links and OAuth URLs; `nil` omits it (the
    /// organisation default).
    public let isAccountAbstracted: Bool?

    /// The root the auth API hangs under when it is not `<scheme>://<apiHost>`: set only by
    /// ``sandbox(baseURL:authEnvironmentID:redirectURL:fromEmail:templateID:isAccountAbstracted:)``
    /// (the emulator's host-prefixed route, `<server>/api.portal.test`); `nil` otherwise.
    public private(set) var apiBaseURL: URL?

    /// Whether magic links can be sent: both ``fromEmail`` and ``templateID`` are set.
    public var sendsMagicLinks: Bool { fromEmail != nil && templateID != nil }

    /// Creates a configuration.
    /// - Parameters:
    ///   - authEnvironmentID: The auth environment id; must not be blank.
    ///   - redirectURL: The allow-listed redirect URL (a custom scheme or `https`); it may carry
    ///     a query of its own, the backend appends to it.
    ///   - apiHost: The API host; `localhost` and `127.0.0.1` are reached over `http`, every
    ///     other host over `https`.
    ///   - fromEmail: The magic-link sender address, or `nil` (then `templateID` must be `nil`).
    ///   - templateID: The magic-link e-mail template, or `nil` (then `fromEmail` must be `nil`).
    ///   - isAccountAbstracted: Account abstraction, or `nil` for the organisation default.
    /// - Throws: `AuthError` `.configuration` with provider code `"invalidArgument"` naming what
    ///   to fix: `authEnvironmentId` (blank), `redirectUrl` (no scheme, or a fragment), `apiHost`
    ///   (not a host name), `fromEmail` (blank, not an e-mail address, or given without
    ///   `templateID`), `templateID` (blank, or given without `fromEmail`).
    public init(
        authEnvironmentID: String, redirectURL: URL, apiHost: String = PortalConfiguration.defaultAPIHost,
        fromEmail: String? = nil, templateID: String? = nil, isAccountAbstracted: Bool? = nil
    ) throws {
        func invalid(_ message: String) -> AuthError {
            AuthError(
                .configuration, "invalid argument: \(message)", provider: .portal, providerCode: "invalidArgument")
        }
        let environment = authEnvironmentID.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !environment.isEmpty else { throw invalid("authEnvironmentId is blank") }
        guard let scheme = redirectURL.scheme, !scheme.isEmpty, !redirectURL.absoluteString.contains("#") else {
            throw invalid("redirectUrl needs a scheme and no fragment")
        }
        let host = apiHost.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !host.isEmpty, !host.contains("/"), URL(string: "https://\(host)")?.host != nil else {
            throw invalid("apiHost must be a host name")
        }
        let sender = fromEmail?.trimmingCharacters(in: .whitespacesAndNewlines)
        let template = templateID?.trimmingCharacters(in: .whitespacesAndNewlines)
        switch (sender, template) {
        case (nil, nil):
            break
        case (let sender?, nil):
            throw invalid(
                sender.isEmpty
                    ? "fromEmail is blank" : "magic links need templateID as well as fromEmail: set templateID")
        case (nil, let template?):
            throw invalid(
                template.isEmpty
                    ? "templateID is blank" : "magic links need fromEmail as well as templateID: set fromEmail")
        case (let sender?, let template?):
            guard !sender.isEmpty else { throw invalid("fromEmail is blank: set the magic-link sender address") }
            guard (try? EmailAddress(sender)) != nil else { throw invalid("fromEmail is not an e-mail address") }
            guard !template.isEmpty else { throw invalid("templateID is blank: set the magic-link template id") }
        }
        self.authEnvironmentID = environment
        self.redirectURL = redirectURL
        self.apiHost = host
        self.fromEmail = sender
        self.templateID = template
        self.isAccountAbstracted = isAccountAbstracted
    }

    /// The configuration for Portal's production API (``defaultAPIHost``).
    /// - Parameters:
    ///   - authEnvironmentID: The auth environment id from the Portal dashboard.
    ///   - redirectURL: The redirect URL allow-listed for that environment.
    ///   - fromEmail: The magic-link sender (required with `templateID` for e-mail sign-in;
    ///     `nil` for an OAuth-only app).
    ///   - templateID: The magic-link template (required with `fromEmail`).
    ///   - isAccountAbstracted: Account abstraction, or `nil` for the organisation default.
    /// - Returns: A validated configuration.
    /// - Throws: `AuthError` `.configuration` as ``init(authEnvironmentID:redirectURL:apiHost:fromEmail:templateID:isAccountAbstracted:)``.
    public static func production(
        authEnvironmentID: String, redirectURL: URL, fromEmail: String? = nil, templateID: String? = nil,
        isAccountAbstracted: Bool? = nil
    ) throws -> PortalConfiguration {
        try PortalConfiguration(
            authEnvironmentID: authEnvironmentID, redirectURL: redirectURL, apiHost: defaultAPIHost,
            fromEmail: fromEmail,
            templateID: templateID, isAccountAbstracted: isAccountAbstracted)
    }

    /// The configuration for the emulated backend (`PortalBackend` of `MultiAuthSandbox`,
    /// registered on ``sandboxAPIHost``), with the demo values it accepts by default.
    /// - Parameters:
    ///   - authEnvironmentID: The auth environment id (default ``sandboxEnvironmentID``).
    ///   - redirectURL: The redirect URL (default ``sandboxRedirectURL``).
    ///   - fromEmail: The magic-link sender (default ``sandboxFromEmail``).
    ///   - templateID: The magic-link template (default ``sandboxTemplateID``).
    ///   - isAccountAbstracted: Account abstraction, or `nil` for the organisation default.
    /// - Returns: A validated configuration.
    /// - Throws: `AuthError` `.configuration` as ``init(authEnvironmentID:redirectURL:apiHost:fromEmail:templateID:isAccountAbstracted:)``.
    public static func sandbox(
        authEnvironmentID: String = sandboxEnvironmentID, redirectURL: URL = sandboxRedirectURL,
        fromEmail: String? = sandboxFromEmail, templateID: String? = sandboxTemplateID, isAccountAbstracted: Bool? = nil
    ) throws -> PortalConfiguration {
        try PortalConfiguration(
            authEnvironmentID: authEnvironmentID, redirectURL: redirectURL, apiHost: sandboxAPIHost,
            fromEmail: fromEmail,
            templateID: templateID, isAccountAbstracted: isAccountAbstracted)
    }

    /// The configuration for the emulated backend served by `multiauth serve` (or a
    /// `SandboxServer`) at `baseURL`: the auth API is `<baseURL>/api.portal.test/api/v3/auth`, the
    /// server's host-prefixed route to `PortalBackend` (Docs/Emulator.md, "Pointing a provider
    /// at the server"). ``apiHost`` stays ``sandboxAPIHost``.
    /// - Parameters:
    ///   - baseURL: Where the server listens, e.g. `http://127.0.0.1:4010`.
    ///   - authEnvironmentID: The auth environment id (default ``sandboxEnvironmentID``).
    ///   - redirectURL: The redirect URL (default ``sandboxRedirectURL``).
    ///   - fromEmail: The magic-link sender (default ``sandboxFromEmail``).
    ///   - templateID: The magic-link template (default ``sandboxTemplateID``).
    ///   - isAccountAbstracted: Account abstraction, or `nil` for the organisation default.
    /// - Returns: A validated configuration.
    /// - Throws: `AuthError` `.configuration` as ``init(authEnvironmentID:redirectURL:apiHost:fromEmail:templateID:isAccountAbstracted:)``,
    ///   or with provider code `"invalidArgument"` when `baseURL` is not an `http` or `https`
    ///   URL with a host.
    public static func sandbox(
        baseURL: URL, authEnvironmentID: String = sandboxEnvironmentID, redirectURL: URL = sandboxRedirectURL,
        fromEmail: String? = sandboxFromEmail, templateID: String? = sandboxTemplateID, isAccountAbstracted: Bool? = nil
    ) throws -> PortalConfiguration {
        guard let scheme = baseURL.scheme?.lowercased(), ["http", "https"].contains(scheme), baseURL.host != nil else {
            throw AuthError(
                .configuration,
                "invalid argument: the sandbox server URL must be an http or https URL with a host, e.g. http://127.0.0.1:4010",
                provider: .portal, providerCode: "invalidArgument")
        }
        var configuration = try sandbox(
            authEnvironmentID: authEnvironmentID, redirectURL: redirectURL, fromEmail: fromEmail,
            templateID: templateID, isAccountAbstracted: isAccountAbstracted)
        configuration.apiBaseURL = baseURL.appending(path: sandboxAPIHost)
        return configuration
    }

    /// The base URL of the auth API: `https://<apiHost>/api/v3/auth`, or `http://` for
    /// `localhost` and `127.0.0.1` (as PortalSwift's `PortalAuthApi.resolveApiUrl`); under
    /// ``apiBaseURL`` when that is set.
    public var authBaseURL: URL {
        if let apiBaseURL { return apiBaseURL.appending(path: "api/v3/auth") }
        let name = apiHost.split(separator: ":").first.map(String.init) ?? apiHost
        let scheme = (name == "localhost" || name == "127.0.0.1") ? "http" : "https"
        return URL(string: "\(scheme)://\(apiHost)/api/v3/auth")!
    }
}
