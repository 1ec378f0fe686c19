import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthOTPless
import MultiAuthTruecaller

/// The one way to build every server-side verifier on one shared replay store and attempt
/// limiter, so a fleet accepts each code, nonce and token once (Docs/Server.md, "A fleet in one
/// value").
///
/// ```swift
/// let redis = RedisClient(configuration: try RedisConfiguration(url: "redis://10.0.0.5:6379"))
/// let fleet = FleetVerifiers(redis: redis, keyspace: try StoreKeyspace(secret: pepper), time: .system)
/// let totp = try fleet.totp()                                  // TOTPVerifier
/// let truecaller = fleet.truecallerProfile(configuration: truecallerConfiguration)
/// ```
///
/// Every server of the fleet must build it with the same store and the same keyspace. For one
/// server, ``inProcess(time:keyspace:)`` gives the same verifiers on in-memory stores.
///
/// Concurrency: a `Sendable` value; the verifiers it makes are `Sendable` and share the stores.
public struct FleetVerifiers: Sendable {
    /// The shared replay store.
    public let replayStore: any ReplayStore
    /// The shared attempt limiter (server-side attempt limits for code verification), or `nil`.
    public let attemptLimiter: (any AttemptLimiter)?
    /// The verifiers' time source.
    public let time: TimeSource

    /// Creates the set-up from stores you already have (your own implementations included; run
    /// the store conformance kit on them first, ``StoreConformance``).
    ///
    /// - Parameters:
    ///   - replayStore: the shared replay store.
    ///   - attemptLimiter: the shared attempt limiter, or `nil` for no server-side limit.
    ///   - time: the verifiers' time source.
    public init(replayStore: any ReplayStore, attemptLimiter: (any AttemptLimiter)?, time: TimeSource) {
        self.replayStore = replayStore
        self.attemptLimiter = attemptLimiter
        self.time = time
    }

    /// The fleet set-up on one Redis: ``RedisReplayStore`` and ``RedisAttemptLimiter`` on
    /// `client`.
    ///
    /// - Parameters:
    ///   - client: the process's Redis client.
    ///   - keyspace: how keys are made; the same on every server.
    ///   - replicaAcknowledgements: replicas that must confirm each replay write (`WAIT`); 0 by
    ///     default.
    ///   - time: the verifiers' time source.
    public init(
        redis client: RedisClient, keyspace: StoreKeyspace = .default, replicaAcknowledgements: Int = 0,
        time: TimeSource
    ) {
        self.init(
            replayStore: RedisReplayStore(
                client: client, keyspace: keyspace, replicaAcknowledgements: replicaAcknowledgements),
            attemptLimiter: RedisAttemptLimiter(client: client, keyspace: keyspace), time: time)
    }

    /// The same verifiers for one process: ``InMemoryReplayStore`` and ``InMemoryAttemptLimiter``.
    ///
    /// - Parameters:
    ///   - time: the time source (its clock measures TTLs and windows).
    ///   - keyspace: how keys are made.
    /// - Returns: the set-up.
    public static func inProcess(time: TimeSource, keyspace: StoreKeyspace = .default) -> FleetVerifiers {
        FleetVerifiers(
            replayStore: InMemoryReplayStore(time: time, keyspace: keyspace),
            attemptLimiter: InMemoryAttemptLimiter(time: time, keyspace: keyspace), time: time)
    }

    /// A ``TOTPVerifier`` on the shared store and limiter.
    ///
    /// - Parameters:
    ///   - attemptLimit: attempts per account per window; 5 per 15 minutes by default.
    ///   - window: steps either side; 1 by default.
    ///   - skew: the fleet's largest clock difference; 30 s by default.
    /// - Returns: the verifier.
    /// - Throws: `AuthError` `.configuration` (see ``TOTPVerifier/init(replayStore:attemptLimiter:attemptLimit:window:skew:time:)``).
    public func totp(
        attemptLimit: TOTPVerifier.AttemptLimit = .standard, window: Int = 1, skew: Duration = .seconds(30)
    ) throws -> TOTPVerifier {
        try TOTPVerifier(
            replayStore: replayStore, attemptLimiter: attemptLimiter, attemptLimit: attemptLimit, window: window,
            skew: skew, time: time)
    }

    /// A `WebAuthnVerifier` whose challenges are single-use on the shared store: a passkey
    /// registration or assertion accepted by one server of the fleet is refused by every other
    /// with `challengeReused` (Docs/Passkeys.md, "The replay store").
    ///
    /// - Parameters:
    ///   - relyingParty: the relying party id and the origins it accepts.
    ///   - challengeTTL: how long a consumed challenge is remembered; at least the ceremony's
    ///     lifetime; 5 minutes by default.
    ///   - signCountPolicy: what a sign count going backwards does; reported by default.
    /// - Returns: the verifier.
    public func webAuthn(
        relyingParty: WebAuthnRelyingParty, challengeTTL: Duration = .seconds(300),
        signCountPolicy: WebAuthnSignCountPolicy = .report
    ) -> WebAuthnVerifier {
        WebAuthnVerifier(
            relyingParty: relyingParty, replayStore: replayStore, challengeTTL: challengeTTL,
            signCountPolicy: signCountPolicy)
    }

    /// A `TruecallerProfileVerifier` whose nonces are single-use on the shared store.
    ///
    /// - Parameters:
    ///   - configuration: the Truecaller configuration (key endpoint, profile age).
    ///   - keyStore: a key cache to share, or `nil` for a new one.
    /// - Returns: the verifier.
    public func truecallerProfile(
        configuration: TruecallerConfiguration, keyStore: TruecallerKeyStore? = nil
    ) -> TruecallerProfileVerifier {
        TruecallerProfileVerifier(configuration: configuration, keyStore: keyStore, replayStore: replayStore)
    }

    /// An `OTPlessTokenVerifier` whose validated tokens (and, when asked, id-token `jti`s) are
    /// single-use on the shared store.
    ///
    /// - Parameters:
    ///   - clientID: the merchant's client id.
    ///   - clientSecret: the merchant's client secret (never printed).
    ///   - baseURL: the validate-token host; production by default.
    ///   - issuer: the id tokens' issuer; production by default.
    ///   - jwksURL: the JWKS URL, or `nil` for OIDC discovery.
    ///   - transport: the HTTP transport.
    /// - Returns: the verifier.
    public func otplessToken(
        clientID: String, clientSecret: String, baseURL: URL = OTPlessConfiguration.defaultBaseURL,
        issuer: String = OTPlessTokenVerifier.defaultIssuer, jwksURL: URL? = nil, transport: any HTTPTransport
    ) -> OTPlessTokenVerifier {
        OTPlessTokenVerifier(
            clientID: clientID, clientSecret: clientSecret, baseURL: baseURL, issuer: issuer, jwksURL: jwksURL,
            transport: transport, time: time, replayStore: replayStore)
    }

    /// A `DynamicTokenVerifier` that can make tokens single-use (`verify(_:singleUse:)`) on the
    /// shared store.
    ///
    /// - Parameters:
    ///   - configuration: the Dynamic environment.
    ///   - transport: fetches the JWKS.
    ///   - audience: the required `aud`, or `.anyAudience`.
    ///   - issuer: the required `iss`, or `nil`.
    /// - Returns: the verifier.
    public func dynamicToken(
        configuration: DynamicConfiguration, transport: any HTTPTransport, audience: JWTAudience, issuer: String? = nil
    ) -> DynamicTokenVerifier {
        DynamicTokenVerifier(
            configuration: configuration, transport: transport, time: time, issuer: issuer, audience: audience,
            replayStore: replayStore)
    }
}
