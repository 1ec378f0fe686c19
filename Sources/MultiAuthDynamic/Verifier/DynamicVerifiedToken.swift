import Foundation
import MultiAuthCrypto

/// The claims of a Dynamic JWT that ``DynamicTokenVerifier`` accepted (Docs/Providers/Dynamic.md,
/// schema `MinifiedDynamicJwt`; wire names in snake_case).
///
/// The mirror, and so every rendering, leaves out the e-mail address (personal data) and the
/// session id.
public struct DynamicVerifiedToken: Sendable, CustomReflectable {
    /// `sub`: the Dynamic user id.
    public let userID: String
    /// `sid`: the session id, if present.
    public let sessionID: String?
    /// `environment_id`: equals the verifier's environment.
    public let environmentID: String
    /// `scope`, split on spaces; always contains `user:basic`.
    public let scopes: [String]
    /// `exp` as a wall-clock time, if present.
    public let expiresAt: Date?
    /// `iss`, if present (e.g. `app.dynamicauth.com/{env}`).
    public let issuer: String?
    /// `email`, if present. Personal data.
    public let email: String?
    /// The whole verified token (header and claims; the raw token is never kept).
    public let jwt: JWT

    /// Creates a result from a verified token's fields.
    public init(
        userID: String, sessionID: String?, environmentID: String, scopes: [String], expiresAt: Date?, issuer: String?,
        email: String?, jwt: JWT
    ) {
        self.userID = userID
        self.sessionID = sessionID
        self.environmentID = environmentID
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.issuer = issuer
        self.email = email
        self.jwt = jwt
    }

    /// A mirror with the user id, the environment, the scopes, the expiry and the issuer: no
    /// e-mail, no session id, no token. Swift's default `description` is built from it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "userID": userID, "environmentID": environmentID, "scopes": scopes, "expiresAt": expiresAt as Any,
                "issuer": issuer as Any,
            ], displayStyle: .struct)
    }
}
