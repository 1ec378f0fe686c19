import Foundation
import MultiAuth

extension DynamicProvider {
    /// Maps a non-2xx Dynamic response to an `AuthError`, keeping the raw code (the 422/403
    /// `code` when it looks like a code — `AuthError.plausibleProviderCode(_:)`, else `nil` —
    /// or the HTTP status when there is none) in `AuthError.providerCode`
    /// (Docs/Providers/Dynamic.md, "Errors"). Internal: apps see `AuthError` only.
    ///
    /// A refusal whose code or text names a captcha (any of 400, 403, 422) is `configuration`:
    /// the environment has captcha enabled and the request carried no valid token. The
    /// status and code of that refusal are not published (**[ASSUMPTION]**).
    ///
    /// | HTTP | code | `AuthError.Code` |
    /// |---|---|---|
    /// | 422 | `wrong_email_verification_token`, `wrong_sms_verification_token`, `wrong_verification_token`, `mfa_invalid_code` | `invalidCode` |
    /// | 422 | `email_verification_expired`, `sms_verification_expired`, `invalid_email_verification`, `invalid_sms_verification`, `invalid_verification` | `expired` |
    /// | 422 | `too_many_email_verification_attempts`, `too_many_sms_verification_attempts`, `too_many_verification_attempts` | `attemptsExhausted` |
    /// | 422 | `too_many_requests` | `rateLimited` |
    /// | 422 | `invalid_email_address`, `invalid_phone`, `missing_phone_number_or_email` | `invalidInput` |
    /// | 422 | `no_enabled_email_provider`, `no_enabled_sms_provider`, `invalid_session_public_key` | `configuration` |
    /// | 422 | `provider_not_available`, `unauthorized_mobile_deeplink_url`, `invalid_mobile_deeplink_urls` (social login) | `configuration` |
    /// | 422 | `social_account_already_exists`, `email_associated_with_different_provider`, `user_has_already_account_with_email` | `unauthorized` |
    /// | 422 | any other code | `generic` |
    /// | 429 | — | `rateLimited`, `retryAfter` from `Retry-After`, else the send-limit window |
    /// | 401, 403 | — / `error.code` | `unauthorized` |
    /// | 400 | — | `invalidInput` |
    /// | 404 | — | `configuration` (unknown environment) |
    /// | 5xx | — | `providerUnavailable`, `retryAfter` from `Retry-After` |
    /// | other | — | `generic` |
    ///
    /// - Parameters:
    ///   - response: The error response.
    ///   - channel: The verification's channel, for messages; `nil` outside a verification.
    /// - Returns: The error; never throws, never crashes on an unknown or missing body.
    func mapError(_ response: HTTPResponse, channel: DeliveryChannel?) -> AuthError {
        let body = try? JSONDecoder().decode(DynamicWire.ErrorBody.self, from: response.body)
        let status = response.status
        let raw = body?.code ?? String(status)
        // The server's code is kept only when it looks like one: a hostile or buggy server
        // could echo the OTP or a token there (Docs/Security.md, "Redaction").
        let kept = body?.code == nil ? raw : AuthError.plausibleProviderCode(raw)
        func error(
            _ code: AuthError.Code, _ message: String, retryAfter: Duration? = nil, attemptsRemaining: Int? = nil
        ) -> AuthError {
            AuthError(
                code, message, provider: id, providerCode: kept, retryAfter: retryAfter,
                attemptsRemaining: attemptsRemaining)
        }
        if [400, 403, 422].contains(status), Self.mentions(body, anyOf: ["captcha"]) {
            return error(
                .configuration,
                "this Dynamic environment requires a captcha: pass the widget's token as the request option \"\(Self.captchaTokenOption)\""
            )
        }
        let common = response.commonError(
            provider: id, providerCode: kept, rateLimitWindow: configuration.sendLimitWindow
        ) {
            $0 == .rateLimited
                ? "too many codes were requested; wait before asking again" : "Dynamic answered HTTP \(status)"
        }
        if let common { return common }
        switch status {
        case 401:
            return error(.unauthorized, "the Dynamic token is missing, expired or revoked")
        case 403:
            return error(.unauthorized, "Dynamic refused the request (HTTP 403)")
        case 400:
            return error(.invalidInput, "Dynamic rejected the request as malformed (HTTP 400)")
        case 404:
            return error(.configuration, "Dynamic does not know this environment or path (HTTP 404)")
        case 422:
            break
        default:
            return error(.generic, "Dynamic answered HTTP \(status)")
        }
        switch raw {
        case "wrong_email_verification_token", "wrong_sms_verification_token", "wrong_verification_token",
            "mfa_invalid_code":
            return error(.invalidCode, "the code is not correct")
        case "email_verification_expired", "sms_verification_expired", "invalid_email_verification",
            "invalid_sms_verification", "invalid_verification":
            return error(.expired, "the verification expired or is unknown; request a new code")
        case "too_many_email_verification_attempts", "too_many_sms_verification_attempts",
            "too_many_verification_attempts":
            return error(.attemptsExhausted, "too many wrong codes; request a new code", attemptsRemaining: 0)
        case "too_many_requests":
            return error(
                .rateLimited, "too many requests", retryAfter: response.retryAfter ?? configuration.sendLimitWindow)
        case "invalid_email_address", "invalid_phone", "missing_phone_number_or_email":
            return error(.invalidInput, "Dynamic rejected the \(channel == .sms ? "phone number" : "e-mail address")")
        case "no_enabled_email_provider", "no_enabled_sms_provider":
            return error(
                .configuration, "this Dynamic environment has no \(channel == .sms ? "SMS" : "e-mail") provider enabled"
            )
        case "provider_not_available", "unauthorized_mobile_deeplink_url", "invalid_mobile_deeplink_urls":
            return error(
                .configuration,
                "this Dynamic environment does not offer that social provider, or has not whitelisted the app's deep link"
            )
        case "social_account_already_exists", "email_associated_with_different_provider",
            "user_has_already_account_with_email":
            return error(
                .unauthorized, "that social account or e-mail address already belongs to another Dynamic sign-in method"
            )
        case "invalid_session_public_key":
            return error(
                .configuration,
                "Dynamic refused DynamicConfiguration.sessionPublicKey: check the session key's public half"
            )
        default:
            return error(.generic, "Dynamic answered HTTP 422")
        }
    }
}

extension DynamicProvider {
    /// Maps a non-2xx answer to `POST /refresh` (Docs/Providers/Dynamic.md, "Refresh"):
    /// `401`, `403`, and a `400` whose code or text names the session, the token or the JWT
    /// mean the bearer is revoked, expired or unknown → `sessionExpired`; `429` →
    /// `rateLimited`; `5xx` → `providerUnavailable`; `404` → `configuration`; anything else →
    /// `generic` (the session is kept: only a clear rejection ends it).
    func refreshError(_ response: HTTPResponse) -> AuthError {
        let body = try? JSONDecoder().decode(DynamicWire.ErrorBody.self, from: response.body)
        let raw = body?.code ?? String(response.status)
        switch response.status {
        case 401, 403:
            return AuthError(
                .sessionExpired, "Dynamic refused the session token (HTTP \(response.status)); sign in again",
                provider: id,
                providerCode: raw)
        case 400 where Self.mentions(body, anyOf: ["session", "token", "jwt"]):
            return AuthError(
                .sessionExpired, "Dynamic reports the session token invalid (HTTP 400); sign in again", provider: id,
                providerCode: raw)
        case 400:
            return AuthError(.generic, "Dynamic refused the refresh (HTTP 400)", provider: id, providerCode: raw)
        default:
            let mapped = mapError(response, channel: nil)
            if [.rateLimited, .providerUnavailable, .configuration].contains(mapped.code) { return mapped }
            return AuthError(
                .generic, "Dynamic refused the refresh (HTTP \(response.status))", provider: id, providerCode: raw)
        }
    }

    /// Whether the error body's code or message contains one of `words` (case-insensitive).
    static func mentions(_ body: DynamicWire.ErrorBody?, anyOf words: [String]) -> Bool {
        let text = ((body?.code ?? "") + " " + (body?.message ?? "")).lowercased()
        return words.contains { text.contains($0) }
    }
}
