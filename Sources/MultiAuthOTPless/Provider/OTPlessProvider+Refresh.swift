import Foundation
import MultiAuth
import MultiAuthCrypto

extension OTPlessProvider {
    /// Renews the session JWT with `POST {session API}/v4/session/refresh`: headers `appId` and
    /// `state`, JSON body `{appId, refreshToken, origin, loginUri}`; the answer is
    /// `{sessionToken, refreshToken, sessionTokenJWT}` (`OtplessSessionManager.refreshJwtToken`,
    /// Docs/Providers/OTPless.md, "Sessions").
    ///
    /// As the SDK does, the session keeps its session token and refresh token and takes the
    /// new `sessionTokenJWT`; the new expiry is that JWT's `exp` (relative to the client clock
    /// when `iat` is known). The SDK treats a new JWT that is expired, names another app
    /// (`aud`) or has no numeric `exp` as an inactive session: so does this method.
    /// - Returns: The same session (same ``/MultiAuth/AuthSession/id``) with the new JWT and expiry.
    /// - Throws: `AuthError` `.sessionExpired` (the server refused the refresh credential with
    ///   a 4xx other than 429, providerCode = its `errorCode` or HTTP status; or it answered an
    ///   inactive JWT), `.unsupported` (the session has no refresh token: the merchant has no
    ///   OTPLESS session management), `.rateLimited` (429), `.providerUnavailable` (5xx),
    ///   `.network`, `.malformedResponse` (no `sessionTokenJWT`, or an `exp` of 13 or more
    ///   digits, which is reported, not rescaled); or `CancellationError`.
    public func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession {
        guard let refreshToken = session.credentials.refreshToken, !refreshToken.isEmpty else {
            throw AuthError(
                .unsupported, "this OTPLESS session has no refresh token (the merchant has no session management)",
                provider: id)
        }
        let request = try api.sessionRequest(
            .post, ["v4", "session", "refresh"], state: session.credentials.extra["state"]?.reveal() ?? "",
            extra: ["refreshToken": refreshToken.reveal()])
        let response = try await context.transport.send(request)
        guard response.isSuccess else {
            var error = OTPlessErrorMapping.error(for: response, provider: id)
            if (400..<500).contains(response.status), response.commonErrorCode == nil {
                error.code = .sessionExpired
                error.message =
                    "OTPLESS refused the session refresh (\(error.providerCode ?? String(response.status))); sign in again"
                error.retryAfter = nil
                error.attemptsRemaining = nil
            }
            throw error
        }
        let renewed = try response.decodeJSON(OTPlessWire.SessionInfo.self, provider: id)
        guard let jwt = renewed.sessionTokenJWT, !jwt.isEmpty else {
            throw AuthError(.malformedResponse, "the session refresh answered no sessionTokenJWT", provider: id)
        }
        let now = context.now
        let expiresAt: Date
        switch SessionExpiry.read(jwt.reveal(), appID: configuration.appID, now: now) {
        case .valid(let date) where date > now:
            expiresAt = date
        case .invalid(.expMilliseconds):
            throw AuthError(
                .malformedResponse,
                "the refreshed session JWT's exp has 13 or more digits (milliseconds?); it is not rescaled",
                provider: id)
        case .valid, .invalid:
            throw AuthError(.sessionExpired, "OTPLESS answered an inactive session JWT; sign in again", provider: id)
        }
        var refreshed = session
        refreshed.credentials.extra["sessionTokenJWT"] = jwt
        refreshed.credentials.expiresAt = expiresAt
        refreshed.user.attributes[OTPlessSessionMapper.expiryIssueAttribute] = nil
        return refreshed
    }
}
