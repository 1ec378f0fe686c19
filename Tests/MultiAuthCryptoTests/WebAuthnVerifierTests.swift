import Foundation
import MultiAuthTestKeys
import Testing

@testable import MultiAuthCrypto

/// A replay store in memory for the tests (the real ones live in MultiAuthServer).
actor TestReplayStore: ReplayStore {
    var used: Set<String> = []
    var unavailable = false

    func setUnavailable(_ value: Bool) { unavailable = value }

    func consumeOnce(key: StoreKey, ttl: Duration) async throws -> Bool {
        if unavailable { throw StoreUnavailableError(.unreachable, "test store is down") }
        return used.insert(key.storageKey).inserted
    }

    func advance(key: StoreKey, to step: UInt64, ttl: Duration) async throws -> Bool { true }
}

/// Registrations and assertions built by hand (W3C WebAuthn Level 3 §6.1, §6.5.4, §5.8.1).
enum WebAuthnBuild {
    static let rpID = "example.com"
    static let origin = "https://example.com"
    static let challenge: [UInt8] = Array(0..<32)
    static let credentialID: [UInt8] = Array(repeating: 0xC1, count: 20)

    static func clientData(
        type: String = "webauthn.create", challenge: [UInt8] = challenge, origin: String = origin,
        crossOrigin: String = "false"
    ) -> [UInt8] {
        Array(
            (#"{"type":""# + type + #"","challenge":""# + Base64URL.encode(challenge) + #"","origin":""# + origin
                + #"","crossOrigin":"# + crossOrigin + "}").utf8)
    }

    static func authData(
        rpID: String = rpID, flags: UInt8 = 0x45, signCount: UInt32 = 0,
        aaguid: [UInt8] = Array(repeating: 0, count: 16),
        credentialID: [UInt8]? = credentialID, publicKey: [UInt8] = []
    ) -> [UInt8] {
        var data = MessageDigest.sha256(rpID.utf8) + [flags]
        data += (0..<4).map { UInt8(truncatingIfNeeded: signCount >> (24 - 8 * $0)) }
        if let credentialID {
            data +=
                aaguid + [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xFF)] + credentialID + publicKey
        }
        return data
    }

    static func attestationObject(fmt: String = "none", statement: CBORValue = .map([:]), authData: [UInt8]) -> [UInt8]
    {
        CBOREncoder.encode(
            .map([.text("fmt"): .text(fmt), .text("attStmt"): statement, .text("authData"): .bytes(authData)]))
    }

    static func es256Key(_ key: PrivateKey) throws -> [UInt8] {
        let jwk = try key.publicKey.jwk()
        return COSEKeyEncoder.es256(x: try Base64URL.decode(jwk.x!), y: try Base64URL.decode(jwk.y!))
    }

    static func rs256Key(_ key: PrivateKey) throws -> [UInt8] {
        let jwk = try key.publicKey.jwk()
        return COSEKeyEncoder.rs256(modulus: try Base64URL.decode(jwk.n!), exponent: try Base64URL.decode(jwk.e!))
    }

    /// A WebAuthn signature: DER for ES256 (§6.5.5), PKCS #1 v1.5 for RS256.
    static func sign(_ message: [UInt8], with key: PrivateKey) throws -> [UInt8] {
        if key.keyType == .p256 {
            return ECDSASignature.der(fromRaw: try key.signature(for: message, algorithm: .es256))!
        }
        return try key.signature(for: message, algorithm: .rs256)
    }
}

/// The relying-party checks of W3C WebAuthn Level 3 §7.1 and §7.2 on published responses and
/// hand-built ones; every refusal asserts its own error code.
@Suite("WebAuthn verifier: §7.1 registration, §7.2 assertion, packed attestation")
struct WebAuthnVerifierTests {
    typealias B = WebAuthnBuild

    static let verifier = WebAuthnVerifier(relyingParty: WebAuthnRelyingParty(id: B.rpID, origins: [B.origin]))

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

    // MARK: Published responses

    // A real "none" registration and three real assertions (EC2, RSA, OKP) from py_webauthn's
    // test suite (github.com/duo-labs/py_webauthn, tests/test_verify_registration_response.py
    // and tests/test_verify_authentication_response.py), RP ID localhost, origin
    // http://localhost:5000.
    static let localhost = WebAuthnVerifier(
        relyingParty: WebAuthnRelyingParty(id: "localhost", origins: ["http://localhost:5000"]))

    static func b64(_ text: String) -> [UInt8] { try! Base64URL.decode(text) }

    @Test func publishedNoneRegistrationVerifies() async throws {
        let credential = try await Self.localhost.verifyRegistration(
            clientDataJSON: Self.b64(
                "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiVHdON240V1R5R0tMYzRaWS1xR3NGcUtuSE00bmdscXN5VjBJQ0psTjJUTzlYaVJ5RnRya2FEd1V2c3FsLWdrTEpYUDZmbkYxTWxyWjUzTW00UjdDdnciLCJvcmlnaW4iOiJodHRwOi8vbG9jYWxob3N0OjUwMDAiLCJjcm9zc09yaWdpbiI6ZmFsc2V9"
            ),
            attestationObject: Self.b64(
                "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVjESZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2NFAAAAFwAAAAAAAAAAAAAAAAAAAAAAQPctcQPE5oNRRJk_nO_371mf7qE7qIodzr0eOf6ACvnMB1oQG165dqutoi1U44shGezu5_gkTjmOPeJO0N8a7P-lAQIDJiABIVggSFbUJF-42Ug3pdM8rDRFu_N5oiVEysPDB6n66r_7dZAiWCDUVnB39FlGypL-qAoIO9xWHtJygo2jfDmHl-_eKFRLDA"
            ),
            expectedChallenge: Self.b64(
                "TwN7n4WTyGKLc4ZY-qGsFqKnHM4nglqsyV0ICJlN2TO9XiRyFtrkaDwUvsql-gkLJXP6fnF1MlrZ53Mm4R7Cvw"),
            userVerification: .required)
        #expect(
            credential.credentialID
                == Self.b64("9y1xA8Tmg1FEmT-c7_fvWZ_uoTuoih3OvR45_oAK-cwHWhAbXrl2q62iLVTjiyEZ7O7n-CROOY494k7Q3xrs_w"))
        #expect(credential.algorithm == .es256)
        #expect(credential.signCount == 23)
        #expect(credential.attestationFormat == "none")
        #expect(credential.aaguid == Array(repeating: 0, count: 16))
        #expect(credential.attestationCertificates.isEmpty)
    }

    struct Published {
        var id: String
        var authData: String
        var clientData: String
        var signature: String
        var userHandle: String?
        var challenge: String
        var key: String
        var stored: UInt32
        var expected: UInt32
        var algorithm: COSEAlgorithm

        var credential: WebAuthnCredential {
            WebAuthnCredential(
                credentialID: WebAuthnVerifierTests.b64(id), publicKey: WebAuthnVerifierTests.b64(key),
                algorithm: algorithm, signCount: stored, userHandle: nil, backupEligible: false, backedUp: false,
                attestationFormat: "none", aaguid: Array(repeating: 0, count: 16))
        }

        func verify(
            _ verifier: WebAuthnVerifier, credential: WebAuthnCredential? = nil, signature: [UInt8]? = nil,
            userVerification: WebAuthnUserVerification = .preferred
        ) async throws -> WebAuthnAssertionResult {
            try await verifier.verifyAssertion(
                credentialID: WebAuthnVerifierTests.b64(id), clientDataJSON: WebAuthnVerifierTests.b64(clientData),
                authenticatorData: WebAuthnVerifierTests.b64(authData),
                signature: signature ?? WebAuthnVerifierTests.b64(self.signature),
                userHandle: userHandle.map(WebAuthnVerifierTests.b64),
                expectedChallenge: WebAuthnVerifierTests.b64(challenge),
                credential: credential ?? self.credential, userVerification: userVerification)
        }
    }

    static let ec2 = Published(
        id: "EDx9FfAbp4obx6oll2oC4-CZuDidRVV4gZhxC529ytlnqHyqCStDUwfNdm1SNHAe3X5KvueWQdAX3x9R1a2b9Q",
        authData: "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MBAAAATg",
        clientData:
            "eyJjaGFsbGVuZ2UiOiJ4aTMwR1BHQUZZUnhWRHBZMXNNMTBEYUx6VlFHNjZudi1fN1JVYXpIMHZJMll2RzhMWWdERW52TjVmWlpOVnV2RUR1TWk5dGUzVkxxYjQyTjBma0xHQSIsImNsaWVudEV4dGVuc2lvbnMiOnt9LCJoYXNoQWxnb3JpdGhtIjoiU0hBLTI1NiIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6NTAwMCIsInR5cGUiOiJ3ZWJhdXRobi5nZXQifQ",
        signature: "MEUCIGisVZOBapCWbnJJvjelIzwpixxIwkjCCb5aCHafQu68AiEA88v-2pJNNApPFwAKFiNuf82-2hBxYW5kGwVweeoxCwo",
        userHandle: nil,
        challenge: "xi30GPGAFYRxVDpY1sM10DaLzVQG66nv-_7RUazH0vI2YvG8LYgDEnvN5fZZNVuvEDuMi9te3VLqb42N0fkLGA",
        key: "pQECAyYgASFYIIeDTe-gN8A-zQclHoRnGFWN8ehM1b7yAsa8I8KIvmplIlgg4nFGT5px8o6gpPZZhO01wdy9crDSA_Ngtkx0vGpvPHI",
        stored: 77, expected: 78, algorithm: .es256)

    static let rsa = Published(
        id: "ZoIKP1JQvKdrYj1bTUPJ2eTUsbLeFkv-X5xJQNr4k6s",
        authData: "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAQ",
        clientData:
            "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiaVBtQWkxUHAxWEw2b0FncTNQV1p0WlBuWmExekZVRG9HYmFRMF9LdlZHMWxGMnMzUnRfM280dVN6Y2N5MHRtY1RJcFRUVDRCVTFULUk0bWFhdm5kalEiLCJvcmlnaW4iOiJodHRwOi8vbG9jYWxob3N0OjUwMDAiLCJjcm9zc09yaWdpbiI6ZmFsc2V9",
        signature:
            "iOHKX3erU5_OYP_r_9HLZ-CexCE4bQRrxM8WmuoKTDdhAnZSeTP0sjECjvjfeS8MJzN1ArmvV0H0C3yy_FdRFfcpUPZzdZ7bBcmPh1XPdxRwY747OrIzcTLTFQUPdn1U-izCZtP_78VGw9pCpdMsv4CUzZdJbEcRtQuRS03qUjqDaovoJhOqEBmxJn9Wu8tBi_Qx7A33RbYjlfyLm_EDqimzDZhyietyop6XUcpKarKqVH0M6mMrM5zTjp8xf3W7odFCadXEJg-ERZqFM0-9Uup6kJNLbr6C5J4NDYmSm3HCSA6lp2iEiMPKU8Ii7QZ61kybXLxsX4w4Dm3fOLjmDw",
        userHandle: "T1RWa1l6VXdPRFV0WW1NNVlTMDBOVEkxTFRnd056Z3RabVZpWVdZNFpEVm1ZMk5p",
        challenge: "iPmAi1Pp1XL6oAgq3PWZtZPnZa1zFUDoGbaQ0_KvVG1lF2s3Rt_3o4uSzccy0tmcTIpTTT4BU1T-I4maavndjQ",
        key:
            "pAEDAzkBACBZAQDfV20epzvQP-HtcdDpX-cGzdOxy73WQEvsU7Dnr9UWJophEfpngouvgnRLXaEUn_d8HGkp_HIx8rrpkx4BVs6X_B6ZjhLlezjIdJbLbVeb92BaEsmNn1HW2N9Xj2QM8cH-yx28_vCjf82ahQ9gyAr552Bn96G22n8jqFRQKdVpO-f-bvpvaP3IQ9F5LCX7CUaxptgbog1SFO6FI6ob5SlVVB00lVXsaYg8cIDZxCkkENkGiFPgwEaZ7995SCbiyCpUJbMqToLMgojPkAhWeyktu7TlK6UBWdJMHc3FPAIs0lH_2_2hKS-mGI1uZAFVAfW1X-mzKL0czUm2P1UlUox7IUMBAAE",
        stored: 0, expected: 1, algorithm: .rs256)

    static let okp = Published(
        id:
            "fq9Nj0nS24B5y6Pkw_h3-9GEAEA3-0LBPxE2zvTdLjDqtSeCSNYFe9VMRueSpAZxT3YDc6L1lWXdQNwI-sVNYrefEcRR1Nsb_0jpHE955WEtFud2xxZg3MvoLMxHLet63i5tajd1fHtP7I-00D6cehM8ZWlLp2T3s9lfZgVIFcA",
        authData: "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MBAAAABw",
        clientData:
            "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiZVo0ZWVBM080ank1Rkl6cURhU0o2SkROR3UwYkJjNXpJMURqUV9rTHNvMVdOcWtHNms1bUNZZjFkdFFoVlVpQldaV2xaa3pSNU1GZWVXQ3BKUlVOWHciLCJvcmlnaW4iOiJodHRwOi8vbG9jYWxob3N0OjUwMDAiLCJjcm9zc09yaWdpbiI6ZmFsc2V9",
        signature: "RRWV8mYDRvK7YdQgdtZD4pJ2dh1D_IWZ_D6jsZo6FHJBoenbj0CVT5nA20vUzlRhN4R6dOEUHmUwP1F8eRBhBg",
        userHandle: nil,
        challenge: "eZ4eeA3O4jy5FIzqDaSJ6JDNGu0bBc5zI1DjQ_kLso1WNqkG6k5mCYf1dtQhVUiBWZWlZkzR5MFeeWCpJRUNXw",
        key: "pAEBAycgBiFYIMz6_SUFLiDid2Yhlq0YboyJ-CDrIrNpkPUGmJp4D3Dp",
        stored: 3, expected: 7, algorithm: .edDSA)

    @Test(arguments: [ec2, rsa, okp].map { [$0] })
    func publishedAssertionsVerify(_ published: [Published]) async throws {
        let fixture = published[0]
        let result = try await fixture.verify(Self.localhost)
        #expect(result.signCount == fixture.expected)
        #expect(!result.signCountRegressed)
        #expect(result.credentialID == Self.b64(fixture.id))
        // One flipped bit in the signature.
        var signature = Self.b64(fixture.signature)
        signature[signature.count / 2] ^= 0x01
        #expect(
            await Self.code { _ = try await fixture.verify(Self.localhost, signature: signature) } == .signatureInvalid)
    }

    @Test func publishedAssertionRefusals() async throws {
        let fixture = Self.ec2
        let otherOrigin = WebAuthnVerifier(
            relyingParty: WebAuthnRelyingParty(id: "localhost", origins: ["https://a.test"]))
        #expect(await Self.code { _ = try await fixture.verify(otherOrigin) } == .originMismatch)
        let otherRP = WebAuthnVerifier(
            relyingParty: WebAuthnRelyingParty(id: "example.com", origins: ["http://localhost:5000"]))
        #expect(await Self.code { _ = try await fixture.verify(otherRP) } == .relyingPartyMismatch)
        // authData flags 0x01: UP without UV.
        #expect(
            await Self.code { _ = try await fixture.verify(Self.localhost, userVerification: .required) }
                == .userNotVerified)
        let esOnly = WebAuthnVerifier(
            relyingParty: WebAuthnRelyingParty(id: "localhost", origins: ["http://localhost:5000"]),
            algorithms: [.es256])
        #expect(await Self.code { _ = try await Self.okp.verify(esOnly) } == .unsupportedAlgorithm)
        // The stored counter is already 78: the same counter again is a regression (§7.2 step 23).
        var seen = fixture.credential
        seen.signCount = 78
        let reported = try await fixture.verify(Self.localhost, credential: seen)
        #expect(reported.signCountRegressed)
        let strict = WebAuthnVerifier(
            relyingParty: WebAuthnRelyingParty(id: "localhost", origins: ["http://localhost:5000"]),
            signCountPolicy: .refuse)
        #expect(await Self.code { _ = try await fixture.verify(strict, credential: seen) } == .signCountRegressed)
        // Another credential ID.
        var other = fixture.credential
        other.credentialID = [1, 2, 3]
        #expect(
            await Self.code { _ = try await fixture.verify(Self.localhost, credential: other) } == .credentialMismatch)
        // A stored user handle that is not the returned one.
        var user = Self.rsa.credential
        user.userHandle = [9, 9, 9]
        #expect(
            await Self.code { _ = try await Self.rsa.verify(Self.localhost, credential: user) } == .userHandleMismatch)
        // Registered as backup eligible, asserted without BE.
        var eligible = fixture.credential
        eligible.backupEligible = true
        #expect(
            await Self.code { _ = try await fixture.verify(Self.localhost, credential: eligible) }
                == .backupStateInvalid)
    }

    // MARK: Hand-built registrations

    static func register(
        _ verifier: WebAuthnVerifier = verifier, clientData: [UInt8] = B.clientData(), object: [UInt8],
        challenge: [UInt8] = B.challenge, userVerification: WebAuthnUserVerification = .preferred
    ) async throws -> WebAuthnCredential {
        try await verifier.verifyRegistration(
            clientDataJSON: clientData, attestationObject: object, expectedChallenge: challenge,
            userVerification: userVerification)
    }

    static func noneObject(flags: UInt8 = 0x45, rpID: String = B.rpID) throws -> [UInt8] {
        B.attestationObject(authData: B.authData(rpID: rpID, flags: flags, publicKey: try B.es256Key(TestKeys.p256A)))
    }

    @Test func clientDataRefusals() async throws {
        let object = try Self.noneObject()
        #expect(try await Self.register(object: object).algorithm == .es256)
        #expect(
            await Self.code {
                _ = try await Self.register(clientData: B.clientData(type: "webauthn.get"), object: object)
            }
                == .typeMismatch)
        #expect(
            await Self.code {
                _ = try await Self.register(clientData: B.clientData(challenge: Array(1...32)), object: object)
            } == .challengeMismatch)
        #expect(
            await Self.code {
                _ = try await Self.register(clientData: B.clientData(origin: "https://evil.example"), object: object)
            } == .originMismatch)
        #expect(
            await Self.code {
                _ = try await Self.register(clientData: B.clientData(crossOrigin: "true"), object: object)
            }
                == .crossOrigin)
        let crossAllowed = WebAuthnVerifier(
            relyingParty: WebAuthnRelyingParty(id: B.rpID, origins: [B.origin]), allowCrossOrigin: true)
        #expect(
            try await Self.register(crossAllowed, clientData: B.clientData(crossOrigin: "true"), object: object)
                .signCount == 0)
        #expect(
            await Self.code { _ = try await Self.register(clientData: B.clientData(crossOrigin: "1"), object: object) }
                == .malformed)
        #expect(
            await Self.code { _ = try await Self.register(clientData: Array("[]".utf8), object: object) } == .malformed)
        #expect(
            await Self.code {
                _ = try await Self.register(
                    clientData: B.clientData(challenge: Array(0..<8)), object: object, challenge: Array(0..<8))
            } == .invalidParameter)
        #expect(
            await Self.code {
                _ = try await Self.register(
                    clientData: Array(repeating: 0x20, count: WebAuthnVerifier.Limits.clientDataJSON + 1),
                    object: object)
            } == .tooLarge)
    }

    @Test func authenticatorDataRefusals() async throws {
        #expect(
            await Self.code { _ = try await Self.register(object: try Self.noneObject(rpID: "evil.example")) }
                == .relyingPartyMismatch)
        #expect(
            await Self.code { _ = try await Self.register(object: try Self.noneObject(flags: 0x44)) } == .userNotPresent
        )
        #expect(
            await Self.code {
                _ = try await Self.register(object: try Self.noneObject(flags: 0x41), userVerification: .required)
            } == .userNotVerified)
        #expect(
            await Self.code { _ = try await Self.register(object: try Self.noneObject(flags: 0x55)) }
                == .backupStateInvalid)
        let synced = try await Self.register(object: try Self.noneObject(flags: 0x5D))
        #expect(synced.backupEligible && synced.backedUp)
        // No attested credential data on a registration.
        let bare = B.attestationObject(authData: B.authData(flags: 0x05, credentialID: nil))
        #expect(await Self.code { _ = try await Self.register(object: bare) } == .malformed)
        // A credential ID of 1,024 bytes.
        let long = B.attestationObject(
            authData: B.authData(
                credentialID: Array(repeating: 1, count: 1_024), publicKey: try B.es256Key(TestKeys.p256A)))
        #expect(await Self.code { _ = try await Self.register(object: long) } == .tooLarge)
        // Bytes after the credential public key without the ED flag.
        let trailing = B.attestationObject(authData: B.authData(publicKey: try B.es256Key(TestKeys.p256A) + [0]))
        #expect(await Self.code { _ = try await Self.register(object: trailing) } == .malformed)
        // Extensions (ED) after the key are read as one CBOR map.
        let withExtensions = B.attestationObject(
            authData: B.authData(
                flags: 0xC5,
                publicKey: try B.es256Key(TestKeys.p256A) + CBOREncoder.encode(.map([.text("credProtect"): .int(1)]))))
        #expect(try await Self.register(object: withExtensions).attestationFormat == "none")
        // Bytes after the attestation object itself.
        #expect(await Self.code { _ = try await Self.register(object: try Self.noneObject() + [0]) } == .malformed)
        // A hostile attestation object: 10,000 nested arrays as attStmt.
        let deep: [UInt8] = [0xA1, 0x63] + Array("fmt".utf8) + [UInt8](repeating: 0x81, count: 10_000) + [0]
        #expect(await Self.code { _ = try await Self.register(object: deep) } == .malformed)
        #expect(await Self.code { _ = try await Self.register(object: Hex.decode("5bffffffffffffffff")) } == .malformed)
    }

    @Test func algorithmsAndCOSEKeys() async throws {
        let rsaObject = B.attestationObject(authData: B.authData(publicKey: try B.rs256Key(TestKeys.rsaA)))
        #expect(try await Self.register(object: rsaObject).algorithm == .rs256)
        let esOnly = WebAuthnVerifier(
            relyingParty: WebAuthnRelyingParty(id: B.rpID, origins: [B.origin]), algorithms: [.es256])
        #expect(await Self.code { _ = try await Self.register(esOnly, object: rsaObject) } == .unsupportedAlgorithm)
        // alg -35 (ES384) is not supported; an EC2 key claiming EdDSA is refused.
        let es384 = CBOREncoder.encode(
            .map([
                .int(1): .int(2), .int(3): .int(-35), .int(-1): .int(2),
                .int(-2): .bytes(Array(repeating: 1, count: 48)),
            ]))
        #expect(
            await Self.code {
                _ = try await Self.register(object: B.attestationObject(authData: B.authData(publicKey: es384)))
            } == .unsupportedAlgorithm)
        let mismatched = CBOREncoder.encode(
            .map([
                .int(1): .int(2), .int(3): .int(-8), .int(-1): .int(1),
                .int(-2): .bytes(Array(repeating: 1, count: 32)),
            ]))
        #expect(
            await Self.code {
                _ = try await Self.register(object: B.attestationObject(authData: B.authData(publicKey: mismatched)))
            } == .unsupportedAlgorithm)
        // A point not on P-256.
        let offCurve = COSEKeyEncoder.es256(x: Array(repeating: 1, count: 32), y: Array(repeating: 2, count: 32))
        #expect(
            await Self.code {
                _ = try await Self.register(object: B.attestationObject(authData: B.authData(publicKey: offCurve)))
            } == .malformed)
    }

    @Test func attestationStatements() async throws {
        let authData = B.authData(publicKey: try B.es256Key(TestKeys.p256A))
        let clientData = B.clientData()
        let signed = authData + MessageDigest.sha256(clientData)
        // Packed self attestation.
        let selfSig = try B.sign(signed, with: TestKeys.p256A)
        let packedSelf = B.attestationObject(
            fmt: "packed", statement: .map([.text("alg"): .int(-7), .text("sig"): .bytes(selfSig)]), authData: authData)
        #expect(try await Self.register(object: packedSelf).attestationFormat == "packed")
        let wrongAlg = B.attestationObject(
            fmt: "packed", statement: .map([.text("alg"): .int(-257), .text("sig"): .bytes(selfSig)]),
            authData: authData)
        #expect(await Self.code { _ = try await Self.register(object: wrongAlg) } == .attestationInvalid)
        let otherKey = try B.sign(signed, with: TestKeys.p256B)
        let badSelf = B.attestationObject(
            fmt: "packed", statement: .map([.text("alg"): .int(-7), .text("sig"): .bytes(otherKey)]), authData: authData
        )
        #expect(await Self.code { _ = try await Self.register(object: badSelf) } == .attestationInvalid)
        // none with a statement; an unknown format.
        let noneWithStatement = B.attestationObject(statement: .map([.text("sig"): .bytes([1])]), authData: authData)
        #expect(await Self.code { _ = try await Self.register(object: noneWithStatement) } == .attestationInvalid)
        let tpm = B.attestationObject(fmt: "tpm", authData: authData)
        #expect(await Self.code { _ = try await Self.register(object: tpm) } == .unsupportedAttestation)
    }

    static func x5cObject(_ certificate: [UInt8], aaguid: [UInt8] = AttestationFixtures.aaguid) throws -> [UInt8] {
        let authData = B.authData(aaguid: aaguid, publicKey: try B.es256Key(TestKeys.p256A))
        let key = try PrivateKey(pemRepresentation: AttestationFixtures.keyPEM)
        let signature = try B.sign(authData + MessageDigest.sha256(B.clientData()), with: key)
        return B.attestationObject(
            fmt: "packed",
            statement: .map([
                .text("alg"): .int(-7), .text("sig"): .bytes(signature), .text("x5c"): .array([.bytes(certificate)]),
            ]),
            authData: authData)
    }

    @Test func packedFullAttestationChecksTheLeaf() async throws {
        let credential = try await Self.register(object: try Self.x5cObject(AttestationFixtures.good))
        #expect(credential.attestationCertificates == [AttestationFixtures.good])
        #expect(credential.aaguid == AttestationFixtures.aaguid)
        #expect(
            try await Self.register(object: try Self.x5cObject(AttestationFixtures.noAAGUID)).attestationFormat
                == "packed")
        #expect(
            await Self.code { _ = try await Self.register(object: try Self.x5cObject(AttestationFixtures.wrongOU)) }
                == .attestationInvalid)
        #expect(
            await Self.code { _ = try await Self.register(object: try Self.x5cObject(AttestationFixtures.ca)) }
                == .attestationInvalid)
        #expect(
            await Self.code {
                _ = try await Self.register(
                    object: try Self.x5cObject(AttestationFixtures.good, aaguid: Array(repeating: 0, count: 16)))
            } == .attestationInvalid)
        // Not a certificate at all.
        #expect(
            await Self.code { _ = try await Self.register(object: try Self.x5cObject([0x30, 0x00])) }
                == .attestationInvalid)
        // The certificate's own signature is not checked (no trust chain): a broken one still
        // yields the leaf key, and the chain is reported for the caller to judge.
        var tampered = AttestationFixtures.good
        tampered[tampered.count - 5] ^= 0x01
        #expect(try await Self.register(object: try Self.x5cObject(tampered)).attestationCertificates == [tampered])
    }

    @Test func replayStoreMakesChallengesSingleUse() async throws {
        let store = TestReplayStore()
        let verifier = WebAuthnVerifier(
            relyingParty: WebAuthnRelyingParty(id: B.rpID, origins: [B.origin]), replayStore: store)
        let object = try Self.noneObject()
        _ = try await Self.register(verifier, object: object)
        #expect(await Self.code { _ = try await Self.register(verifier, object: object) } == .challengeReused)
        // A refused response does not consume the challenge.
        let other: [UInt8] = Array(100..<132)
        #expect(
            await Self.code {
                _ = try await Self.register(
                    verifier, clientData: B.clientData(challenge: other, origin: "https://x.test"), object: object,
                    challenge: other)
            } == .originMismatch)
        _ = try await Self.register(
            verifier, clientData: B.clientData(challenge: other), object: object, challenge: other)
        await store.setUnavailable(true)
        let third: [UInt8] = Array(200..<232)
        #expect(
            await Self.code {
                _ = try await Self.register(
                    verifier, clientData: B.clientData(challenge: third), object: object, challenge: third)
            } == .storeUnavailable)
    }

    @Test func ecdsaSignaturesMustBeStrictDER() throws {
        let raw = Array(repeating: UInt8(0x11), count: 32) + Array(repeating: UInt8(0x81), count: 32)
        let der = try #require(ECDSASignature.der(fromRaw: raw))
        #expect(ECDSASignature.raw(fromDER: der) == raw)
        #expect(ECDSASignature.raw(fromDER: der + [0]) == nil)
        // A non-minimal INTEGER (a needless leading zero) and a negative one.
        #expect(ECDSASignature.raw(fromDER: Hex.decode("3007020200110201" + "01")) == nil)
        #expect(ECDSASignature.raw(fromDER: Hex.decode("30060201810201" + "01")) == nil)
        #expect(
            ECDSASignature.raw(fromDER: Hex.decode("3006020111020101")) == Array(repeating: 0, count: 31) + [0x11]
                + Array(repeating: 0, count: 31) + [1])
    }

    @Test func credentialRecordsDecodeWithoutCertificates() throws {
        let credential = WebAuthnCredential(
            credentialID: [1], publicKey: [2], algorithm: .edDSA, signCount: 3, userHandle: [4], backupEligible: true,
            backedUp: false, attestationFormat: "none", aaguid: Array(repeating: 0, count: 16))
        let data = try JSONEncoder().encode(credential)
        #expect(try JSONDecoder().decode(WebAuthnCredential.self, from: data) == credential)
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["attestationCertificates"] = nil
        let old = try JSONSerialization.data(withJSONObject: object)
        #expect(try JSONDecoder().decode(WebAuthnCredential.self, from: old) == credential)
        #expect(WebAuthnError(.originMismatch, "x").description == "WebAuthnError(originMismatch): x")
    }
}
