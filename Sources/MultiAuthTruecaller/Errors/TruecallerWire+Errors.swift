import Foundation
import MultiAuth
import MultiAuthCrypto

/// The error mapping of Truecaller's answers (Docs/Providers/Truecaller.md, "Error table").
/// Internal: apps see `AuthError` only.
extension TruecallerWire {
    /// The error an answer carries, or `nil` for a success. An answer is an error **iff** its
    /// JSON has a `code` key, whatever the HTTP status (as TrueSDK decides); a non-2xx answer
    /// without one is an error by its status.
    ///
    /// A `message` Truecaller documents (``documentedMessages``) maps by its meaning, whatever
    /// the code (the only sourced server fact); else a known numeric code maps through
    /// ``TruecallerErrorCode`` (with `retryAfter` from the `Retry-After` header or a
    /// `retryAfter` field in seconds, and `attemptsRemaining` when present); else by the status
    /// (`429` → `.rateLimited`, `5xx` → `.providerUnavailable`), else `.generic`. The raw code
    /// is always kept. Without a code: `429`
    /// → `.rateLimited`, `5xx` → `.providerUnavailable`, other non-2xx → `.generic`.
    static func failure(_ response: HTTPResponse, object: [String: JSONValue]?) -> AuthError? {
        let retryAfter = response.retryAfter ?? WireNumber.wait(object?["retryAfter"]?.doubleValue)
        if let object, let codeValue = object["code"] {
            let number = codeValue.int64Value.map(Int.init) ?? codeValue.stringValue.flatMap { Int($0) }
            // The server's code is kept only when it looks like one: a hostile or buggy server
            // could echo the OTP or a token there (Docs/Security.md, "Redaction").
            let raw = AuthError.plausibleProviderCode(
                number.map(String.init) ?? codeValue.stringValue ?? String(response.status))
            // A documented server message is the only sourced meaning: it wins over the number.
            if let message = object["message"]?.stringValue, let documented = documented(message) {
                return AuthError(
                    documented.code, documented.meaning, provider: .truecaller, providerCode: raw,
                    retryAfter: documented.code == .rateLimited ? retryAfter : nil)
            }
            if let number {
                let code = TruecallerErrorCode(number)
                if code.name != nil {
                    let remaining = object["attemptsRemaining"]?.int64Value.map(Int.init)
                    return code.authError(retryAfter: retryAfter, attemptsRemaining: remaining)
                }
            }
            if let common = commonError(response, providerCode: raw, retryAfter: retryAfter) { return common }
            return AuthError(
                .generic, "Truecaller error \(raw ?? "(not a code)") is not one this adapter knows",
                provider: .truecaller,
                providerCode: raw)
        }
        if response.isSuccess { return nil }
        let status = String(response.status)
        if let common = commonError(response, providerCode: status, retryAfter: retryAfter) { return common }
        return AuthError(
            .generic, "HTTP \(response.status) without an error code", provider: .truecaller, providerCode: status)
    }

    /// Server messages Truecaller documents for the non-Truecaller verification flow (the
    /// `TrueException` table of its Android SDK 2.8 / OAuth 3.x docs; Docs/Providers/Truecaller.md),
    /// compared case-insensitively without surrounding punctuation, with the code each maps to.
    static let documentedMessages: [(message: String, code: AuthError.Code, meaning: String)] = [
        ("phone number limit reached", .rateLimited, "this number reached its verification limit for 24 hours"),
        ("request id limit reached", .rateLimited, "this device reached its verification limit for 24 hours"),
        ("invalid partner credentials", .configuration, "the app key is not accepted: check the partner key"),
        (
            "something went wrong: failed to create installation", .providerUnavailable,
            "Truecaller could not start the verification"
        ),
        ("invalid phone number", .invalidInput, "Truecaller rejected the phone number"),
    ]

    /// The documented meaning of a server message, or `nil`.
    static func documented(_ message: String) -> (code: AuthError.Code, meaning: String)? {
        let key = message.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters)).lowercased()
        return documentedMessages.first { $0.message == key }.map { ($0.code, $0.meaning) }
    }

    /// The error of a status every provider reads the same way (`HTTPResponse.commonError`):
    /// `429` → `.rateLimited` with `retryAfter` (the header, else the body's `retryAfter`
    /// field), `5xx` → `.providerUnavailable` without a delay; `nil` for any other status.
    private static func commonError(_ response: HTTPResponse, providerCode: String?, retryAfter: Duration?)
        -> AuthError?
    {
        response.commonError(
            provider: .truecaller, providerCode: providerCode, rateLimitWindow: retryAfter,
            retryAfterWhenUnavailable: false)
    }
}
