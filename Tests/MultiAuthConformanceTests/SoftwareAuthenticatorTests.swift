import Foundation
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthSandbox
import Testing

/// A replay store in memory (the real ones live in MultiAuthServer, which this target does
/// not depend on).
actor MemoryReplayStore: ReplayStore {
    var used: Set<String> = []

    func consumeOnce(key: StoreKey, ttl: Duration) async throws -> Bool { used.insert(key.storageKey).inserted }

    func advance(key: StoreKey, to step: UInt64, ttl: Duration) async throws -> Bool { true }
}

/// SoftwareAuthenticator ↔ WebAuthnVerifier round trips and every refusal path of W3C
/// WebAuthn Level 3 §7.1 and §7.2, each asserting its own error code.
@Suite("SoftwareAuthenticator ↔ WebAuthnVerifier")
struct SoftwareAuthenticatorTests {
    static let rpID = "example.com"
    static let origin = "https://example.com"
    static let user: [UInt8] = Array("user-42".utf8)

    static func challenge(_ n: UInt8) -> [UInt8] { Array(repeating: n, count: 32) }

    static func verifier(
        store: (any ReplayStore)? = nil, algorithms: [COSEAlgorithm] = [.es256, .edDSA, .rs256],
        policy: WebAuthnSignCountPolicy = .report
    ) -> WebAuthnVerifier {
        WebAuthnVerifier(
            relyingParty: WebAuthnRelyingParty(id: rpID, origins: [origin]), replayStore: store, algorithms: algorithms,
            signCountPolicy: policy)
    }

    static func code(_ body: () async throws -> Void) async -> WebAuthnError.Code? {
        do {
            try await body()
            return nil
        } catch let error as WebAuthnError {
            return error.code
        } catch {
            Issue.record("not a WebAuthnError: \(error)")
            return nil
        }
    }

    /// Registers one credential and returns the stored record.
    static func register(
        _ authenticator: SoftwareAuthenticator, verifier: WebAuthnVerifier = verifier(),
        challenge: [UInt8] = challenge(1)
    ) async throws -> WebAuthnCredential {
        let registration = try authenticator.makeCredential(
            rpID: rpID, origin: origin, challenge: challenge, userHandle: user, userName: "alice")
        var credential = try await verifier.verifyRegistration(
            clientDataJSON: registration.clientDataJSON, attestationObject: registration.attestationObject,
            expectedChallenge: challenge, userVerification: .required)
        #expect(credential.credentialID == registration.credentialID)
        credential.userHandle = user
        return credential
    }

    static func assert(
        _ assertion: SoftwareAuthenticator.Assertion, credential: WebAuthnCredential,
        verifier: WebAuthnVerifier = verifier(), challenge: [UInt8] = challenge(2),
        userVerification: WebAuthnUserVerification = .required
    ) async throws -> WebAuthnAssertionResult {
        try await verifier.verifyAssertion(
            credentialID: assertion.credentialID, clientDataJSON: assertion.clientDataJSON,
            authenticatorData: assertion.authenticatorData, signature: assertion.signature,
            userHandle: assertion.userHandle, expectedChallenge: challenge, credential: credential,
            userVerification: userVerification)
    }

    /// Re-encodes an attestation object with its authData changed by `change`.
    static func withAuthData(_ object: [UInt8], _ change: (inout [UInt8]) -> Void) throws -> [UInt8] {
        guard case .map(var members) = try CBORValue(decoding: object),
            case .bytes(var authData)? = members[.text("authData")]
        else { throw CBORError(.truncated, at: 0) }
        change(&authData)
        members[.text("authData")] = .bytes(authData)
        return CBOREncoder.encode(.map(members))
    }

    @Test(arguments: [
        (COSEAlgorithm.es256, SoftwareAuthenticator.Attestation.none), (.es256, .packedSelf), (.edDSA, .none),
        (.edDSA, .packedSelf),
    ])
    func roundTrips(_ algorithm: COSEAlgorithm, _ attestation: SoftwareAuthenticator.Attestation) async throws {
        let authenticator = SoftwareAuthenticator(seed: 7, algorithm: algorithm, attestation: attestation)
        var credential = try await Self.register(authenticator)
        #expect(credential.algorithm == algorithm)
        #expect(credential.attestationFormat == (attestation == .none ? "none" : "packed"))
        #expect(credential.signCount == 0)
        for round in 1...3 {
            let assertion = try authenticator.getAssertion(
                rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(UInt8(10 + round)),
                allowedCredentialIDs: [credential.credentialID])
            let result = try await Self.assert(
                assertion, credential: credential, challenge: Self.challenge(UInt8(10 + round)))
            #expect(result.signCount == UInt32(round))
            #expect(!result.signCountRegressed && result.userVerified)
            #expect(result.userHandle == Self.user)
            credential.signCount = result.signCount
        }
    }

    @Test func deterministicUnderTheSeed() throws {
        for algorithm in [COSEAlgorithm.es256, .edDSA] {
            func registration(_ seed: UInt64) throws -> [UInt8] {
                try SoftwareAuthenticator(seed: seed, algorithm: algorithm).makeCredential(
                    rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(1), userHandle: Self.user,
                    userName: "alice"
                ).attestationObject
            }
            #expect(try registration(1) == registration(1))
            #expect(try registration(1) != registration(2))
        }
        let a = SoftwareAuthenticator(seed: 9, algorithm: .edDSA)
        let b = SoftwareAuthenticator(seed: 9, algorithm: .edDSA)
        for authenticator in [a, b] {
            _ = try authenticator.makeCredential(
                rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(1), userHandle: Self.user, userName: "a"
            )
        }
        let first = try a.getAssertion(rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(3))
        let second = try b.getAssertion(rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(3))
        #expect(first.signature == second.signature)  // Ed25519 is deterministic (RFC 8032)
        #expect(a.credentialIDs == b.credentialIDs)
    }

    @Test func authenticatorRefusals() throws {
        let authenticator = SoftwareAuthenticator(seed: 3)
        #expect(throws: SoftwareAuthenticatorError.self) {
            _ = try authenticator.getAssertion(rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(1))
        }
        let registration = try authenticator.makeCredential(
            rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(1), userHandle: Self.user, userName: "a")
        do {
            _ = try authenticator.makeCredential(
                rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(1), userHandle: Self.user,
                userName: "a",
                excludedCredentialIDs: [registration.credentialID])
            Issue.record("an excluded credential was created again")
        } catch let error as SoftwareAuthenticatorError {
            #expect(error.code == .invalidState)
        }
        do {
            _ = try authenticator.getAssertion(
                rpID: "other.example", origin: Self.origin, challenge: Self.challenge(1))
            Issue.record("an assertion for another RP ID")
        } catch let error as SoftwareAuthenticatorError {
            #expect(error.code == .notAllowed)
        }
        do {
            _ = try SoftwareAuthenticator(seed: 1, algorithm: .rs256).makeCredential(
                rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(1), userHandle: Self.user, userName: "a"
            )
            Issue.record("an RS256 credential")
        } catch let error as SoftwareAuthenticatorError {
            #expect(error.code == .notSupported)
        }
    }

    @Test func discoverableAssertionUsesTheNewestCredential() throws {
        let authenticator = SoftwareAuthenticator(seed: 5)
        for index in 0..<3 {
            _ = try authenticator.makeCredential(
                rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(1), userHandle: [UInt8(index + 1)],
                userName: "u\(index)")
        }
        let ids = authenticator.credentialIDs
        #expect(ids.count == 3 && Set(ids).count == 3)
        let assertion = try authenticator.getAssertion(
            rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(2))
        #expect(assertion.credentialID == ids[2])
        #expect(assertion.userHandle == [3])
        let allowed = try authenticator.getAssertion(
            rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(2), allowedCredentialIDs: [ids[0]])
        #expect(allowed.credentialID == ids[0])
    }

    @Test func registrationRefusals() async throws {
        let authenticator = SoftwareAuthenticator(seed: 11, attestation: .packedSelf)
        let challenge = Self.challenge(1)
        func register(
            origin: String = SoftwareAuthenticatorTests.origin, rpID: String = SoftwareAuthenticatorTests.rpID,
            userVerified: Bool = true, verifier: WebAuthnVerifier = SoftwareAuthenticatorTests.verifier(),
            expected: [UInt8]? = nil, tamper: ((inout [UInt8]) -> Void)? = nil,
            clientData: ((inout [UInt8]) -> Void)? = nil
        ) async throws {
            let registration = try authenticator.makeCredential(
                rpID: rpID, origin: origin, challenge: challenge, userHandle: Self.user, userName: "a",
                userVerified: userVerified)
            var object = registration.attestationObject
            if let tamper { object = try Self.withAuthData(object, tamper) }
            var client = registration.clientDataJSON
            clientData?(&client)
            _ = try await verifier.verifyRegistration(
                clientDataJSON: client, attestationObject: object, expectedChallenge: expected ?? challenge,
                userVerification: .required)
        }
        #expect(await Self.code { try await register(origin: "https://evil.example") } == .originMismatch)
        #expect(await Self.code { try await register(rpID: "evil.example") } == .relyingPartyMismatch)
        #expect(await Self.code { try await register(expected: Self.challenge(9)) } == .challengeMismatch)
        #expect(await Self.code { try await register(userVerified: false) } == .userNotVerified)
        // Flags are checked before the packed signature: UP cleared, BS without BE.
        #expect(await Self.code { try await register(tamper: { $0[32] &= ~0x01 }) } == .userNotPresent)
        #expect(await Self.code { try await register(tamper: { $0[32] |= 0x10 }) } == .backupStateInvalid)
        // A tampered counter breaks the self-attestation signature.
        #expect(await Self.code { try await register(tamper: { $0[36] ^= 0x01 }) } == .attestationInvalid)
        // Client data: the type of an assertion, a cross-origin iframe.
        let get = Array(#""type":"webauthn.get""#.utf8)
        let create = Array(#""type":"webauthn.create""#.utf8)
        #expect(
            await Self.code { try await register(clientData: { $0 = Self.replace(create, with: get, in: $0) }) }
                == .typeMismatch)
        let sameOrigin = Array(#""crossOrigin":false"#.utf8)
        let cross = Array(#""crossOrigin":true"#.utf8)
        #expect(
            await Self.code { try await register(clientData: { $0 = Self.replace(sameOrigin, with: cross, in: $0) }) }
                == .crossOrigin)
        let esOnly = Self.verifier(algorithms: [.es256])
        let ed = SoftwareAuthenticator(seed: 11, algorithm: .edDSA)
        let registration = try ed.makeCredential(
            rpID: Self.rpID, origin: Self.origin, challenge: challenge, userHandle: Self.user, userName: "a")
        #expect(
            await Self.code {
                _ = try await esOnly.verifyRegistration(
                    clientDataJSON: registration.clientDataJSON, attestationObject: registration.attestationObject,
                    expectedChallenge: challenge, userVerification: .required)
            } == .unsupportedAlgorithm)
    }

    static func replace(_ old: [UInt8], with new: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        guard let start = (0...(bytes.count - old.count)).first(where: { Array(bytes[$0..<$0 + old.count]) == old })
        else {
            return bytes
        }
        return Array(bytes[..<start]) + new + Array(bytes[(start + old.count)...])
    }

    @Test func assertionRefusals() async throws {
        let authenticator = SoftwareAuthenticator(seed: 13)
        let credential = try await Self.register(authenticator)
        func assertion(userVerified: Bool = true, origin: String = SoftwareAuthenticatorTests.origin) throws
            -> SoftwareAuthenticator.Assertion
        {
            try authenticator.getAssertion(
                rpID: Self.rpID, origin: origin, challenge: Self.challenge(2), userVerified: userVerified)
        }
        var tampered = try assertion()
        tampered.signature[tampered.signature.count - 1] ^= 0x01
        #expect(await Self.code { _ = try await Self.assert(tampered, credential: credential) } == .signatureInvalid)
        var data = try assertion()
        data.authenticatorData[36] ^= 0x01
        #expect(await Self.code { _ = try await Self.assert(data, credential: credential) } == .signatureInvalid)
        var absent = try assertion()
        absent.authenticatorData[32] &= ~0x01
        #expect(await Self.code { _ = try await Self.assert(absent, credential: credential) } == .userNotPresent)
        var backedUp = try assertion()
        backedUp.authenticatorData[32] |= 0x10
        #expect(await Self.code { _ = try await Self.assert(backedUp, credential: credential) } == .backupStateInvalid)
        #expect(
            await Self.code { _ = try await Self.assert(try assertion(userVerified: false), credential: credential) }
                == .userNotVerified)
        #expect(
            try await Self.assert(
                try assertion(userVerified: false), credential: credential, userVerification: .preferred
            )
            .userVerified == false)
        #expect(
            await Self.code {
                _ = try await Self.assert(try assertion(origin: "https://evil.example"), credential: credential)
            }
                == .originMismatch)
        // Authenticator data for another RP ID (checked before the signature).
        var otherRP = try assertion()
        otherRP.authenticatorData.replaceSubrange(0..<32, with: MessageDigest.sha256("evil.example".utf8))
        #expect(await Self.code { _ = try await Self.assert(otherRP, credential: credential) } == .relyingPartyMismatch)
        #expect(
            await Self.code {
                _ = try await Self.assert(try assertion(), credential: credential, challenge: Self.challenge(3))
            }
                == .challengeMismatch)
        var wrongUser = try assertion()
        wrongUser.userHandle = Array("mallory".utf8)
        #expect(await Self.code { _ = try await Self.assert(wrongUser, credential: credential) } == .userHandleMismatch)
        var otherID = try assertion()
        otherID.credentialID = Array(repeating: 0, count: 32)
        #expect(await Self.code { _ = try await Self.assert(otherID, credential: credential) } == .credentialMismatch)
        var wrongType = try assertion()
        // A registration response's client data offered in an assertion: its type is webauthn.create.
        let registration = try authenticator.makeCredential(
            rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(2), userHandle: Self.user, userName: "b")
        wrongType.clientDataJSON = registration.clientDataJSON
        #expect(await Self.code { _ = try await Self.assert(wrongType, credential: credential) } == .typeMismatch)
    }

    @Test func replayIsRefusedWithAStore() async throws {
        let store = MemoryReplayStore()
        let verifier = Self.verifier(store: store)
        let authenticator = SoftwareAuthenticator(seed: 17, algorithm: .edDSA)
        let registration = try authenticator.makeCredential(
            rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(1), userHandle: Self.user, userName: "a")
        var credential = try await verifier.verifyRegistration(
            clientDataJSON: registration.clientDataJSON, attestationObject: registration.attestationObject,
            expectedChallenge: Self.challenge(1), userVerification: .required)
        #expect(
            await Self.code {
                _ = try await verifier.verifyRegistration(
                    clientDataJSON: registration.clientDataJSON, attestationObject: registration.attestationObject,
                    expectedChallenge: Self.challenge(1), userVerification: .required)
            } == .challengeReused)
        credential.userHandle = Self.user
        let assertion = try authenticator.getAssertion(
            rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(2))
        _ = try await Self.assert(assertion, credential: credential, verifier: verifier)
        #expect(
            await Self.code { _ = try await Self.assert(assertion, credential: credential, verifier: verifier) }
                == .challengeReused)
    }

    @Test func clonedAuthenticatorRegressesTheSignCount() async throws {
        let original = SoftwareAuthenticator(seed: 19)
        var credential = try await Self.register(original)
        let clone = original.clone(seed: 20)
        #expect(clone.credentialIDs == original.credentialIDs)
        for round in 0..<2 {
            let assertion = try original.getAssertion(
                rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(UInt8(30 + round)))
            let result = try await Self.assert(
                assertion, credential: credential, challenge: Self.challenge(UInt8(30 + round)))
            #expect(!result.signCountRegressed)
            credential.signCount = result.signCount
        }
        #expect(credential.signCount == 2)
        // The clone still counts from the copied state: its next counter is 1, not above 2.
        let cloned = try clone.getAssertion(rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(40))
        let result = try await Self.assert(cloned, credential: credential, challenge: Self.challenge(40))
        #expect(result.signCountRegressed)
        #expect(result.signCount == 1)
        #expect(
            await Self.code {
                _ = try await Self.assert(
                    cloned, credential: credential, verifier: Self.verifier(policy: .refuse),
                    challenge: Self.challenge(40))
            } == .signCountRegressed)
        // An authenticator that never counts (step 0) is not a regression.
        let synced = SoftwareAuthenticator(seed: 21, signCountStep: 0)
        let syncedCredential = try await Self.register(synced)
        let zero = try synced.getAssertion(rpID: Self.rpID, origin: Self.origin, challenge: Self.challenge(2))
        let zeroResult = try await Self.assert(zero, credential: syncedCredential)
        #expect(zeroResult.signCount == 0 && !zeroResult.signCountRegressed)
    }
}
