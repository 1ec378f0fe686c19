import Foundation
import MultiAuth
import MultiAuthCrypto

extension DynamicProvider {
    /// The `providerCode` of the cookie-authentication `configuration` error.
    public static let cookieAuthenticationCode = "cookie_authentication"

    /// Builds a session from a `VerifyResponse` (Docs/Providers/Dynamic.md, "Mapping: the wire → our model").
    ///
    /// The expiry is moved onto the client's clock: when the token has an `iat`, the session
    /// expires `expiresAt − iat` seconds after `now`, so a skewed server clock neither ends a
    /// session early nor keeps it alive too long; otherwise `expiresAt` is used as given.
    /// A success without `jwt` and `minifiedJwt` but with a user is what an environment with
    /// cookie-based authentication answers: the JWT travels in an HttpOnly cookie the app
    /// cannot read (Dynamic's `VerifyResponse` schema: the tokens "will only be returned when
    /// cookie-based authentication is disabled").
    /// - Throws: `AuthError` `.configuration` (providerCode `"cookie_authentication"`) for that
    ///   answer; `.malformedResponse` when there is no JWT and no user, or no expiry.
    func makeSession(
        _ verified: DynamicWire.VerifyResponse, sessionID: String?, createdAt: Date, now: Date,
        previous: AuthSession? = nil
    ) throws -> AuthSession {
        guard let access = verified.minifiedJwt ?? verified.jwt, !access.isEmpty else {
            if verified.user != nil {
                throw AuthError(
                    .configuration,
                    "the Dynamic environment uses cookie-based authentication, so no JWT reaches the app: "
                        + "enable header-based auth (turn cookie authentication off) for this environment",
                    provider: id, providerCode: Self.cookieAuthenticationCode)
            }
            throw AuthError(.malformedResponse, "the Dynamic response has neither jwt nor minifiedJwt", provider: id)
        }
        guard let user = verified.user.map(makeUser) ?? previous?.user else {
            throw AuthError(.malformedResponse, "the Dynamic response has no user", provider: id)
        }
        let token = try? JWT(parsing: access.reveal())
        let scopes = token?.claims["scope"]?.stringValue.map { $0.split(separator: " ").map(String.init) } ?? []
        let expiresAt: Date
        if let serverExpiry = verified.expiresAt {
            // Checked (Docs/Security.md, "Numbers from the wire"): finite, after 1970, at most 10
            // years ahead; relative to the client's clock when the token's `iat` is earlier.
            let absolute = try WireNumber.expiry(unixSeconds: serverExpiry, now: now, field: "expiresAt", provider: id)
            if let issued = token?.claims.issuedAt?.secondsSince1970, issued.isFinite, serverExpiry > issued {
                expiresAt = now.addingTimeInterval(
                    try WireNumber.lifetime(seconds: serverExpiry - issued, field: "expiresAt - iat", provider: id))
            } else {
                expiresAt = absolute
            }
        } else if let exp = token?.claims.expiresAt {
            expiresAt = exp.date
        } else {
            throw AuthError(.malformedResponse, "the Dynamic response has no expiresAt", provider: id)
        }
        var extra = ProviderState()
        if let minified = verified.minifiedJwt { extra["minifiedJwt"] = minified }
        return AuthSession(
            id: sessionID ?? UUID().uuidString.lowercased(), provider: id, user: user,
            credentials: Credentials(
                accessToken: access, idToken: verified.jwt, tokenType: "Bearer", expiresAt: expiresAt, scopes: scopes,
                extra: extra),
            createdAt: createdAt)
    }

    /// Maps an `SdkUser` to an ``/MultiAuth/AuthUser``: id, e-mail, phone (E.164), name, and one
    /// identity per verified credential (kind `email`, `phone`, the OAuth provider,
    /// `blockchain:<chain>` or the credential `format`), all `verified: true`.
    ///
    /// An identity's value is the credential's Dynamic id (the wallet address for blockchain
    /// credentials), never the address or number: those are personal data and live only in the
    /// masked-in-dumps ``/MultiAuth/AuthUser/email`` and ``/MultiAuth/AuthUser/phone``.
    func makeUser(_ user: DynamicWire.User) -> AuthUser {
        let credentials = user.verifiedCredentials ?? []
        let identities = credentials.map { credential -> AuthUser.Identity in
            switch credential.format {
            case "email":
                return AuthUser.Identity(kind: "email", value: credential.id, verified: true)
            case "phoneNumber":
                return AuthUser.Identity(kind: "phone", value: credential.id, verified: true)
            case "oauth":
                return AuthUser.Identity(
                    kind: credential.oauthProvider ?? "oauth", value: credential.id, verified: true)
            case "blockchain":
                return AuthUser.Identity(
                    kind: credential.chain.map { "blockchain:\($0)" } ?? "blockchain",
                    value: credential.address ?? credential.id, verified: true)
            default:
                return AuthUser.Identity(kind: credential.format, value: credential.id, verified: true)
            }
        }
        let email =
            user.email.flatMap { try? EmailAddress($0) }
            ?? credentials.lazy.compactMap { $0.format == "email" ? $0.email.flatMap { try? EmailAddress($0) } : nil }
            .first
        let phone =
            user.phoneNumber.flatMap { try? PhoneNumber($0.hasPrefix("+") ? $0 : "+" + $0) }
            ?? credentials.lazy.compactMap { $0.format == "phoneNumber" ? Self.phone(from: $0) : nil }.first
        var attributes: [String: String] = [:]
        attributes["environmentId"] = user.projectEnvironmentId
        attributes["sessionId"] = user.sessionId
        attributes["lastVerifiedCredentialId"] = user.lastVerifiedCredentialId
        attributes["username"] = user.username
        attributes["newUser"] = user.newUser.map { $0 ? "true" : "false" }
        let name = user.firstName.flatMap { try? PersonName(firstName: $0, lastName: user.lastName ?? "") }
        return AuthUser(
            id: user.id, phone: phone, email: email, name: name, identities: identities, attributes: attributes)
    }

    /// The E.164 number of a phone credential: `phoneCountryCode` + `phoneNumber`, read with
    /// the credential's `isoCountryCode` as the default region.
    static func phone(from credential: DynamicWire.VerifiedCredential) -> PhoneNumber? {
        guard let national = credential.phoneNumber else { return nil }
        if let code = credential.phoneCountryCode {
            let digits = code.filter(\.isNumber)
            return try? PhoneNumber("+" + digits + national)
        }
        return try? PhoneNumber(national, defaultRegion: credential.isoCountryCode)
    }
}
