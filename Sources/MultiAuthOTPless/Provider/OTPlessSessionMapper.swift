import Foundation
import MultiAuth
import MultiAuthCrypto

/// Turns an `ONETAP` payload into an `AuthSession` (Docs/Providers/OTPless.md, "Session
/// mapping"): the app token as access token, the OIDC id token, the session tokens of the
/// sibling `sessionInfo`, and the user's identities.
///
/// Nothing the provider returned is dropped: a phone identity libphonenumber normalizes to a
/// valid number (legacy national forms included) is `user.phone`; one it refuses (e.g.
/// Mexico's retired `52 1` mobile form) stays in `user.identities` and is reported in
/// `user.attributes["unparsedPhone"]` (Docs/Providers/OTPless.md, "Session mapping"); an unusable session expiry makes the session
/// due for refresh now and is reported in `user.attributes["expiryIssue"]`.
enum OTPlessSessionMapper {
    /// The attribute naming a phone identity that could not be parsed (the raw value).
    static let unparsedPhoneAttribute = "unparsedPhone"
    /// The attribute naming why the session JWT gave no usable expiry.
    static let expiryIssueAttribute = "expiryIssue"

    /// Builds the session.
    /// - Parameters:
    ///   - oneTap: The payload.
    ///   - provider: The provider id.
    ///   - appID: The app id the session JWT's `aud` must name.
    ///   - state: The device state id, kept for the session API's `state` header.
    ///   - now: The client's clock.
    /// - Throws: `AuthError` `.malformedResponse` when the payload has no token or user id.
    static func session(
        from oneTap: OTPlessWire.OneTap, provider: AuthProviderID, appID: String, state: String?, now: Date
    ) throws -> AuthSession {
        let info = oneTap.userInfo
        guard let token = info.token ?? oneTap.token, !token.isEmpty else {
            throw AuthError(.malformedResponse, "ONETAP payload has no token", provider: provider)
        }
        let user = try user(from: info, provider: provider)
        var attributes = user.attributes
        var extra = ProviderState()
        var expiresAt: Date?
        if let sessionInfo = oneTap.sessionInfo {
            extra["sessionId"] = sessionInfo.sessionId.map { Secret($0) }
            extra["sessionToken"] = sessionInfo.sessionToken
            extra["sessionTokenJWT"] = sessionInfo.sessionTokenJWT
            if let state, !state.isEmpty { extra["state"] = Secret(state) }
            switch SessionExpiry.read(sessionInfo.sessionTokenJWT?.reveal(), appID: appID, now: now) {
            case .valid(let date):
                expiresAt = date
            case .invalid(let issue):
                // Due for refresh now, never "does not expire".
                expiresAt = now.roundedToMilliseconds
                attributes[expiryIssueAttribute] = issue.rawValue
            }
        }
        var mapped = user
        mapped.attributes = attributes
        return AuthSession(
            provider: provider, user: mapped,
            credentials: Credentials(
                accessToken: token, idToken: info.idToken, refreshToken: oneTap.sessionInfo?.refreshToken,
                expiresAt: expiresAt, extra: extra),
            createdAt: now)
    }

    /// The user of a `merchantUserInfo` (or validate-token) payload.
    /// - Throws: `AuthError` `.malformedResponse` when it names no user id and no identity.
    static func user(from info: OTPlessWire.UserInfo, provider: AuthProviderID) throws -> AuthUser {
        let identities = info.identities ?? []
        var phone: PhoneNumber?
        var unparsedPhone: String?
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
                if phone == nil, !value.isEmpty {
                    if let parsed = try? PhoneNumber(value.hasPrefix("+") ? value : "+" + value) {
                        phone = parsed
                    } else if unparsedPhone == nil {
                        unparsedPhone = value
                    }
                }
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
        let userID = info.userId ?? phone?.e164 ?? email?.identityKey ?? unparsedPhone ?? ""
        guard !userID.isEmpty else {
            throw AuthError(.malformedResponse, "ONETAP payload has no user id", provider: provider)
        }
        var attributes: [String: String] = [:]
        if let channel = identities.first?.channel { attributes["channel"] = channel }
        if phone == nil, let unparsedPhone { attributes[unparsedPhoneAttribute] = unparsedPhone }
        return AuthUser(id: userID, phone: phone, email: email, name: name, identities: mapped, attributes: attributes)
    }
}

/// What a session JWT says about its expiry, read the way the SDK checks a session
/// (`OtplessSessionManager.isValidJwt`, Docs/Providers/OTPless.md, "Sessions"): a string `aud`
/// must equal the app id (case-insensitive) and `exp` must be a JSON number of seconds.
enum SessionExpiry: Equatable {
    /// Why a session JWT gave no usable expiry (the value of `user.attributes["expiryIssue"]`).
    enum Issue: String, Equatable {
        /// `sessionInfo` came without `sessionTokenJWT`.
        case jwtMissing = "jwt-missing"
        /// The JWT's payload is not base64url JSON.
        case jwtMalformed = "jwt-malformed"
        /// A string `aud` that is not the app id.
        case audienceMismatch = "aud-mismatch"
        /// No `exp` claim.
        case expMissing = "exp-missing"
        /// `exp` is not a JSON number (e.g. a string).
        case expMalformed = "exp-malformed"
        /// `exp` has 13 or more digits: milliseconds, not the seconds RFC 7519 §2 requires. Not
        /// rescaled.
        case expMilliseconds = "exp-milliseconds"
    }

    /// A usable expiry, relative to the client's clock when `iat` is known.
    case valid(Date)
    /// No usable expiry: the session needs a refresh now.
    case invalid(Issue)

    /// The first `exp` value read as milliseconds (10¹² s is the year 33658).
    static let millisecondThreshold = 1e12

    /// Reads `jwt` (not verified: the device only reads it, as the SDK does).
    static func read(_ jwt: String?, appID: String, now: Date) -> SessionExpiry {
        guard let jwt, !jwt.isEmpty else { return .invalid(.jwtMissing) }
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = try? Base64URL.decode(parts[1]),
            case .object(let claims)? = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        else { return .invalid(.jwtMalformed) }
        if case .string(let audience)? = claims["aud"], audience.caseInsensitiveCompare(appID) != .orderedSame {
            return .invalid(.audienceMismatch)
        }
        guard let expValue = claims["exp"] else { return .invalid(.expMissing) }
        guard case .number(let exp) = expValue, exp.isFinite else { return .invalid(.expMalformed) }
        guard exp < millisecondThreshold else { return .invalid(.expMilliseconds) }
        // Relative to the client's clock when `iat` is a plausible number of seconds: the
        // server's clock may be skewed.
        // Lifetimes and expiries past 10 years are not plausible (Docs/Security.md, "Numbers from
        // the wire"): the session needs a refresh now.
        if case .number(let iat)? = claims["iat"], iat.isFinite, iat < millisecondThreshold, exp > iat {
            guard let lifetime = try? WireNumber.lifetime(seconds: exp - iat, field: "exp - iat", provider: .otpless)
            else { return .invalid(.expMalformed) }
            return .valid(now.addingTimeInterval(lifetime).roundedToMilliseconds)
        }
        guard let date = try? WireNumber.expiry(unixSeconds: exp, now: now, field: "exp", provider: .otpless) else {
            return .invalid(.expMalformed)
        }
        return .valid(date.roundedToMilliseconds)
    }
}
