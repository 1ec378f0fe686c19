/// A COSE signature algorithm a WebAuthn credential may use, by its COSE identifier
/// (RFC 9053 §2.1 ES256, §2.2 EdDSA; RFC 8812 §2 RS256; W3C WebAuthn Level 3 §5.8.5).
///
/// Concurrency: a plain value.
public enum COSEAlgorithm: Int, Sendable, Hashable, Codable, CaseIterable {
    /// ECDSA on P-256 with SHA-256 (`-7`); WebAuthn signatures are DER `Ecdsa-Sig-Value`.
    case es256 = -7
    /// Ed25519 (`-8`, RFC 8032 §5.1).
    case edDSA = -8
    /// RSASSA-PKCS1-v1_5 with SHA-256 (`-257`), 2,048 to 8,192 bits.
    case rs256 = -257
}

/// Whether the relying party requires user verification (W3C WebAuthn Level 3 §5.8.6).
///
/// Only ``required`` changes what the verifier accepts: the UV flag must then be set.
/// Concurrency: a plain value.
public enum WebAuthnUserVerification: String, Sendable, Hashable, Codable {
    /// The UV flag must be set (§7.1 step 15, §7.2 step 18).
    case required
    /// Asked for but not required: an assertion without UV is accepted.
    case preferred
    /// Not asked for: an assertion without UV is accepted.
    case discouraged
}

/// The relying party a verifier checks against: its RP ID and the origins its pages run on
/// (W3C WebAuthn Level 3 §5.1.2 RP ID, §7.1 step 9 origin).
///
/// Concurrency: a plain value.
public struct WebAuthnRelyingParty: Sendable, Hashable {
    /// The RP ID, a registrable domain such as `example.com`; authenticator data must carry
    /// `SHA-256(id)` (§7.1 step 13).
    public let id: String
    /// The exact origins accepted in client data, e.g. `https://example.com` (compared as
    /// strings, §7.1 step 9).
    public let origins: [String]

    /// Creates a relying party.
    ///
    /// - Parameters:
    ///   - id: the RP ID (UTF-8 text, hashed as is).
    ///   - origins: the accepted origins, compared exactly.
    public init(id: String, origins: [String]) {
        self.id = id
        self.origins = origins
    }
}

/// What the relying party stores after a registration (W3C WebAuthn Level 3 §4 "Credential
/// Record"), and gives back to ``WebAuthnVerifier/verifyAssertion(credentialID:clientDataJSON:authenticatorData:signature:userHandle:expectedChallenge:credential:userVerification:)``.
///
/// Concurrency: a plain value. Holds no secret: the public key and identifiers only.
public struct WebAuthnCredential: Sendable, Hashable, Codable {
    /// The credential ID, 16 to 1,023 bytes in practice (at most 1,023, §7.1 step 26).
    public var credentialID: [UInt8]
    /// The credential public key as its COSE_Key CBOR bytes (RFC 9052 §7).
    public var publicKey: [UInt8]
    /// The key's algorithm.
    public var algorithm: COSEAlgorithm
    /// The last signature counter seen (§6.1.1); 0 when the authenticator does not count.
    public var signCount: UInt32
    /// The user handle (user.id) the credential belongs to; registration returns `nil` (the
    /// relying party knows the user it registered and sets it).
    public var userHandle: [UInt8]?
    /// The BE flag at registration: whether the credential may be backed up (synced).
    public var backupEligible: Bool
    /// The BS flag last seen: whether the credential is backed up.
    public var backedUp: Bool
    /// The attestation statement format of the registration, `none` or `packed`.
    public var attestationFormat: String
    /// The authenticator's AAGUID, 16 bytes (all zero for `none` from most authenticators).
    public var aaguid: [UInt8]
    /// The attestation certificate chain (`x5c`, DER, leaf first) when the registration had
    /// one, else empty. Not checked against any root: the caller decides trust
    /// (Docs/Passkeys.md, "Verifying on the server").
    public var attestationCertificates: [[UInt8]]

    /// Creates a credential record.
    ///
    /// - Parameters:
    ///   - credentialID: the credential ID.
    ///   - publicKey: the COSE_Key bytes.
    ///   - algorithm: the key's algorithm.
    ///   - signCount: the last signature counter.
    ///   - userHandle: the user handle, if known.
    ///   - backupEligible: the BE flag.
    ///   - backedUp: the BS flag.
    ///   - attestationFormat: the attestation format name.
    ///   - aaguid: the AAGUID, 16 bytes.
    ///   - attestationCertificates: the `x5c` chain, DER, leaf first; empty by default.
    public init(
        credentialID: [UInt8], publicKey: [UInt8], algorithm: COSEAlgorithm, signCount: UInt32,
        userHandle: [UInt8]?, backupEligible: Bool, backedUp: Bool, attestationFormat: String, aaguid: [UInt8],
        attestationCertificates: [[UInt8]] = []
    ) {
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.userHandle = userHandle
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.attestationFormat = attestationFormat
        self.aaguid = aaguid
        self.attestationCertificates = attestationCertificates
    }

    private enum CodingKeys: String, CodingKey {
        case credentialID, publicKey, algorithm, signCount, userHandle, backupEligible, backedUp
        case attestationFormat, aaguid, attestationCertificates
    }

    /// Decodes a stored record; `attestationCertificates` may be absent (empty).
    ///
    /// - Throws: the decoder's errors for a missing or mistyped member.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            credentialID: try container.decode([UInt8].self, forKey: .credentialID),
            publicKey: try container.decode([UInt8].self, forKey: .publicKey),
            algorithm: try container.decode(COSEAlgorithm.self, forKey: .algorithm),
            signCount: try container.decode(UInt32.self, forKey: .signCount),
            userHandle: try container.decodeIfPresent([UInt8].self, forKey: .userHandle),
            backupEligible: try container.decode(Bool.self, forKey: .backupEligible),
            backedUp: try container.decode(Bool.self, forKey: .backedUp),
            attestationFormat: try container.decode(String.self, forKey: .attestationFormat),
            aaguid: try container.decode([UInt8].self, forKey: .aaguid),
            attestationCertificates: try container.decodeIfPresent([[UInt8]].self, forKey: .attestationCertificates)
                ?? [])
    }
}

/// The outcome of a verified assertion (W3C WebAuthn Level 3 §7.2): what to update in the
/// stored ``WebAuthnCredential``.
///
/// Concurrency: a plain value.
public struct WebAuthnAssertionResult: Sendable, Hashable {
    /// The credential that signed.
    public var credentialID: [UInt8]
    /// The authenticator's new signature counter; store it.
    public var signCount: UInt32
    /// `true` when the counter did not advance although one of the two counters is non-zero
    /// (§7.2 step 23: a possibly cloned authenticator). The assertion is otherwise valid;
    /// what to do is the relying party's policy (``WebAuthnSignCountPolicy``).
    public var signCountRegressed: Bool
    /// The UV flag.
    public var userVerified: Bool
    /// The BS flag; store it.
    public var backedUp: Bool
    /// The user handle the authenticator returned, if any (checked against the stored one).
    public var userHandle: [UInt8]?

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - credentialID: the credential ID.
    ///   - signCount: the new counter.
    ///   - signCountRegressed: whether the counter regressed.
    ///   - userVerified: the UV flag.
    ///   - backedUp: the BS flag.
    ///   - userHandle: the returned user handle.
    public init(
        credentialID: [UInt8], signCount: UInt32, signCountRegressed: Bool, userVerified: Bool, backedUp: Bool,
        userHandle: [UInt8]?
    ) {
        self.credentialID = credentialID
        self.signCount = signCount
        self.signCountRegressed = signCountRegressed
        self.userVerified = userVerified
        self.backedUp = backedUp
        self.userHandle = userHandle
    }
}

/// What an assertion whose signature counter regressed does (W3C WebAuthn Level 3 §7.2
/// step 23 leaves the decision to the relying party).
///
/// Concurrency: a plain value.
public enum WebAuthnSignCountPolicy: String, Sendable, Hashable, Codable {
    /// Accept and set ``WebAuthnAssertionResult/signCountRegressed`` (the default).
    case report
    /// Refuse with ``WebAuthnError/Code/signCountRegressed``.
    case refuse
}

/// Why a WebAuthn registration or assertion was refused.
///
/// ``message`` never contains a challenge, signature, key or client data; it names the
/// check that failed. Concurrency: a plain value.
public struct WebAuthnError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The failed check. Extensible: switch with a `default` branch.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The string form, e.g. `"originMismatch"`.
        public let rawValue: String
        /// Creates a code from its string form.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Client data, attestation object, authenticator data, COSE key or signature is not
        /// well-formed (JSON, CBOR, lengths, missing members).
        public static let malformed = Code(rawValue: "malformed")
        /// An input is larger than its limit (``WebAuthnVerifier/Limits``), refused before it
        /// is parsed.
        public static let tooLarge = Code(rawValue: "tooLarge")
        /// Client data `type` is not `webauthn.create` (registration) or `webauthn.get`
        /// (assertion) (§7.1 step 7, §7.2 step 12).
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// Client data `challenge` is not the expected challenge (§7.1 step 8).
        public static let challengeMismatch = Code(rawValue: "challengeMismatch")
        /// The challenge was already consumed in the ``ReplayStore``: a replay.
        public static let challengeReused = Code(rawValue: "challengeReused")
        /// Client data `origin` is not one of the relying party's origins (§7.1 step 9).
        public static let originMismatch = Code(rawValue: "originMismatch")
        /// Client data `crossOrigin` is true and cross-origin use is not allowed (§7.1 step 10).
        public static let crossOrigin = Code(rawValue: "crossOrigin")
        /// Authenticator data's `rpIdHash` is not SHA-256 of the RP ID (§7.1 step 13).
        public static let relyingPartyMismatch = Code(rawValue: "relyingPartyMismatch")
        /// The UP flag is not set (§7.1 step 14).
        public static let userNotPresent = Code(rawValue: "userNotPresent")
        /// User verification is required and the UV flag is not set (§7.1 step 15).
        public static let userNotVerified = Code(rawValue: "userNotVerified")
        /// The credential's algorithm is not one the verifier allows, or not supported.
        public static let unsupportedAlgorithm = Code(rawValue: "unsupportedAlgorithm")
        /// The attestation statement does not verify or breaks its format's rules (§8.2).
        public static let attestationInvalid = Code(rawValue: "attestationInvalid")
        /// An attestation format other than `none` and `packed`.
        public static let unsupportedAttestation = Code(rawValue: "unsupportedAttestation")
        /// The assertion signature does not verify (§7.2 step 22).
        public static let signatureInvalid = Code(rawValue: "signatureInvalid")
        /// The assertion's credential ID is not the stored credential's (§7.2 step 5).
        public static let credentialMismatch = Code(rawValue: "credentialMismatch")
        /// The returned user handle is not the stored credential's (§7.2 step 6).
        public static let userHandleMismatch = Code(rawValue: "userHandleMismatch")
        /// The signature counter regressed and the policy is ``WebAuthnSignCountPolicy/refuse``.
        public static let signCountRegressed = Code(rawValue: "signCountRegressed")
        /// The ``ReplayStore`` could not answer; retry later (never an acceptance).
        public static let storeUnavailable = Code(rawValue: "storeUnavailable")
        /// The BS flag is set without BE, or BE differs from the stored credential's
        /// (§7.1 step 16, §7.2 step 19).
        public static let backupStateInvalid = Code(rawValue: "backupStateInvalid")
        /// The caller's own parameter is unusable (an expected challenge under 16 bytes,
        /// §13.4.3).
        public static let invalidParameter = Code(rawValue: "invalidParameter")

        /// The string form.
        public var description: String { rawValue }
    }

    /// The failed check.
    public let code: Code
    /// A short explanation for logs; never echoes input bytes.
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: the failed check.
    ///   - message: a secret-free explanation.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// e.g. `WebAuthnError(originMismatch): client data origin is not allowed`.
    public var description: String { "WebAuthnError(\(code.rawValue)): \(message)" }
}
