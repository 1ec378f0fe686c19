import Foundation
import MultiAuthTestKeys
import Testing

@testable import MultiAuthCrypto

/// Breaker tests of `WebAuthnVerifier` against W3C WebAuthn Level 3 §7.1/§7.2. A test whose
/// title says "was: …" is a breaker finding (it failed before its fix); the others document
/// properties that held.
@Suite("WebAuthn verifier breaker")
struct PasskeyVerifierBreakerTests {
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

    static func clientData(_ json: String) -> [UInt8] { Array(json.utf8) }

    static func members(type: String = "webauthn.create", challenge: String? = nil, origin: String = B.origin) -> String
    {
        #""type":""# + type + #"","challenge":""# + (challenge ?? Base64URL.encode(B.challenge)) + #"","origin":""#
            + origin + #"""#
    }

    static func noneObject(flags: UInt8 = 0x45, publicKey: [UInt8]? = nil, extra: [UInt8] = []) throws -> [UInt8] {
        B.attestationObject(
            authData: B.authData(flags: flags, publicKey: (try publicKey ?? B.es256Key(TestKeys.p256A)) + extra))
    }

    static func register(
        _ verifier: WebAuthnVerifier = verifier, clientData: [UInt8] = B.clientData(), object: [UInt8]
    ) async throws -> WebAuthnCredential {
        try await verifier.verifyRegistration(
            clientDataJSON: clientData, attestationObject: object, expectedChallenge: B.challenge,
            userVerification: .preferred)
    }

    /// A stored ES256 credential of TestKeys.p256A.
    static func stored() throws -> WebAuthnCredential {
        WebAuthnCredential(
            credentialID: B.credentialID, publicKey: try B.es256Key(TestKeys.p256A), algorithm: .es256, signCount: 0,
            userHandle: [1, 2, 3], backupEligible: false, backedUp: false, attestationFormat: "none",
            aaguid: Array(repeating: 0, count: 16))
    }

    static func assertion(flags: UInt8 = 0x05, signCount: UInt32 = 1, tail: [UInt8] = []) -> (
        authData: [UInt8], clientData: [UInt8]
    ) {
        (B.authData(flags: flags, signCount: signCount, credentialID: nil) + tail, B.clientData(type: "webauthn.get"))
    }

    static func verifyAssertion(
        authData: [UInt8], clientData: [UInt8], signature: [UInt8], credential: WebAuthnCredential? = nil
    ) async throws -> WebAuthnAssertionResult {
        try await verifier.verifyAssertion(
            credentialID: B.credentialID, clientDataJSON: clientData, authenticatorData: authData, signature: signature,
            userHandle: nil, expectedChallenge: B.challenge, credential: try credential ?? stored(),
            userVerification: .preferred)
    }

    // MARK: Client data

    @Test("topOrigin needs allowCrossOrigin and an allowed top origin (§7.1 step 11, §7.2 step 13; was: ignored)")
    func topOriginIsIgnored() async throws {
        let object = try Self.noneObject()
        // Not cross-origin, yet a top origin: the RP does not expect to be framed at all.
        let framed = Self.clientData(
            "{" + Self.members() + #","crossOrigin":false,"topOrigin":"https://evil.example"}"#)
        let framedCode = await Self.code { _ = try await Self.register(clientData: framed, object: object) }
        // Cross-origin allowed: the top origin must still be one the RP expects to be framed in.
        let allowing = WebAuthnVerifier(
            relyingParty: WebAuthnRelyingParty(id: B.rpID, origins: [B.origin]), allowCrossOrigin: true)
        let crossEvil = Self.clientData(
            "{" + Self.members() + #","crossOrigin":true,"topOrigin":"https://evil.example"}"#)
        let crossCode = await Self.code { _ = try await Self.register(allowing, clientData: crossEvil, object: object) }
        do {
            #expect(framedCode != nil, "topOrigin without crossOrigin was accepted")
            #expect(crossCode != nil, "any topOrigin is accepted once allowCrossOrigin is on")
        }
    }

    @Test("challenge must be the exact base64url: padding, standard alphabet, spare bits are refused")
    func challengeEncodings() async throws {
        let object = try Self.noneObject()
        // 0xFB 0xFF → "-_8" in base64url, "+/8" in standard base64.
        var challenge = B.challenge
        challenge[0] = 0xFB
        challenge[1] = 0xFF
        let url = Base64URL.encode(challenge)
        let standard = url.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        #expect(url != standard)
        let padded = url + String(repeating: "=", count: (4 - url.count % 4) % 4)
        #expect(padded != url)
        var spare = Array(url)
        // The last character of a 32-byte value carries 4 spare bits: make them non-zero.
        spare[spare.count - 1] = spare.last == "A" ? "B" : "A"
        for variant in [standard, padded, String(spare), url + " ", "\"" + url] {
            let data = Self.clientData("{" + Self.members(challenge: variant) + "}")
            let result = await Self.code {
                _ = try await Self.verifier.verifyRegistration(
                    clientDataJSON: data, attestationObject: object, expectedChallenge: challenge,
                    userVerification: .preferred)
            }
            #expect(result == .challengeMismatch || result == .malformed, "\(variant)")
        }
        let exact = Self.clientData("{" + Self.members(challenge: url) + "}")
        _ = try await Self.verifier.verifyRegistration(
            clientDataJSON: exact, attestationObject: object, expectedChallenge: challenge, userVerification: .preferred
        )
    }

    @Test("origin is compared exactly: case, trailing slash, default port, path are refused")
    func originVariants() async throws {
        let object = try Self.noneObject()
        for origin in [
            "https://EXAMPLE.com", "https://example.com/", "https://example.com:443", "http://example.com",
            "https://example.com.evil", "https://sub.example.com", "null",
        ] {
            let data = Self.clientData("{" + Self.members(origin: origin) + "}")
            #expect(
                await Self.code { _ = try await Self.register(clientData: data, object: object) } == .originMismatch,
                "\(origin)")
        }
    }

    @Test("client data: non-UTF-8, wrong member types, crossOrigin not boolean; tokenBinding is ignored (Level 3)")
    func clientDataShapes() async throws {
        let object = try Self.noneObject()
        var invalid = Self.clientData("{" + Self.members() + #","x":"\#u{00}"}"#)
        invalid[invalid.count - 3] = 0xFF
        #expect(await Self.code { _ = try await Self.register(clientData: invalid, object: object) } == .malformed)
        let numberType = Self.clientData(#"{"type":1,"challenge":"x","origin":"y"}"#)
        #expect(await Self.code { _ = try await Self.register(clientData: numberType, object: object) } == .malformed)
        let crossText = Self.clientData("{" + Self.members() + #","crossOrigin":"true"}"#)
        #expect(await Self.code { _ = try await Self.register(clientData: crossText, object: object) } == .malformed)
        let crossTrue = Self.clientData("{" + Self.members() + #","crossOrigin":true}"#)
        #expect(await Self.code { _ = try await Self.register(clientData: crossTrue, object: object) } == .crossOrigin)
        let tokenBinding = Self.clientData(
            "{" + Self.members() + #","tokenBinding":{"status":"present","id":"AAAA"}}"#)
        _ = try await Self.register(clientData: tokenBinding, object: object)
    }

    @Test("client data with a duplicated type member: the verdict is not the first member's")
    func duplicateClientDataMembers() async throws {
        let object = try Self.noneObject()
        // A JSON parser that keeps the first member would read webauthn.get; JSON.parse (what
        // §5.8.1's clients and most RPs use) keeps the last. Either refusing or last-wins holds.
        let duplicated = Self.clientData(
            #"{"type":"webauthn.get","# + Self.members() + "}")
        let result = await Self.code { _ = try await Self.register(clientData: duplicated, object: object) }
        #expect(result == nil || result == .malformed, "\(String(describing: result))")
    }

    // MARK: Authenticator data and flags

    @Test("authenticator data truncated at every offset is refused, never a crash")
    func truncatedEverywhere() async throws {
        let full = B.authData(
            flags: 0xC5,
            publicKey: try B.es256Key(TestKeys.p256A) + CBOREncoder.encode(.map([.text("credProtect"): .int(1)])))
        _ = try WebAuthnAuthenticatorData(parsing: full)
        for length in 0..<full.count {
            #expect(throws: WebAuthnError.self, "\(length)") {
                _ = try WebAuthnAuthenticatorData(parsing: Array(full[..<length]))
            }
            let object = B.attestationObject(authData: Array(full[..<length]))
            #expect(await Self.code { _ = try await Self.register(object: object) } == .malformed, "\(length)")
        }
    }

    @Test("flags: ED without extensions, extensions without ED, AT without data, zero-length id are refused")
    func flagCombinations() async throws {
        let key = try B.es256Key(TestKeys.p256A)
        #expect(await Self.code { _ = try await Self.register(object: try Self.noneObject(flags: 0xC5)) } == .malformed)
        let ext = CBOREncoder.encode(.map([.text("credProtect"): .int(1)]))
        #expect(
            await Self.code { _ = try await Self.register(object: try Self.noneObject(flags: 0x45, extra: ext)) }
                == .malformed)
        // ED with an extension value that is not a map.
        #expect(
            await Self.code { _ = try await Self.register(object: try Self.noneObject(flags: 0xC5, extra: [0x01])) }
                == .malformed)
        let zeroID = B.attestationObject(authData: B.authData(credentialID: [], publicKey: key))
        #expect(await Self.code { _ = try await Self.register(object: zeroID) } == .malformed)
        // A 1,023-byte credential id is the largest accepted.
        let longest = B.attestationObject(
            authData: B.authData(credentialID: Array(repeating: 9, count: 1_023), publicKey: key))
        #expect(try await Self.register(object: longest).credentialID.count == 1_023)
    }

    @Test("reserved flag bits (RFU1 bit 1, RFU2 bit 5) are ignored, as §6.1 says")
    func reservedFlagBitsAreIgnored() async throws {
        let credential = try await Self.register(object: try Self.noneObject(flags: 0x45 | 0x02 | 0x20))
        #expect(credential.algorithm == .es256)
        let (authData, clientData) = Self.assertion(flags: 0x05 | 0x02 | 0x20)
        let signature = try B.sign(authData + MessageDigest.sha256(clientData), with: TestKeys.p256A)
        _ = try await Self.verifyAssertion(authData: authData, clientData: clientData, signature: signature)
    }

    // MARK: Signatures

    static func highS(_ der: [UInt8]) throws -> [UInt8] {
        let raw = try #require(ECDSASignature.raw(fromDER: der))
        var s = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in stride(from: 31, through: 0, by: -1) {
            var difference = Int(ECDSASignature.p256Order[index]) - Int(raw[32 + index]) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 256 }
            s[index] = UInt8(difference)
        }
        return try #require(ECDSASignature.der(fromRaw: Array(raw[..<32]) + s))
    }

    @Test("ES256: the high-S twin of a valid DER signature verifies (WebAuthn has no low-S rule); raw r||s is refused")
    func es256SignatureForms() async throws {
        let (authData, clientData) = Self.assertion()
        let message = authData + MessageDigest.sha256(clientData)
        let der = try B.sign(message, with: TestKeys.p256A)
        _ = try await Self.verifyAssertion(authData: authData, clientData: clientData, signature: der)
        let twin = try Self.highS(der)
        #expect(twin != der)
        _ = try await Self.verifyAssertion(authData: authData, clientData: clientData, signature: twin)
        let raw = try #require(ECDSASignature.raw(fromDER: der))
        #expect(
            await Self.code {
                _ = try await Self.verifyAssertion(authData: authData, clientData: clientData, signature: raw)
            }
                == .signatureInvalid)
        // BER: a long-form length for the outer SEQUENCE.
        let ber = [0x30, 0x81] + der.dropFirst(1)
        #expect(
            await Self.code {
                _ = try await Self.verifyAssertion(authData: authData, clientData: clientData, signature: Array(ber))
            } == .signatureInvalid)
    }

    @Test("an assertion with the AT flag and bytes after the head, or a sign count of 0 after 5, behaves as documented")
    func assertionOddities() async throws {
        // AT set without attested data: malformed.
        let (bad, clientData) = Self.assertion(flags: 0x45)
        let signature = try B.sign(bad + MessageDigest.sha256(clientData), with: TestKeys.p256A)
        #expect(
            await Self.code {
                _ = try await Self.verifyAssertion(authData: bad, clientData: clientData, signature: signature)
            }
                == .malformed)
        // Stored 5, new 0: regressed (reported); stored 0, new 0: not.
        var credential = try Self.stored()
        credential.signCount = 5
        let (zero, data) = Self.assertion(signCount: 0)
        let zeroSignature = try B.sign(zero + MessageDigest.sha256(data), with: TestKeys.p256A)
        #expect(
            try await Self.verifyAssertion(
                authData: zero, clientData: data, signature: zeroSignature, credential: credential
            )
            .signCountRegressed)
        #expect(
            try await !Self.verifyAssertion(authData: zero, clientData: data, signature: zeroSignature)
                .signCountRegressed)
    }

    // MARK: COSE keys

    @Test("COSE keys: wrong kty/crv/alg combinations, short coordinates, small or huge RSA, exponent 1 are refused")
    func hostileCOSEKeys() async throws {
        let x = [UInt8](repeating: 1, count: 32)
        let good = try B.es256Key(TestKeys.p256A)
        let goodMap = try CBORValue(decoding: good)
        guard case .map(let members) = goodMap else { return }
        func variant(_ change: (inout [CBORValue: CBORValue]) -> Void) -> [UInt8] {
            var copy = members
            change(&copy)
            return CBOREncoder.encode(.map(copy))
        }
        let rsa1024 = [UInt8]([0xC1]) + [UInt8](repeating: 0x5A, count: 126) + [0x01]
        let rsa8200 = [UInt8]([0x01]) + [UInt8](repeating: 0x5A, count: 1_024) + [0x01]
        let cases: [(String, [UInt8], Set<WebAuthnError.Code>)] = [
            ("P-384 curve with ES256", variant { $0[.int(-1)] = .int(2) }, [.unsupportedAlgorithm]),
            ("OKP kty with ES256", variant { $0[.int(1)] = .int(1) }, [.unsupportedAlgorithm]),
            ("kty as text", variant { $0[.int(1)] = .text("EC2") }, [.malformed]),
            ("no alg", variant { $0[.int(3)] = nil }, [.malformed]),
            ("31-byte x", variant { $0[.int(-2)] = .bytes(Array(x.prefix(31))) }, [.malformed]),
            ("compressed y", variant { $0[.int(-3)] = .bool(true) }, [.malformed]),
            ("point not on the curve", variant { $0[.int(-3)] = .bytes(x) }, [.malformed]),
            (
                "EdDSA with crv P-256",
                COSEKeyEncoder.edDSA(x: x).replacing([0x20, 0x06], with: [0x20, 0x01]), [.unsupportedAlgorithm]
            ),
            ("RSA 1,024 bits", COSEKeyEncoder.rs256(modulus: rsa1024, exponent: [1, 0, 1]), [.malformed]),
            ("RSA over 8,192 bits", COSEKeyEncoder.rs256(modulus: rsa8200, exponent: [1, 0, 1]), [.malformed]),
            (
                "RSA exponent 1",
                COSEKeyEncoder.rs256(
                    modulus: try Base64URL.decode(try TestKeys.rsaA.publicKey.jwk().n!), exponent: [1]), [.malformed]
            ),
            ("RSA kty with ES256 alg", variant { $0[.int(1)] = .int(3) }, [.unsupportedAlgorithm]),
        ]
        for (name, key, expected) in cases {
            let object = B.attestationObject(authData: B.authData(publicKey: key))
            let result = await Self.code { _ = try await Self.register(object: object) }
            #expect(result.map { expected.contains($0) } ?? false, "\(name): \(String(describing: result))")
        }
    }

    // MARK: CBOR in the attestation object

    @Test(
        "attestation object: a key repeated in a longer spelling, trailing bytes, fmt case, indefinite map are refused")
    func hostileAttestationObjects() async throws {
        let authData = B.authData(publicKey: try B.es256Key(TestKeys.p256A))
        let good = B.attestationObject(authData: authData)
        _ = try await Self.register(object: good)
        // {"fmt": "none", "fmt" (text with a 1-byte length argument): "none", ...}
        let fmtShort: [UInt8] = [0x63] + Array("fmt".utf8)
        let fmtLong: [UInt8] = [0x78, 0x03] + Array("fmt".utf8)
        let none: [UInt8] = [0x64] + Array("none".utf8)
        var duplicated: [UInt8] = [0xA4] + fmtShort + none + fmtLong + none
        duplicated += [0x67] + Array("attStmt".utf8) + [0xA0]
        duplicated += [0x68] + Array("authData".utf8) + [0x58, UInt8(authData.count)] + authData
        #expect(await Self.code { _ = try await Self.register(object: duplicated) } == .malformed)
        #expect(await Self.code { _ = try await Self.register(object: good + [0x00]) } == .malformed)
        let upper = B.attestationObject(fmt: "None", authData: authData)
        #expect(await Self.code { _ = try await Self.register(object: upper) } == .unsupportedAttestation)
        var indefinite = good
        indefinite[0] = 0xBF
        #expect(await Self.code { _ = try await Self.register(object: indefinite + [0xFF]) } == .malformed)
        // authData as a text string, attStmt as an array.
        let wrongTypes = CBOREncoder.encode(
            .map([.text("fmt"): .text("none"), .text("attStmt"): .array([]), .text("authData"): .bytes(authData)]))
        #expect(await Self.code { _ = try await Self.register(object: wrongTypes) } == .malformed)
    }
}
