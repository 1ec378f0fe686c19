import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthHTTP
import MultiAuthOTPless
import MultiAuthObservation
import MultiAuthPortal
import MultiAuthQR
import MultiAuthSandbox
import MultiAuthSandboxKit
import MultiAuthServer
import MultiAuthTestKeys
import MultiAuthTruecaller
import Testing

/// A fake keychain for `KeychainSessionStore` on every platform.
final class SweepKeychain: KeychainItemAccess, @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String: Data] = [:]
    func read(service: String, account: String) -> (status: Int32, data: Data?) {
        lock.withLock {
            items[service + account].map { (KeychainStatus.success, $0) } ?? (KeychainStatus.itemNotFound, nil)
        }
    }
    func write(service: String, account: String, data: Data) -> Int32 {
        lock.withLock { items[service + account] = data }
        return KeychainStatus.success
    }
    func delete(service: String, account: String) -> Int32 {
        lock.withLock { items[service + account] = nil }
        return KeychainStatus.success
    }
    func deleteAll(service: String) -> Int32 {
        lock.withLock { items = items.filter { !$0.key.hasPrefix(service) } }
        return KeychainStatus.success
    }
}

/// The breaker's rendering sweep: an instance of every public type of every library
/// module, with secrets planted wherever the type can hold one (and the secrets of a real
/// sign-in with every provider), rendered the five ways `SecretRenderings` knows; no
/// planted or issued secret may appear.
@Suite("Rendering sweep: every public type, five renderings, no secret", .serialized, .timeLimit(.minutes(10)))
struct RenderingSweepTests {
    /// Public types that have no instances, so nothing to render (namespaces), or that exist
    /// only on Apple platforms; each with the reason.
    static let exempt: [String: String] = [
        "MultiAuthCrypto.Base32": "namespace (caseless enum)", "MultiAuthCrypto.Base64": "namespace (caseless enum)",
        "MultiAuthCrypto.Base64URL": "namespace (caseless enum)",
        "MultiAuthCrypto.ConstantTime": "namespace (caseless enum)",
        "MultiAuthCrypto.HMAC": "namespace (caseless enum)",
        "MultiAuthCrypto.MessageDigest": "namespace (caseless enum)",
        "MultiAuthCrypto.SecureRandom": "namespace (caseless enum)",
        "MultiAuthCrypto.ReplayStoreLimits": "namespace (caseless enum)",
        "MultiAuthCrypto.WebAuthnVerifier.Limits": "namespace (caseless enum)",
        "MultiAuthServer.StoreConformance": "namespace (caseless enum)",
        "MultiAuthTruecaller.TruecallerAppHandoff": "namespace (caseless enum)",
        "MultiAuthSandboxKit.BuiltInConformance": "namespace (caseless enum)",
        "MultiAuthSandboxKit.EmulatorSessions": "namespace (caseless enum)",
        "MultiAuthConformance.ReferenceProtocol": "namespace (caseless enum)",
        "MultiAuthConformance.PasskeyProtocol": "namespace (caseless enum)",
        "MultiAuth.PasskeyAuthorization":
            "AuthenticationServices only (no stored values: it maps a challenge to a platform request); its mapping is swept through PasskeyCeremony and PasskeyResult",
        "MultiAuthConformance.SecretRenderings": "namespace (caseless enum)",
        "MultiAuth.SessionStores": "namespace of store factories (caseless enum); the stores it returns are swept",
        "MultiAuthHTTP.CellularTransport":
            "Network.framework only (cellular-bound SNA transport); its request/response code is swept through HTTPRequest",
    ]

    /// Everything the sweep renders, labelled with the type it stands for, and the secrets it
    /// must not show (beyond the planted markers).
    static func samples(_ world: SweepWorld, flows: [AuthProviderID: SweepWorld.FlowResult]) async throws -> (
        values: [(String, Any)], secrets: [String]
    ) {
        var values: [(String, Any)] = []
        func add(_ value: Any, as label: String? = nil) {
            values.append((label ?? String(reflecting: type(of: value)), value))
        }
        let sandbox = world.sandbox
        let now = sandbox.clock.wallNow

        // MARK: MultiAuth (core)
        var state = ProviderState(["requestId": Secret(Plant.state), "verifier": Secret(Plant.pkce)])
        state["nonce"] = Secret(Plant.nonce)
        let credentials = Credentials(
            accessToken: Secret(Plant.token), idToken: Secret(Plant.idToken), refreshToken: Secret(Plant.refresh),
            expiresAt: now,
            extra: ProviderState([
                "minifiedJwt": Secret(Plant.token + "-min"), "sessionToken": Secret(Plant.token + "-session"),
            ]))
        let phone = try PhoneNumber("+919876543210")
        let email = try EmailAddress("planted.person@example.com")
        let user = AuthUser(
            id: "user-1", phone: phone, email: email, name: try PersonName(firstName: "Ana"),
            identities: [.init(kind: "phone", value: "+919876543210", verified: true)],
            attributes: ["token": Plant.token])
        let session = AuthSession(provider: .dynamic, user: user, credentials: credentials, createdAt: now)
        let enrollment = TOTPEnrollment(
            otpauthURI: Secret("otpauth://totp/Acme:a@b.co?secret=\(Plant.totpBase32)&issuer=Acme"), issuer: "Acme",
            account: "a@b.co")
        let redirect = URL(
            string:
                "https://accounts.example.com/authorize?state=\(Plant.state)&code_challenge=\(Plant.pkce)&nonce=\(Plant.nonce)"
        )!
        let challenge = Challenge(
            flowID: .random(), provider: .portal, kind: .oauthRedirect(url: redirect), destination: "+91 •••• 3210",
            issuedAt: now,
            expiresAt: now + 600, providerState: state)
        let totpChallenge = Challenge(
            flowID: .random(), provider: .portal, kind: .totp(digits: 6, enrollment: enrollment), issuedAt: now,
            providerState: state)
        let error = AuthError(
            .network, "dropped", provider: .otpless, providerCode: "7118", underlying: URLError(.timedOut))
        let bus = AuthEventBus(timeSource: sandbox.time)
        let stream = bus.subscribe(bufferCapacity: 8)
        _ = bus.publish(.signedIn(session), provider: .dynamic, flowID: nil)
        _ = bus.publish(.challengeIssued(challenge), provider: .portal, flowID: challenge.flowID)
        let event = AuthEvent(sequence: 1, timestamp: now, provider: .dynamic, flowID: nil, kind: .signedIn(session))
        let authState = AuthState(
            sessions: [.dynamic: .init(session: session, isExpired: false)], unavailable: [.portal: error])
        let memory = InMemorySessionStore(sessions: [session])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multiauth-sweep-\(UUID().uuidString)")
        let fileStore = try FileSessionStore(directory: directory)
        try await fileStore.save(session)
        let keychain = KeychainSessionStore(service: "sweep", keychain: SweepKeychain())
        try await keychain.save(session)
        let request = HTTPRequest(
            method: .post, base: URL(string: "https://api.example.com/v1")!, path: ["session", .secret(Plant.token)],
            headers: ["Authorization": "Bearer \(Plant.token)", "Cookie": Plant.cookie],
            body: Data(#"{"code":"\#(Plant.code)"}"#.utf8))
        let response = HTTPResponse(
            status: 200, headers: ["Set-Cookie": "sid=\(Plant.cookie); HttpOnly", "X-Token": Plant.token],
            body: Data(Plant.body.utf8))
        let client = try sandbox.makeClient(providers: world.lanes.map(\.provider), store: memory)
        // An AuthModel following the client, so it holds the stored session and every pending
        // challenge. The task is owned here and cancelled once the model caught up.
        let model = await MainActor.run { AuthModel(client: client) }
        let observing = Task { await model.observe() }
        await model.restore()
        for lane in world.lanes {
            // A flow left pending inside the client, so its memory holds a challenge.
            _ = try? await client.signIn(with: lane.id, lane.harness.validRequest(700))
        }
        await model.waitUntilProcessed(through: client.events.currentSequence)
        observing.cancel()
        add(model)
        add(AuthModel.RestoreStatus.restored)
        add(client)
        add(AuthClient.SignOutOutcome?.none as Any, as: "MultiAuth.AuthClient.SignOutOutcome")
        if let outcome = flows.values.compactMap(\.signOut).first { add(outcome) }
        add(sandbox.authContext(flowID: .random()))
        add(error)
        // A transport failure whose URL carries the token in its path and the state in its query.
        add(
            RedactedError(
                redacting: URLError(
                    .timedOut,
                    userInfo: [
                        NSURLErrorFailingURLErrorKey: URL(
                            string: "https://api.example.com/v4/session/\(Plant.token)?state=\(Plant.state)")!
                    ])))
        add(AuthError.Code.network)
        add(AuthError.Reason.invalidToken)
        add(event)
        add(AuthEvent.Kind.challengeIssued(totpChallenge))
        add(bus)
        add(AuthEventSource(bus: bus))
        add(client.events)
        add(AuthEventBus.PublishResult.delivered(subscribers: 1))
        add(stream)
        add(stream.makeAsyncIterator())
        add(AuthProviderID.dynamic)
        add(session)
        add(authState)
        add(SemanticVersion.multiAuth)
        add(AuthState.Entry(session: session, isExpired: true))
        add(user)
        add(user.identities[0])
        add(challenge)
        add(challenge.kind)
        add(totpChallenge.kind)
        add(ChallengeAnswer(code: Plant.code, name: try PersonName(firstName: "Ana")))
        let planted = Data(Plant.nonce.utf8)
        let passkeyUser = PasskeyUser(id: planted, name: Plant.claim, displayName: Plant.claim)
        add(passkeyUser)
        let ceremony = PasskeyCeremony(
            operation: .registration, challenge: planted, relyingPartyID: "example.test", user: passkeyUser,
            allowedCredentials: [PasskeyCredentialDescriptor(id: planted, transports: ["internal"])],
            userVerification: .required)
        add(ceremony)
        add(PasskeyCeremony.Operation.assertion)
        add(PasskeyUserVerification.required)
        add(PasskeyCredentialDescriptor(id: planted))
        add(Challenge.Kind.passkey(ceremony), as: "MultiAuth.Challenge.Kind (passkey)")
        let passkeyRegistration = PasskeyRegistration(
            credentialID: planted, clientDataJSON: Data(Plant.payload.utf8),
            attestationObject: Data(Plant.signature.utf8))
        add(passkeyRegistration)
        let passkeyAssertion = PasskeyAssertion(
            credentialID: planted, clientDataJSON: Data(Plant.payload.utf8), authenticatorData: planted,
            signature: Data(Plant.signature.utf8), userHandle: planted)
        add(passkeyAssertion)
        add(PasskeyResult.assertion(passkeyAssertion))
        add(ChallengeAnswer(passkey: .registration(passkeyRegistration)), as: "MultiAuth.ChallengeAnswer (passkey)")
        add(credentials)
        add(Secret(Plant.token))
        add(DeliveryChannel.whatsapp)
        add(DeliveryStatus.delivered)
        add(email)
        add(fileStore)
        add(FlowID.random())
        add(HTTPMethod.post)
        add(HTTPPathSegment.secret(Plant.token))
        add(request)
        add(response)
        add(memory)
        add(FailingSessionStore.Operation.save)
        add(keychain)
        add(KeychainAccessibility.afterFirstUnlockThisDeviceOnly)
        add(Challenge.Requirement.name)
        var needsName = challenge
        needsName.requirements = [.name]
        add(needsName, as: "MultiAuth.Challenge (with requirements)")
        add(AuthErrorLocalizer.english)
        add(OAuthProviderName.google)
        add(try PersonName(firstName: "Ana", lastName: "Planted"))
        add(phone)
        add(state)
        add(SessionStoreWriteResult.conflict(current: session))
        add(SignInRequest.phone(phone, options: ["otp": Plant.code]))
        add(SignInRequest.Identity.email(email))
        add(SignInStep.signedIn(session))
        add(enrollment)
        add(sandbox.time)

        // MARK: MultiAuthCrypto
        add(CryptoError.invalidClaim("aud"))
        add(DigestAlgorithm.sha256)
        add(try HMACKey(Array(Plant.token.utf8), algorithm: .sha256))
        let totpSecret = try Base32.decode(Plant.totpBase32)
        add(try HOTP(secret: totpSecret))
        add(JSONLimits.jwt)
        add(JSONValue.string(Plant.claim))
        add(JSONValue.object(["token": .string(Plant.claim), "list": .array([.string(Plant.claim)])]))
        let jwks = try JWKSet(jsonData: Data(PeerFixturesCopy.jwks.utf8))
        add(jwks.keys[0])
        add(JWKSCache { Data(PeerFixturesCopy.jwks.utf8) })
        add(jwks)
        let claims: [String: JSONValue] = [
            "sub": .string("u"), "email": .string(Plant.claim), "nested": .object(["k": .string(Plant.claim)]),
        ]
        let signer = TestKeys.p256A
        let jwt = try JWT(parsing: JWT.sign(claims: claims, with: signer, algorithm: .es256, keyID: "k1"))
        add(jwt)
        add(JWTAudience.anyAudience)
        add(jwt.claims)
        add(KeyType.rsa)
        add(NumericDate(now))
        let uri = try OTPAuthURI(parsing: "otpauth://totp/Acme:a@b.co?secret=\(Plant.totpBase32)&issuer=Acme")
        add(uri)
        add(OTPAuthURI.Kind.totp)
        add(signer)
        add(signer.publicKey)
        // WebAuthn (Docs/Passkeys.md): a registration and an assertion of the software
        // authenticator, through the verifier; the user name is planted.
        let authenticator = SoftwareAuthenticator(seed: 1, attestation: .packedSelf)
        let webAuthnChallenge = [UInt8](repeating: 7, count: 32)
        let registration = try authenticator.makeCredential(
            rpID: "example.com", origin: "https://example.com", challenge: webAuthnChallenge,
            userHandle: Array("u1".utf8), userName: Plant.claim)
        let assertion = try authenticator.getAssertion(
            rpID: "example.com", origin: "https://example.com", challenge: webAuthnChallenge)
        let webAuthn = WebAuthnVerifier(
            relyingParty: WebAuthnRelyingParty(id: "example.com", origins: ["https://example.com"]))
        let credential = try await webAuthn.verifyRegistration(
            clientDataJSON: registration.clientDataJSON, attestationObject: registration.attestationObject,
            expectedChallenge: webAuthnChallenge, userVerification: .required)
        add(
            try await webAuthn.verifyAssertion(
                credentialID: assertion.credentialID, clientDataJSON: assertion.clientDataJSON,
                authenticatorData: assertion.authenticatorData, signature: assertion.signature,
                userHandle: assertion.userHandle, expectedChallenge: webAuthnChallenge, credential: credential,
                userVerification: .required))
        add(authenticator)
        add(SoftwareAuthenticator.Attestation.packedSelf)
        add(registration)
        add(assertion)
        add(SoftwareAuthenticatorError(.notAllowed, "no credential"))
        add(SoftwareAuthenticatorError.Code.notAllowed)
        add(webAuthn)
        add(webAuthn.relyingParty)
        add(credential)
        add(COSEAlgorithm.es256)
        add(WebAuthnUserVerification.required)
        add(WebAuthnSignCountPolicy.report)
        add(WebAuthnError(.originMismatch, "client data origin is not allowed"))
        add(WebAuthnError.Code.malformed)
        add(CBORValue.text("fmt"))
        add(CBORLimits.webAuthn)
        add(CBORError(.truncated, at: 0))
        add(CBORError.Kind.truncated)
        let attestationObject = try WebAuthnAttestationObject(parsing: registration.attestationObject)
        add(attestationObject)
        add(attestationObject.authenticatorData)
        if let attested = attestationObject.authenticatorData.attestedCredential { add(attested) }
        add(SignatureAlgorithm.es256)
        add(try TOTP(secret: totpSecret))
        add(TOTPReplayGuard())
        add(try SteamGuardTOTP(secret: totpSecret))
        add(OTPAuthURI.CodeEncoding.steam)
        add(KeychainWriteCondition.absent)
        let keyspace = try StoreKeyspace(prefix: "sweep", secret: Array(Plant.token.utf8))
        add(keyspace)
        add(try keyspace.key("truecaller.nonce", Plant.nonce))
        add(AttemptDecision(allowed: false, remaining: 0, retryAfter: .seconds(30)))
        add(StoreUnavailableError(.unreachable, "connect to 127.0.0.1:6379: refused", retryAfter: .milliseconds(50)))
        add(StoreUnavailableError.Cause.malformedReply)

        // MARK: MultiAuthServer
        let replayStore = InMemoryReplayStore(time: sandbox.time, keyspace: keyspace)
        _ = try await replayStore.consumeOnce(key: try keyspace.key("otpless.token", Plant.token), ttl: .seconds(60))
        add(replayStore)
        let limiter = InMemoryAttemptLimiter(time: sandbox.time, keyspace: keyspace)
        add(limiter)
        add(FallbackAttemptLimiter(primary: limiter, fallback: limiter, fleetSize: 2))
        let redisConfiguration = RedisConfiguration(
            host: "127.0.0.1", port: 6379, username: "app", password: Plant.clientSecret)
        add(redisConfiguration)
        let redis = RedisClient(configuration: redisConfiguration)
        add(redis)
        add(RedisReplayStore(client: redis, keyspace: keyspace))
        add(RedisAttemptLimiter(client: redis, keyspace: keyspace))
        let fleet = FleetVerifiers(replayStore: replayStore, attemptLimiter: limiter, time: sandbox.time)
        add(fleet)
        let totpVerifier = try fleet.totp()
        add(totpVerifier)
        add(TOTPVerifier.AttemptLimit.standard)
        let sweptTOTP = try TOTP(secret: totpSecret)
        add(try await totpVerifier.verify(try sweptTOTP.code(at: now), for: sweptTOTP, account: Plant.claim))
        let subject = StoreConformanceSubject(
            name: "sweep", replayStore: replayStore, attemptLimiter: limiter, time: .manual(advance: { _ in }),
            unavailable: .init(replayStore: replayStore, attemptLimiter: limiter))
        add(subject)
        add(subject.time)
        add(subject.unavailable!)
        add(StoreConformanceCheck.consumeOnceIsAtomic)
        let storeReport = StoreConformanceReport(
            subject: "sweep", results: [.init(id: "S02", title: "t", status: .failed, detail: "round 1: 2 of 16")])
        add(storeReport)
        add(storeReport.results[0])
        add(StoreConformanceResult.Status.skipped)

        // MARK: MultiAuthHTTP
        add(
            URLSessionTransport(defaultHeaders: ["Authorization": "Bearer \(Plant.token)", "User-Agent": "MultiAuth/1"])
        )

        // MARK: Adapters
        add(OTPlessConfiguration.sandbox())
        add(try OTPlessProvider(configuration: OTPlessConfiguration.sandbox()))
        add(
            OTPlessTokenVerifier(
                clientID: "client", clientSecret: Plant.clientSecret, transport: sandbox.transport, time: sandbox.time))
        let dynamicConfiguration = DynamicConfiguration(
            environmentID: DynamicBackend.defaultEnvironmentID, baseURL: DynamicBackend.baseURL())
        add(dynamicConfiguration)
        add(DynamicProvider(configuration: dynamicConfiguration))
        add(
            DynamicTokenVerifier(
                configuration: dynamicConfiguration, transport: sandbox.transport, time: sandbox.time,
                audience: .anyAudience))
        add(
            DynamicVerifiedToken(
                userID: "u", sessionID: "sid-1", environmentID: "env", scopes: ["user:basic"], expiresAt: now,
                issuer: "iss",
                email: "planted.person@example.com", jwt: jwt))
        add(world.truecallerConfiguration)
        add(TruecallerProvider(configuration: world.truecallerConfiguration))
        add(TruecallerErrorCode(4290))
        add(TruecallerKeyStore(endpoint: world.truecallerConfiguration.keyEndpoint))
        add(TruecallerPhoneNumberDetail(phoneNumber: "919876543210", countryCode: "IN"))
        add(
            TruecallerProfile(
                firstName: "Ana", phoneNumber: "+919876543210", email: "planted.person@example.com",
                requestNonce: Plant.nonce,
                verifier: Plant.verifier, otherFields: ["facebookID": Plant.token]))
        add(
            TruecallerProfileResponse(
                payload: Plant.payload, signature: Plant.signature, signatureAlgorithm: "SHA512withRSA",
                requestNonce: Plant.nonce))
        add(TruecallerProfileVerifier(configuration: world.truecallerConfiguration))
        add(TruecallerTokenVerifier(credential: .appKey(Secret(Plant.appKey)), transport: sandbox.transport))
        add(TruecallerTokenVerifier.Credential.clientID(Secret(Plant.appKey)))
        add(TruecallerVerificationState.allCases.first as Any, as: "MultiAuthTruecaller.TruecallerVerificationState")
        add(TruecallerApp.installed)
        add(BuiltInConformance.portalConfiguration())
        add(PortalProvider(configuration: BuiltInConformance.portalConfiguration()))
        add(try QRCode(encoding: "otpauth://totp/Acme:a@b.co?secret=\(Plant.totpBase32)"))
        add(QRCodeError.tooLong(byteCount: 2332))

        // MARK: MultiAuthSandbox
        add(world.dynamic)
        add(world.truecaller)
        add(world.truecaller.app)
        do {
            _ = try world.truecaller.app.decline(URL(string: "https://example.com/?profileRequest=\(Plant.nonce)")!)
        } catch {
            add(error, as: "MultiAuthSandbox.TruecallerAppEmulator.Refusal")
        }
        add(world.portal)
        add(world.otpless)
        add(world.reference)
        add(sandbox)
        add(sandbox.inbox)
        if let message = sandbox.inbox.allMessages.last { add(message) }
        add(sandbox.faults)
        add(FaultAction.status(500, headers: ["Set-Cookie": Plant.cookie], body: Data(Plant.body.utf8)))
        add(FaultRepeat.once)
        add(sandbox.faults.add(.latency(.seconds(1)), host: "nowhere.test", repeat: .times(1)))
        add(sandbox.random)
        sandbox.fixedCodes.set("48291357", for: "+15555550100")
        add(sandbox.fixedCodes)
        add(SeededRandomNumberGenerator(seed: 1))
        add(sandbox.clock)
        add(sandbox.clock.now)
        add(sandbox.transport)
        add(SandboxCellularTransport(sandbox: sandbox))
        add(sandbox.context(for: DynamicBackend.defaultHost))
        add(sandbox.requestLog.last as Any, as: "MultiAuthSandboxRuntime.SandboxLogEntry")
        add(SandboxLogEntry.Outcome.response(status: 200))
        add(SandboxURLProtocol.self as Any, as: "MultiAuthSandboxRuntime.SandboxURLProtocol")
        add(FailingSessionStore(wrapping: memory))
        add(RecordingSubscriber(client: client))
        let scripted = ScriptedTransport(forwardingTo: sandbox.transport)
        scripted.script(
            "POST /planted",
            HTTPResponse(status: 200, headers: ["Set-Cookie": Plant.cookie], body: Data(Plant.body.utf8)))
        _ = try? await scripted.send(
            HTTPRequest(
                method: .post, url: URL(string: "https://nowhere.test/v1/\(Plant.token)")!,
                headers: ["Authorization": "Bearer \(Plant.token)"],
                body: Data(Plant.body.utf8)))
        add(scripted)
        add(scripted.exchanges.first as Any, as: "MultiAuthSandboxRuntime.ScriptedTransport.Exchange")
        add(OTPlessMerchant(clientSecret: Secret(Plant.clientSecret)))
        add(OTPlessMerchant.AuthType.otpLink)
        add(
            OTPlessBackend.Environment(
                now: now, digits: { _ in Plant.code }, hex: { _ in Plant.token }, deliver: { _, _, _, _ in true }))
        add(
            TruecallerSignedProfile(
                payload: Secret(Plant.payload), signature: Secret(Plant.signature), signatureAlgorithm: "SHA512withRSA",
                requestNonce: Secret(Plant.nonce)))
        add(
            ReferenceProtocol.StartRequest(
                identity: "+919876543210", channel: "sms", allowFallback: true, state: Secret(Plant.state)))
        add(
            ReferenceProtocol.ChallengeResponse(
                flowId: Secret(Plant.state), length: 6, expiresIn: 300, expiresAt: now, resendAfter: 30, attempts: 3,
                channel: "sms", fallbackFrom: nil))
        add(ReferenceProtocol.VerifyRequest(flowId: Secret(Plant.state), code: Secret(Plant.code)))
        add(ReferenceProtocol.ResendRequest(flowId: Secret(Plant.state), channel: "sms"))
        add(ReferenceProtocol.RefreshRequest(refreshToken: Secret(Plant.refresh)))
        add(ReferenceProtocol.LogoutRequest(refreshToken: Secret(Plant.refresh)))
        let referenceUser = ReferenceProtocol.User(
            id: "u", email: try EmailAddress("planted.person@example.com"), phone: try PhoneNumber("+919876543210"))
        add(referenceUser)
        add(
            ReferenceProtocol.TokenResponse(
                accessToken: Secret(Plant.token), refreshToken: Secret(Plant.refresh), expiresIn: 60, expiresAt: now,
                user: referenceUser))
        add(ReferenceProtocol.ErrorResponse(code: "invalid_code", attemptsRemaining: 2, retryAfter: 1))
        let passkeyBackend = PasskeyBackend()
        sandbox.register(passkeyBackend, host: PasskeyProtocol.defaultHost)
        let passkeyClient = try sandbox.makeClient(providers: [PasskeyReferenceProvider()])
        let passkeyChallenge = try #require(
            try await passkeyClient.signIn(with: "passkeys", .email(try EmailAddress("kim@example.com"))).challenge)
        add(passkeyChallenge, as: "MultiAuth.Challenge (passkey)")
        _ = try await passkeyClient.submit(
            try SoftwareAuthenticator(seed: 4).answer(passkeyChallenge), for: passkeyChallenge)
        add(passkeyBackend)

        // MARK: MultiAuthConformance, MultiAuthSandboxKit
        add(ConformanceCheck.noSecretInAnyRendering)
        add(ConformanceFailure("failed"))
        let harness = ConformanceHarness.reference()
        add(harness)
        add(ConformanceHarness.Abilities.codeEntry)
        add(harness.errorFixtures.first as Any, as: "MultiAuthConformance.ConformanceHarness.ErrorFixture")
        add(ConformanceHarness.ErrorFixture.Stage.submit)
        add(ConformanceHarness.RedirectFixture.inboxLink())
        add(
            ConformanceHarness.RedirectFixture.Refusal(
                "declined", url: URL(string: "https://app.example.test/cb?error=\(Plant.nonce)")!,
                expectedCodes: [.cancelledByProvider]))
        add(
            ConformanceReport(
                provider: "reference", results: [ConformanceResult(id: "C14", title: "t", status: .passed)]))
        add(ConformanceResult(id: "C14", title: "t", status: .failed, detail: "d"))
        add(ConformanceResult.Status.skipped)
        add(ProviderConformance.reference())
        add(ReferenceProvider())
        add(PasskeyReferenceProvider())
        add(PasskeyConformance(provider: { _ in PasskeyReferenceProvider() }, harness: .reference()))
        add(PasskeyConformanceHarness.reference())
        add(PasskeyCheck.challengeIsSingleUse)
        add(AutoRefresh(jitterSeed: 7))
        add(ReferenceBackend.RefreshTokenOrigin.refresh(from: Secret(Plant.token)))
        add(PortalBackendRegistry())
        add(try StandardSandbox(time: .manual(ManualClock())))
        add(StandardSandbox.Time.realTime)

        // The world's own secrets: every flow's codes, tokens and provider state.
        var secrets: [String] = []
        for result in flows.values {
            secrets += result.codes
            if let credentials = result.session?.credentials {
                secrets += [credentials.accessToken, credentials.refreshToken, credentials.idToken].compactMap {
                    $0?.reveal()
                }
                secrets += credentials.extra.values.values.map { $0.reveal() }
            }
            for challenge in result.challenges {
                secrets += challenge.providerState.values.filter { $0.key != "method" }.map { $0.value.reveal() }.filter
                {
                    $0.count >= 8
                }
            }
            if let provider = result.provider { values.append(("flow provider \(provider.id)", provider)) }
            if let client = result.client { values.append(("flow client", client)) }
            values += result.challenges.map { ("flow challenge", $0) }
            if let session = result.session { values.append(("flow session", session)) }
        }
        try? FileManager.default.removeItem(at: directory)
        return (values, secrets)
    }

    @Test("the sweep covers every public type of every library module (or names why not)")
    func inventoryIsCovered() async throws {
        let world = try SweepWorld()
        let (values, _) = try await Self.samples(world, flows: [:])
        let covered = Set(values.map(\.0))
        let declared = try PublicTypeInventory.publicTypes()
        #expect(declared.count >= 140, "the inventory reader found only \(declared.count) types")
        let missing = declared.filter { !covered.contains($0.name) && Self.exempt[$0.name] == nil }
        #expect(missing.isEmpty, "public types the sweep does not build: \(missing.map { "\($0.name) (\($0.file))" })")
        let stale = Self.exempt.keys.filter { name in !declared.contains { $0.name == name } }
        #expect(stale.isEmpty, "exemptions for types that no longer exist: \(stale)")
    }

    @Test("no planted or issued secret in any of the five renderings of any public type")
    func sweep() async throws {
        let world = try SweepWorld()
        var flows: [AuthProviderID: SweepWorld.FlowResult] = [:]
        for (offset, lane) in world.lanes.enumerated() {
            let result = await world.runFlow(lane, index: 300 + offset, transport: world.sandbox.transport)
            #expect(
                result.errors.isEmpty && result.otherErrors.isEmpty,
                "\(lane.id): \(result.errors) \(result.otherErrors)")
            flows[lane.id] = result
        }
        let (values, secrets) = try await Self.samples(world, flows: flows)
        #expect(secrets.count >= 10, "the flows must issue secrets to look for")
        var checked = 0
        for (label, value) in values {
            for (name, text) in SecretRenderings.renderings(of: value) {
                checked += 1
                for secret in Plant.markers + secrets where secret.count >= 4 && text.contains(secret) {
                    Issue.record("\(label): \(name) shows '\(secret)'")
                }
            }
        }
        print(
            "RenderingSweepTests.sweep: \(values.count) values, \(checked) renderings, \(secrets.count) issued secrets")
    }
}

/// The crypto tests' peer JWKS (two public keys), for values that need a key set.
enum PeerFixturesCopy {
    static let jwks =
        #"{"keys": [{"kty": "EC", "crv": "P-256", "x": "RkSg7CfgkaZlzHiQ1Eb5-wGYKINg4Cnlf8vgarM7lys", "y": "W_bBeF1dwgNIFcg3j4NhY9KJ1WRti4mCBToQMwbA3c0", "kid": "ec-1"}]}"#
}
