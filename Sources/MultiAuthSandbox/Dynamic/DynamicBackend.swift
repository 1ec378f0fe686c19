import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking
import MultiAuthSandboxRuntime

/// The emulated Dynamic SDK API (Docs/Providers/Dynamic.md): e-mail and SMS verifications
/// keyed by a `verificationUUID`, sign-in with a 6-digit code, RS256 JWT sessions with refresh
/// and revoke, and the environment's JWKS.
///
/// Register it under ``defaultHost`` (`app.dynamic.test`, what `DynamicConfiguration.sandbox()`
/// points at):
/// ```swift
/// let sandbox = Sandbox()
/// let backend = try DynamicBackend()
/// sandbox.register(backend, host: DynamicBackend.defaultHost)
/// // DynamicProvider(configuration: try .sandbox())
/// let code = sandbox.inbox.latest(for: "user@example.com", channel: .email)?.code
/// ```
///
/// Paths (under `/api/v0/sdk/{env}/`, the last segment matched case-insensitively
/// [ASSUMPTION]; every path answers `OPTIONS` with `204`). Request bodies are checked field
/// for field against the SDK's request types: a key those types do not have is a `400`, so an
/// adapter cannot drift into sending invented fields.
/// - `POST emailVerifications/create` `{email, captchaToken?}` → `201 {verificationUUID, email}`;
///   `POST emailVerifications/retry` `{verificationUUID, email, captchaToken?}` → `201` (a new UUID).
/// - `POST smsVerifications/create` `{phoneCountryCode, phoneNumber, isoCountryCode, captchaToken?}`
///   → `201` echoing the identity with the UUID; `POST smsVerifications/retry` likewise.
/// - `POST emailVerifications/signin`, `POST smsVerifications/signin`
///   `{verificationUUID, verificationToken, captchaToken?, sessionPublicKey?}` → `200 {jwt,
///   minifiedJwt, expiresAt, user}`, or `{mfaToken, expiresAt, user}` for a destination marked
///   with ``requireMFA(for:)``, or `{expiresAt, user}` (no JWT) after
///   ``useCookieAuthentication(_:)``.
/// - `POST refresh`, `POST revoke` with `Authorization: Bearer <jwt or minifiedJwt>` → `200`
///   VerifyResponse / `204`; `401 {error}` for an unknown, expired or revoked token (see
///   ``revokeAllSessions()`` and ``revokeSessions(of:)`` for a revocation the app did not ask for).
/// - With ``requireCaptcha(_:)`` on, create, retry and signin without a `captchaToken` answer
///   `403 {error: {code: "invalid_captcha", message}, payload: {}}` (**[ASSUMPTION]**: the
///   real status and code are not published).
/// - `GET .well-known/jwks` → `{keys: [{kid, alg: RS256, kty: RSA, use: sig, n, e}]}`.
/// - `GET users` (Bearer) → `200` the current `SdkUser`.
///
/// Rules: codes are 6 digits from the sandbox's seeded random source, delivered to the
/// ``/MultiAuthSandboxRuntime/Inbox`` (destination: the e-mail identity key or the E.164 number; channel `email` or
/// `sms`); a code lives ``codeLifetime`` (**[ASSUMPTION]** 10 min); 3 wrong codes burn a
/// verification (the third answers `too_many_*_verification_attempts`, [3P]); at most
/// ``sendLimit`` sends (create + retry) per destination per ``sendWindow`` (3 per 10 min,
/// [DOC]; the same for SMS is an **[ASSUMPTION]**), the next gets `429 {error}` with a
/// `Retry-After` header in whole seconds (**[ASSUMPTION]**: the real header is not
/// documented); JWTs live ``tokenLifetime`` (**[ASSUMPTION]** 2 h) and are signed RS256 by an
/// RSA key generated once per process (`SandboxSigningKeys`) unless one is given; a refresh retires the presented token (**[ASSUMPTION]**);
/// an unknown environment gets `404 {error}`; `x-dyn-*` headers are ignored (**[ASSUMPTION]**).
/// Error codes are the snake_case wire spelling (confirmed as the convention by Dynamic's web
/// SDK); an expired SMS code answers `sms_verification_expired` (**[ASSUMPTION]**, the e-mail
/// twin is [3P]).
///
/// Thread-safe: its tables are in one `Locked` state; handlers never suspend while holding it.
public final class DynamicBackend: SandboxBackend, Sendable {
    /// The host the demo and tests register it under: `app.dynamic.test` (a reserved `.test`
    /// name, RFC 2606; `DynamicConfiguration.sandboxHost`).
    public static let defaultHost = "app.dynamic.test"
    /// The environment id it serves by default.
    public static let defaultEnvironmentID = "6b1c2d3e-0000-4000-8000-00000000d7a1"
    /// The API prefix before `/sdk/{env}` (as in `https://app.dynamicauth.com/api/v0`).
    public static let apiPrefix = "/api/v0"
    /// Digits per code: 6 (schema `sixDigitsVerificationToken`, [SDK]).
    public static let codeLength = 6
    /// How long a code can be used: **[ASSUMPTION]** 600 s.
    public static let codeLifetime: Duration = .seconds(600)
    /// Wrong codes per verification before it is burned: 3 ([3P]).
    public static let maximumAttempts = 3
    /// Sends allowed per destination per ``sendWindow``: 3 ([DOC] for e-mail).
    public static let sendLimit = 3
    /// The send-limit window: 600 s ([DOC]).
    public static let sendWindow: Duration = .seconds(600)
    /// JWT lifetime: **[ASSUMPTION]** 7 200 s.
    public static let tokenLifetime: Duration = .seconds(7200)
    /// The scope a finished sign-in carries (Docs/Providers/Dynamic.md, server side).
    public static let basicScope = "user:basic"
    /// The only scope of a sign-in that still owes its MFA step (Dynamic's MFA docs).
    public static let requiresAdditionalAuthScope = "requiresAdditionalAuth"

    /// The API base URL for a host, e.g. `https://app.dynamic.test/api/v0`.
    public static func baseURL(host: String = defaultHost) -> URL {
        URL(string: "https://\(host)\(apiPrefix)")!
    }

    /// The environment id this backend serves.
    public let environmentID: String
    /// The `kid` of its signing key.
    public let keyID: String
    /// The `aud` it puts in tokens (the client's Origin).
    public let audience: String
    /// The signing key, in a `Locked` box so that no rendering of the backend opens it.
    private let signingKeyBox: Locked<PrivateKey>
    /// The signing key.
    var signingKey: PrivateKey { signingKeyBox.withLock { $0 } }

    /// The backend's tables, only touched inside `state.withLock`.
    struct State {
        var verifications: [String: Verification] = [:]
        var sends: [String: [Date]] = [:]
        var users: [String: User] = [:]
        var sessions: [String: Session] = [:]
        var tokens: [String: String] = [:]
        var mfaSecrets: [String: [UInt8]] = [:]
        var captchaRequired = false
        var cookieAuthentication = false
        var oauthStates: [String: OAuthState] = [:]
        var oauthCodes: [String: OAuthCode] = [:]
        var oauthCounter = 0
        var disabledSocialProviders: Set<String> = []
        var allowedDeepLinks: Set<String>?
    }

    let state = Locked(State())

    /// An OAuth `state` registered by `initAuth`.
    struct OAuthState {
        let provider: String
        let redirectURL: String
        let createdAt: Date
    }

    /// An authorization code the emulated social provider issued for a state.
    struct OAuthCode {
        let state: String
        let provider: String
        let email: String
        let expiresAt: Date
        var used = false
    }

    struct Verification {
        let channel: DeliveryChannel
        let destination: String
        let wire: [String: JSONValue]
        let code: String
        let expiresAt: Date
        var wrongAttempts = 0
        var used = false
    }

    struct User {
        let id: String
        let credentialID: String
        let destination: String
        let channel: DeliveryChannel
        let wire: [String: JSONValue]
        var signIns = 0
        /// The social provider of a user who signed in with one (`oauth` credential).
        var oauthProvider: String? = nil
    }

    struct Session {
        let id: String
        let userKey: String
        var revoked = false
        /// Signed in, MFA still owed: its tokens carry only `requiresAdditionalAuth`.
        var mfaPending = false
    }

    /// Creates a backend that signs with the process's shared sandbox RSA-2048 key (generated
    /// once per process on first use; two backends made this way share it, so pass
    /// `signingKey:` where distinct keys matter).
    /// - Parameters:
    ///   - environmentID: The environment it serves (default ``defaultEnvironmentID``).
    ///   - keyID: The signing key's `kid`.
    ///   - audience: The `aud` of issued tokens.
    /// - Throws: `CryptoError` when the shared key cannot be generated.
    public convenience init(
        environmentID: String = DynamicBackend.defaultEnvironmentID, keyID: String = "multiauth-sandbox-dynamic-1",
        audience: String = "https://app.sandbox.test"
    ) throws {
        self.init(
            signingKey: try SandboxSigningKeys.rsa(), environmentID: environmentID, keyID: keyID, audience: audience)
    }

    /// Creates a backend that signs with `signingKey` (e.g. one key shared by many test
    /// backends, to skip RSA key generation).
    /// - Parameters:
    ///   - signingKey: An RSA private key (2048 bits or more).
    ///   - environmentID: The environment it serves.
    ///   - keyID: The signing key's `kid`.
    ///   - audience: The `aud` of issued tokens.
    public init(
        signingKey: PrivateKey, environmentID: String = DynamicBackend.defaultEnvironmentID,
        keyID: String = "multiauth-sandbox-dynamic-1", audience: String = "https://app.sandbox.test"
    ) {
        self.environmentID = environmentID
        self.keyID = keyID
        self.audience = audience
        self.signingKeyBox = Locked(signingKey)
    }

    /// Makes sign-ins of `destination` (e-mail identity key, E.164, or a social user's e-mail)
    /// owe the MFA step, as an environment with TOTP MFA does for a user with a registered
    /// authenticator (Dynamic's MFA docs): the sign-in answers with tokens whose scope is
    /// ``requiresAdditionalAuthScope`` alone, and `POST users/mfa/auth/totp` with the right code
    /// upgrades them. The authenticator's secret is ``totpSecret(for:)``.
    public func requireMFA(for destination: String) {
        let secret = Array(MessageDigest.sha256(Array(("multiauth-sandbox-mfa:" + destination).utf8)).prefix(20))
        state.withLock { $0.mfaSecrets[destination] = secret }
    }

    /// The TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s) of `destination`'s emulated
    /// authenticator after ``requireMFA(for:)``, or `nil`.
    public func totpSecret(for destination: String) -> [UInt8]? {
        state.withLock { $0.mfaSecrets[destination] }
    }

    /// Makes create, retry and signin require a non-empty `captchaToken`, as an environment
    /// with captcha enabled does (`false` turns it off again).
    public func requireCaptcha(_ required: Bool = true) {
        state.withLock { $0.captchaRequired = required }
    }

    /// Makes sign-in and refresh answer without `jwt` and `minifiedJwt`, as an environment
    /// with cookie-based authentication does (the token would travel in an HttpOnly cookie).
    public func useCookieAuthentication(_ enabled: Bool = true) {
        state.withLock { $0.cookieAuthentication = enabled }
    }

    /// Revokes every live session on the server side (an administrator's sign-out, a password
    /// reset elsewhere): each of their tokens then gets `401` on refresh and revoke.
    public func revokeAllSessions() {
        state.withLock { state in
            for id in state.sessions.keys { state.sessions[id]?.revoked = true }
            state.tokens.removeAll()
        }
    }

    /// Revokes the live sessions of `destination` (e-mail identity key or E.164) on the server
    /// side; see ``revokeAllSessions()``.
    public func revokeSessions(of destination: String) {
        state.withLock { state in
            let ids = state.sessions.filter { $0.value.userKey == destination }.map(\.key)
            for id in ids { state.sessions[id]?.revoked = true }
            state.tokens = state.tokens.filter { !ids.contains($0.value) }
        }
    }

    /// The JWKS document this backend serves.
    public var jwks: JWKSet {
        get throws { JWKSet(keys: [try signingKey.publicKey.jwk(keyID: keyID, algorithm: .rs256)]) }
    }

    /// Routes a request; see the type's documentation for paths and rules.
    public func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse {
        let parts = request.url.path.split(separator: "/").map(String.init)
        let prefix = Self.apiPrefix.split(separator: "/").map(String.init) + ["sdk"]
        guard parts.count > prefix.count + 1, Array(parts.prefix(prefix.count)) == prefix else {
            return try Self.error(404, "Not found")
        }
        guard parts[prefix.count] == environmentID else { return try Self.error(404, "Environment not found") }
        if request.method.rawValue == "OPTIONS" { return HTTPResponse(status: 204) }
        let route = parts[(prefix.count + 1)...].map { $0.lowercased() }.joined(separator: "/")
        do {
            switch (request.method, route) {
            case (.post, "emailverifications/create"):
                return try create(request, channel: .email, retry: false, context: context)
            case (.post, "emailverifications/retry"):
                return try create(request, channel: .email, retry: true, context: context)
            case (.post, "smsverifications/create"):
                return try create(request, channel: .sms, retry: false, context: context)
            case (.post, "smsverifications/retry"):
                return try create(request, channel: .sms, retry: true, context: context)
            case (.post, "emailverifications/signin"): return try signIn(request, channel: .email, context: context)
            case (.post, "smsverifications/signin"): return try signIn(request, channel: .sms, context: context)
            case (.post, "refresh"): return try refresh(request, context: context)
            case (.post, "revoke"): return try revoke(request, context: context)
            case (.get, ".well-known/jwks"): return try .json(200, try jwks)
            case (.get, "users"): return try currentUser(request, context: context)
            case (.post, "users/mfa/auth/totp"): return try authenticateTOTP(request, context: context)
            case (.post, let path) where Self.socialRoute(path, "initauth") != nil:
                return try initAuth(request, provider: Self.socialRoute(path, "initauth")!, context: context)
            case (.get, let path) where Self.socialRoute(path, "loginurl") != nil:
                return try loginURL(provider: Self.socialRoute(path, "loginurl")!, context: context)
            case (.post, let path) where Self.socialRoute(path, "signin") != nil:
                return try socialSignIn(request, provider: Self.socialRoute(path, "signin")!, context: context)
            default: return try Self.error(404, "Not found")
            }
        } catch let error as AuthError where error.code == .invalidInput {
            return try Self.error(400, "Bad request")
        }
    }

    /// The `403` a captcha-enabled environment answers when the token is missing: the
    /// `ForbiddenWithErrorAndPayload` shape (**[ASSUMPTION]** for the status and the code).
    static func captchaRefusal() throws -> HTTPResponse {
        try .json(
            403,
            JSONValue.object([
                "error": .object([
                    "code": .string("invalid_captcha"), "message": .string("Captcha verification failed"),
                ]),
                "payload": .object([:]),
            ]))
    }

    /// Checks that a JSON body has only `allowed` keys (the fields of the SDK's request type).
    /// - Returns: A `400 {error}` naming the first unexpected key, or `nil` when all are known.
    static func unexpectedKeys(in request: HTTPRequest, allowed: Set<String>) throws -> HTTPResponse? {
        guard let body = request.body, let object = try? JSONDecoder().decode(JSONValue.self, from: body).objectValue
        else {
            return try error(400, "Bad request: the body is not a JSON object")
        }
        if let extra = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            return try error(400, "Bad request: unexpected field \(extra)")
        }
        return nil
    }

    /// An error body: `{error}` or, with a code, `{error, code}` (Docs/Providers/Dynamic.md, "Errors").
    static func error(_ status: Int, _ message: String, code: String? = nil, headers: [String: String] = [:]) throws
        -> HTTPResponse
    {
        var body: [String: JSONValue] = ["error": .string(message)]
        if let code { body["code"] = .string(code) }
        return try .json(status, JSONValue.object(body), headers: headers)
    }

    /// A UUID-shaped id (8-4-4-4-12 hex) from the sandbox's seeded random source.
    static func uuid(_ context: SandboxContext) -> String {
        let hex = Array(context.random.hex(bytes: 16))
        let cuts = [0, 8, 12, 16, 20, 32]
        return (0..<5).map { String(hex[cuts[$0]..<cuts[$0 + 1]]) }.joined(separator: "-")
    }
}
