import Foundation
import MultiAuth
import MultiAuthCrypto

/// Server-side proof of an OTPLESS sign-in (Docs/Providers/OTPless.md, "Server side"): the
/// validate-token API with the merchant's client id and secret, and OIDC id-token
/// verification through the issuer's JWKS.
///
/// Never trust an `ONETAP` token until your backend has checked it here (Docs/Providers/OTPless.md,
/// "Security").
///
/// **Single use across a fleet.** Given a shared `ReplayStore` (`replayStore:`; Docs/Server.md),
/// ``validate(token:)`` accepts each token once across every server that shares the store, and
/// ``verifyIDToken(_:audience:singleUse:)`` does the same for an id token's `jti` when asked.
/// When the store cannot answer, both refuse with the retryable `.storageUnavailable`.
///
/// Concurrency: a `Sendable` value; copies share one JWKS cache, so concurrent id-token checks
/// fetch the key set once, and each checks its signature on its own task, in parallel. Time
/// comes only from the injected `TimeSource`.
public struct OTPlessTokenVerifier: Sendable {
    /// The merchant's client id (sent as the `clientId` header).
    public let clientID: String
    private let clientSecret: Secret
    /// The validate-token host, `https://user-auth.otpless.app` by default.
    public let baseURL: URL
    /// The id-token issuer, `https://otpless.com` in production.
    public let issuer: String
    /// The JWKS document URL; `nil` reads `jwks_uri` from `{issuer}/.well-known/openid-configuration`.
    public let jwksURL: URL?
    /// Allowed clock skew for `exp` / `nbf`, in seconds.
    public let leeway: TimeInterval
    /// Whether `exp`, `nbf` and `iat` of 13 or more digits are read as milliseconds. `false`
    /// (default): such a token is refused as `.unauthorized`, because RFC 7519 §2 NumericDates
    /// are seconds and silently rescaling would hide a broken token (Docs/Providers/OTPless.md,
    /// "Expiry").
    public let acceptsMillisecondTimestamps: Bool
    /// The shared store that makes tokens single-use, or `nil` (no single-use check).
    public let replayStore: (any ReplayStore)?
    /// How long a validated `ONETAP` token is remembered as used (24 hours by default).
    /// [ASSUMPTION] OTPLESS does not publish a token lifetime; 24 hours outlasts any we have
    /// seen, and a longer value only costs store memory (Docs/Providers/OTPless.md, "Server side").
    public let tokenReplayTTL: Duration
    private let transport: any HTTPTransport
    private let time: TimeSource
    private let cache: JWKSCache

    /// The namespace of validated-token keys in the replay store: `otpless.token`.
    public static let tokenReplayNamespace = "otpless.token"

    /// The default issuer, `https://otpless.com`.
    public static let defaultIssuer = "https://otpless.com"
    /// The issuer of the sandbox's emulated OTPLESS server, `https://api.otpless.test`
    /// (discovery and JWKS there; validate-token on `OTPlessConfiguration.sandboxBaseURL`).
    public static let sandboxIssuer = "https://api.otpless.test"

    /// Creates a verifier.
    /// - Parameters:
    ///   - clientID: The merchant's client id.
    ///   - clientSecret: The merchant's client secret (never printed).
    ///   - baseURL: The validate-token host.
    ///   - issuer: The required `iss` of id tokens.
    ///   - jwksURL: The JWKS URL, or `nil` for OIDC discovery.
    ///   - leeway: Clock skew allowed for `exp` / `nbf`, in seconds (default 60).
    ///   - acceptsMillisecondTimestamps: Read 13-digit `exp`/`nbf`/`iat` as milliseconds
    ///     instead of refusing the token (default `false`).
    ///   - transport: The HTTP transport.
    ///   - time: The time source.
    ///   - replayStore: A shared store that makes validated tokens (and, when asked, id-token
    ///     `jti`s) single-use across servers; `nil` by default (no single-use check).
    ///   - tokenReplayTTL: How long a validated token is remembered; 24 hours by default.
    public init(
        clientID: String, clientSecret: String, baseURL: URL = OTPlessConfiguration.defaultBaseURL,
        issuer: String = OTPlessTokenVerifier.defaultIssuer, jwksURL: URL? = nil, leeway: TimeInterval = 60,
        acceptsMillisecondTimestamps: Bool = false, transport: any HTTPTransport, time: TimeSource,
        replayStore: (any ReplayStore)? = nil, tokenReplayTTL: Duration = .seconds(86_400)
    ) {
        self.replayStore = replayStore
        self.tokenReplayTTL = tokenReplayTTL
        self.acceptsMillisecondTimestamps = acceptsMillisecondTimestamps
        self.clientID = clientID
        self.clientSecret = Secret(clientSecret)
        self.baseURL = baseURL
        self.issuer = issuer
        self.jwksURL = jwksURL
        self.leeway = leeway
        self.transport = transport
        self.time = time
        let issuerURL = URL(string: issuer)
        self.cache = JWKSCache { [transport] in
            try await Self.fetchJWKS(jwksURL: jwksURL, issuer: issuerURL, transport: transport)
        }
    }

    /// Validates an `ONETAP` token with `POST {baseURL}/auth/v1/validate/token` (headers
    /// `clientId`, `clientSecret`; body `{token}`).
    /// - Parameter token: The token the app received.
    /// - Returns: The verified user: id, identities, phone and e-mail when present.
    ///
    /// With a ``replayStore`` the token is then marked used (after OTPLESS confirmed it, so a
    /// failed call never burns a token): a second validation of the same token, on this server or
    /// any other sharing the store, is `.codeAlreadyUsed`.
    /// - Throws: `AuthError` `.invalidInput` (blank token, no network call), `.unauthorized`
    ///   (token refused; `7002` bad credentials), `.configuration` (`7012`), `.rateLimited`,
    ///   `.providerUnavailable`, `.malformedResponse`, `.network`; `.codeAlreadyUsed` (the
    ///   token was already validated); `.storageUnavailable` (retryable: the replay store cannot
    ///   answer, nothing accepted); or `CancellationError`.
    public func validate(token: String) async throws -> AuthUser {
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw AuthError.invalidInput(.invalidToken, "the token is blank") }
        let request = try HTTPRequest.json(
            .post, baseURL.appending(path: "auth/v1/validate/token"), body: ["token": trimmed],
            headers: ["clientId": clientID, "clientSecret": clientSecret.reveal()])
        let response = try await transport.send(request)
        guard response.isSuccess else {
            var error = OTPlessErrorMapping.error(for: response)
            if [.generic, .invalidInput, .invalidCode, .expired, .codeAlreadyUsed].contains(error.code)
                || error.providerCode == "401"
            {
                error.code = .unauthorized
            }
            throw error
        }
        let info = try response.decodeJSON(OTPlessWire.UserInfo.self, provider: .otpless)
        guard (info.status ?? "SUCCESS").uppercased() == "SUCCESS" else {
            throw AuthError(.unauthorized, "OTPLESS did not confirm the token", provider: .otpless)
        }
        let user = try OTPlessSessionMapper.user(from: info, provider: .otpless)
        if let replayStore {
            let first = try await Self.storeCall {
                try await replayStore.consumeOnce(
                    key: try replayStore.keyspace.key(Self.tokenReplayNamespace, trimmed), ttl: tokenReplayTTL)
            }
            guard first else {
                throw AuthError(.codeAlreadyUsed, "this token was already validated", provider: .otpless)
            }
        }
        return user
    }

    /// Runs a replay-store call; errors as ``storeError(_:)``.
    static func storeCall<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw storeError(error)
        }
    }

    /// A replay store's refusal as a retryable `.storageUnavailable` (never an acceptance, never
    /// a verdict on the token), a bad argument as `.configuration`; anything else unchanged.
    static func storeError(_ error: any Error) -> any Error {
        switch error {
        case let error as StoreUnavailableError:
            AuthError(
                .storageUnavailable, "the replay store cannot answer; nothing was accepted (\(error.cause))",
                provider: .otpless, retryAfter: error.retryAfter, underlying: error)
        case let error as CryptoError:
            AuthError(
                .configuration, "the replay store refused the call (\(error))", provider: .otpless, underlying: error)
        default: error
        }
    }

    /// Verifies an OIDC id token: RS256 signature through the JWKS (refetched once for an
    /// unknown `kid`), `iss`, `aud` (the client id), `exp` and `nbf` with ``leeway``.
    ///
    /// `exp` must be a JSON number of seconds: a string or other non-number `exp` reads as
    /// expired now (never "does not expire"); 13 or more digits (milliseconds) is refused unless
    /// ``acceptsMillisecondTimestamps`` (Docs/Providers/OTPless.md, "Expiry").
    ///
    /// With `singleUse`, the token's `jti` is then used once through ``replayStore`` (for as
    /// long as the token is valid, `exp` + ``leeway``): a replay on any server sharing the store
    /// is `.codeAlreadyUsed`.
    /// - Parameters:
    ///   - idToken: The compact JWT.
    ///   - audience: The required `aud`; the client id by default.
    ///   - singleUse: Accept the token's `jti` once (needs a ``replayStore``); `false` by default.
    /// - Returns: The verified token (header and claims).
    /// - Throws: `AuthError` `.invalidInput` (reason `.invalidToken`: blank or malformed; no
    ///   network call; with `singleUse` also a token without `jti` or `exp`), `.signatureInvalid`
    ///   (wrong signature, unknown `kid`, `alg` other than RS256), `.expired` (also a
    ///   non-numeric `exp`), `.unauthorized` (`iss`/`aud` mismatch, not yet valid, a non-numeric
    ///   `nbf`/`iat`, a millisecond timestamp), `.providerUnavailable` / `.network` (JWKS fetch);
    ///   `.configuration` (`singleUse` without a replay store); `.codeAlreadyUsed` (a replayed
    ///   `jti`); `.storageUnavailable` (retryable); or `CancellationError`.
    public func verifyIDToken(_ idToken: String, audience: String? = nil, singleUse: Bool = false) async throws -> JWT {
        guard singleUse else { return try await verifyIDTokenClaims(idToken, audience: audience) }
        guard let replayStore else {
            throw AuthError(
                .configuration, "single-use id tokens need a replay store (replayStore:)", provider: .otpless)
        }
        let jwt = try await verifyIDTokenClaims(idToken, audience: audience)
        let first: Bool
        do {
            first = try await replayStore.consumeJWTID(of: jwt.claims, at: time.now, leeway: leeway)
        } catch CryptoError.expired {
            throw AuthError(.expired, "the id token expired", provider: .otpless)
        } catch CryptoError.missingParameter(let name) {
            throw AuthError(
                .invalidInput, "a single-use id token needs a \(name)", provider: .otpless, reason: .invalidToken)
        } catch {
            throw Self.storeError(error)
        }
        guard first else { throw AuthError(.codeAlreadyUsed, "this id token was already used", provider: .otpless) }
        return jwt
    }

    private func verifyIDTokenClaims(_ idToken: String, audience: String?) async throws -> JWT {
        let jwt: JWT
        do {
            jwt = try JWT(parsing: idToken.trimmingCharacters(in: .whitespacesAndNewlines))
        } catch CryptoError.invalidClaim(let name)
            where name == "exp"
        {
            throw AuthError(
                .expired, "the id token's exp is not a number of seconds; it counts as expired", provider: .otpless)
        } catch CryptoError.invalidClaim(let name) where name == "nbf" || name == "iat" {
            throw AuthError(.unauthorized, "the id token's \(name) is not a number of seconds", provider: .otpless)
        } catch {
            throw AuthError.invalidInput(.invalidToken, "the id token is not a JWT")
        }
        let now = time.now
        do {
            try await cache.verifySignature(of: jwt, at: now, algorithms: [.rs256])
        } catch let error as CryptoError {
            switch error {
            case .malformedKeySet:
                throw AuthError(
                    .providerUnavailable, "the OTPLESS JWKS is not readable", provider: .otpless, underlying: error)
            default:
                throw AuthError(
                    .signatureInvalid, "the id token signature did not verify", provider: .otpless, underlying: error)
            }
        }
        let claims = jwt.claims
        var readings: [String: Double] = [:]
        for name in ["exp", "nbf", "iat"] {
            guard let value = claims[name]?.doubleValue else { continue }
            if value >= SessionExpiry.millisecondThreshold {
                guard acceptsMillisecondTimestamps else {
                    throw AuthError(
                        .unauthorized,
                        "the id token's \(name) has 13 or more digits (milliseconds?); NumericDates are seconds",
                        provider: .otpless)
                }
                readings[name] = value / 1000
            } else {
                readings[name] = value
            }
        }
        let seconds = { (name: String) in readings[name] }
        let clock = now.timeIntervalSince1970
        if let exp = seconds("exp"), !(clock < exp + leeway) {
            throw AuthError(.expired, "the id token expired", provider: .otpless)
        }
        if let nbf = seconds("nbf"), !(clock >= nbf - leeway) {
            throw AuthError(.unauthorized, "the id token is not valid yet", provider: .otpless)
        }
        guard claims.issuer == issuer else {
            throw AuthError(.unauthorized, "the id token has another issuer", provider: .otpless)
        }
        guard claims.audience.contains(audience ?? clientID) else {
            throw AuthError(.unauthorized, "the id token is for another audience", provider: .otpless)
        }
        return jwt
    }

    /// GETs the JWKS, through discovery when no URL is configured.
    private static func fetchJWKS(jwksURL: URL?, issuer: URL?, transport: any HTTPTransport) async throws -> Data {
        var target = jwksURL
        if target == nil {
            guard let issuer else { throw AuthError(.configuration, "the issuer is not a URL", provider: .otpless) }
            let discovery = try await transport.send(
                HTTPRequest(method: .get, url: issuer.appending(path: ".well-known/openid-configuration")))
            struct Discovery: Decodable { var jwks_uri: String? }
            guard discovery.isSuccess, let uri = try? discovery.decodeJSON(Discovery.self).jwks_uri,
                let url = URL(string: uri)
            else {
                throw AuthError(.providerUnavailable, "OIDC discovery failed", provider: .otpless)
            }
            target = url
        }
        let response = try await transport.send(
            HTTPRequest(method: .get, url: target!, headers: ["Accept": "application/json"]))
        guard response.isSuccess else {
            throw AuthError(.providerUnavailable, "the JWKS fetch failed (HTTP \(response.status))", provider: .otpless)
        }
        return response.body
    }
}
