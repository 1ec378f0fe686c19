import Foundation
import MultiAuth

/// Maps OTPLESS error codes (Docs/Providers/OTPless.md, "Error table") to `AuthError.Code`,
/// keeping the raw code in
/// `AuthError.providerCode`. Internal: apps see `AuthError` only.
///
/// Unknown codes map to `.generic` (never a crash, never a mis-decode). An error body without
/// `errorCode` is keyed by the HTTP status as a string, as the SDK does (`ApiError.getResponse`).
enum OTPlessErrorMapping {
    /// Every documented code and its normalized meaning (including the SNA
    /// server API codes and the SDK-made codes).
    static let table: [String: AuthError.Code] = [
        // Initialisation
        "5003": .providerUnavailable,
        // INITIATE: request and merchant checks
        "4000": .invalidInput, "4001": .configuration, "4002": .invalidInput, "4003": .configuration,
        "5900": .unsupported,
        "7101": .invalidInput, "7102": .invalidInput, "7103": .channelUnavailable, "7104": .invalidInput,
        "7105": .channelUnavailable, "7106": .invalidInput, "7113": .invalidInput, "7116": .invalidInput,
        "7121": .configuration, "7119": .invalidInput,
        "401": .configuration, "7025": .channelUnavailable,
        // Rate limits
        "7020": .rateLimited, "7022": .rateLimited, "7023": .rateLimited, "7024": .rateLimited, "429": .rateLimited,
        // VERIFY
        "7112": .invalidInput, "7115": .codeAlreadyUsed, "7118": .invalidCode, "7303": .expired,
        // Server and network
        "500": .providerUnavailable, "502": .providerUnavailable, "503": .providerUnavailable,
        "504": .providerUnavailable,
        "9100": .network, "9101": .network, "9102": .network, "9103": .network, "9104": .network, "9105": .network,
        "9110": .cancelledByProvider,
        "5005": .network, "5006": .malformedResponse, "5002": .network, "-1009": .network, "-2": .network,
        // Silent network auth
        "9106": .channelUnavailable, "400": .invalidInput, "7160": .channelUnavailable, "7161": .channelUnavailable,
        "5800": .unsupported, "7122": .channelUnavailable, "7128": .channelUnavailable, "7169": .rateLimited,
        "7170": .challengeNotPending,
        // Server credentials
        "7002": .unauthorized, "7012": .configuration, "7019": .unauthorized,
    ]

    /// The normalized code for a raw OTPLESS code.
    /// - Parameter providerCode: The raw code, e.g. `"7118"`.
    /// - Returns: The mapped code, or `.generic` for an unknown one.
    static func code(for providerCode: String) -> AuthError.Code {
        table[providerCode.trimmingCharacters(in: .whitespaces)] ?? .generic
    }

    /// The `AuthError` for an error response: ``error(status:body:retryAfter:attemptsRemaining:provider:)``
    /// with the response's status, body and `Retry-After`.
    static func error(for response: HTTPResponse, attemptsRemaining: Int? = nil, provider: AuthProviderID = .otpless)
        -> AuthError
    {
        error(
            status: response.status, body: response.body, retryAfter: response.retryAfter,
            attemptsRemaining: attemptsRemaining,
            provider: provider)
    }

    /// The `AuthError` for an error response.
    /// - Parameters:
    ///   - status: The HTTP status, e.g. `400`.
    ///   - body: The response body (`{errorCode, message, description}` when the server sent one).
    ///   - retryAfter: The `Retry-After` delay, for rate limits.
    ///   - attemptsRemaining: Attempts left, for `7118`.
    ///   - provider: The provider id to stamp on the error.
    /// - Returns: An error whose `providerCode` is the body's `errorCode` (`nil` when it does
    ///   not look like a code: `AuthError.plausibleProviderCode(_:)`) or, without one, the
    ///   HTTP status; a status without a known code maps as every provider reads it
    ///   (`HTTPResponse.commonErrorCode`: 429 → `.rateLimited`, 5xx → `.providerUnavailable`).
    ///   A rate limit without `Retry-After` reports 30 s. The message names the raw code and the
    ///   status only (never the code or token the request carried).
    static func error(
        status: Int, body: Data, retryAfter: Duration? = nil, attemptsRemaining: Int? = nil,
        provider: AuthProviderID = .otpless
    ) -> AuthError {
        let decoded = try? JSONDecoder().decode(OTPlessWire.ErrorBody.self, from: body)
        // The server's code is kept only when it looks like one: a hostile or buggy server
        // could echo the OTP or a token there (Docs/Security.md, "Redaction").
        let raw = decoded?.code == nil ? String(status) : AuthError.plausibleProviderCode(decoded?.code)
        var code: AuthError.Code = raw.map { Self.code(for: $0) } ?? .generic
        if code == .generic { code = HTTPResponse(status: status).commonErrorCode ?? .generic }
        let message = "OTPLESS error \(raw ?? "(not a code)") (HTTP \(status))"
        return AuthError(
            code, message, provider: provider, providerCode: raw,
            retryAfter: code == .rateLimited ? (retryAfter ?? .seconds(30)) : nil,
            attemptsRemaining: code == .invalidCode ? attemptsRemaining : nil)
    }
}
