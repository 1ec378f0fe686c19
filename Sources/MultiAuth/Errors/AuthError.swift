import Foundation

/// The one error type every MultiAuth API throws (besides `CancellationError`).
///
/// An `AuthError` carries a normalized ``Code`` that apps switch on, the id of the provider
/// that produced it, the provider's own raw code (for example `"7118"`,
/// `"wrong_email_verification_token"` or `"15"`) so nothing is lost in the mapping, an
/// optional `retryAfter` delay and a human-readable message.
///
/// The message never contains a secret (codes, tokens, JWTs, TOTP secrets): build it from
/// field names and counts only. `description` follows the same rule. The message is for
/// developers and logs; show people `localizedDescription` and `recoverySuggestion`
/// (`LocalizedError`, AuthError+Localization.swift): the same text for the same code whichever
/// provider raised it, translatable through ``localizer``.
public struct AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An extensible, string-backed error code. Compare with the static constants.
    ///
    /// New codes may be added in minor releases; switch with a `default` branch.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The stable string form, e.g. `"invalidCode"`.
        public let rawValue: String
        /// Creates a code from its string form.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Creates a code from its string form.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// The string form.
        public var description: String { rawValue }

        /// Input rejected locally before any network call (identity, code format, JWT shape).
        public static let invalidInput = Code("invalidInput")
        /// The provider rejected the code; the challenge stays usable while attempts remain.
        public static let invalidCode = Code("invalidCode")
        /// The challenge, link, token or session is past its expiry.
        public static let expired = Code("expired")
        /// No attempts remain for this challenge; start a new flow.
        public static let attemptsExhausted = Code("attemptsExhausted")
        /// Too many requests; see ``AuthError/retryAfter``.
        public static let rateLimited = Code("rateLimited")
        /// The request did not complete (connection dropped, timeout, DNS). Retryable.
        public static let network = Code("network")
        /// The provider answered with a server error (5xx) or is unreachable. Retryable.
        public static let providerUnavailable = Code("providerUnavailable")
        /// The credentials or grant are not (or no longer) accepted; sign in again.
        public static let unauthorized = Code("unauthorized")
        /// The session ended on the provider's side: its refresh credential was revoked,
        /// expired or is unknown to the server. The stored session is removed once and
        /// `sessionExpired` is published; sign in again. Distinct from a user's sign-out and
        /// from transient failures (``network``, ``providerUnavailable``, ``rateLimited``),
        /// which never end a session.
        public static let sessionExpired = Code("sessionExpired")
        /// The provider's response could not be decoded.
        public static let malformedResponse = Code("malformedResponse")
        /// The session store cannot be read right now (locked keychain, unreadable or corrupt
        /// file). This is **not** "signed out": nothing was deleted.
        public static let storageUnavailable = Code("storageUnavailable")
        /// Writing or removing a session failed. Retrying the same answer finishes the write
        /// without a network call.
        public static let storageFailure = Code("storageFailure")
        /// A signature or nonce did not verify.
        public static let signatureInvalid = Code("signatureInvalid")
        /// The SDK or the provider's merchant configuration is wrong (unknown provider, channel
        /// not enabled, missing adapter).
        public static let configuration = Code("configuration")
        /// The provider does not support the requested operation or channel.
        public static let unsupported = Code("unsupported")
        /// The provider (or the user, on the provider's side) cancelled the flow.
        public static let cancelledByProvider = Code("cancelledByProvider")
        /// The user dismissed a step on this device (the platform's passkey sheet); nothing was
        /// sent and the challenge stays open.
        public static let cancelledByUser = Code("cancelledByUser")
        /// The requested delivery channel cannot reach this destination.
        public static let channelUnavailable = Code("channelUnavailable")
        /// The challenge is not pending (already completed, superseded or unknown).
        public static let challengeNotPending = Code("challengeNotPending")
        /// The code was already used (replay), RFC 6238 §5.2.
        public static let codeAlreadyUsed = Code("codeAlreadyUsed")
        /// Any provider error without a more specific mapping; ``AuthError/providerCode`` keeps the raw value.
        public static let generic = Code("generic")
    }

    /// Why an ``Code/invalidInput`` error was raised, when the reason is one of the
    /// well-known ones. Extensible like ``Code``.
    public struct Reason: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The string form, e.g. `"tooShort"`.
        public let rawValue: String
        /// Creates a reason from its string form.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Creates a reason from its string form.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// The string form.
        public var description: String { rawValue }

        /// A national number was given without a `+`/`00` prefix and no default region.
        public static let regionRequired = Reason("regionRequired")
        /// Fewer digits than any possible number of that region.
        public static let tooShort = Reason("tooShort")
        /// More digits than any possible number of that region, or more than 15 in E.164.
        public static let tooLong = Reason("tooLong")
        /// The country calling code (or region) is not assigned.
        public static let invalidCountryCode = Reason("invalidCountryCode")
        /// Characters other than digits and the accepted separators.
        public static let invalidCharacters = Reason("invalidCharacters")
        /// A phone number followed by an extension (`x28`, `ext. 123`, `;ext=123`, `#123`):
        /// a sign-in number cannot carry one (Docs/Standards.md, "Phone extensions").
        public static let extensionNotSupported = Reason("extensionNotSupported")
        /// An e-mail address that is not `local@domain` with a valid domain.
        public static let invalidEmail = Reason("invalidEmail")
        /// A code of the wrong length or with non-digit characters (Docs/Cases.md, B34).
        public static let invalidCodeFormat = Reason("invalidCodeFormat")
        /// A person's name that breaks the provider's name rules.
        public static let invalidName = Reason("invalidName")
        /// A JWT that is blank, not three base64url segments, or lacks a required claim.
        public static let invalidToken = Reason("invalidToken")
        /// The answer does not fit the challenge kind (e.g. a name missing).
        public static let answerMismatch = Reason("answerMismatch")
    }

    /// The normalized error code.
    public var code: Code
    /// The provider that produced the error, if any.
    public var provider: AuthProviderID?
    /// The provider's raw error code, kept verbatim (e.g. `"7118"`); adapters leave it `nil`
    /// when a server sent something that does not look like a code (Docs/Security.md,
    /// "Redaction").
    public var providerCode: String?
    /// For ``Code/invalidInput``: the specific reason.
    public var reason: Reason?
    /// How long to wait before retrying (rate limits, resend cool-down), as a `Duration`.
    public var retryAfter: Duration?
    /// For ``Code/invalidCode``: attempts the provider still allows, when known.
    public var attemptsRemaining: Int?
    /// A message for logs and developers. Never contains a secret.
    public var message: String
    /// The underlying error, when one caused this error. Not compared by `==`.
    ///
    /// Only redacted errors are kept: an ``AuthError`` as it is, any other error as a
    /// ``RedactedError`` (its type name, domain, code, and a URL's host and redacted path:
    /// never a `userInfo` that may hold a request URL with a token), however it is set.
    public var underlying: (any Error)? {
        get { redactedUnderlying }
        set { redactedUnderlying = newValue.map(Self.redacted) }
    }
    private var redactedUnderlying: (any Error)?

    /// `error` as ``underlying`` keeps it.
    private static func redacted(_ error: any Error) -> any Error {
        if let error = error as? AuthError { return error }
        return RedactedError(redacting: error)
    }

    /// Creates an error.
    /// - Parameters:
    ///   - code: The normalized code.
    ///   - message: A secret-free message.
    ///   - provider: The provider that produced the error.
    ///   - providerCode: The raw provider code, verbatim.
    ///   - reason: The ``Reason`` for `invalidInput`.
    ///   - retryAfter: Delay before a retry makes sense.
    ///   - attemptsRemaining: Attempts left, for `invalidCode`.
    ///   - underlying: The error that caused this one.
    public init(
        _ code: Code,
        _ message: String = "",
        provider: AuthProviderID? = nil,
        providerCode: String? = nil,
        reason: Reason? = nil,
        retryAfter: Duration? = nil,
        attemptsRemaining: Int? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.provider = provider
        self.providerCode = providerCode
        self.reason = reason
        self.retryAfter = retryAfter
        self.attemptsRemaining = attemptsRemaining
        self.redactedUnderlying = underlying.map(Self.redacted)
    }

    /// Convenience for a local ``Code/invalidInput`` error with a reason.
    public static func invalidInput(_ reason: Reason, _ message: String = "") -> AuthError {
        AuthError(.invalidInput, message.isEmpty ? reason.rawValue : message, reason: reason)
    }

    /// Whether the same request may succeed if repeated later (network, 5xx, rate limit).
    public var isRetryable: Bool {
        [.network, .providerUnavailable, .rateLimited, .storageFailure, .storageUnavailable].contains(code)
    }

    /// Whether the challenge just answered is still usable and the person should type the code
    /// again: a wrong code (``Code/invalidCode``; attempts remain, the last one is
    /// ``Code/attemptsExhausted`` instead) or a code refused before any request for its form
    /// (``Code/invalidInput`` with ``Reason/invalidCodeFormat``: a missing digit, a letter; no
    /// attempt used). A sign-in loop catches these inside the loop and asks again; every other
    /// error ends the attempt (Docs/GettingStarted.md, "4. Sign in").
    public var asksForTheCodeAgain: Bool {
        code == .invalidCode || (code == .invalidInput && reason == .invalidCodeFormat)
    }

    /// A one-line, secret-free description: code, reason, provider and raw code.
    public var description: String {
        var parts = ["AuthError(\(code.rawValue)"]
        if let reason { parts.append("reason: \(reason.rawValue)") }
        if let provider { parts.append("provider: \(provider.rawValue)") }
        if let providerCode { parts.append("providerCode: \(providerCode)") }
        if let attemptsRemaining { parts.append("attemptsRemaining: \(attemptsRemaining)") }
        if let retryAfter { parts.append("retryAfter: \(retryAfter)") }
        if !message.isEmpty { parts.append("message: \(message)") }
        return parts.joined(separator: ", ") + ")"
    }

    /// Equal when every field but ``underlying`` is equal.
    public static func == (lhs: AuthError, rhs: AuthError) -> Bool {
        lhs.code == rhs.code && lhs.provider == rhs.provider && lhs.providerCode == rhs.providerCode
            && lhs.reason == rhs.reason && lhs.retryAfter == rhs.retryAfter
            && lhs.attemptsRemaining == rhs.attemptsRemaining && lhs.message == rhs.message
    }
}

extension AuthError: CustomReflectable {
    /// A mirror without the underlying error's contents (it may carry provider data): only its
    /// type name.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "code": code.rawValue, "reason": reason?.rawValue as Any, "provider": provider?.rawValue as Any,
                "providerCode": providerCode as Any, "retryAfter": retryAfter as Any,
                "attemptsRemaining": attemptsRemaining as Any,
                "message": message, "underlying": underlying.map { String(describing: type(of: $0)) } as Any,
            ], displayStyle: .struct)
    }
}
