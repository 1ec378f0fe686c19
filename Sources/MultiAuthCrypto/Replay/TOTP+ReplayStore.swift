import Foundation

extension TOTP {
    /// The namespace of TOTP last-used-step keys in a ``ReplayStore``: `totp`.
    public static let replayNamespace = "totp"

    /// Whether `code` has the form ``verify(_:at:window:lastUsedStep:replayGuard:)-(_,Int64,_,_,_)`` accepts:
    /// exactly ``digits`` ASCII digits once every whitespace character is removed. Nothing is
    /// computed: a server checks this before counting an attempt.
    public func isWellFormedCode(_ code: String) -> Bool {
        (try? OTPCode.parse(code, digits: digits)) != nil
    }

    /// How long a shared store must remember an accepted time step: `(2·window + 1)·period`
    /// plus `skew`.
    ///
    /// A code for step `s` matches while the verifier's current step is within `window` of
    /// `s`, so at most `(2·window + 1)·period` seconds after it was first accepted; `skew`
    /// covers the difference between the clocks of the fleet's servers. After that no code of
    /// step `s` or older matches any more and the record can go.
    /// - Parameters:
    ///   - window: the verification window, 0...``maximumWindow``.
    ///   - skew: the largest clock difference between two servers; 30 s by default.
    /// - Returns: the TTL.
    /// - Throws: ``CryptoError/invalidParameter(_:)`` (`"window"`, `"skew"` when negative).
    public func replayTTL(window: Int, skew: Duration = .seconds(30)) throws -> Duration {
        guard (0...Self.maximumWindow).contains(window) else { throw CryptoError.invalidParameter("window") }
        guard skew >= .zero else { throw CryptoError.invalidParameter("skew") }
        // period > 0 and window <= 10, so the product fits easily; a period so long that the
        // TTL passes the store's bound is refused by the store call (invalidParameter "ttl").
        let (steps, overflow) = Int64(2 * window + 1).multipliedReportingOverflow(by: period)
        guard !overflow else { throw CryptoError.invalidParameter("ttl") }
        return .seconds(steps) + skew
    }

    /// Verifies `code` like ``verify(_:at:window:lastUsedStep:replayGuard:)-(_,Int64,_,_,_)`` and records the matched step
    /// for `account` in a shared ``ReplayStore``: of any number of concurrent submissions of one
    /// code, on any number of servers, exactly one is accepted (RFC 6238 §5.2).
    ///
    /// The code is matched first, without a store call (a malformed or wrong code costs no
    /// round trip); then the step is advanced atomically with TTL ``replayTTL(window:skew:)``
    /// under the key ``replayNamespace`` / `account`. The HMACs run before the store's answer,
    /// and every step of the window is computed, as in the synchronous `verify`.
    /// - Parameters:
    ///   - code: the code as entered (whitespace removed, then exactly ``digits`` digits).
    ///   - unixTime: the verifier's time in seconds since 1970.
    ///   - window: steps accepted either side, 0...``maximumWindow``; 1 by default.
    ///   - replayStore: the shared store.
    ///   - account: identifies the enrolled secret (a user id); hashed into the key, never stored.
    ///   - skew: the fleet's largest clock difference, added to the TTL; 30 s by default.
    /// - Returns: the matched time step.
    /// - Throws: ``CryptoError/invalidCodeFormat``, ``CryptoError/invalidCode``,
    ///   ``CryptoError/codeAlreadyUsed`` (the store holds this step or a newer one: a replay,
    ///   or a concurrent submission that won), ``CryptoError/invalidTime``,
    ///   ``CryptoError/invalidParameter(_:)``; ``StoreUnavailableError`` when the store
    ///   cannot answer (the code is neither accepted nor called wrong).
    public func verify(
        _ code: String, at unixTime: Int64, window: Int = 1, replayStore: any ReplayStore, account: String,
        skew: Duration = .seconds(30)
    ) async throws -> UInt64 {
        let ttl = try replayTTL(window: window, skew: skew)
        let key = try replayStore.keyspace.key(Self.replayNamespace, account)
        let step = try verify(code, at: unixTime, window: window)
        guard try await replayStore.advance(key: key, to: step, ttl: ttl) else { throw CryptoError.codeAlreadyUsed }
        return step
    }

    /// Verifies `code` at `date` (its fractional second floored) with a shared ``ReplayStore``;
    /// see the `Int64` form.
    ///
    /// - Throws: as the `Int64` form, and ``CryptoError/timeOutOfRange``.
    public func verify(
        _ code: String, at date: Date, window: Int = 1, replayStore: any ReplayStore, account: String,
        skew: Duration = .seconds(30)
    ) async throws -> UInt64 {
        try await verify(
            code, at: Self.wholeSeconds(date.timeIntervalSince1970), window: window, replayStore: replayStore,
            account: account, skew: skew)
    }
}

extension JWTClaims {
    /// The namespace of `jti` keys in a ``ReplayStore``: `jwt.jti`.
    public static let replayNamespace = "jwt.jti"
}

extension ReplayStore {
    /// Uses a verified token's `jti` once (RFC 7519 §4.1.7: the identifier "can be used to
    /// prevent the JWT from being replayed").
    ///
    /// Call it only after the signature and claims verified. The key is the token's `iss` and
    /// `jti` (a `jti` is unique per issuer); the TTL lasts until the token expires,
    /// `exp + leeway − now`, so a replay is refused for as long as the token would be accepted.
    /// - Parameters:
    ///   - claims: the verified claims; they must have a `jti` and an `exp`.
    ///   - now: the verifier's time.
    ///   - leeway: the clock skew the verifier allows for `exp`, in seconds, 0 or more.
    /// - Returns: `true` for the first use; `false` for a replay.
    /// - Throws: ``CryptoError/missingParameter(_:)`` (`"jti"`, `"exp"`: a single-use token
    ///   needs both), ``CryptoError/expired`` (no time left), ``CryptoError/invalidParameter(_:)``
    ///   (`"leeway"`, `"ttl"` past ``ReplayStoreLimits/maximumTTL``); ``StoreUnavailableError``.
    public func consumeJWTID(of claims: JWTClaims, at now: Date, leeway: TimeInterval) async throws -> Bool {
        guard leeway >= 0, leeway.isFinite else { throw CryptoError.invalidParameter("leeway") }
        guard let jwtID = claims.jwtID, !jwtID.isEmpty else { throw CryptoError.missingParameter("jti") }
        guard let expiresAt = claims.expiresAt else { throw CryptoError.missingParameter("exp") }
        let remaining = expiresAt.secondsSince1970 + leeway - now.timeIntervalSince1970
        guard remaining.isFinite, remaining > 0 else { throw CryptoError.expired }
        guard remaining <= Double(ReplayStoreLimits.maximumTTL.components.seconds) else {
            throw CryptoError.invalidParameter("ttl")
        }
        var identifier = Array((claims.issuer ?? "").utf8)
        identifier.append(0)
        identifier.append(contentsOf: jwtID.utf8)
        let key = try keyspace.key(JWTClaims.replayNamespace, identifier)
        // Rounded up to whole milliseconds by the store; never shorter than the token's life.
        return try await consumeOnce(key: key, ttl: .milliseconds(Int64((remaining * 1000).rounded(.up))))
    }
}
