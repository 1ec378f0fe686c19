import Foundation
import MultiAuth
import MultiAuthCrypto

/// Turns an `ONETAP` payload (providers.md §1.2 transaction status, §1.3) into an
/// `AuthSession`: the app token as access token, the OIDC id token, the session tokens, and
/// the user's identities.
enum OTPlessSessionMapper {
    /// Builds the session.
    /// - Throws: `AuthError` `.malformedResponse` when the payload has no token or user id.
    static func session(
        from oneTap: OTPlessWire.OneTap, provider: AuthProviderID, appID: String, now: Date
    ) throws -> AuthSession {
        let info = oneTap.userInfo
        guard let token = info.token ?? oneTap.token, !token.isEmpty else {
            throw AuthError(.malformedResponse, "ONETAP payload has no token", provider: provider)
        }
        let identities = info.identities ?? []
        var phone: PhoneNumber?
        var email: EmailAddress?
        var name: PersonName?
        var mapped: [AuthUser.Identity] = []
        for identity in identities {
            let type = (identity.identityType ?? "").uppercased()
            let value = identity.identityValue ?? ""
            let kind: String
            switch type {
            case "MOBILE":
                kind = "phone"
                if phone == nil { phone = try? PhoneNumber(value.hasPrefix("+") ? value : "+" + value) }
            case "EMAIL":
                kind = "email"
                if email == nil { email = try? EmailAddress(value) }
            default:
                kind = type.lowercased()
            }
            if name == nil, let given = identity.name, !given.isEmpty {
                let parts = given.split(separator: " ", maxSplits: 1).map(String.init)
                name = try? PersonName(firstName: parts[0], lastName: parts.count > 1 ? parts[1] : "")
            }
            mapped.append(AuthUser.Identity(kind: kind, value: value, verified: identity.verified ?? false))
        }
        let userID = info.userId ?? phone?.e164 ?? email?.identityKey ?? ""
        guard !userID.isEmpty else {
            throw AuthError(.malformedResponse, "ONETAP payload has no user id", provider: provider)
        }
        var extra = ProviderState()
        extra["sessionId"] = info.sessionInfo?.sessionId
        extra["sessionToken"] = info.sessionInfo?.sessionToken
        extra["sessionTokenJWT"] = info.sessionInfo?.sessionTokenJWT
        var attributes: [String: String] = [:]
        if let channel = identities.first?.channel { attributes["channel"] = channel }
        return AuthSession(
            provider: provider,
            user: AuthUser(id: userID, phone: phone, email: email, name: name, identities: mapped, attributes: attributes),
            credentials: Credentials(
                accessToken: token, idToken: info.idToken, refreshToken: info.sessionInfo?.refreshToken,
                expiresAt: sessionExpiry(info.sessionInfo?.sessionTokenJWT, appID: appID, now: now), extra: extra),
            createdAt: now)
    }

    /// The `exp` of the session JWT when its `aud` is the app id (the SDK's only local check,
    /// providers.md §1.10); `exp` in milliseconds is accepted ([ASSUMPTION] §1.11).
    static func sessionExpiry(_ jwt: String?, appID: String, now: Date) -> Date? {
        guard let jwt, let parsed = try? JWT(parsing: jwt) else { return nil }
        guard parsed.claims.audience.contains(where: { $0.caseInsensitiveCompare(appID) == .orderedSame }) else { return nil }
        guard let exp = parsed.claims["exp"]?.doubleValue.map(normalizedSeconds) else { return nil }
        // Relative to the client's clock when `iat` is known: the server's clock may be skewed.
        if let iat = parsed.claims["iat"]?.doubleValue.map(normalizedSeconds), exp > iat {
            return now.addingTimeInterval(exp - iat)
        }
        return Date(timeIntervalSince1970: exp)
    }

    /// A NumericDate in seconds; values above 10¹² are taken as milliseconds ([ASSUMPTION] §1.11).
    static func normalizedSeconds(_ value: Double) -> Double { value > 1e12 ? value / 1000 : value }
}
