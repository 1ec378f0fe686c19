import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

@testable import MultiAuthTruecaller

/// The OTP flow against an in-test stub of the wire protocol (Docs/Providers/Truecaller.md).
@Suite(.timeLimit(.minutes(10)))
struct TruecallerOTPFlowTests {
    let provider = TruecallerProvider(configuration: TruecallerWorld.configuration)

    /// A stub server: `create` → sms with `ttl`, `verify` accepts 123456.
    static func server(ttl: Int = 300, verifiedBefore: Bool = false) -> ScriptedTransport {
        ScriptedTransport { request in
            switch (request.method, request.url.path) {
            case (.post, "/v1/otp/installation/create"):
                if verifiedBefore {
                    return Stub.json(200, ["status": 1, "message": "verified", "accessToken": "at-before"])
                }
                return Stub.json(
                    200,
                    ["status": 2, "message": "sent", "method": "sms", "verificationToken": "vt-1", "tokenTtl": ttl])
            case (.post, "/v1/otp/installation/verify"):
                let body = Stub.body(request)
                guard body["verificationToken"] as? String == "vt-1" else {
                    return Stub.json(400, ["code": 14, "message": "bad"])
                }
                if body["secretToken"] as? String == "123456" {
                    return Stub.json(200, ["status": 1, "accessToken": "at-1"])
                }
                return Stub.json(400, ["code": 4001, "message": "Invalid OTP", "attemptsRemaining": 4])
            case (.post, "/v1/profile"): return Stub.json(200, [:])
            case (.get, "/v1/profile"):
                guard request.header("Authorization")?.hasPrefix("Bearer at-") == true else {
                    return Stub.json(401, ["code": 11, "message": "unauthorized"])
                }
                return Stub.json(200, Stub.profile)
            default: return Stub.json(404, ["code": 14, "message": "no route"])
            }
        }
    }

    func challenge(
        _ transport: ScriptedTransport, clock: ManualClock, events: RecordingSubscriber = RecordingSubscriber()
    ) async throws -> Challenge {
        let step = try await provider.start(
            .phone(TruecallerWorld.phone), context: TruecallerWorld.context(transport, clock: clock, events: events))
        return try #require(step.challenge)
    }

    @Test func everyStateInOrderThroughToASessionWithTheAccessToken() async throws {
        let transport = Self.server()
        let clock = ManualClock()
        let events = RecordingSubscriber()
        let challenge = try await challenge(transport, clock: clock, events: events)
        #expect(events.verificationStates == ["otpInitiated"])
        #expect(challenge.kind == .oneTimeCode(length: 6, channel: .sms, linkAlsoSent: false))
        #expect(challenge.provider == .truecaller)
        #expect(challenge.destination == TruecallerWorld.phone.masked)

        let create = try #require(transport.requests.first)
        #expect(create.header("appKey") == "test-app-key")
        #expect(create.header("appLink") == "https://app.example.com/truecaller")
        #expect(create.header("sdkVersion") == "0.1.8")
        #expect(create.header("sdkVariant") == "native")
        let body = Stub.body(create)
        #expect(body["countryCodeName"] as? String == "IN")
        #expect(body["phoneNumber"] as? String == "9876543210")
        #expect(body["clientId"] as? Int == 16)
        #expect(body["deviceId"] as? String == "device-1")
        #expect(body["simSerial"] as? [String] == ["device-1"])

        let name = try PersonName(firstName: "Asha", lastName: "Rao")
        let step = try await provider.respond(
            to: challenge, with: ChallengeAnswer(code: "123456", name: name),
            context: TruecallerWorld.context(transport, clock: clock, events: events))
        let session = try #require(step.session)
        #expect(events.verificationStates == ["otpInitiated", "otpReceived", "verificationComplete"])
        #expect(session.credentials.accessToken == "at-1")
        #expect(session.credentials.tokenType == "Bearer")
        #expect(session.provider == .truecaller)
        #expect(session.user.id == TruecallerProfile.userID(forE164: "+919876543210"))
        #expect(session.user.id.hasPrefix("tc-") && session.user.id.count == 35)
        #expect(!String(describing: session).contains("9876543210"))
        #expect(session.user.phone?.e164 == "+919876543210")
        #expect(session.user.name == name)
        #expect(session.user.email?.identityKey == "asha@example.com")
        #expect(session.user.attributes["countryCode"] == "in")
        #expect(session.user.attributes["isTrueName"] == "true")
        #expect(session.createdAt == clock.wallNow)
        #expect(
            transport.endpoints == [
                "POST /v1/otp/installation/create", "POST /v1/otp/installation/verify", "POST /v1/profile",
                "GET /v1/profile",
            ])
        let verify = Stub.body(transport.requests[1])
        #expect(verify["secretToken"] as? String == "123456")
        #expect(verify["verificationToken"] as? String == "vt-1")
        #expect(verify["countryCodeName"] as? String == "IN")
        #expect(verify["phoneNumber"] as? String == "9876543210")
        let nameBody = Stub.body(transport.requests[2])
        #expect(nameBody["firstName"] as? String == "Asha")
        #expect(nameBody["lastName"] as? String == "Rao")
        #expect(transport.requests[2].header("Authorization") == "Bearer at-1")
    }

    @Test func challengeExpiresAfterTokenTtlOnTheInjectedClock() async throws {
        let transport = Self.server(ttl: 120)
        let clock = ManualClock()
        let start = clock.wallNow
        let challenge = try await challenge(transport, clock: clock)
        #expect(challenge.issuedAt == start)
        #expect(challenge.expiresAt == start.addingTimeInterval(120))

        clock.advance(by: .seconds(119))
        #expect(!challenge.isExpired(at: clock.wallNow))
        clock.advance(by: .seconds(1))
        #expect(challenge.isExpired(at: clock.wallNow))
        let before = transport.requests.count
        let name = try PersonName(firstName: "Asha")
        await #expect(
            throws: AuthError(.expired, "the verification code expired; request a new one", provider: .truecaller)
        ) {
            _ = try await provider.respond(
                to: challenge, with: ChallengeAnswer(code: "123456", name: name),
                context: TruecallerWorld.context(transport, clock: clock))
        }
        #expect(transport.requests.count == before, "an expired challenge makes no network call")
    }

    @Test func verifiedBeforeGoesStraightToASession() async throws {
        let transport = Self.server(verifiedBefore: true)
        let events = RecordingSubscriber()
        let step = try await provider.start(
            .phone(TruecallerWorld.phone), context: TruecallerWorld.context(transport, events: events))
        let session = try #require(step.session)
        #expect(events.verificationStates == ["verifiedBefore"])
        #expect(session.credentials.accessToken == "at-before")
        #expect(session.user.name == (try PersonName(firstName: "Asha", lastName: "Rao")))
        #expect(transport.endpoints == ["POST /v1/otp/installation/create", "GET /v1/profile"])
    }

    @Test func aMissingNameIsRefusedLocallyWithError18Meaning() async throws {
        let transport = Self.server()
        let clock = ManualClock()
        let challenge = try await challenge(transport, clock: clock)
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.respond(
                to: challenge, with: ChallengeAnswer(code: "123456"),
                context: TruecallerWorld.context(transport, clock: clock))
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.reason == .answerMismatch)
        #expect(error?.providerCode == "18")
        #expect(transport.requests.count == 1, "only create was sent")
    }

    @Test func aDecodedNameThatBreaksTheRulesCannotBeBuilt() throws {
        // PersonName's decoder applies the name rules, so a stored or forged name never
        // reaches the provider unchecked (the provider also re-checks every name it sends).
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(PersonName.self, from: Data(#"{"firstName":"1234","lastName":""}"#.utf8))
        }
    }

    @Test func aMalformedCodeIsRefusedLocally() async throws {
        let transport = Self.server()
        let clock = ManualClock()
        let challenge = try await challenge(transport, clock: clock)
        let name = try PersonName(firstName: "Asha")
        for code in ["12345", "12345a", "1234567"] {
            let error = await #expect(throws: AuthError.self) {
                _ = try await provider.respond(
                    to: challenge, with: ChallengeAnswer(code: code, name: name),
                    context: TruecallerWorld.context(transport, clock: clock))
            }
            #expect(error?.reason == .invalidCodeFormat)
        }
        #expect(transport.requests.count == 1)
        // Docs/Cases.md, B34: whitespace is removed before the length check.
        let step = try await provider.respond(
            to: challenge, with: ChallengeAnswer(code: " 123 456\n", name: name),
            context: TruecallerWorld.context(transport, clock: clock))
        #expect(step.session != nil)
    }

    @Test func aWrongCodeIsInvalidCodeWithAttemptsRemainingAndTheChallengeStaysUsable() async throws {
        let transport = Self.server()
        let clock = ManualClock()
        let events = RecordingSubscriber()
        let challenge = try await challenge(transport, clock: clock, events: events)
        let name = try PersonName(firstName: "Asha")
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.respond(
                to: challenge, with: ChallengeAnswer(code: "000000", name: name),
                context: TruecallerWorld.context(transport, clock: clock, events: events))
        }
        #expect(error?.code == .invalidCode)
        #expect(error?.attemptsRemaining == 4)
        #expect(error?.providerCode == "4001")
        let step = try await provider.respond(
            to: challenge, with: ChallengeAnswer(code: "123456", name: name),
            context: TruecallerWorld.context(transport, clock: clock, events: events))
        #expect(step.session != nil)
        #expect(events.verificationStates == ["otpInitiated", "otpReceived", "otpReceived", "verificationComplete"])
    }

    @Test func attemptLimitIsRateLimitedWithRetryAfter() async throws {
        let clock = ManualClock()
        let transport = Self.server()
        let challenge = try await challenge(transport, clock: clock)
        transport.setHandler { _ in
            Stub.json(429, ["code": 4290, "message": "Too many attempts"], headers: ["Retry-After": "300"])
        }
        let name = try PersonName(firstName: "Asha")
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.respond(
                to: challenge, with: ChallengeAnswer(code: "000000", name: name),
                context: TruecallerWorld.context(transport, clock: clock))
        }
        #expect(error?.code == .rateLimited)
        #expect(error?.retryAfter == .seconds(300))
        #expect(error?.providerCode == "4290")
        #expect(error?.isRetryable == true)

        // The retry delay may also come in the body.
        transport.setHandler { _ in Stub.json(400, ["code": 4291, "message": "Too many requests", "retryAfter": 60]) }
        let startError = await #expect(throws: AuthError.self) {
            _ = try await provider.start(
                .phone(TruecallerWorld.phone), context: TruecallerWorld.context(transport, clock: clock))
        }
        #expect(startError?.code == .rateLimited)
        #expect(startError?.retryAfter == .seconds(60))
    }

    @Test func aChallengeSurvivesEncodingAndResumesInAFreshProvider() async throws {
        let transport = Self.server()
        let clock = ManualClock()
        let challenge = try await challenge(transport, clock: clock)
        let data = try JSONEncoder.multiAuth.encode(challenge)
        #expect(!String(decoding: data, as: UTF8.self).isEmpty)
        let restored = try JSONDecoder.multiAuth.decode(Challenge.self, from: data)
        let fresh = TruecallerProvider(configuration: TruecallerWorld.configuration)
        let step = try await fresh.respond(
            to: restored, with: ChallengeAnswer(code: "123456", name: try PersonName(firstName: "Asha")),
            context: TruecallerWorld.context(transport, clock: clock))
        #expect(step.session?.credentials.accessToken == "at-1")
        #expect(!String(describing: challenge).contains("vt-1"))
    }

    @Test(arguments: [
        (SignInRequest.email(try! EmailAddress("a@example.com")), "email"),
        (SignInRequest.phone(TruecallerWorld.phone, channel: .whatsapp), "whatsapp"),
        (SignInRequest.phone(try! PhoneNumber("+1 650 555 0100")), "region US"),
    ])
    func unsupportedRequestsAreRefusedWithoutANetworkCall(request: SignInRequest, label: String) async throws {
        let transport = Self.server()
        let error = await #expect(throws: AuthError.self, "\(label)") {
            _ = try await provider.start(request, context: TruecallerWorld.context(transport))
        }
        #expect(error?.code == .unsupported)
        #expect(transport.requests.isEmpty)
    }

    @Test func otpRegionsNilAcceptsAnyRegionAndEUNumbersUseTheEUProfileHost() async throws {
        var configuration = TruecallerConfigurationFactory.make(otpRegions: nil)
        configuration.profileBaseURLEU = URL(string: "https://eu.stub.test")!
        configuration.profileBaseURLNonEU = URL(string: "https://noneu.stub.test")!
        #expect(configuration.profileBaseURL(forRegion: "de") == configuration.profileBaseURLEU)
        #expect(configuration.profileBaseURL(forRegion: "IN") == configuration.profileBaseURLNonEU)
        let transport = Self.server(verifiedBefore: true)
        let provider = TruecallerProvider(configuration: configuration)
        _ = try await provider.start(
            .phone(try PhoneNumber("+49 30 55550100")), context: TruecallerWorld.context(transport))
        #expect(transport.requests.last?.url.host == "eu.stub.test")
        #expect(Stub.body(transport.requests[0])["countryCodeName"] as? String == "DE")
    }

    @Test func aBlankAppKeyIsError1BeforeAnyNetworkCall() async throws {
        var configuration = TruecallerWorld.configuration
        configuration.appKey = "  "
        let transport = Self.server()
        let error = await #expect(throws: AuthError.self) {
            _ = try await TruecallerProvider(configuration: configuration).start(
                .phone(TruecallerWorld.phone), context: TruecallerWorld.context(transport))
        }
        #expect(error?.code == .configuration)
        #expect(error?.providerCode == "1")
        #expect(transport.requests.isEmpty)
    }

    @Test func verifyWithoutAccessTokenOrCodeIsMalformedNotSilent() async throws {
        let transport = Self.server()
        let clock = ManualClock()
        let challenge = try await challenge(transport, clock: clock)
        transport.setHandler { _ in Stub.json(200, ["status": 1]) }
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.respond(
                to: challenge, with: ChallengeAnswer(code: "123456", name: try PersonName(firstName: "Asha")),
                context: TruecallerWorld.context(transport, clock: clock))
        }
        #expect(error?.code == .malformedResponse)
    }

    @Test func signOutIsALocalNoOp() async throws {
        let transport = ScriptedTransport { _ in HTTPResponse(status: 500) }
        let session = AuthSession(
            provider: .truecaller, user: AuthUser(id: "+919876543210"), credentials: Credentials(accessToken: "x"),
            createdAt: Date(timeIntervalSince1970: 0))
        try await provider.signOut(session, context: TruecallerWorld.context(transport))
        try await provider.signOut(session, context: TruecallerWorld.context(transport))
        #expect(transport.requests.isEmpty)
    }
}
