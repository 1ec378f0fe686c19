import Foundation

/// The tokens a provider issued. Every token is secret: `description`, `debugDescription`
/// and the mirror say only which ones are present.
public struct Credentials: Sendable, Codable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The access token (bearer), if any.
    public var accessToken: String?
    /// The OpenID Connect id token (a JWT), if any.
    public var idToken: String?
    /// The refresh token, if any.
    public var refreshToken: String?
    /// The token type, e.g. `"Bearer"`.
    public var tokenType: String?
    /// When the access token expires (wall clock).
    public var expiresAt: Date?
    /// Granted scopes.
    public var scopes: [String]
    /// Further provider-specific credential values (e.g. a minified JWT). Secret.
    public var extra: ProviderState

    /// Creates credentials.
    public init(
        accessToken: String? = nil, idToken: String? = nil, refreshToken: String? = nil, tokenType: String? = nil,
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

    /// `Credentials(accessToken: <redacted>, refreshToken: <redacted>, …)`, naming only the
    /// tokens present.
    public var description: String {
        var parts: [String] = []
        if accessToken != nil { parts.append("accessToken: <redacted>") }
        if idToken != nil { parts.append("idToken: <redacted>") }
        if refreshToken != nil { parts.append("refreshToken: <redacted>") }
        if let expiresAt { parts.append("expiresAt: \(expiresAt.formatted(.iso8601))") }
        if !extra.values.isEmpty { parts.append("extra: <redacted>") }
        return "Credentials(" + parts.joined(separator: ", ") + ")"
    }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// A mirror that shows which tokens are present, never their values.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessToken": accessToken == nil ? "nil" : "<redacted>",
                "idToken": idToken == nil ? "nil" : "<redacted>",
                "refreshToken": refreshToken == nil ? "nil" : "<redacted>",
                "expiresAt": expiresAt as Any, "scopes": scopes,
            ], displayStyle: .struct)
    }
}
