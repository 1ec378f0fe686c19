import Foundation
import MultiAuthCrypto
import MultiAuthLocking

/// A software WebAuthn authenticator for tests and the sandbox: it creates credentials and
/// signs assertions exactly as W3C WebAuthn Level 3 §6.3.2 (authenticatorMakeCredential) and
/// §6.3.3 (authenticatorGetAssertion) describe, together with the client data a browser would
/// send (§5.8.1), so ``/MultiAuthCrypto/WebAuthnVerifier`` and other relying parties can be tested end to end.
///
/// Deterministic under `seed`: credential IDs and key material are derived from the seed and a
/// per-authenticator credential counter with HMAC-SHA-256 (ES256 private scalars by rejection
/// sampling below the P-256 order; Ed25519 keys from a 32-byte derived seed), so the same
/// seed and the same calls give the same credentials and public keys. Ed25519 signatures are
/// deterministic (RFC 8032); ES256 signature *bytes* are not (libcrypto and CryptoKit sign
/// with a random nonce), though every one verifies. RS256 credentials are not offered.
///
/// Each credential keeps its own signature counter, advanced by `signCountStep` per
/// assertion (0 models an authenticator that does not count, as synced passkeys do).
/// ``clone(seed:)`` copies credentials and counters, then the two go separate ways: the
/// cloned-authenticator fault of §6.1.1.
///
/// Concurrency: all mutable state is in one `Locked` value; safe to share across tasks and threads.
public final class SoftwareAuthenticator: Sendable {
    /// The attestation statement registrations carry (W3C WebAuthn Level 3 §8).
    public enum Attestation: Sendable {
        /// Format `none` with an empty statement (§8.7).
        case none
        /// Format `packed`, self attestation: signed with the credential's own key (§8.2).
        case packedSelf
    }

    /// A new credential, as the client returns it (§5.2.1 `AuthenticatorAttestationResponse`).
    public struct Registration: Sendable {
        /// The credential ID.
        public var credentialID: [UInt8]
        /// The client data JSON bytes (`type` `webauthn.create`).
        public var clientDataJSON: [UInt8]
        /// The CBOR attestation object (`fmt`, `attStmt`, `authData`).
        public var attestationObject: [UInt8]
    }

    /// An assertion, as the client returns it (§5.2.2 `AuthenticatorAssertionResponse`).
    public struct Assertion: Sendable {
        /// The credential ID that signed.
        public var credentialID: [UInt8]
        /// The client data JSON bytes (`type` `webauthn.get`).
        public var clientDataJSON: [UInt8]
        /// The authenticator data (37 bytes: no attested data, no extensions).
        public var authenticatorData: [UInt8]
        /// The signature over `authenticatorData ‖ SHA-256(clientDataJSON)`: DER for ES256,
        /// 64 bytes for EdDSA.
        public var signature: [UInt8]
        /// The credential's user handle.
        public var userHandle: [UInt8]?
    }

    private struct Credential: Sendable {
        let id: [UInt8]
        let rpID: String
        let userHandle: [UInt8]
        let userName: String
        let algorithm: COSEAlgorithm
        let p256: PrivateKey?
        let ed25519Seed: [UInt8]
        let publicKey: [UInt8]
        var signCount: UInt32
    }

    private struct State: Sendable {
        var seed: UInt64
        var derived: UInt64 = 0
        var credentials: [Credential] = []
    }

    private let state: Locked<State>
    private let algorithm: COSEAlgorithm
    private let attestation: Attestation
    private let aaguid: [UInt8]
    private let signCountStep: UInt32

    /// Creates an authenticator with no credentials.
    ///
    /// - Parameters:
    ///   - seed: derives every credential ID and key.
    ///   - algorithm: `COSEAlgorithm.es256` (default) or `COSEAlgorithm.edDSA`;
    ///     `COSEAlgorithm.rs256` makes ``makeCredential(rpID:origin:challenge:userHandle:userName:excludedCredentialIDs:userVerified:)``
    ///     throw `notSupported`.
    ///   - attestation: the attestation format of registrations.
    ///   - aaguid: the AAGUID in attested credential data; 16 bytes (other lengths are cut or
    ///     zero-padded to 16).
    ///   - signCountStep: how much each assertion advances a credential's counter; 0 never.
    public init(
        seed: UInt64, algorithm: COSEAlgorithm = .es256, attestation: Attestation = .none,
        aaguid: [UInt8] = Array(repeating: 0, count: 16), signCountStep: UInt32 = 1
    ) {
        self.state = Locked(State(seed: seed))
        self.algorithm = algorithm
        self.attestation = attestation
        self.aaguid = Array((aaguid + Array(repeating: 0, count: 16)).prefix(16))
        self.signCountStep = signCountStep
    }

    private init(copying other: SoftwareAuthenticator, seed: UInt64?) {
        var state = other.state.withLock { $0 }
        if let seed { state.seed = seed }
        self.state = Locked(state)
        self.algorithm = other.algorithm
        self.attestation = other.attestation
        self.aaguid = other.aaguid
        self.signCountStep = other.signCountStep
    }

    /// The IDs of every credential, oldest first.
    public var credentialIDs: [[UInt8]] { state.withLock { $0.credentials.map(\.id) } }

    /// A copy with the same credentials, keys and counters that from now on counts, signs and
    /// creates credentials independently (a cloned authenticator).
    ///
    /// - Parameter seed: the copy's seed for new credentials; this one's when `nil`.
    /// - Returns: the copy.
    public func clone(seed: UInt64? = nil) -> SoftwareAuthenticator {
        SoftwareAuthenticator(copying: self, seed: seed)
    }

    /// Creates a credential and its registration response (§6.3.2, §5.1.3).
    ///
    /// - Parameters:
    ///   - rpID: the RP ID (hashed into the authenticator data).
    ///   - origin: the origin written into the client data.
    ///   - challenge: the relying party's challenge (base64url in the client data).
    ///   - userHandle: the user handle (user.id), 1 to 64 bytes.
    ///   - userName: the user name (kept with the credential).
    ///   - excludedCredentialIDs: `excludeCredentials`: none of them may be ours for `rpID`.
    ///   - userVerified: whether the UV flag is set.
    /// - Returns: the credential ID, client data and attestation object.
    /// - Throws: ``SoftwareAuthenticatorError`` `invalidState` for an excluded credential,
    ///   `notSupported` for RS256 or a user handle that is empty or over 64 bytes.
    public func makeCredential(
        rpID: String, origin: String, challenge: [UInt8], userHandle: [UInt8], userName: String,
        excludedCredentialIDs: [[UInt8]] = [], userVerified: Bool = true
    ) throws -> Registration {
        guard algorithm != .rs256 else {
            throw SoftwareAuthenticatorError(.notSupported, "RS256 credentials are not offered")
        }
        guard (1...64).contains(userHandle.count) else {
            throw SoftwareAuthenticatorError(.notSupported, "the user handle must be 1 to 64 bytes")
        }
        let clientData = Self.clientData(type: "webauthn.create", challenge: challenge, origin: origin)
        return try state.withLock { state in
            if state.credentials.contains(where: { $0.rpID == rpID && excludedCredentialIDs.contains($0.id) }) {
                throw SoftwareAuthenticatorError(.invalidState, "an excluded credential is present")
            }
            let credential = try deriveCredential(
                in: &state, rpID: rpID, userHandle: userHandle, userName: userName)
            state.credentials.append(credential)
            var authData = Self.authDataHead(rpID: rpID, flags: 0x41 | (userVerified ? 0x04 : 0), signCount: 0)
            authData += aaguid
            authData += [
                UInt8(truncatingIfNeeded: credential.id.count >> 8), UInt8(truncatingIfNeeded: credential.id.count),
            ]
            authData += credential.id + credential.publicKey
            let statement: CBORValue
            switch attestation {
            case .none: statement = .map([:])
            case .packedSelf:
                let signature = try Self.sign(authData + MessageDigest.sha256(clientData), with: credential)
                statement = .map([.text("alg"): .int(credential.algorithm.rawValue), .text("sig"): .bytes(signature)])
            }
            let fmt = attestation == .none ? "none" : "packed"
            let object = CBOREncoder.encode(
                .map([.text("fmt"): .text(fmt), .text("attStmt"): statement, .text("authData"): .bytes(authData)]))
            return Registration(credentialID: credential.id, clientDataJSON: clientData, attestationObject: object)
        }
    }

    /// Signs an assertion (§6.3.3, §5.1.4) with one of this authenticator's credentials.
    ///
    /// - Parameters:
    ///   - rpID: the RP ID.
    ///   - origin: the origin written into the client data.
    ///   - challenge: the relying party's challenge.
    ///   - allowedCredentialIDs: `allowCredentials`; empty means discoverable: the newest
    ///     credential for `rpID`.
    ///   - userVerified: whether the UV flag is set.
    ///   - claimedRPID: the RP ID whose SHA-256 goes into the authenticator data; `nil` for
    ///     `rpID`. Another one is the "wrong RP ID" fault: a credential of `rpID` signing for
    ///     another relying party, which the verifier refuses (`relyingPartyMismatch`).
    /// - Returns: the assertion; the credential's counter has advanced by `signCountStep`.
    /// - Throws: ``SoftwareAuthenticatorError`` `notAllowed` when no credential matches.
    public func getAssertion(
        rpID: String, origin: String, challenge: [UInt8], allowedCredentialIDs: [[UInt8]] = [],
        userVerified: Bool = true, claimedRPID: String? = nil
    ) throws -> Assertion {
        let clientData = Self.clientData(type: "webauthn.get", challenge: challenge, origin: origin)
        return try state.withLock { state in
            let index: Int?
            if allowedCredentialIDs.isEmpty {
                index = state.credentials.lastIndex(where: { $0.rpID == rpID })
            } else {
                index = state.credentials.firstIndex(where: { $0.rpID == rpID && allowedCredentialIDs.contains($0.id) })
            }
            guard let index else {
                throw SoftwareAuthenticatorError(.notAllowed, "no credential for this RP ID")
            }
            state.credentials[index].signCount &+= signCountStep
            let credential = state.credentials[index]
            let authData = Self.authDataHead(
                rpID: claimedRPID ?? rpID, flags: 0x01 | (userVerified ? 0x04 : 0), signCount: credential.signCount)
            let signature = try Self.sign(authData + MessageDigest.sha256(clientData), with: credential)
            return Assertion(
                credentialID: credential.id, clientDataJSON: clientData, authenticatorData: authData,
                signature: signature, userHandle: credential.userHandle)
        }
    }

    // MARK: Derivation and encoding

    /// HMAC-SHA-256 under the seed of `label ‖ 0x00 ‖ index (8 bytes) ‖ attempt (4 bytes)`.
    private static func derive(_ label: String, seed: UInt64, index: UInt64, attempt: UInt32 = 0) -> [UInt8] {
        let key = (0..<8).map { UInt8(truncatingIfNeeded: seed >> (56 - 8 * $0)) }
        var message = Array(label.utf8) + [0]
        message += (0..<8).map { UInt8(truncatingIfNeeded: index >> (56 - 8 * $0)) }
        message += (0..<4).map { UInt8(truncatingIfNeeded: attempt >> (24 - 8 * $0)) }
        return HMAC.authenticationCode(for: message, key: key, algorithm: .sha256)
    }

    /// The next credential, derived from `state` (whose counter it advances); called inside
    /// `state.withLock`.
    private func deriveCredential(
        in state: inout State, rpID: String, userHandle: [UInt8], userName: String
    ) throws -> Credential {
        let index = state.derived
        state.derived += 1
        let seed = state.seed
        let id = Self.derive("credential-id", seed: seed, index: index)
        switch algorithm {
        case .es256:
            // Rejection sampling: a candidate is a scalar when 0 < d < n (SEC 1 §3.2.1); a
            // candidate fails with probability below 2⁻³², so the loop ends at once.
            var attempt: UInt32 = 0
            var scalar = Self.derive("es256", seed: seed, index: index)
            while scalar.allSatisfy({ $0 == 0 }) || !scalar.lexicographicallyPrecedes(WebAuthnSigning.p256Order) {
                attempt += 1
                scalar = Self.derive("es256", seed: seed, index: index, attempt: attempt)
            }
            let key = try PrivateKey.p256(privateScalar: scalar)
            let jwk = try key.publicKey.jwk()
            guard let x = jwk.x.flatMap({ try? Base64URL.decode($0) }),
                let y = jwk.y.flatMap({ try? Base64URL.decode($0) })
            else {
                throw SoftwareAuthenticatorError(.notSupported, "the P-256 key has no coordinates")
            }
            return Credential(
                id: id, rpID: rpID, userHandle: userHandle, userName: userName, algorithm: .es256, p256: key,
                ed25519Seed: [], publicKey: COSEKeyEncoder.es256(x: x, y: y), signCount: 0)
        case .edDSA:
            let keySeed = Self.derive("ed25519", seed: seed, index: index)
            return Credential(
                id: id, rpID: rpID, userHandle: userHandle, userName: userName, algorithm: .edDSA, p256: nil,
                ed25519Seed: keySeed,
                publicKey: COSEKeyEncoder.edDSA(x: try WebAuthnSigning.ed25519PublicKey(seed: keySeed)),
                signCount: 0)
        case .rs256:
            throw SoftwareAuthenticatorError(.notSupported, "RS256 credentials are not offered")
        }
    }

    private static func sign(_ message: [UInt8], with credential: Credential) throws -> [UInt8] {
        if let key = credential.p256 {
            let raw = try key.signature(for: message, algorithm: .es256)
            guard let der = WebAuthnSigning.derECDSASignature(fromRaw: raw) else {
                throw SoftwareAuthenticatorError(.notSupported, "the ES256 signature has no DER form")
            }
            return der
        }
        return try WebAuthnSigning.ed25519Sign(seed: credential.ed25519Seed, message: message)
    }

    /// `rpIdHash ‖ flags ‖ signCount` (§6.1).
    private static func authDataHead(rpID: String, flags: UInt8, signCount: UInt32) -> [UInt8] {
        MessageDigest.sha256(rpID.utf8) + [flags]
            + (0..<4).map { UInt8(truncatingIfNeeded: signCount >> (24 - 8 * $0)) }
    }

    /// The client data JSON (§5.8.1), members in the order of the limited verification
    /// algorithm's serialization (§5.8.1.1), `crossOrigin` false.
    private static func clientData(type: String, challenge: [UInt8], origin: String) -> [UInt8] {
        let text =
            #"{"type":"# + quoted(type) + #","challenge":"# + quoted(Base64URL.encode(challenge)) + #","origin":"#
            + quoted(origin) + #","crossOrigin":false}"#
        return Array(text.utf8)
    }

    /// A JSON string literal (§5.8.1.2 CCDToString).
    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Why ``SoftwareAuthenticator`` refused a request (the DOMException names of W3C WebAuthn
/// Level 3 §6.3.2 and §6.3.3).
///
/// Concurrency: a plain value.
public struct SoftwareAuthenticatorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of refusal.
    public enum Code: String, Sendable, Hashable {
        /// `InvalidStateError`: a credential in `excludeCredentials` is present.
        case invalidState
        /// `NotAllowedError`: no credential for the RP ID (or none of the allowed ones).
        case notAllowed
        /// `NotSupportedError`: an algorithm or parameter this authenticator does not offer.
        case notSupported
    }

    /// The kind of refusal.
    public let code: Code
    /// A short explanation.
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: the kind of refusal.
    ///   - message: a short explanation.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// e.g. `SoftwareAuthenticatorError(notAllowed): no credential for this RP ID`.
    public var description: String { "SoftwareAuthenticatorError(\(code.rawValue)): \(message)" }
}
