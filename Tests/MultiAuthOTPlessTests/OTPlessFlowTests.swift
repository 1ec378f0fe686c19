import Foundation
import MultiAuth
import MultiAuthOTPless
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(10)))
struct OTPlessFlowTests {
    @Test func whatsAppOTPSignsIn() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let client = try AuthClient(providers: [provider], transport: world.transport, time: world.time)
        let step = try await client.signIn(with: .otpless, .phone(phone))
        let challenge = try #require(step.challenge)
        #expect(challenge.kind == .oneTimeCode(length: 6, channel: .whatsapp, linkAlsoSent: false))
        #expect(challenge.destination == "+91 •••••• 3210")
        let intent = try #require(world.requests(containing: "/transaction/intent/").first)
        let body = try intent.decodeJSON([String: AnyJSON].self)
        #expect(body["mobile"] == .string("919876543210"))
        #expect(body["selectedCountryCode"] == .string("+91"))
        #expect(body["platform"] == .string("HEADLESS"))
        #expect(body["appId"] == .string("SANDBOXAPP"))
        let code = try #require(world.latest(phone.e164, channel: .whatsapp)?.code)
        let done = try await client.submit(ChallengeAnswer(code: code), for: challenge)
        let session = try #require(done.session)
        #expect(session.credentials.accessToken != nil)
        #expect(session.credentials.idToken != nil)
        #expect(session.credentials.refreshToken != nil)
        #expect(session.credentials.extra[revealing: "sessionToken"] != nil)
        #expect(session.credentials.expiresAt != nil)
        #expect(session.user.phone == phone)
        #expect(session.user.identities.first?.kind == "phone")
        let verify = try #require(world.requests(containing: "/transaction/otp/").first)
        let verifyBody = try verify.decodeJSON([String: AnyJSON].self)
        #expect(verifyBody["mobile"] == .string("9876543210"))
        #expect(verifyBody["selectedCountryCode"] == .string("91"))
        #expect(provider.activePollerCount == 0)
    }

    @Test func whatsAppFailsAndSmartAuthFallsBackToSMSWithEventsInOrder() async throws {
        let world = try OTPlessWorld()
        world.failDelivery(on: .whatsapp)
        let provider = try world.provider { $0.preferredChannels = [.whatsapp, .sms] }
        let client = try AuthClient(providers: [provider], transport: world.transport, time: world.time)
        let stream = client.events.subscribe()
        let challenge = try #require(try await client.signIn(with: .otpless, .phone(phone)).challenge)
        #expect(challenge.kind == .oneTimeCode(length: 6, channel: .whatsapp, linkAlsoSent: false))
        await world.clock.waitForSleepers(count: 1)
        world.clock.advance(by: .seconds(3))
        var kinds: [AuthEvent.Kind] = []
        for await event in stream {
            kinds.append(event.kind)
            if case .deliveryStatus(_, .delivered) = event.kind { break }
        }
        #expect(
            kinds.map(\.name) == [
                "flowStarted", "deliveryStatus", "challengeIssued", "fallbackTriggered", "challengeIssued",
                "deliveryStatus",
            ])
        guard case .fallbackTriggered(let from, let to) = kinds[3] else {
            Issue.record("no fallback")
            return
        }
        #expect(from == .whatsapp && to == .sms)
        guard case .challengeIssued(let updated) = kinds[4] else {
            Issue.record("no update")
            return
        }
        #expect(updated.kind == .oneTimeCode(length: 6, channel: .sms, linkAlsoSent: false))
        #expect(updated.providerState.values["otpless"]?.reveal().contains("\"fallbackFrom\":\"whatsapp\"") == true)
        // the new code restarts the cool-down
        #expect(updated.resendAvailableAt == world.clock.wallNow.addingTimeInterval(30))
        guard case .deliveryStatus(let channel, _) = kinds[5] else { return }
        #expect(channel == .sms)
        #expect(provider.currentChallenge(for: challenge.flowID)?.kind == updated.kind)
        #expect(await client.pendingChallenge(for: .otpless)?.kind == updated.kind)  // the client follows the fallback
        // Docs/Cases.md, B29: WhatsApp is not offered again for this attempt.
        world.clock.advance(by: .seconds(30))
        let error = await #expect(throws: AuthError.self) { _ = try await client.resend(updated, channel: .whatsapp) }
        #expect(error?.code == .channelUnavailable)
        let resent = try await client.resend(updated)
        #expect(resent.kind == .oneTimeCode(length: 6, channel: .sms, linkAlsoSent: false))
        let code = try #require(world.latest(phone.e164, channel: .sms)?.code)
        #expect(try await client.submit(ChallengeAnswer(code: code), for: resent).session != nil)
    }

    /// The sandbox honors `preferredChannels` (sent only by sandbox configurations as
    /// `clientMetaData.channels`): SMS first although the merchant lists WhatsApp first.
    @Test func theSandboxHonorsThePreferredChannelOrder() async throws {
        let world = try OTPlessWorld(merchant: OTPlessMerchant(phoneChannels: [.whatsapp, .sms]))
        let provider = try world.provider { $0.preferredChannels = [.sms, .whatsapp] }
        let challenge = try #require(try await provider.start(.phone(phone), context: world.context()).challenge)
        provider.stopAllPolling()
        #expect(challenge.kind == .oneTimeCode(length: 6, channel: .sms, linkAlsoSent: false))
        #expect(world.latest(phone.e164, channel: .sms)?.code != nil)
    }

    @Test func aLinkFromAnAbandonedFlowOrAnotherAccountNeverSignsIn() async throws {
        let world = try OTPlessWorld(merchant: OTPlessMerchant(emailAuthType: .magicLink))
        let provider = try world.provider()
        let client = try AuthClient(providers: [provider], transport: world.transport, time: world.time)
        let alice = try EmailAddress("alice@example.com")
        let bob = try EmailAddress("bob@example.com")
        _ = try await client.signIn(with: .otpless, .email(alice))
        let linkA = try #require(world.latest(alice.identityKey)?.link)
        _ = try await client.signIn(with: .otpless, .email(bob))  // supersedes Alice's flow
        let error = await #expect(throws: AuthError.self) { _ = try await client.handleRedirect(linkA) }
        #expect(error?.providerCode == "4000")
        #expect(try await client.session(for: .otpless) == nil)
        let linkB = try #require(world.latest(bob.identityKey)?.link)
        let session = try #require(try await client.handleRedirect(linkB)?.session)
        #expect(session.user.email == bob)
    }

    @Test func explicitlyChosenWhatsAppThatCannotDeliverIsChannelUnavailable() async throws {
        let world = try OTPlessWorld()
        world.failDelivery(on: .whatsapp)
        let provider = try world.provider()
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.start(.phone(phone, channel: .whatsapp), context: world.context())
        }
        #expect(error?.code == .channelUnavailable)
        #expect(error?.providerCode == "7103")
        #expect(world.deliveries.filter { $0.channel == .sms }.isEmpty)
    }

    @Test func policyNeedingAnUnconfiguredChannelFailsWhenBuilt() throws {
        let error = #expect(throws: AuthError.self) {
            _ = try OTPlessProvider(
                configuration: .sandbox(
                    appID: "SANDBOXAPP", preferredChannels: [.whatsapp, .sms], enabledChannels: [.whatsapp]))
        }
        #expect(error?.code == .configuration)
        #expect(error?.providerCode == "4003")
    }

    @Test func emailOTPUsesTheIdentityKey() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let context = world.context()
        let challenge = try #require(try await provider.start(.email(email), context: context).challenge)
        #expect(challenge.kind == .oneTimeCode(length: 6, channel: .email, linkAlsoSent: false))
        let code = try #require(world.latest("user.name+otp@example.com", channel: .email)?.code)
        let wrong = String(code.dropLast()) + String((Int(String(code.last!))! + 1) % 10)
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.respond(to: challenge, with: ChallengeAnswer(code: wrong), context: context)
        }
        #expect(error?.code == .invalidCode)
        #expect(error?.attemptsRemaining == 4)
        #expect(error?.providerCode == "7118")
        let session = try #require(
            try await provider.respond(to: challenge, with: ChallengeAnswer(code: code), context: context).session)
        #expect(session.user.email == email)
    }

    @Test func silentNetworkAuthSucceeds() async throws {
        let world = try OTPlessWorld(merchant: OTPlessMerchant(silentAuthEnabled: true))
        let provider = try world.provider()
        let client = try AuthClient(providers: [provider], transport: world.transport, time: world.time)
        let challenge = try #require(try await client.signIn(with: .otpless, .phone(phone)).challenge)
        #expect(challenge.kind == .silentNetworkAuth)
        let done = try await client.submit(ChallengeAnswer(code: ""), for: challenge)
        #expect(done.session?.user.phone == phone)
        let carrier = try #require(
            world.transport.exchanges.first { $0.request.url.path.hasPrefix(OTPlessBackend.carrierPath) })
        #expect(carrier.request.url.host == OTPlessBackend.carrierHost)
        #expect(carrier.overCellular)
    }

    @Test func silentNetworkAuthFallsBackToAnOTP() async throws {
        let world = try OTPlessWorld(merchant: OTPlessMerchant(phoneChannels: [.sms], silentAuthEnabled: true))
        world.backend.failSilentAuth(for: phone.e164)
        let provider = try world.provider()
        let log = RecordingSubscriber()
        let context = world.context(events: log.sink())
        let challenge = try #require(try await provider.start(.phone(phone), context: context).challenge)
        let next = try #require(
            try await provider.respond(to: challenge, with: ChallengeAnswer(code: ""), context: context).challenge)
        #expect(next.kind == .oneTimeCode(length: 6, channel: .sms, linkAlsoSent: false))
        #expect(next.flowID == challenge.flowID)
        guard
            case .fallbackTriggered(let from, let to)? = log.events.map(\.kind).first(where: {
                $0.name == "fallbackTriggered"
            })
        else {
            Issue.record("no fallback event")
            return
        }
        #expect(from == .silentNetworkAuth && to == .sms)
        let lapse = try #require(world.requests(containing: "silent-auth-status").last)
        #expect(lapse.url.query?.contains("lapseMeta") == true)
        let code = try #require(world.latest(phone.e164, channel: .sms)?.code)
        #expect(
            try await provider.respond(to: next, with: ChallengeAnswer(code: code), context: context).session != nil)
    }

    @Test func silentNetworkAuthWithEveryFallbackFailingEndsWith9106() async throws {
        let world = try OTPlessWorld(
            merchant: OTPlessMerchant(phoneChannels: [.whatsapp, .sms], silentAuthEnabled: true))
        world.backend.failSilentAuth(for: phone.e164)
        world.failDelivery(on: .whatsapp)
        world.failDelivery(on: .sms)
        let provider = try world.provider()
        let context = world.context()
        let challenge = try #require(try await provider.start(.phone(phone), context: context).challenge)
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.respond(to: challenge, with: ChallengeAnswer(code: ""), context: context)
        }
        #expect(error?.code == .channelUnavailable)
        #expect(error?.providerCode == "9106")
    }

    @Test func silentNetworkAuthWithoutFallbackEndsWith7161() async throws {
        let world = try OTPlessWorld(merchant: OTPlessMerchant(phoneChannels: [.sms], silentAuthEnabled: true))
        world.backend.failSilentAuth(for: phone.e164)
        let provider = try world.provider()
        let context = world.context()
        var challenge = try #require(try await provider.start(.phone(phone), context: context).challenge)
        // Simulate a merchant without SmartAuth fallback for this transaction.
        world.inject(OTPlessPath.silentAuthStatus, try .json(200, ["authDetail": ["status": "FAILED"]]))
        world.inject(OTPlessPath.silentAuthStatus, try .json(200, ["authDetail": ["status": "FAILED"]]))
        challenge.attemptsRemaining = nil
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.respond(to: challenge, with: ChallengeAnswer(code: ""), context: context)
        }
        #expect(error?.code == .channelUnavailable)
        #expect(error?.providerCode == "7161")
    }

    @Test func silentNetworkAuthPollsInMillisecondsOnTheClock() async throws {
        let world = try OTPlessWorld(merchant: OTPlessMerchant(silentAuthEnabled: true))
        let provider = try world.provider()
        let context = world.context()
        let challenge = try #require(try await provider.start(.phone(phone), context: context).challenge)
        // Pending twice, then the backend answers (carrier verified).
        world.inject(OTPlessPath.silentAuthStatus, try .json(200, ["authDetail": ["status": "PENDING"]]))
        world.inject(OTPlessPath.silentAuthStatus, try .json(200, ["authDetail": ["status": "PENDING"]]))
        async let result = provider.respond(to: challenge, with: ChallengeAnswer(code: ""), context: context)
        await world.clock.waitForSleepers(count: 1)
        world.clock.advance(by: .milliseconds(199))
        #expect(world.clock.sleeperCount == 1)
        world.clock.advance(by: .milliseconds(1))
        await world.clock.waitForSleepers(count: 1)
        world.clock.advance(by: .milliseconds(200))
        #expect(try await result.session != nil)
    }

    @Test func magicLinkIsAcceptedOnceThroughTheDeepLink() async throws {
        let world = try OTPlessWorld(merchant: OTPlessMerchant(emailAuthType: .magicLink))
        let provider = try world.provider()
        let client = try AuthClient(providers: [provider], transport: world.transport, time: world.time)
        let challenge = try #require(try await client.signIn(with: .otpless, .email(email)).challenge)
        #expect(challenge.kind == .magicLink(channel: .email))
        let link = try #require(world.latest(email.identityKey)?.link)
        #expect(link.scheme == "otpless.sandboxapp")
        #expect(provider.canHandle(link))
        let session = try #require(try await client.handleRedirect(link)?.session)
        // A replay through the client returns the same result without a network call.
        let before = world.requestCount
        #expect(try await client.handleRedirect(link)?.session == session)
        #expect(world.requestCount == before)
        // Straight to the provider, the code is single use.
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.handleRedirect(link, pending: challenge, context: world.context())
        }
        #expect(error?.code == .codeAlreadyUsed)
    }

    @Test func deepLinkOfAnotherAppOrWithoutPendingFlowIsRefused() async throws {
        let world = try OTPlessWorld(merchant: OTPlessMerchant(emailAuthType: .magicLink))
        let provider = try world.provider()
        let other = URL(string: "otpless.otherapp://otpless?code=abc")!
        #expect(!provider.canHandle(other))
        #expect(!provider.canHandle(URL(string: "https://otpless.com/?code=abc")!))
        #expect(provider.canHandle(URL(string: "OTPLESS.SandboxApp://otpless?CODE=abc")!))
        let client = try AuthClient(providers: [provider], transport: world.transport, time: world.time)
        #expect(try await client.handleRedirect(other) == nil)
        let before = world.requestCount
        let error = await #expect(throws: AuthError.self) {
            _ = try await client.handleRedirect(URL(string: "otpless.sandboxapp://otpless?code=abc")!)
        }
        #expect(error?.code == .challengeNotPending)
        #expect(world.requestCount == before)
    }

    @Test func oauthReturnsTheIntentURLAndCompletesByDeepLink() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let client = try AuthClient(providers: [provider], transport: world.transport, time: world.time)
        let challenge = try #require(try await client.signIn(with: .otpless, .oauth(.google)).challenge)
        guard case .oauthRedirect(let url) = challenge.kind else {
            Issue.record("not a redirect")
            return
        }
        #expect(url.host == OTPlessBackend.issuerHost)
        let link = try #require(world.latest("oauth:google")?.link)
        let session = try #require(try await client.handleRedirect(link)?.session)
        #expect(session.user.identities.first?.kind == "email")
    }

    @Test func otpLinkGivesACodeChallengeWithTheLinkAlsoSent() async throws {
        let world = try OTPlessWorld(merchant: OTPlessMerchant(phoneAuthType: .otpLink))
        let provider = try world.provider()
        let challenge = try #require(
            try await provider.start(.phone(phone, channel: .sms), context: world.context()).challenge)
        #expect(challenge.kind == .oneTimeCode(length: 6, channel: .sms, linkAlsoSent: true))
        let message = try #require(world.latest(phone.e164, channel: .sms))
        #expect(message.code != nil && message.link != nil)
    }

    @Test func resendBeforeTheCooldownIsRefusedAndAfterItANewCodeArrives() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let client = try AuthClient(providers: [provider], transport: world.transport, time: world.time)
        let challenge = try #require(try await client.signIn(with: .otpless, .phone(phone, channel: .sms)).challenge)
        let early = await #expect(throws: AuthError.self) { _ = try await client.resend(challenge) }
        #expect(early?.code == .rateLimited)
        #expect(early?.retryAfter == .seconds(30))
        world.clock.advance(by: .seconds(30))
        let first = try #require(world.latest(phone.e164)?.code)
        let resent = try await client.resend(challenge)
        #expect(world.deliveries.count == 2)
        #expect(resent.flowID == challenge.flowID)
        let code = try #require(world.latest(phone.e164)?.code)
        _ = first
        #expect(try await client.submit(ChallengeAnswer(code: code), for: resent).session != nil)
    }

    @Test func idTokenOfAnOTPSignInVerifiesThroughJWKS() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let context = world.context()
        let challenge = try #require(try await provider.start(.phone(phone, channel: .sms), context: context).challenge)
        let code = try #require(world.latest(phone.e164)?.code)
        let session = try #require(
            try await provider.respond(to: challenge, with: ChallengeAnswer(code: code), context: context).session)
        let verifier = OTPlessTokenVerifier(
            clientID: world.backend.merchant.clientID, clientSecret: world.backend.merchant.clientSecret.reveal(),
            baseURL: OTPlessConfiguration.sandboxBaseURL, issuer: OTPlessTokenVerifier.sandboxIssuer,
            transport: world.transport, time: world.time)
        let jwt = try await verifier.verifyIDToken(try #require(session.credentials.idToken).reveal())
        #expect(jwt.claims.subject == session.user.id)
        let user = try await verifier.validate(token: try #require(session.credentials.accessToken).reveal())
        #expect(user.id == session.user.id)
        #expect(user.phone == phone)
        // Sign-out deletes the session once and is idempotent.
        try await provider.signOut(session, context: context)
        try await provider.signOut(session, context: context)
    }
}

/// A minimal JSON value for reading request bodies in tests.
enum AnyJSON: Decodable, Equatable {
    case string(String)
    case bool(Bool)
    case number(Double)
    case other
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            self = .other
        }
    }
}
