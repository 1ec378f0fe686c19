import Foundation
import MultiAuth
import MultiAuthCrypto

/// Verifies a Dynamic session JWT on a server (Docs/Providers/Dynamic.md): the RS256 signature against
/// the environment's JWKS (`GET /sdk/{env}/.well-known/jwks`, cached by ``/MultiAuthCrypto/JWKSCache``
/// and refetched, rate-limited, when an unknown `kid` appears), `exp`/`nbf` with leeway,
/// `environment_id`, the `user:basic` scope, `aud` (required, or explicitly waived with
/// `.anyAudience`: RFC 7519 §4.1.3, RFC 8725 §3.9) and `iss` when configured.
///
/// Verify the access token (`minifiedJwt`, ``/MultiAuth/Credentials/accessToken``); the `jwt` (id
/// token) carries the same checks. A token without `user:basic` is refused: the user has not
/// finished authentication (e.g. MFA pending).
///
/// ```swift
/// let verifier = DynamicTokenVerifier(configuration: config, transport: URLSessionTransport(), time: .system,
///                                     audience: "https://app.example.com")
/// let token = try await verifier.verify(bearer)   // token.userID, token.scopes
/// ```
///
/// With a shared `ReplayStore` (`replayStore:`, Docs/Server.md), ``verify(_:singleUse:)`` can
/// also accept a token's `jti` once across every server sharing the store.
///
/// Concurrency: `Sendable`; concurrent verifications share one JWKS fetch and check signatures
/// in parallel on their own tasks (``/MultiAuthCrypto/JWKSCache`` coordinates fetches only).
/// Time comes only from the injected ``/MultiAuth/TimeSource``.
public struct DynamicTokenVerifier: Sendable {
    /// The scope every accepted token must carry: `user:basic`.
    public static let requiredScope = "user:basic"

    /// The environment whose tokens are accepted.
    public let configuration: DynamicConfiguration
    /// Allowed clock skew for `exp` and `nbf` (default 60 s).
    public let leeway: Duration
    /// The required `iss`, or `nil` not to check it.
    public let issuer: String?
    /// The value `aud` must contain (the client's Origin), or the explicit opt-out
    /// `.anyAudience`.
    public let audience: JWTAudience
    /// The shared store for single-use tokens (``verify(_:singleUse:)``), or `nil`.
    public let replayStore: (any ReplayStore)?
    private let time: TimeSource
    private let cache: JWKSCache

    /// Creates a verifier.
    /// - Parameters:
    ///   - configuration: The environment (its ``DynamicConfiguration/jwksURL`` is fetched).
    ///   - transport: Fetches the JWKS.
    ///   - time: The verifier's clock.
    ///   - leeway: Clock skew allowed for `exp`/`nbf` (default 60 s; 0 or more).
    ///   - issuer: The required `iss`, e.g. `"app.dynamicauth.com/\(env)"`; `nil` skips the check.
    ///   - audience: The required `aud` member (a string literal works), or `.anyAudience` to
    ///     skip the check explicitly; there is no default (Docs/Security.md).
    ///   - minimumRefetchInterval: Seconds between JWKS refetches caused by unknown `kid`s (default 30).
    ///   - replayStore: A shared store that makes a token's `jti` single-use when
    ///     ``verify(_:singleUse:)`` asks; `nil` by default.
    public init(
        configuration: DynamicConfiguration, transport: any HTTPTransport, time: TimeSource,
        leeway: Duration = .seconds(60),
        issuer: String? = nil, audience: JWTAudience, minimumRefetchInterval: TimeInterval = 30,
        replayStore: (any ReplayStore)? = nil
    ) {
        self.replayStore = replayStore
        self.configuration = configuration
        self.leeway = leeway
        self.issuer = issuer
        self.audience = audience
        self.time = time
        let url = configuration.jwksURL
        self.cache = JWKSCache(minimumRefetchInterval: minimumRefetchInterval) {
            let response = try await transport.send(
                HTTPRequest(method: .get, url: url, headers: ["Accept": "application/json"]))
            guard response.isSuccess else {
                throw AuthError(
                    response.commonErrorCode == .providerUnavailable ? .providerUnavailable : .configuration,
                    "the Dynamic JWKS answered HTTP \(response.status)", provider: .dynamic,
                    providerCode: String(response.status))
            }
            return response.body
        }
    }

    /// The number of JWKS fetches so far (diagnostics and tests).
    public var jwksFetchCount: Int {
        get async { await cache.fetchCount }
    }

    /// Verifies `token` at the time source's `now`.
    /// - Parameter token: A compact JWT (surrounding whitespace and a `Bearer ` prefix are ignored).
    /// - Returns: The verified claims.
    /// - Throws: `AuthError` `.invalidInput` with `.invalidToken` (blank or not a JWT, a claim
    ///   of the wrong type, no `sub`; no fetch made), `.signatureInvalid` (`alg` other than
    ///   RS256, including `none`; unknown `kid`; bad signature), `.expired` (`exp` passed,
    ///   leeway included), `.unauthorized` (`nbf` in the future, wrong `environment_id`,
    ///   missing `user:basic` scope, wrong `iss`/`aud`), `.malformedResponse` (unreadable
    ///   JWKS), `.network` / `.providerUnavailable` / `.configuration` (JWKS fetch), or
    ///   `CancellationError`. The underlying `CryptoError` is kept in `underlying`.
    public func verify(_ token: String) async throws -> DynamicVerifiedToken {
        var text = token.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.lowercased().hasPrefix("bearer ") {
            text = String(text.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        guard !text.isEmpty else { throw Self.invalid("the token is blank") }
        let jwt: JWT
        do {
            jwt = try await cache.verify(
                text, at: time.now, leeway: leeway.timeInterval, issuer: issuer, audience: audience,
                algorithms: [.rs256])
        } catch let error as CryptoError {
            throw Self.map(error)
        }
        let claims = jwt.claims
        guard let subject = claims.subject, !subject.isEmpty else { throw Self.invalid("the token has no sub") }
        guard claims["environment_id"]?.stringValue == configuration.environmentID else {
            throw AuthError(
                .unauthorized, "the token belongs to another Dynamic environment", provider: .dynamic,
                providerCode: "environment_id")
        }
        let scopes = claims["scope"]?.stringValue.map { $0.split(separator: " ").map(String.init) } ?? []
        guard scopes.contains(Self.requiredScope) else {
            throw AuthError(
                .unauthorized, "the token lacks the user:basic scope: authentication is not finished",
                provider: .dynamic,
                providerCode: "scope")
        }
        return DynamicVerifiedToken(
            userID: subject, sessionID: claims["sid"]?.stringValue, environmentID: configuration.environmentID,
            scopes: scopes,
            expiresAt: claims.expiresAt?.date, issuer: claims.issuer, email: claims["email"]?.stringValue, jwt: jwt)
    }

    /// Verifies `token` like ``verify(_:)`` and, with `singleUse`, accepts its `jti` once
    /// through ``replayStore`` (for as long as the token is valid, `exp` + ``leeway``), on every
    /// server sharing the store.
    ///
    /// - Parameters:
    ///   - token: A compact JWT, as for ``verify(_:)``.
    ///   - singleUse: Accept the token's `jti` once; `false` is ``verify(_:)``.
    /// - Returns: The verified claims.
    /// - Throws: as ``verify(_:)``; with `singleUse` also `.configuration` (no replay store;
    ///   no fetch made), `.invalidInput` with `.invalidToken` (no `jti` or no `exp`),
    ///   `.codeAlreadyUsed` (a replayed `jti`), `.storageUnavailable` (retryable: the store
    ///   cannot answer; nothing accepted).
    public func verify(_ token: String, singleUse: Bool) async throws -> DynamicVerifiedToken {
        guard singleUse else { return try await verify(token) }
        guard let replayStore else {
            throw AuthError(
                .configuration, "single-use tokens need a replay store (replayStore:)", provider: .dynamic)
        }
        let verified = try await verify(token)
        let first: Bool
        do {
            first = try await replayStore.consumeJWTID(
                of: verified.jwt.claims, at: time.now, leeway: leeway.timeInterval)
        } catch CryptoError.expired {
            throw AuthError(.expired, "the token expired", provider: .dynamic)
        } catch CryptoError.missingParameter(let name) {
            throw Self.invalid("a single-use token needs a \(name)")
        } catch let error as StoreUnavailableError {
            throw AuthError(
                .storageUnavailable, "the replay store cannot answer; nothing was accepted (\(error.cause))",
                provider: .dynamic, retryAfter: error.retryAfter, underlying: error)
        } catch let error as CryptoError {
            throw AuthError(
                .configuration, "the replay store refused the call (\(error))", provider: .dynamic, underlying: error)
        }
        guard first else { throw AuthError(.codeAlreadyUsed, "this token was already used", provider: .dynamic) }
        return verified
    }

    private static func invalid(_ message: String, underlying: (any Error)? = nil) -> AuthError {
        AuthError(.invalidInput, message, provider: .dynamic, reason: .invalidToken, underlying: underlying)
    }

    /// Maps the crypto module's errors to `AuthError` codes.
    static func map(_ error: CryptoError) -> AuthError {
        switch error {
        case .malformedToken, .invalidBase64, .invalidClaim, .invalidHeader, .limitExceeded:
            return invalid("the token is not a well-formed JWT (\(error))", underlying: error)
        case .unsupportedAlgorithm, .keyNotFound, .signatureInvalid, .invalidKey:
            return AuthError(
                .signatureInvalid, "the token's signature does not verify (\(error))", provider: .dynamic,
                underlying: error)
        case .expired:
            return AuthError(.expired, "the token expired", provider: .dynamic, underlying: error)
        case .notYetValid, .issuerMismatch, .audienceMismatch:
            return AuthError(
                .unauthorized, "the token is not accepted (\(error))", provider: .dynamic, underlying: error)
        case .malformedKeySet:
            return AuthError(
                .malformedResponse, "the Dynamic JWKS is not readable", provider: .dynamic, underlying: error)
        default:
            return AuthError(.generic, "token verification failed (\(error))", provider: .dynamic, underlying: error)
        }
    }
}
