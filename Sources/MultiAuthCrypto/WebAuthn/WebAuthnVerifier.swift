/// The relying party's checks of a WebAuthn (passkey) registration and assertion, in the
/// order of W3C WebAuthn Level 3 §7.1 "Registering a New Credential" and §7.2 "Verifying an
/// Authentication Assertion".
///
/// Attestation formats `none` and `packed` (self attestation, or `x5c` whose leaf is checked
/// against §8.2.1 without any trust store: the chain is returned and the caller decides trust).
/// Algorithms ES256, EdDSA and RS256. Every input is bounded (``Limits``) before it is parsed.
/// With a ``ReplayStore`` each expected challenge is consumed after all other checks pass, so
/// a replayed response is refused with ``WebAuthnError/Code/challengeReused``.
///
/// Docs/Passkeys.md, "Verifying on the server", lists the steps and errors.
/// Concurrency: an immutable `Sendable` value; any number of verifications may run at once.
public struct WebAuthnVerifier: Sendable {
    /// The size limits, in bytes, checked before any parsing.
    public enum Limits {
        /// `clientDataJSON`: 16 KiB (16,384 bytes).
        public static let clientDataJSON = 16_384
        /// `attestationObject`: 64 KiB (65,536 bytes), room for an `x5c` chain.
        public static let attestationObject = 65_536
        /// Assertion `authenticatorData`: 16 KiB (16,384 bytes).
        public static let authenticatorData = 16_384
        /// Assertion `signature`: 1,024 bytes (an RSA-8192 signature).
        public static let signature = 1_024
        /// Credential ID: 1,023 bytes (W3C WebAuthn Level 3 §7.1 step 26).
        public static let credentialID = 1_023
        /// User handle: 64 bytes (§5.4.3 `user.id`).
        public static let userHandle = 64
        /// The shortest expected challenge accepted, 16 bytes (§13.4.3).
        public static let minimumChallenge = 16
        /// The longest expected challenge accepted, 1,024 bytes.
        public static let maximumChallenge = 1_024
    }

    /// The relying party checked against.
    public let relyingParty: WebAuthnRelyingParty
    /// The store that makes challenges single-use, or `nil` (the caller then ensures it).
    public let replayStore: (any ReplayStore)?
    /// How long a consumed challenge is remembered; at least the ceremony timeout.
    public let challengeTTL: Duration
    /// The algorithms accepted for credential keys.
    public let algorithms: [COSEAlgorithm]
    /// Whether client data with `crossOrigin: true` (an iframe on another origin) is accepted.
    public let allowCrossOrigin: Bool
    /// The top-level origins this relying party may be framed in; a client data `topOrigin`
    /// must be one of them (and ``allowCrossOrigin`` set), W3C WebAuthn Level 3 §7.1 step 11.
    public let allowedTopOrigins: [String]
    /// What a regressed signature counter does.
    public let signCountPolicy: WebAuthnSignCountPolicy

    /// The ``ReplayStore`` namespace of consumed challenges.
    public static let challengeNamespace = "webauthn.challenge"

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - relyingParty: the RP ID and allowed origins.
    ///   - replayStore: consumes each challenge once; `nil` for none.
    ///   - challengeTTL: how long a consumed challenge is remembered (1 ms to 366 days); 5
    ///     minutes by default.
    ///   - algorithms: the credential algorithms accepted; all three by default.
    ///   - allowCrossOrigin: accept `crossOrigin: true`; `false` by default.
    ///   - allowedTopOrigins: the top-level pages this relying party may be framed in (a
    ///     `topOrigin` needs ``allowCrossOrigin`` too); none by default.
    ///   - signCountPolicy: ``WebAuthnSignCountPolicy/report`` by default.
    public init(
        relyingParty: WebAuthnRelyingParty, replayStore: (any ReplayStore)? = nil,
        challengeTTL: Duration = .seconds(300),
        algorithms: [COSEAlgorithm] = [.es256, .edDSA, .rs256], allowCrossOrigin: Bool = false,
        allowedTopOrigins: [String] = [], signCountPolicy: WebAuthnSignCountPolicy = .report
    ) {
        self.relyingParty = relyingParty
        self.replayStore = replayStore
        self.challengeTTL = challengeTTL
        self.algorithms = algorithms
        self.allowCrossOrigin = allowCrossOrigin
        self.allowedTopOrigins = allowedTopOrigins
        self.signCountPolicy = signCountPolicy
    }

    /// Verifies a registration (W3C WebAuthn Level 3 §7.1) and returns the credential to store.
    ///
    /// Checked in order: sizes; client data `type` `webauthn.create`, `challenge`, `origin`,
    /// `crossOrigin`; the attestation object; `rpIdHash`; UP; UV when required; BS only with
    /// BE; attested credential data; the key's algorithm; the attestation statement (`none`:
    /// empty; `packed`); finally the challenge is consumed in the replay store.
    ///
    /// - Parameters:
    ///   - clientDataJSON: the client data bytes, at most 16 KiB.
    ///   - attestationObject: the CBOR attestation object, at most 64 KiB.
    ///   - expectedChallenge: the challenge the relying party issued, 16 to 1,024 bytes.
    ///   - userVerification: the ceremony's requirement.
    /// - Returns: the credential record (`userHandle` `nil`: set it to the registered user).
    /// - Throws: ``WebAuthnError`` naming the first failed check.
    ///   Concurrency: runs on the caller's task; awaits only the replay store.
    public func verifyRegistration(
        clientDataJSON: [UInt8], attestationObject: [UInt8], expectedChallenge: [UInt8],
        userVerification: WebAuthnUserVerification
    ) async throws(WebAuthnError) -> WebAuthnCredential {
        guard clientDataJSON.count <= Limits.clientDataJSON else {
            throw WebAuthnError(.tooLarge, "clientDataJSON is over \(Limits.clientDataJSON) bytes")
        }
        guard attestationObject.count <= Limits.attestationObject else {
            throw WebAuthnError(.tooLarge, "attestationObject is over \(Limits.attestationObject) bytes")
        }
        try checkClientData(clientDataJSON, type: "webauthn.create", expectedChallenge: expectedChallenge)
        let clientDataHash = MessageDigest.sha256(clientDataJSON)
        let object = try WebAuthnAttestationObject(parsing: attestationObject)
        let authData = object.authenticatorData
        try checkFlags(authData, userVerification: userVerification)
        guard let attested = authData.attestedCredential else {
            throw WebAuthnError(.malformed, "registration authenticator data has no attested credential data")
        }
        let key = try COSEKey(bytes: attested.publicKey)
        guard algorithms.contains(key.algorithm) else {
            throw WebAuthnError(.unsupportedAlgorithm, "the credential's algorithm is not allowed")
        }
        var certificates: [[UInt8]] = []
        switch object.format {
        case "none":
            guard object.statement == .map([:]) else {
                throw WebAuthnError(.attestationInvalid, "none attestation statement is not empty")
            }
        case "packed":
            certificates = try PackedAttestation.verify(
                statement: object.statement, authenticatorData: authData, clientDataHash: clientDataHash,
                credentialKey: key, aaguid: attested.aaguid)
        default:
            throw WebAuthnError(.unsupportedAttestation, "attestation format is not none or packed")
        }
        try await consume(expectedChallenge)
        return WebAuthnCredential(
            credentialID: attested.credentialID, publicKey: attested.publicKey, algorithm: key.algorithm,
            signCount: authData.signCount, userHandle: nil, backupEligible: authData.backupEligible,
            backedUp: authData.backedUp, attestationFormat: object.format, aaguid: attested.aaguid,
            attestationCertificates: certificates)
    }

    /// Verifies an assertion (W3C WebAuthn Level 3 §7.2) against a stored credential.
    ///
    /// Checked in order: sizes; the credential ID is the stored one; the user handle, when
    /// both are present, is the stored one; client data `type` `webauthn.get`, `challenge`,
    /// `origin`, `crossOrigin`; `rpIdHash`; UP; UV when required; BS only with BE and BE as
    /// stored; the key's algorithm; the signature over `authenticatorData ‖
    /// SHA-256(clientDataJSON)`; the signature counter (§7.2 step 23: when either counter is
    /// non-zero, the new one must be greater, else it regressed); finally the challenge is
    /// consumed in the replay store.
    ///
    /// - Parameters:
    ///   - credentialID: the credential ID the client returned, at most 1,023 bytes.
    ///   - clientDataJSON: the client data bytes, at most 16 KiB.
    ///   - authenticatorData: the authenticator data, at most 16 KiB.
    ///   - signature: the signature, at most 1,024 bytes (DER for ES256).
    ///   - userHandle: the returned user handle, or `nil`.
    ///   - expectedChallenge: the challenge the relying party issued, 16 to 1,024 bytes.
    ///   - credential: the stored credential record.
    ///   - userVerification: the ceremony's requirement.
    /// - Returns: the new counter and flags to store; `signCountRegressed` under
    ///   ``WebAuthnSignCountPolicy/report``.
    /// - Throws: ``WebAuthnError`` naming the first failed check.
    ///   Concurrency: runs on the caller's task; awaits only the replay store.
    public func verifyAssertion(
        credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8],
        userHandle: [UInt8]?, expectedChallenge: [UInt8], credential: WebAuthnCredential,
        userVerification: WebAuthnUserVerification
    ) async throws(WebAuthnError) -> WebAuthnAssertionResult {
        guard clientDataJSON.count <= Limits.clientDataJSON else {
            throw WebAuthnError(.tooLarge, "clientDataJSON is over \(Limits.clientDataJSON) bytes")
        }
        guard authenticatorData.count <= Limits.authenticatorData else {
            throw WebAuthnError(.tooLarge, "authenticatorData is over \(Limits.authenticatorData) bytes")
        }
        guard signature.count <= Limits.signature else {
            throw WebAuthnError(.tooLarge, "signature is over \(Limits.signature) bytes")
        }
        guard credentialID.count <= Limits.credentialID, (userHandle?.count ?? 0) <= Limits.userHandle else {
            throw WebAuthnError(.tooLarge, "credential ID or user handle is too long")
        }
        guard credentialID == credential.credentialID else {
            throw WebAuthnError(.credentialMismatch, "the credential ID is not the stored credential's")
        }
        if let userHandle, let stored = credential.userHandle, userHandle != stored {
            throw WebAuthnError(.userHandleMismatch, "the user handle is not the credential's user")
        }
        try checkClientData(clientDataJSON, type: "webauthn.get", expectedChallenge: expectedChallenge)
        let authData = try WebAuthnAuthenticatorData(parsing: authenticatorData)
        try checkFlags(authData, userVerification: userVerification)
        guard authData.backupEligible == credential.backupEligible else {
            throw WebAuthnError(.backupStateInvalid, "the BE flag differs from the registered credential's")
        }
        guard algorithms.contains(credential.algorithm) else {
            throw WebAuthnError(.unsupportedAlgorithm, "the credential's algorithm is not allowed")
        }
        let key = try COSEKey(bytes: credential.publicKey)
        guard key.algorithm == credential.algorithm else {
            throw WebAuthnError(.unsupportedAlgorithm, "the stored key's algorithm differs from the record's")
        }
        guard key.isValidSignature(signature, for: authenticatorData + MessageDigest.sha256(clientDataJSON)) else {
            throw WebAuthnError(.signatureInvalid, "the assertion signature does not verify")
        }
        let regressed =
            (authData.signCount != 0 || credential.signCount != 0) && authData.signCount <= credential.signCount
        if regressed, signCountPolicy == .refuse {
            throw WebAuthnError(.signCountRegressed, "the signature counter did not advance")
        }
        try await consume(expectedChallenge)
        return WebAuthnAssertionResult(
            credentialID: credentialID, signCount: authData.signCount, signCountRegressed: regressed,
            userVerified: authData.userVerified, backedUp: authData.backedUp, userHandle: userHandle)
    }

    // MARK: Steps

    /// §7.1 steps 5–11 (§7.2 steps 10–13): parse client data, then type, challenge, origin,
    /// crossOrigin, topOrigin.
    private func checkClientData(_ bytes: [UInt8], type: String, expectedChallenge: [UInt8]) throws(WebAuthnError) {
        guard (Limits.minimumChallenge...Limits.maximumChallenge).contains(expectedChallenge.count) else {
            throw WebAuthnError(.invalidParameter, "the expected challenge must be 16 to 1024 bytes")
        }
        let limits = JSONLimits(maximumBytes: Limits.clientDataJSON, maximumDepth: 4, maximumValues: 256)
        guard let json = try? JSONValue(parsing: bytes, limits: limits), case .object(let members) = json else {
            throw WebAuthnError(.malformed, "clientDataJSON is not a JSON object")
        }
        guard case .string(let actualType)? = members["type"], case .string(let challenge)? = members["challenge"],
            case .string(let origin)? = members["origin"]
        else {
            throw WebAuthnError(.malformed, "clientDataJSON lacks type, challenge or origin")
        }
        guard actualType == type else { throw WebAuthnError(.typeMismatch, "client data type is not \(type)") }
        let decoded = (try? Base64URL.decode(challenge)) ?? []
        guard ConstantTime.equals(decoded, expectedChallenge) else {
            throw WebAuthnError(.challengeMismatch, "client data challenge is not the expected challenge")
        }
        guard relyingParty.origins.contains(origin) else {
            throw WebAuthnError(.originMismatch, "client data origin is not allowed")
        }
        switch members["crossOrigin"] {
        case nil, .bool(false)?: break
        case .bool(true)?:
            guard allowCrossOrigin else { throw WebAuthnError(.crossOrigin, "cross-origin use is not allowed") }
        default:
            throw WebAuthnError(.malformed, "client data crossOrigin is not a boolean")
        }
        // §7.1 step 11 (§7.2 step 13): a top origin means the ceremony ran framed; accept it only
        // from a page this relying party expects to be framed in.
        switch members["topOrigin"] {
        case nil: break
        case .string(let topOrigin)?:
            guard allowCrossOrigin, allowedTopOrigins.contains(topOrigin) else {
                throw WebAuthnError(
                    .crossOrigin, "client data topOrigin is not a page this relying party may be framed in")
            }
        default:
            throw WebAuthnError(.malformed, "client data topOrigin is not a string")
        }
    }

    /// §7.1 steps 13–16 (§7.2 steps 16–19): rpIdHash, UP, UV, BE/BS.
    private func checkFlags(
        _ authData: WebAuthnAuthenticatorData, userVerification: WebAuthnUserVerification
    ) throws(WebAuthnError) {
        guard authData.rpIDHash == MessageDigest.sha256(relyingParty.id.utf8) else {
            throw WebAuthnError(.relyingPartyMismatch, "rpIdHash is not SHA-256 of the RP ID")
        }
        guard authData.userPresent else { throw WebAuthnError(.userNotPresent, "the UP flag is not set") }
        if userVerification == .required, !authData.userVerified {
            throw WebAuthnError(.userNotVerified, "user verification is required and the UV flag is not set")
        }
        guard authData.backupEligible || !authData.backedUp else {
            throw WebAuthnError(.backupStateInvalid, "the BS flag is set without BE")
        }
    }

    /// Consumes `challenge` in the replay store, if any.
    private func consume(_ challenge: [UInt8]) async throws(WebAuthnError) {
        guard let replayStore else { return }
        let first: Bool
        do {
            let key = try replayStore.keyspace.key(Self.challengeNamespace, challenge)
            first = try await replayStore.consumeOnce(key: key, ttl: challengeTTL)
        } catch let error as StoreUnavailableError {
            throw WebAuthnError(.storeUnavailable, "replay store: \(error.cause)")
        } catch {
            throw WebAuthnError(.storeUnavailable, "replay store refused the call")
        }
        guard first else { throw WebAuthnError(.challengeReused, "the challenge was already used") }
    }
}
