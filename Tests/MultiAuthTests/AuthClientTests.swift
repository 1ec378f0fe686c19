import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(10)))
struct AuthClientTests {
    let email = try! EmailAddress("user@example.com")

    @Test func happyPathPersistsBeforePublishingAndOrdersEvents() async throws {
        let fixture = ClientWorld()
        let stream = fixture.client.events.subscribe()
        let step = try await fixture.client.signIn(with: "fake", .email(email))
        let challenge = try #require(step.challenge)
        #expect(challenge.kind == .oneTimeCode(length: 6, channel: .email, linkAlsoSent: false))
        #expect(challenge.destination == "u•••@example.com")
        let code = await fixture.code(for: challenge)
        let done = try await fixture.client.submit(
            ChallengeAnswer(code: " \(code.prefix(3)) \(code.dropFirst(3))\n"), for: challenge)
        let session = try #require(done.session)
        #expect(try await fixture.store.load(for: "fake") == session)

        var names: [String] = []
        var sequences: [UInt64] = []
        for await event in stream {
            names.append(event.kind.name)
            sequences.append(event.sequence)
            if case .signedIn = event.kind { break }
        }
        #expect(names == ["flowStarted", "deliveryStatus", "challengeIssued", "signedIn"])
        #expect(sequences == [1, 2, 3, 4])
    }

    @Test func sessionIsStoredWhenSignedInIsObserved() async throws {
        let fixture = ClientWorld()
        let store = fixture.store
        let stream = fixture.client.events.subscribe()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let code = await fixture.code(for: challenge)
        async let result = fixture.client.submit(ChallengeAnswer(code: code), for: challenge)
        var storedAtEvent: AuthSession?
        for await event in stream {
            if case .signedIn = event.kind {
                storedAtEvent = try await store.load(for: "fake")
                break
            }
        }
        _ = try await result
        #expect(storedAtEvent != nil)
    }

    @Test(arguments: ["12345", "12345a", "1234567", "", "   ", "①②③④⑤⑥"])
    func malformedCodeIsRejectedLocally(_ code: String) async throws {
        let fixture = ClientWorld()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let before = await fixture.server.totalCalls
        let error = await #expect(throws: AuthError.self) {
            _ = try await fixture.client.submit(ChallengeAnswer(code: code), for: challenge)
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.reason == .invalidCodeFormat)
        #expect(await fixture.server.totalCalls == before)
        #expect(await fixture.server.attempts[challenge.providerState[revealing: "flow"]!] == 3)
    }

    @Test func expiredChallengeIsRefusedWithoutNetwork() async throws {
        let fixture = ClientWorld()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        fixture.clock.advance(by: .seconds(300))
        let before = await fixture.server.totalCalls
        let error = await #expect(throws: AuthError.self) {
            _ = try await fixture.client.submit(ChallengeAnswer(code: "123456"), for: challenge)
        }
        #expect(error?.code == .expired)
        #expect(await fixture.server.totalCalls == before)
    }

    @Test func wrongCodeKeepsChallengeUsableAndSessionUntouched() async throws {
        let existing = FakeProvider.session(
            provider: "fake", access: "OLD", refresh: "OLD-R", at: Date(timeIntervalSince1970: 1_700_000_000))
        let fixture = ClientWorld(sessions: [existing])
        let stream = fixture.client.events.subscribe()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let code = await fixture.code(for: challenge)
        let wrong = code == "000000" ? "111111" : "000000"
        let error = await #expect(throws: AuthError.self) {
            _ = try await fixture.client.submit(ChallengeAnswer(code: wrong), for: challenge)
        }
        #expect(error?.code == .invalidCode)
        #expect(error?.attemptsRemaining == 2)
        #expect(error?.providerCode == "invalid_code")
        #expect(try await fixture.store.load(for: "fake") == existing)
        #expect(await fixture.client.pendingChallenge(for: "fake")?.attemptsRemaining == 2)
        let session = try #require(try await fixture.client.submit(ChallengeAnswer(code: code), for: challenge).session)
        #expect(session.credentials.accessToken == "A1")
        var names: [String] = []
        for await event in stream {
            names.append(event.kind.name)
            if event.kind.name == "signedIn" { break }
        }
        #expect(names.contains("codeRejected"))
    }

    @Test func attemptsExhaustedEndsTheChallenge() async throws {
        let fixture = ClientWorld()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let code = await fixture.code(for: challenge)
        let wrong = code == "000000" ? "111111" : "000000"
        for _ in 0..<2 { _ = try? await fixture.client.submit(ChallengeAnswer(code: wrong), for: challenge) }
        let error = await #expect(throws: AuthError.self) {
            _ = try await fixture.client.submit(ChallengeAnswer(code: wrong), for: challenge)
        }
        #expect(error?.code == .attemptsExhausted)
        #expect(await fixture.client.pendingChallenge(for: "fake") == nil)
    }

    @Test func storageFailureThenRetryFinishesWithoutNetwork() async throws {
        let fixture = ClientWorld()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let code = await fixture.code(for: challenge)
        await fixture.store.failNext(.save)
        let error = await #expect(throws: AuthError.self) {
            _ = try await fixture.client.submit(ChallengeAnswer(code: code), for: challenge)
        }
        #expect(error?.code == .storageFailure)
        #expect(try await fixture.store.load(for: "fake") == nil)
        let verifies = await fixture.server.count("verify")
        let session = try #require(try await fixture.client.submit(ChallengeAnswer(code: code), for: challenge).session)
        #expect(await fixture.server.count("verify") == verifies)
        #expect(try await fixture.store.load(for: "fake") == session)
    }

    @Test func newStartCancelsPendingStart() async throws {
        let fixture = ClientWorld()
        await fixture.server.setStartDelay(.seconds(5))
        let log = RecordingSubscriber(client: fixture.client)
        let first = Task { try await fixture.client.signIn(with: "fake", .email(email)) }
        await fixture.clock.waitForSleepers(count: 1)
        await fixture.server.setStartDelay(nil)
        let second = try await fixture.client.signIn(with: "fake", .email(email))
        #expect(second.challenge != nil)
        await #expect(throws: CancellationError.self) { _ = try await first.value }
        _ = await log.waitFor(count: 4)
        let events = log.events
        log.cancel()
        let cancelled = try #require(events.first { $0.kind.name == "flowCancelled" })
        #expect(events.filter { $0.flowID == cancelled.flowID }.map(\.kind.name) == ["flowStarted", "flowCancelled"])
        #expect(await fixture.client.pendingChallenge(for: "fake")?.flowID == second.challenge?.flowID)
    }

    @Test func submitInFlightIsNotCancelledByNewStart() async throws {
        let fixture = ClientWorld()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let code = await fixture.code(for: challenge)
        await fixture.server.setRespondDelay(.seconds(2))
        let submit = Task { try await fixture.client.submit(ChallengeAnswer(code: code), for: challenge) }
        await fixture.clock.waitForSleepers(count: 1)
        await fixture.server.setRespondDelay(nil)
        _ = try await fixture.client.signIn(with: "fake", .email(email))
        fixture.clock.advance(by: .seconds(2))
        let session = try await submit.value.session
        #expect(session?.credentials.accessToken == "A1")
    }

    @Test func cancellationSurfacesAndNothingFollowsFlowCancelled() async throws {
        let fixture = ClientWorld()
        await fixture.server.setStartDelay(.seconds(10))
        let log = RecordingSubscriber(client: fixture.client)
        let task = Task { try await fixture.client.signIn(with: "fake", .email(email)) }
        await fixture.clock.waitForSleepers(count: 1)
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        fixture.clock.advance(by: .seconds(20))
        _ = await log.waitFor(count: 2)
        #expect(log.kinds == ["flowStarted", "flowCancelled"])
        #expect(try await fixture.store.load(for: "fake") == nil)
        #expect(await fixture.client.pendingChallenge(for: "fake") == nil)
        log.cancel()
    }

    @Test func unknownProviderIsAConfigurationError() async throws {
        let fixture = ClientWorld()
        let error = await #expect(throws: AuthError.self) {
            _ = try await fixture.client.signIn(with: "nope", .email(email))
        }
        #expect(error?.code == .configuration)
        #expect(throws: AuthError.self) {
            _ = try AuthClient(providers: [fixture.provider, fixture.provider], transport: NoNetworkTransport())
        }
    }

    @Test func resendBeforeAvailableIsRateLimitedWithRetryAfter() async throws {
        let fixture = ClientWorld()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        fixture.clock.advance(by: .seconds(10))
        let starts = await fixture.server.count("start")
        let error = await #expect(throws: AuthError.self) { _ = try await fixture.client.resend(challenge) }
        #expect(error?.code == .rateLimited)
        #expect(error?.retryAfter == .seconds(20))
        #expect(await fixture.server.count("start") == starts)
        fixture.clock.advance(by: .seconds(20))
        let updated = try await fixture.client.resend(challenge)
        #expect(updated.resendAvailableAt == fixture.clock.wallNow.addingTimeInterval(30))
        #expect(await fixture.server.count("start") == starts + 1)
    }

    @Test func signOutIsIdempotentAndPublishesOnce() async throws {
        let session = FakeProvider.session(
            provider: "fake", access: "A", refresh: "R", at: Date(timeIntervalSince1970: 1_700_000_000))
        let fixture = ClientWorld(sessions: [session])
        let log = RecordingSubscriber(client: fixture.client)
        let first = try await fixture.client.signOut("fake")
        let second = try await fixture.client.signOut("fake")
        #expect(first.wasSignedIn && !second.wasSignedIn)
        #expect(try await fixture.store.load(for: "fake") == nil)
        #expect(await fixture.server.count("signOut") == 1)
        fixture.client.events.finish()
        _ = await log.waitFor(count: .max)  // until the bus finishes
        #expect(log.kinds == ["signedOut"])
    }

    @Test func signOutKeepsSessionWhenStoreFails() async throws {
        let session = FakeProvider.session(
            provider: "fake", access: "A", refresh: "R", at: Date(timeIntervalSince1970: 1_700_000_000))
        let fixture = ClientWorld(sessions: [session])
        await fixture.store.failNext(.load)
        let error = await #expect(throws: AuthError.self) { try await fixture.client.signOut("fake") }
        #expect(error?.code == .storageUnavailable)
        #expect(try await fixture.store.load(for: "fake") == session)
    }

    @Test func redirectsAreRoutedStateCheckedAndReplayed() async throws {
        let fixture = ClientWorld()
        #expect(try await fixture.client.handleRedirect(URL(string: "https://elsewhere.example/cb?code=1")!) == nil)
        let stale = await #expect(throws: AuthError.self) {
            _ = try await fixture.client.handleRedirect(URL(string: "fake://fake/cb?state=unknown")!)
        }
        #expect(stale?.code == .challengeNotPending)
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let url = URL(string: "fake://fake/cb?state=\(challenge.flowID.rawValue)")!
        let session = try #require(try await fixture.client.handleRedirect(url)?.session)
        let redirects = await fixture.server.count("redirect")
        let replay = try #require(try await fixture.client.handleRedirect(url)?.session)
        #expect(replay == session)
        #expect(await fixture.server.count("redirect") == redirects)
    }

    @Test func pendingChallengeSurvivesEncodingIntoAFreshClient() async throws {
        let fixture = ClientWorld()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let data = try JSONEncoder.multiAuth.encode(challenge)
        let restored = try JSONDecoder.multiAuth.decode(Challenge.self, from: data)
        #expect(restored == challenge)
        let fresh = try AuthClient(
            providers: [fixture.provider], store: fixture.store, transport: NoNetworkTransport(),
            time: fixture.clock.timeSource)
        let code = await fixture.code(for: challenge)
        let session = try await fresh.submit(ChallengeAnswer(code: code), for: restored).session
        #expect(session != nil)
    }

    @Test func aCancelledFlowsChallengeIsRefusedWithoutNetwork() async throws {
        let fixture = ClientWorld()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let code = await fixture.code(for: challenge)
        await fixture.client.cancelFlow(for: "fake")
        let verifies = await fixture.server.count("verify")
        let error = await #expect(throws: AuthError.self) {
            _ = try await fixture.client.submit(ChallengeAnswer(code: code), for: challenge)
        }
        #expect(error?.code == .challengeNotPending)
        let resend = await #expect(throws: AuthError.self) { _ = try await fixture.client.resend(challenge) }
        #expect(resend?.code == .challengeNotPending)
        #expect(await fixture.server.count("verify") == verifies)
        #expect(try await fixture.store.load(for: "fake") == nil)
    }

    @Test func signOutAbandonsEveryEarlierFlowIncludingASubmitInFlight() async throws {
        let existing = FakeProvider.session(
            provider: "fake", access: "OLD", refresh: "OLD-R", at: Date(timeIntervalSince1970: 1_700_000_000))
        let fixture = ClientWorld(sessions: [existing])
        let first = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let second = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let code = await fixture.code(for: second)
        await fixture.server.setRespondDelay(.seconds(1))
        let client = fixture.client
        let inFlight = Task { try await client.submit(ChallengeAnswer(code: code), for: second) }
        await fixture.clock.waitForSleepers(count: 1)
        await fixture.server.setRespondDelay(nil)
        try await fixture.client.signOut("fake")
        fixture.clock.advance(by: .seconds(1))
        let error = await #expect(throws: AuthError.self) { _ = try await inFlight.value }
        #expect(error?.code == .challengeNotPending)
        #expect(try await fixture.store.load(for: "fake") == nil)
        let older = await #expect(throws: AuthError.self) {
            _ = try await fixture.client.submit(ChallengeAnswer(code: await fixture.code(for: first)), for: first)
        }
        #expect(older?.code == .challengeNotPending)
        // A new flow after the sign-out works.
        let fresh = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        #expect(
            try await fixture.client.submit(ChallengeAnswer(code: await fixture.code(for: fresh)), for: fresh).session
                != nil)
    }

    @Test func providersHearWhenTheirFlowsEnd() async throws {
        let fixture = ClientWorld()
        let cancelled = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        await fixture.client.cancelFlow(for: "fake")
        #expect(fixture.provider.ended.all == [cancelled.flowID])
        let signedIn = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        _ = try await fixture.client.submit(ChallengeAnswer(code: await fixture.code(for: signedIn)), for: signedIn)
        #expect(fixture.provider.ended.all == [cancelled.flowID, signedIn.flowID])
    }

    @Test func resendOfAnExpiredChallengeIsRefusedLocally() async throws {
        let fixture = ClientWorld()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        fixture.clock.advance(by: .seconds(400))
        let starts = await fixture.server.count("start")
        let error = await #expect(throws: AuthError.self) { _ = try await fixture.client.resend(challenge) }
        #expect(error?.code == .expired)
        #expect(await fixture.server.count("start") == starts)
    }

    @Test func theRetryAfterAStorageFailureStillChecksTheAnswerFormat() async throws {
        let fixture = ClientWorld()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let code = await fixture.code(for: challenge)
        await fixture.store.failNext(.save)
        _ = try? await fixture.client.submit(ChallengeAnswer(code: code), for: challenge)
        let error = await #expect(throws: AuthError.self) {
            _ = try await fixture.client.submit(ChallengeAnswer(code: "garbage"), for: challenge)
        }
        #expect(error?.reason == .invalidCodeFormat)
        #expect(try await fixture.client.submit(ChallengeAnswer(code: code), for: challenge).session != nil)
    }

    @Test func twoClientsNeverShareSubscribers() async throws {
        let a = ClientWorld()
        let b = ClientWorld()
        let streamB = b.client.events.subscribe()
        _ = try await a.client.signIn(with: "fake", .email(email))
        b.client.events.finish()
        var received = 0
        for await _ in streamB { received += 1 }
        #expect(received == 0)
    }
}
