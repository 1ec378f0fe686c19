import Foundation

extension HTTPResponse {
    /// The ``AuthError/Code`` of a status every provider reads the same way, or `nil`:
    /// `429 Too Many Requests` is ``AuthError/Code/rateLimited`` (RFC 6585 §4) and any status
    /// from 500 up is ``AuthError/Code/providerUnavailable``, a retryable failure of the
    /// provider (RFC 9110 §15.6). Every other status, 2xx included, is the provider's own to map
    /// (Docs/WritingAProvider.md, "2. Rules", rule 4).
    ///
    /// Use it where a provider's own codes come first and the status is the fallback, e.g.
    /// `default: response.commonErrorCode ?? .generic`. Package-only: the built-in adapters
    /// share it; apps see `AuthError` only. Concurrency: a pure computed property.
    package var commonErrorCode: AuthError.Code? {
        switch status {
        case 429: .rateLimited
        case 500...: .providerUnavailable
        default: nil
        }
    }

    /// The `AuthError` of a status every provider reads the same way (``commonErrorCode``), or
    /// `nil` for any other status, which the provider maps itself. The body is not read.
    ///
    /// A `429` reports ``retryAfter`` (the `Retry-After` header, RFC 9110 §10.2.3), else
    /// `rateLimitWindow`; a `5xx` reports the `Retry-After` header when
    /// `retryAfterWhenUnavailable` is set and the server sent one. Package-only.
    /// Concurrency: a pure function.
    /// - Parameters:
    ///   - provider: The provider id stamped on the error.
    ///   - providerCode: The raw code to keep in ``AuthError/providerCode``; the status as a
    ///     decimal string (e.g. `"503"`) when `nil`.
    ///   - rateLimitWindow: The delay a `429` without `Retry-After` reports, e.g. the provider's
    ///     documented send limit; `nil` leaves it unknown.
    ///   - retryAfterWhenUnavailable: Whether a `5xx` reports the `Retry-After` header.
    ///   - message: A secret-free message for the code; `HTTP <status>` when `nil`.
    /// - Returns: `.rateLimited` for `429`, `.providerUnavailable` for `5xx`, `nil` otherwise.
    package func commonError(
        provider: AuthProviderID?, providerCode: String? = nil, rateLimitWindow: Duration? = nil,
        retryAfterWhenUnavailable: Bool = true, message: ((AuthError.Code) -> String)? = nil
    ) -> AuthError? {
        guard let code = commonErrorCode else { return nil }
        let delay =
            code == .rateLimited ? (retryAfter ?? rateLimitWindow) : (retryAfterWhenUnavailable ? retryAfter : nil)
        return AuthError(
            code, message?(code) ?? "HTTP \(status)", provider: provider, providerCode: providerCode ?? String(status),
            retryAfter: delay)
    }
}
