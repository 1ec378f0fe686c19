import Foundation
import MultiAuth

/// How a ``DynamicProvider`` (and a ``DynamicTokenVerifier``) reaches one Dynamic environment:
/// its environment id, the API base URL, and the values providers.md §2 leaves unpublished.
///
/// Every path is built as `baseURL + /sdk/{environmentID}/…` (providers.md §2.2). The defaults
/// marked **[ASSUMPTION]** come from providers.md §2.5 and apply only because the real values
/// are not published; override them when the truth is known.
public struct DynamicConfiguration: Sendable, Hashable {
    /// The production API base URL, `https://app.dynamicauth.com/api/v0` (providers.md §2.1, [SDK] docs).
    public static let productionBaseURL = URL(string: "https://app.dynamicauth.com/api/v0")!

    /// The environment id (a UUID string) that appears as `{env}` in every path and as the
    /// JWT's `environment_id` claim.
    public var environmentID: String
    /// The API base URL, without the `/sdk/{env}` part, e.g. ``productionBaseURL``.
    public var baseURL: URL
    /// How long a code stays answerable after it is sent: **[ASSUMPTION]** 10 minutes
    /// (providers.md §2.5: "OTP expiry is 10 minutes, matching the rate-limit window").
    public var codeLifetime: Duration
    /// Wrong codes the server allows per verification: 3 (providers.md §2.5, [3P]).
    public var maximumAttempts: Int
    /// The send-limit window, used as `retryAfter` when a `429` carries no `Retry-After`
    /// header: 10 minutes (providers.md §2.5, [DOC] "3 per 10 minutes per address"; the SMS
    /// window is an **[ASSUMPTION]**).
    public var sendLimitWindow: Duration

    /// Creates a configuration.
    /// - Parameters:
    ///   - environmentID: The Dynamic environment id; must not be empty.
    ///   - baseURL: The API base URL (default ``productionBaseURL``).
    ///   - codeLifetime: Code lifetime (default 600 s, an [ASSUMPTION]).
    ///   - maximumAttempts: Wrong codes per verification (default 3).
    ///   - sendLimitWindow: The send-limit window (default 600 s).
    public init(
        environmentID: String, baseURL: URL = DynamicConfiguration.productionBaseURL, codeLifetime: Duration = .seconds(600),
        maximumAttempts: Int = 3, sendLimitWindow: Duration = .seconds(600)
    ) {
        self.environmentID = environmentID
        self.baseURL = baseURL
        self.codeLifetime = codeLifetime
        self.maximumAttempts = maximumAttempts
        self.sendLimitWindow = sendLimitWindow
    }

    /// The URL of `path` under `/sdk/{environmentID}/`, e.g. `endpoint("emailVerifications/create")`.
    /// - Parameter path: A path relative to the environment, without a leading slash.
    public func endpoint(_ path: String) -> URL {
        var url = baseURL.appendingPathComponent("sdk").appendingPathComponent(environmentID)
        for component in path.split(separator: "/") { url.appendPathComponent(String(component)) }
        return url
    }

    /// The environment's JWKS URL, `…/sdk/{env}/.well-known/jwks` (providers.md §2.6).
    public var jwksURL: URL { endpoint(".well-known/jwks") }

    /// Checks the configuration before any network call.
    /// - Throws: `AuthError` `.configuration` when the environment id is empty or contains `/`.
    func validate(provider: AuthProviderID) throws {
        let id = environmentID.trimmingCharacters(in: .whitespaces)
        guard !id.isEmpty, !id.contains("/") else {
            throw AuthError(.configuration, "the Dynamic environment id is empty or malformed", provider: provider)
        }
    }
}
