import Foundation
import MultiAuth
import MultiAuthCrypto

/// The error mapping of Truecaller's answers (Docs/Providers/Truecaller.md, "Error table").
/// Internal: apps see `AuthError` only.
extension TruecallerWire {
    /// Which call an answer is for: a refusal of `verify` reads as a refused code
    /// (Docs/Providers/Truecaller.md, "Error table").
    enum Call: Sendable {
        /// `POST /v1/otp/installation/verify`: the only input the person controls is the code.
        case verify
        /// Any other call (create, profile, key, token check).
        case other
    }

    /// The error an answer carries, or `nil` for a success. An answer is an error **iff** its
    /// JSON has a `code` key, whatever the HTTP status (as TrueSDK decides); a non-2xx answer
    /// without one is an error by its status.
    ///
    /// The order (Docs/Providers/Truecaller.md, "Error table"): a `message` Truecaller documents
    /// (``documentedMessages``) maps by its meaning, whatever the code; a code this adapter
    /// knows maps through ``TruecallerErrorCode`` (with `retryAfter` from the `Retry-After`
    /// header or a `retryAfter` field in seconds, and `attemptsRemaining` when present; the
    /// codes 4001/4002/4290/4291 are the sandbox's own); then the HTTP status: `429` →
    /// `.rateLimited`, `5xx` → `.providerUnavailable`; then, for `verify`, any other refusal
    /// → `.invalidCode` (the real wrong-code answer is unpublished and TrueSDK reads neither
    /// its status nor its code, it only lets the person try again, so a refused verify keeps
    /// the challenge usable); else `.generic`. The raw code (else the status) is always kept.
    static func failure(_ response: HTTPResponse, object: [String: JSONValue]?, call: Call = .other) -> AuthError? {
        let retryAfter = response.retryAfter ?? WireNumber.wait(object?["retryAfter"]?.doubleValue)
        // wire-number: int64Value is already an exact integer; clamped to 0...1000 before Int.
        let remaining = object?["attemptsRemaining"]?.int64Value.map { Int(max(0, min($0, 1_000))) }
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
                    return code.authError(retryAfter: retryAfter, attemptsRemaining: remaining)
                }
            }
            if let common = commonError(response, providerCode: raw, retryAfter: retryAfter) { return common }
            if call == .verify { return refusedCode(providerCode: raw, attemptsRemaining: remaining) }
            return AuthError(
                .generic, "Truecaller error \(raw ?? "(not a code)") is not one this adapter knows",
                provider: .truecaller,
                providerCode: raw)
        }
        if response.isSuccess { return nil }
        let status = String(response.status)
        if let common = commonError(response, providerCode: status, retryAfter: retryAfter) { return common }
        if call == .verify, (400..<500).contains(response.status) {
            return refusedCode(providerCode: status, attemptsRemaining: remaining)
        }
        return AuthError(
            .generic, "HTTP \(response.status) without an error code", provider: .truecaller, providerCode: status)
    }

    /// A refused `verify`: `.invalidCode`, the challenge stays usable, the raw code kept.
    private static func refusedCode(providerCode: String?, attemptsRemaining: Int?) -> AuthError {
        AuthError(
            .invalidCode, "Truecaller did not accept the code (\(providerCode ?? "no code")); check it and try again",
            provider: .truecaller, providerCode: providerCode, attemptsRemaining: attemptsRemaining)
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
