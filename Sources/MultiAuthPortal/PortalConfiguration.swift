import Foundation
import MultiAuth

/// The settings of one ``PortalProvider``: the auth environment, the redirect URL the backend
/// appends grants to, and the API host (providers.md §4.2).
///
/// Validated when created, so a misconfigured provider fails before any network call.
public struct PortalConfiguration: Sendable, Hashable {
    /// The production API host, `api.portalhq.io` (providers.md §4.2).
    public static let defaultAPIHost = "api.portalhq.io"

    /// The auth environment id, sent as `x-portal-auth-environment-id` on every call.
    public let authEnvironmentID: String
    /// The redirect URL the backend appends `?token=…&authMethod=…` (or `login_type=…`,
    /// `error=…`) to. It must be allow-listed byte for byte on the backend.
    public let redirectURL: URL
    /// The API host, without scheme, e.g. `api.portalhq.io` or `localhost:3000`.
    public let apiHost: String
    /// `fromEmail` sent with `POST /magic-links`, or `nil` to leave it to the environment.
    public let fromEmail: String?
    /// `templateId` sent with `POST /magic-links`, or `nil` to leave it to the environment.
    public let templateID: String?
    /// `isAccountAbstracted` sent with magic links and OAuth URLs; `nil` omits it (the
    /// organisation default).
    public let isAccountAbstracted: Bool?

    /// Creates a configuration.
    /// - Parameters:
    ///   - authEnvironmentID: The auth environment id; must not be blank.
    ///   - redirectURL: The allow-listed redirect URL (a custom scheme or `https`); it may carry
    ///     a query of its own, the backend appends to it.
    ///   - apiHost: The API host; `localhost` and `127.0.0.1` are reached over `http`, every
    ///     other host over `https` (providers.md §4.2).
    ///   - fromEmail: The magic-link sender, or `nil`.
    ///   - templateID: The magic-link e-mail template, or `nil`.
    ///   - isAccountAbstracted: Account abstraction, or `nil` for the organisation default.
    /// - Throws: `AuthError` `.configuration` naming the invalid argument
    ///   (`authEnvironmentId`, `redirectUrl`, `apiHost`), as the SDK's `invalidArgument`.
    public init(
        authEnvironmentID: String, redirectURL: URL, apiHost: String = PortalConfiguration.defaultAPIHost,
        fromEmail: String? = nil, templateID: String? = nil, isAccountAbstracted: Bool? = nil
    ) throws {
        let environment = authEnvironmentID.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !environment.isEmpty else {
            throw AuthError(.configuration, "invalid argument: authEnvironmentId is blank", provider: .portal, providerCode: "invalidArgument")
        }
        guard let scheme = redirectURL.scheme, !scheme.isEmpty, !redirectURL.absoluteString.contains("#") else {
            throw AuthError(
                .configuration, "invalid argument: redirectUrl needs a scheme and no fragment", provider: .portal,
                providerCode: "invalidArgument")
        }
        let host = apiHost.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !host.isEmpty, !host.contains("/"), URL(string: "https://\(host)")?.host != nil else {
            throw AuthError(.configuration, "invalid argument: apiHost must be a host name", provider: .portal, providerCode: "invalidArgument")
        }
        self.authEnvironmentID = environment
        self.redirectURL = redirectURL
        self.apiHost = host
        self.fromEmail = fromEmail
        self.templateID = templateID
        self.isAccountAbstracted = isAccountAbstracted
    }

    /// The base URL of the auth API: `https://<apiHost>/api/v3/auth`, or `http://` for
    /// `localhost` and `127.0.0.1` (providers.md §4.2).
    public var authBaseURL: URL {
        let name = apiHost.split(separator: ":").first.map(String.init) ?? apiHost
        let scheme = (name == "localhost" || name == "127.0.0.1") ? "http" : "https"
        return URL(string: "\(scheme)://\(apiHost)/api/v3/auth")!
    }
}
