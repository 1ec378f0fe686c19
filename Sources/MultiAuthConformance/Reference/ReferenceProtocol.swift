import Foundation
import MultiAuth

/// The **reference protocol**: a small e-mail/SMS one-time-code protocol designed for MultiAuth's
/// own tests, served by ``ReferenceBackend`` and spoken by `ReferenceProvider`
/// (module `MultiAuthConformance`). It exercises every ability the conformance kit checks.
///
/// All bodies are JSON; all times are seconds.
///
/// | request | success | errors (`{"code": …}`) |
/// |---|---|---|
/// | `POST /otp/start` ``StartRequest`` | 200 ``ChallengeResponse`` | 400 `invalid_identity`, 400 `unsupported_channel`, 422 `channel_unavailable` |
/// | `POST /otp/verify` ``VerifyRequest`` | 200 ``TokenResponse`` | 401 `invalid_code` (+`attemptsRemaining`), 410 `expired`, 403 `attempts_exhausted`, 404 `unknown_flow`, 409 `already_used` |
/// | `POST /otp/resend` ``ResendRequest`` | 200 ``ChallengeResponse`` | 429 `rate_limited` (+`retryAfter`, `Retry-After`), 410 `expired`, 404 `unknown_flow` |
/// | `POST /token/refresh` ``RefreshRequest`` | 200 ``TokenResponse`` | 401 `invalid_grant` (unknown or already rotated refresh token) |
/// | `POST /logout` ``LogoutRequest`` | 204 | 401 `invalid_token` (already revoked: clients treat as done) |
///
/// Codes are ``codeLength`` digits, valid ``challengeTTL`` seconds, ``maximumAttempts``
/// attempts; a resend is accepted ``resendAfter`` seconds after the last send and issues a new
/// code (the old one stops working). Each delivery also carries a magic link
/// `multiauth-ref://callback?state=<state>&code=<code>` (the `state` the client sent).
/// Refresh tokens rotate: each is accepted once, except that a token presented again within
/// ``refreshReuseInterval`` seconds of its rotation gets the same new tokens again (while they
/// are live), so two app instances refreshing at once do not end each other's session — the
/// reuse interval of Supabase Auth (`GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL`), Okta's
/// and Auth0's rotation grace period. Access tokens live ``accessTokenTTL`` seconds.
/// With `allowFallback`, a phone delivery that fails on WhatsApp is retried by SMS
/// (``ChallengeResponse/fallbackFrom`` tells); an explicit channel never falls back.
public enum ReferenceProtocol {
    /// The default host of the reference backend.
    public static let defaultHost = "ref.sandbox.test"
    /// The redirect URL scheme.
    public static let redirectScheme = "multiauth-ref"
    /// Digits per code.
    public static let codeLength = 6
    /// Seconds a code stays valid.
    public static let challengeTTL = 300
    /// Seconds between sends of one flow.
    public static let resendAfter = 30
    /// Attempts per flow.
    public static let maximumAttempts = 3
    /// Seconds an access token lives.
    public static let accessTokenTTL = 3600
    /// Seconds after its rotation during which a refresh token presented again gets the same
    /// new tokens (default of ``ReferenceBackend/init(refreshReuseInterval:)``).
    public static let refreshReuseInterval = 10
    /// The server clock skew (either way) clients must tolerate, in seconds: clients must use
    /// the relative `expiresIn` / `resendAfter` fields, not the server's absolute times.
    public static let clockSkewTolerance = 600

    /// `POST /otp/start` body.
    public struct StartRequest: Codable, Sendable {
        /// E.164 number or e-mail identity key (personal data: every rendering shows `<redacted>`).
        public var identity: Secret
        /// `"sms"`, `"whatsapp"` (phones) or `"email"` (e-mail addresses).
        public var channel: String
        /// Whether the server may deliver on another channel when this one fails.
        public var allowFallback: Bool
        /// The client's state, echoed in the magic link.
        public var state: Secret
        /// Creates a body.
        public init(identity: Secret, channel: String, allowFallback: Bool, state: Secret) {
            self.identity = identity
            self.channel = channel
            self.allowFallback = allowFallback
            self.state = state
        }
    }

    /// The challenge a start or resend issued.
    public struct ChallengeResponse: Codable, Sendable {
        /// The server's flow id (secret to the client: it identifies the grant).
        public var flowId: Secret
        /// Digits in the code.
        public var length: Int
        /// Seconds until the code expires.
        public var expiresIn: Int
        /// The server's absolute expiry (server clock, ISO 8601). Informational only.
        public var expiresAt: Date
        /// Seconds until a resend is accepted.
        public var resendAfter: Int
        /// Attempts left.
        public var attempts: Int
        /// The channel the code went out on.
        public var channel: String
        /// The channel that failed first, when the server fell back.
        public var fallbackFrom: String?
        /// Creates a response.
        public init(
            flowId: Secret, length: Int, expiresIn: Int, expiresAt: Date, resendAfter: Int, attempts: Int,
            channel: String,
            fallbackFrom: String?
        ) {
            self.flowId = flowId
            self.length = length
            self.expiresIn = expiresIn
            self.expiresAt = expiresAt
            self.resendAfter = resendAfter
            self.attempts = attempts
            self.channel = channel
            self.fallbackFrom = fallbackFrom
        }
    }

    /// `POST /otp/verify` body.
    public struct VerifyRequest: Codable, Sendable {
        /// The flow.
        public var flowId: Secret
        /// The code as digits.
        public var code: Secret
        /// Creates a body.
        public init(flowId: Secret, code: Secret) {
            self.flowId = flowId
            self.code = code
        }
    }

    /// `POST /otp/resend` body.
    public struct ResendRequest: Codable, Sendable {
        /// The flow.
        public var flowId: Secret
        /// Another channel, or `nil` for the flow's current one.
        public var channel: String?
        /// Creates a body.
        public init(flowId: Secret, channel: String?) {
            self.flowId = flowId
            self.channel = channel
        }
    }

    /// `POST /token/refresh` body.
    public struct RefreshRequest: Codable, Sendable {
        /// The current refresh token.
        public var refreshToken: Secret
        /// Creates a body.
        public init(refreshToken: Secret) { self.refreshToken = refreshToken }
    }

    /// `POST /logout` body.
    public struct LogoutRequest: Codable, Sendable {
        /// The refresh token to revoke (with its access token).
        public var refreshToken: Secret
        /// Creates a body.
        public init(refreshToken: Secret) { self.refreshToken = refreshToken }
    }

    /// The user in a ``TokenResponse``.
    public struct User: Codable, Sendable, Hashable {
        /// The server's user id, e.g. `"u1"`.
        public var id: String
        /// The verified e-mail identity key, if the identity is an e-mail (renderings show it
        /// masked).
        public var email: EmailAddress?
        /// The verified E.164 number, if the identity is a phone (renderings show it masked).
        public var phone: PhoneNumber?
        /// Creates a user.
        public init(id: String, email: EmailAddress?, phone: PhoneNumber?) {
            self.id = id
            self.email = email
            self.phone = phone
        }

        private enum CodingKeys: String, CodingKey {
            case id, email, phone
        }

        /// Decodes a user; an `email` or `phone` string that is not a valid address or number
        /// is read as absent, as the wire's strings always were by clients.
        /// - Throws: `DecodingError` when `id` is missing or a field is not a string.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            email = try container.decodeIfPresent(String.self, forKey: .email).flatMap { try? EmailAddress($0) }
            phone = try container.decodeIfPresent(String.self, forKey: .phone).flatMap { try? PhoneNumber($0) }
        }
    }

    /// Tokens issued by verify and refresh.
    public struct TokenResponse: Codable, Sendable {
        /// The bearer access token.
        public var accessToken: Secret
        /// The refresh token (rotates on every refresh).
        public var refreshToken: Secret
        /// Seconds the access token lives.
        public var expiresIn: Int
        /// The server's absolute expiry (server clock). Informational only.
        public var expiresAt: Date
        /// The user.
        public var user: User
        /// Creates a response.
        public init(accessToken: Secret, refreshToken: Secret, expiresIn: Int, expiresAt: Date, user: User) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
            self.expiresIn = expiresIn
            self.expiresAt = expiresAt
            self.user = user
        }
    }

    /// Every error body.
    public struct ErrorResponse: Codable, Sendable {
        /// The error code, e.g. `"invalid_code"`.
        public var code: String
        /// For `invalid_code`: attempts left.
        public var attemptsRemaining: Int?
        /// For `rate_limited`: seconds to wait.
        public var retryAfter: Int?
        /// Creates a body.
        public init(code: String, attemptsRemaining: Int? = nil, retryAfter: Int? = nil) {
            self.code = code
            self.attemptsRemaining = attemptsRemaining
            self.retryAfter = retryAfter
        }
    }
}
