import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthOTPless
import MultiAuthSandboxRuntime
import MultiAuthServer
import MultiAuthTestKeys
import MultiAuthTruecaller
import Testing

/// Every server-side verifier takes a shared store: a Truecaller nonce, an OTPLESS token and a
/// JWT `jti` are accepted once; a forged or failed verification never burns one; a store that
/// cannot answer is the retryable `storageUnavailable` (Docs/Server.md).
@Suite(.timeLimit(.minutes(10)))  // hang guard only
struct VerifierReplayTests {
    let clock = ManualClock()
    let key = TestKeys.rsaA

    var now: Double { clock.wallNow.timeIntervalSince1970 }

    // MARK: Truecaller

    func truecallerConfiguration() -> TruecallerConfiguration {
        TruecallerConfiguration(
            appKey: "app-key", appLink: URL(string: "https://app.example.com/tc")!,
            baseURL: URL(string: "https://truecaller.stub.test")!, deviceID: "d-1")
    }

    func keyServer() throws -> ScriptedTransport {
        let body = try JSONSerialization.data(withJSONObject: [
            ["key": Base64.encode(try key.publicKey.derRepresentation()), "keyType": "RSA"]
        ])
        return ScriptedTransport { _ in
            HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)
        }
    }

    func profile(nonce: String, signer: PrivateKey? = nil) throws -> TruecallerProfileResponse {
        let json: [String: Any] = [
            "firstName": "Asha", "lastName": "Rao", "phoneNumber": "+919876543210", "countryCode": "IN",
            "requestNonce": nonce, "requestTime": Int(now),
        ]
        let payload = Base64.encode(try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]))
        let signature = try (signer ?? key).signature(for: Array(payload.utf8), algorithm: .rs512)
        return TruecallerProfileResponse(
            payload: payload, signature: Base64.encode(signature), signatureAlgorithm: "SHA512withRSA",
            requestNonce: nonce)
    }

    @Test func aTruecallerNonceIsAcceptedOnceAndAForgeryBurnsNothing() async throws {
        let fleet = FleetVerifiers.inProcess(time: clock.timeSource)
        let verifier = fleet.truecallerProfile(configuration: truecallerConfiguration())
        let context = AuthContext(transport: try keyServer(), time: clock.timeSource)
        // A forged response with the nonce: refused as a bad signature, and the nonce stays usable.
        let forged = await #expect(throws: AuthError.self) {
            _ = try await verifier.verify(
                try profile(nonce: "n-1", signer: TestKeys.rsaB), expectedNonce: "n-1", context: context)
        }
        #expect(forged?.code == .signatureInvalid)
        _ = try await verifier.verify(try profile(nonce: "n-1"), expectedNonce: "n-1", context: context)
        let replay = await #expect(throws: AuthError.self) {
            _ = try await verifier.verify(try profile(nonce: "n-1"), expectedNonce: "n-1", context: context)
        }
        #expect(replay?.code == .codeAlreadyUsed)
        // The nonce is remembered for the accepted profile age plus skew.
        #expect(verifier.nonceReplayTTL == .seconds(660))
        // Without a store the verifier behaves as before (the caller forgets its nonce).
        let plain = TruecallerProfileVerifier(configuration: truecallerConfiguration())
        _ = try await plain.verify(try profile(nonce: "n-2"), expectedNonce: "n-2", context: context)
        _ = try await plain.verify(try profile(nonce: "n-2"), expectedNonce: "n-2", context: context)
    }

    @Test func aTruecallerVerificationFailsClosedWhenTheStoreIsDown() async throws {
        let outage = OutageStore(
            inner: InMemoryReplayStore(time: clock.timeSource), limiter: InMemoryAttemptLimiter(time: clock.timeSource))
        let verifier = TruecallerProfileVerifier(configuration: truecallerConfiguration(), replayStore: outage)
        let context = AuthContext(transport: try keyServer(), time: clock.timeSource)
        let error = await #expect(throws: AuthError.self) {
            _ = try await verifier.verify(try profile(nonce: "n-3"), expectedNonce: "n-3", context: context)
        }
        #expect(error?.code == .storageUnavailable)
        #expect(error?.isRetryable == true)
        #expect(error?.provider == .truecaller)
        outage.heal()
        _ = try await verifier.verify(try profile(nonce: "n-3"), expectedNonce: "n-3", context: context)
    }

    // MARK: OTPLESS

    func otplessTransport(refuse: Bool = false) throws -> ScriptedTransport {
        let jwks = try JWKSet(keys: [try key.publicKey.jwk(keyID: "k1", algorithm: .rs256)]).jsonData()
        return ScriptedTransport { request in
            let json = ["Content-Type": "application/json"]
            if request.url.path == "/jwks" { return HTTPResponse(status: 200, headers: json, body: jwks) }
            if refuse {
                return HTTPResponse(status: 401, headers: json, body: Data(#"{"message":"invalid token"}"#.utf8))
            }
            let info = #"{"token":"t","userId":"OT_1","status":"SUCCESS","identities":[]}"#
            return HTTPResponse(status: 200, headers: json, body: Data(info.utf8))
        }
    }

    func otpless(_ transport: any HTTPTransport, store: (any ReplayStore)?) -> OTPlessTokenVerifier {
        OTPlessTokenVerifier(
            clientID: "client-1", clientSecret: "secret", baseURL: URL(string: "https://otpless.stub.test")!,
            jwksURL: URL(string: "https://otpless.stub.test/jwks"), transport: transport, time: clock.timeSource,
            replayStore: store)
    }

    @Test func anOTPlessTokenIsValidatedOnceAndARefusedOneIsNotBurned() async throws {
        let store = InMemoryReplayStore(time: clock.timeSource)
        let refusing = otpless(try otplessTransport(refuse: true), store: store)
        let refused = await #expect(throws: AuthError.self) { _ = try await refusing.validate(token: "tok-1") }
        #expect(refused?.code == .unauthorized)
        let verifier = otpless(try otplessTransport(), store: store)
        _ = try await verifier.validate(token: "tok-1")
        let replay = await #expect(throws: AuthError.self) { _ = try await verifier.validate(token: " tok-1\n") }
        #expect(replay?.code == .codeAlreadyUsed)
        #expect(verifier.tokenReplayTTL == .seconds(86_400))
    }

    func idToken(jti: String?, lifetime: Double = 600) throws -> String {
        var claims: [String: JSONValue] = [
            "iss": .string(OTPlessTokenVerifier.defaultIssuer), "sub": .string("OT_1"), "aud": .string("client-1"),
            "iat": .number(now), "exp": .number(now + lifetime),
        ]
        if let jti { claims["jti"] = .string(jti) }
        return try JWT.sign(claims: claims, with: key, algorithm: .rs256, keyID: "k1")
    }

    @Test func anOTPlessIDTokenIsSingleUseOnlyWhenAsked() async throws {
        let transport = try otplessTransport()
        let verifier = otpless(transport, store: InMemoryReplayStore(time: clock.timeSource))
        let token = try idToken(jti: "j-1")
        _ = try await verifier.verifyIDToken(token)
        _ = try await verifier.verifyIDToken(token)  // not single-use unless asked
        _ = try await verifier.verifyIDToken(token, singleUse: true)
        let replay = await #expect(throws: AuthError.self) {
            _ = try await verifier.verifyIDToken(token, singleUse: true)
        }
        #expect(replay?.code == .codeAlreadyUsed)
        let noJTI = await #expect(throws: AuthError.self) {
            _ = try await verifier.verifyIDToken(try idToken(jti: nil), singleUse: true)
        }
        #expect(noJTI?.code == .invalidInput)
        #expect(noJTI?.reason == .invalidToken)
        // Asking for single use without a store is a configuration error before any fetch.
        let bare = otpless(transport, store: nil)
        let before = transport.requests.count
        let misconfigured = await #expect(throws: AuthError.self) {
            _ = try await bare.verifyIDToken(token, singleUse: true)
        }
        #expect(misconfigured?.code == .configuration)
        #expect(transport.requests.count == before)
    }

    // MARK: Dynamic

    @Test func aDynamicTokenIsSingleUseOnlyWhenAskedAndTheTTLFollowsItsExpiry() async throws {
        let jwks = try JWKSet(keys: [try key.publicKey.jwk(keyID: "k1", algorithm: .rs256)]).jsonData()
        let transport = ScriptedTransport { _ in
            HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: jwks)
        }
        let store = InMemoryReplayStore(time: clock.timeSource)
        let fleet = FleetVerifiers(replayStore: store, attemptLimiter: nil, time: clock.timeSource)
        let verifier = fleet.dynamicToken(
            configuration: DynamicConfiguration(environmentID: "env-1", baseURL: URL(string: "https://dyn.stub.test")!),
            transport: transport, audience: "https://app.example.com")
        let claims: [String: JSONValue] = [
            "sub": .string("u-1"), "aud": .string("https://app.example.com"), "environment_id": .string("env-1"),
            "scope": .string("user:basic"), "iat": .number(now), "exp": .number(now + 300), "jti": .string("j-9"),
        ]
        let token = try JWT.sign(claims: claims, with: key, algorithm: .rs256, keyID: "k1")
        _ = try await verifier.verify(token)
        _ = try await verifier.verify(token, singleUse: true)
        let replay = await #expect(throws: AuthError.self) { _ = try await verifier.verify(token, singleUse: true) }
        #expect(replay?.code == .codeAlreadyUsed)
        // Remembered until exp + leeway: 300 s + 60 s.
        var identifier = Array("".utf8)
        identifier.append(0)
        identifier += Array("j-9".utf8)
        let jtiKey = try store.keyspace.key(JWTClaims.replayNamespace, identifier)
        #expect(store.remainingTTL(of: jtiKey) == .seconds(360))
        let down = OutageStore(inner: store, limiter: InMemoryAttemptLimiter(time: clock.timeSource))
        let failing = DynamicTokenVerifier(
            configuration: DynamicConfiguration(environmentID: "env-1", baseURL: URL(string: "https://dyn.stub.test")!),
            transport: transport, time: clock.timeSource, audience: "https://app.example.com", replayStore: down)
        let error = await #expect(throws: AuthError.self) { _ = try await failing.verify(token, singleUse: true) }
        #expect(error?.code == .storageUnavailable)
    }
}

/// The server module's arrows: no client API, no sandbox (Docs/Architecture.md, "Module graph").
@Suite(.timeLimit(.minutes(10)))  // hang guard only
struct ServerModuleBoundaryTests {
    @Test func theServerModuleUsesNoClientAPIAndNoSandbox() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/MultiAuthServer")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 5)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for forbidden in ["AuthClient", "SessionStore", "import MultiAuthSandbox", "AuthProvider"] {
                #expect(!text.contains(forbidden), "\(file.lastPathComponent) mentions \(forbidden)")
            }
        }
    }
}
