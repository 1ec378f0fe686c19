import Foundation

/// The tokens a provider issued. Every token is a ``Secret``, so `description`,
/// `debugDescription`, `dump` and the mirror show `<redacted>` in its place; read a token with
/// ``Secret/reveal()`` where it goes on the wire.
///
/// `Codable` with each token as a bare string, as when they were `String`s: stored sessions
/// read back unchanged.
public struct Credentials: Sendable, Codable, Hashable {
    /// The access token (bearer), if any.
    public var accessToken: Secret?
    /// The OpenID Connect id token (a JWT), if any.
    public var idToken: Secret?
    /// The refresh token, if any.
    public var refreshToken: Secret?
    /// The token type, e.g. `"Bearer"`.
    public var tokenType: String?
    /// When the access token expires (wall clock).
    public var expiresAt: Date?
    /// Granted scopes.
    public var scopes: [String]
    /// Further provider-specific credential values (e.g. a minified JWT), each a ``Secret``.
    public var extra: ProviderState

    /// Creates credentials.
    public init(
        accessToken: Secret? = nil, idToken: Secret? = nil, refreshToken: Secret? = nil, tokenType: String? = nil,
        expiresAt: Date? = nil, scopes: [String] = [], extra: ProviderState = ProviderState()
    ) {
        self.accessToken = accessToken
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.scopes = scopes
        self.extra = extra
    }
}
