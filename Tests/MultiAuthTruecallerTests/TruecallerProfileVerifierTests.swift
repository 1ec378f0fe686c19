import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandbox
import Testing

@testable import MultiAuthTruecaller

/// One-tap profile checks (Docs/Providers/Truecaller.md).
@Suite(.timeLimit(.minutes(10)))
struct TruecallerProfileVerifierTests {
    let clock = ManualClock()

    /// A signed response for `profile` (nonce `n-1` unless overridden), signed by `key`.
    func response(
        key: PrivateKey = TruecallerWorld.keyA, nonce: String = "n-1", payloadNonce: String? = nil,
        extra: [String: Any] = [:],
        algorithm: String = "SHA512withRSA"
    ) throws -> TruecallerProfileResponse {
        var profile = Stub.profile
        profile["requestNonce"] = payloadNonce ?? nonce
        profile["requestTime"] = Int(clock.wallNow.timeIntervalSince1970)
        for (k, v) in extra { profile[k] = v }
        let payload = Base64.encode(try JSONSerialization.data(withJSONObject: profile, options: [.sortedKeys]))
        let signature = try key.signature(for: Array(payload.utf8), algorithm: .rs512)
        return TruecallerProfileResponse(
            payload: payload, signature: Base64.encode(signature), signatureAlgorithm: algorithm, requestNonce: nonce)
    }

    /// A key endpoint serving `keys` (changeable) and failing everything else.
    func keyServer(_ keys: [PrivateKey]) -> ScriptedTransport {
        let list = TruecallerWorld.keyList(keys)
        return ScriptedTransport { request in
            request.url.path == "/v1/key" ? list : Stub.json(404, ["code": 14])
        }
    }

    @Test func aValidResponseVerifiesAndDecodesIntoAnAuthUser() async throws {
        let transport = keyServer([TruecallerWorld.keyA])
        let provider = TruecallerProvider(configuration: TruecallerWorld.configuration)
        let session = try await provider.signIn(
            with: try response(), expectedNonce: "n-1", context: TruecallerWorld.context(transport, clock: clock))
        #expect(session.user.id == TruecallerProfile.userID(forE164: "+919876543210"))
        #expect(session.user.id.hasPrefix("tc-") && session.user.id.count == 35)
        #expect(!String(describing: session).contains("9876543210"))
        #expect(session.user.name == (try PersonName(firstName: "Asha", lastName: "Rao")))
        #expect(session.user.attributes["gender"] == "F")
        #expect(session.user.attributes["city"] == "Pune")
        #expect(session.credentials.accessToken == nil)
        #expect(session.credentials.extra[revealing: "signatureAlgorithm"] == "SHA512withRSA")
        #expect(transport.endpoints == ["GET /v1/key"])
        // Keys are cached: a second verification makes no request.
        _ = try await provider.signIn(
            with: try response(nonce: "n-2"), expectedNonce: "n-2",
            context: TruecallerWorld.context(transport, clock: clock))
        #expect(transport.endpoints == ["GET /v1/key"])
    }

    @Test func everyKeyInTheListIsTried() async throws {
        let transport = keyServer([TruecallerWorld.keyB, TruecallerWorld.keyA])
        let verifier = TruecallerProfileVerifier(configuration: TruecallerWorld.configuration)
        let profile = try await verifier.verify(
            try response(), expectedNonce: "n-1", context: TruecallerWorld.context(transport, clock: clock))
        #expect(profile.firstName == "Asha")
        #expect(await verifier.keyStore.fetchCount == 1)
    }

    @Test func aTamperedPayloadIsCode15() async throws {
        var tampered = try response()
        var json =
            try JSONSerialization.jsonObject(with: Data(try Base64.decode(tampered.payload.reveal()))) as! [String: Any]
        json["phoneNumber"] = "+919999999999"
        tampered.payload = Secret(
            Base64.encode(try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])))
        let transport = keyServer([TruecallerWorld.keyA])
        let error = await #expect(throws: AuthError.self) {
            _ = try await TruecallerProfileVerifier(configuration: TruecallerWorld.configuration).verify(
                tampered, expectedNonce: "n-1", context: TruecallerWorld.context(transport, clock: clock))
        }
        #expect(error?.code == .signatureInvalid)
        #expect(error?.providerCode == "15")
        #expect(transport.endpoints == ["GET /v1/key"], "keys fetched by this call are not fetched again")
    }

    @Test(arguments: ["SHA256withRSA", "RS256", "none", ""])
    func aWrongSignatureAlgorithmIsCode15BeforeAnyKeyFetch(algorithm: String) async throws {
        let transport = keyServer([TruecallerWorld.keyA])
        let error = await #expect(throws: AuthError.self) {
            _ = try await TruecallerProfileVerifier(configuration: TruecallerWorld.configuration).verify(
                try response(algorithm: algorithm), expectedNonce: "n-1",
                context: TruecallerWorld.context(transport, clock: clock))
        }
        #expect(error?.code == .signatureInvalid)
        #expect(error?.providerCode == "15")
        #expect(transport.requests.isEmpty)
    }

    @Test func anUnknownKeyIsCode15AfterExactlyOneRefetch() async throws {
        let transport = keyServer([TruecallerWorld.keyA])
        let verifier = TruecallerProfileVerifier(configuration: TruecallerWorld.configuration)
        _ = try await verifier.verify(
            try response(), expectedNonce: "n-1", context: TruecallerWorld.context(transport, clock: clock))
        let error = await #expect(throws: AuthError.self) {
            _ = try await verifier.verify(
                try response(key: TruecallerWorld.keyB), expectedNonce: "n-1",
                context: TruecallerWorld.context(transport, clock: clock)
            )
        }
        #expect(error?.code == .signatureInvalid)
        #expect(error?.providerCode == "15")
        #expect(transport.endpoints == ["GET /v1/key", "GET /v1/key"])
    }

    @Test func keyRotationIsPickedUpByTheRefetch() async throws {
        let transport = keyServer([TruecallerWorld.keyA])
        let verifier = TruecallerProfileVerifier(configuration: TruecallerWorld.configuration)
        _ = try await verifier.verify(
            try response(), expectedNonce: "n-1", context: TruecallerWorld.context(transport, clock: clock))
        let rotated = TruecallerWorld.keyList([TruecallerWorld.keyB])
        transport.setHandler { _ in rotated }
        let profile = try await verifier.verify(
            try response(key: TruecallerWorld.keyB), expectedNonce: "n-1",
            context: TruecallerWorld.context(transport, clock: clock))
        #expect(profile.phoneNumber == "+919876543210")
        #expect(await verifier.keyStore.fetchCount == 2)
    }

    @Test func forgedProfilesCannotMakeEveryVerificationFetchTheKeys() async throws {
        let transport = keyServer([TruecallerWorld.keyA])
        let verifier = TruecallerProfileVerifier(configuration: TruecallerWorld.configuration)
        _ = try await verifier.verify(
            try response(), expectedNonce: "n-1", context: TruecallerWorld.context(transport, clock: clock))
        for _ in 0..<5 {
            await #expect(throws: AuthError.self) {
                _ = try await verifier.verify(
                    try response(key: TruecallerWorld.keyB), expectedNonce: "n-1",
                    context: TruecallerWorld.context(transport, clock: clock))
            }
        }
        #expect(await verifier.keyStore.fetchCount == 2)  // the first load, then one refetch
        clock.advance(by: .seconds(61))
        await #expect(throws: AuthError.self) {
            _ = try await verifier.verify(
                try response(key: TruecallerWorld.keyB), expectedNonce: "n-1",
                context: TruecallerWorld.context(transport, clock: clock)
            )
        }
        #expect(await verifier.keyStore.fetchCount == 3)
    }

    @Test func aResponseNonceMismatchIsCode16() async throws {
        let transport = keyServer([TruecallerWorld.keyA])
        let error = await #expect(throws: AuthError.self) {
            _ = try await TruecallerProfileVerifier(configuration: TruecallerWorld.configuration).verify(
                try response(nonce: "n-other"), expectedNonce: "n-1",
                context: TruecallerWorld.context(transport, clock: clock))
        }
        #expect(error?.code == .signatureInvalid)
        #expect(error?.providerCode == "16")
    }

    @Test func aPayloadNonceMismatchIsCode16() async throws {
        // The envelope's nonce is right but the signed payload answers another request.
        let transport = keyServer([TruecallerWorld.keyA])
        let error = await #expect(throws: AuthError.self) {
            _ = try await TruecallerProfileVerifier(configuration: TruecallerWorld.configuration).verify(
                try response(nonce: "n-1", payloadNonce: "n-old"), expectedNonce: "n-1",
                context: TruecallerWorld.context(transport, clock: clock))
        }
        #expect(error?.providerCode == "16")
    }

    @Test func aProfileOlderThanTenMinutesIsExpired() async throws {
        let transport = keyServer([TruecallerWorld.keyA])
        let verifier = TruecallerProfileVerifier(configuration: TruecallerWorld.configuration)
        let signed = try response()
        clock.advance(by: .seconds(600))
        _ = try await verifier.verify(
            signed, expectedNonce: "n-1", context: TruecallerWorld.context(transport, clock: clock))
        clock.advance(by: .seconds(1))
        let error = await #expect(throws: AuthError.self) {
            _ = try await verifier.verify(
                signed, expectedNonce: "n-1", context: TruecallerWorld.context(transport, clock: clock))
        }
        #expect(error?.code == .expired)
    }

    @Test func aBase64URLSignatureIsTolerated() async throws {
        var signed = try response()
        let bytes = try Base64.decode(signed.signature.reveal())
        signed.signature = Secret(Base64URL.encode(bytes))
        let transport = keyServer([TruecallerWorld.keyA])
        _ = try await TruecallerProfileVerifier(configuration: TruecallerWorld.configuration).verify(
            signed, expectedNonce: "n-1", context: TruecallerWorld.context(transport, clock: clock))
    }

    @Test func theVerifierFieldIsCheckedAgainstTheBundleID() async throws {
        var configuration = TruecallerWorld.configuration
        configuration.bundleID = "com.example.app"
        let good = Base64.encode(
            HMAC.authenticationCode(
                for: Array("com.example.app".utf8), key: Array("test-app-key".utf8), algorithm: .sha256))
        let bad = Base64.encode(
            HMAC.authenticationCode(
                for: Array("com.evil.app".utf8), key: Array("test-app-key".utf8), algorithm: .sha256))
        let transport = keyServer([TruecallerWorld.keyA])
        let verifier = TruecallerProfileVerifier(configuration: configuration)
        let profile = try await verifier.verify(
            try response(extra: ["verifier": good]), expectedNonce: "n-1",
            context: TruecallerWorld.context(transport, clock: clock))
        #expect(profile.verifier == good)
        let error = await #expect(throws: AuthError.self) {
            _ = try await verifier.verify(
                try response(extra: ["verifier": bad]), expectedNonce: "n-1",
                context: TruecallerWorld.context(transport, clock: clock))
        }
        #expect(error?.providerCode == "15")
    }

    @Test func aPayloadThatIsNotJSONIsCode13() async throws {
        let payload = Base64.encode(Array("not json".utf8))
        let signature = Base64.encode(try TruecallerWorld.keyA.signature(for: Array(payload.utf8), algorithm: .rs512))
        let signed = TruecallerProfileResponse(
            payload: payload, signature: signature, signatureAlgorithm: "SHA512withRSA", requestNonce: "n-1")
        let error = await #expect(throws: AuthError.self) {
            _ = try await TruecallerProfileVerifier(configuration: TruecallerWorld.configuration).verify(
                signed, expectedNonce: "n-1",
                context: TruecallerWorld.context(keyServer([TruecallerWorld.keyA]), clock: clock))
        }
        #expect(error?.code == .malformedResponse)
        #expect(error?.providerCode == "13")
    }

    @Test func aKeyEndpointWithoutUsableKeysIsRefused() async throws {
        let transport = ScriptedTransport { _ in
            HTTPResponse(status: 200, body: Data(#"[{"key":"AAAA","keyType":"RSA"},{"key":"x","keyType":"EC"}]"#.utf8))
        }
        let error = await #expect(throws: AuthError.self) {
            _ = try await TruecallerProfileVerifier(configuration: TruecallerWorld.configuration).verify(
                try response(), expectedNonce: "n-1", context: TruecallerWorld.context(transport, clock: clock))
        }
        #expect(error?.code == .malformedResponse)
    }

    @Test func descriptionsHideThePayloadAndSignature() throws {
        let signed = try response()
        for text in [String(describing: signed), String(reflecting: signed)] {
            #expect(!text.contains(signed.payload.reveal()))
            #expect(!text.contains(signed.signature.reveal()))
            #expect(!text.contains(signed.requestNonce.reveal()))
        }
        let profile = try TruecallerProfile(json: Data(try Base64.decode(signed.payload.reveal())))
        #expect(!String(describing: profile).contains("9876543210"))
        #expect(String(describing: profile).contains("••••"))
    }
}
