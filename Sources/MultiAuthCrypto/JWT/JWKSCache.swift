import Foundation

/// Caches an issuer's JWKS and verifies JWTs against it, refetching once when a token names
/// a key the cache does not have (key rotation).
///
/// The cache fetches through the closure it is given (so it never touches the network
/// itself) and never reads the clock: every call passes the verifier's `now`.
///
/// - A first call fetches the set. Later calls reuse it until it is older than
///   `maximumAge`.
/// - When no cached key fits the token (`kid`, key type, `alg`), the set is fetched again
///   once, unless the last fetch is younger than `minimumRefetchInterval`, so tokens with
///   random `kid`s cannot make the cache hammer the issuer. A token whose key is found but
///   whose signature is wrong never causes a refetch.
/// - Concurrent callers that need a fetch share one; a failed fetch is not cached.
///
/// Concurrency: an actor; calls suspend while a fetch runs. Cancelling a caller does not
/// cancel a shared fetch another caller may be waiting for.
public actor JWKSCache {
    /// Returns the JWKS document's JSON bytes, e.g. a GET of the issuer's `jwks_uri`.
    public typealias Fetch = @Sendable () async throws -> Data

    private let fetch: Fetch
    private let minimumRefetchInterval: TimeInterval
    private let maximumAge: TimeInterval
    private var resolved: [JWKSet.ResolvedKey]?
    private var lastFetch: Date?
    private var inFlight: Task<[JWKSet.ResolvedKey], any Error>?

    /// The number of fetches started so far (for diagnostics and tests).
    public private(set) var fetchCount = 0

    /// Creates an empty cache.
    ///
    /// - Parameters:
    ///   - minimumRefetchInterval: seconds that must pass after a fetch before an unknown
    ///     `kid` triggers another; 30 by default, 0 to always refetch once.
    ///   - maximumAge: seconds after which the cached set is fetched again before use;
    ///     3600 by default.
    ///   - fetch: returns the JWKS JSON; its errors are thrown to the caller unchanged.
    public init(minimumRefetchInterval: TimeInterval = 30, maximumAge: TimeInterval = 3600, fetch: @escaping Fetch) {
        self.fetch = fetch
        self.minimumRefetchInterval = minimumRefetchInterval
        self.maximumAge = maximumAge
    }

    /// Verifies `token`'s signature against the issuer's keys, then its claims.
    ///
    /// - Parameters:
    ///   - token: the compact JWT.
    ///   - now: the verifier's current time.
    ///   - leeway: clock skew allowed for `exp` and `nbf`, in seconds; 60 by default.
    ///   - issuer: the required `iss`, or `nil`.
    ///   - audience: a value `aud` must contain, or `nil`.
    ///   - algorithms: the accepted `alg` values; RS256, RS512 and ES256 by default.
    /// - Returns: the decoded, verified token.
    /// - Throws: the decoding errors of ``JWT/init(parsing:)``; the errors of
    ///   ``verifySignature(of:at:algorithms:)``; then ``CryptoError/expired``,
    ///   ``CryptoError/notYetValid``, ``CryptoError/issuerMismatch``,
    ///   ``CryptoError/audienceMismatch``.
    public func verify(_ token: String, at now: Date, leeway: TimeInterval = 60, issuer: String? = nil,
                       audience: String? = nil,
                       algorithms: Set<SignatureAlgorithm> = Set(SignatureAlgorithm.allCases)) async throws -> JWT {
        let jwt = try JWT(parsing: token)
        try await verifySignature(of: jwt, at: now, algorithms: algorithms)
        try jwt.claims.validate(at: now, leeway: leeway, issuer: issuer, audience: audience)
        return jwt
    }

    /// Verifies `jwt`'s signature with the cached keys, fetching as described above.
    ///
    /// - Throws: ``CryptoError/unsupportedAlgorithm`` (`none`, `HS*`, disallowed `alg`;
    ///   checked before any fetch), ``CryptoError/keyNotFound``,
    ///   ``CryptoError/keyTooSmall(bits:required:)`` (the only matching keys are RSA keys
    ///   below 2048 bits),
    ///   ``CryptoError/signatureInvalid``, ``CryptoError/malformedKeySet``, or the fetch
    ///   closure's error.
    public func verifySignature(of jwt: JWT, at now: Date,
                                algorithms: Set<SignatureAlgorithm> = Set(SignatureAlgorithm.allCases)) async throws {
        let algorithm = try jwt.signatureAlgorithm(allowed: algorithms)
        let cached = try await freshKeys(at: now)
        var keys = cached.keys
        if !JWKSet.hasCandidates(in: keys, for: jwt, algorithm: algorithm), !cached.fetched, mayRefetch(at: now) {
            keys = try await refresh(at: now)
        }
        _ = try JWKSet.verify(jwt, algorithm: algorithm, keys: keys)
    }

    /// The cached key set, fetching it first if there is none or it is too old.
    ///
    /// - Throws: ``CryptoError/malformedKeySet`` or the fetch closure's error.
    public func keySet(at now: Date) async throws -> JWKSet {
        JWKSet(keys: try await freshKeys(at: now).keys.map(\.jwk))
    }

    /// The cached keys if younger than `maximumAge`, else freshly fetched ones.
    private func freshKeys(at now: Date) async throws -> (keys: [JWKSet.ResolvedKey], fetched: Bool) {
        if let resolved, let lastFetch, now.timeIntervalSince(lastFetch) <= maximumAge {
            return (resolved, false)
        }
        return (try await refresh(at: now), true)
    }

    private func mayRefetch(at now: Date) -> Bool {
        guard let lastFetch else { return true }
        return now.timeIntervalSince(lastFetch) >= minimumRefetchInterval
    }

    /// Fetches and imports the key set, joining a fetch already in flight.
    private func refresh(at now: Date) async throws -> [JWKSet.ResolvedKey] {
        if let inFlight { return try await inFlight.value }
        fetchCount += 1
        let fetch = self.fetch
        // Owned by this actor through `inFlight`; it ends when the fetch closure returns or
        // throws, and `inFlight` is cleared right after, whatever the outcome.
        let task = Task<[JWKSet.ResolvedKey], any Error> {
            JWKSet.resolve(try JWKSet(jsonData: try await fetch()).keys)
        }
        inFlight = task
        defer { inFlight = nil }
        let keys = try await task.value
        resolved = keys
        lastFetch = now
        return keys
    }
}
