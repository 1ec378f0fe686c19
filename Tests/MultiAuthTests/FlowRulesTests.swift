import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

/// One submit in flight per challenge, finished challenges, `attemptsExhausted`, and
/// single-flight redirects.
@Suite(.timeLimit(.minutes(10)))
struct FlowRulesTests {
    let email = try! EmailAddress("user@example.com")

    @Test func sixteenConcurrentSubmitsOfOneCodeMakeOneVerifyCall() async throws {
        let fixture = ClientWorld()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let code = await fixture.code(for: challenge)
        await fixture.server.setRespondDelay(.seconds(1))
        let client = fixture.client
        let submits = (0..<16).map { _ in Task { try await client.submit(ChallengeAnswer(code: code), for: challenge) }
        }
        await fixture.clock.waitForSleepers(count: 1)
        for _ in 0..<50 { await Task.yield() }
        fixture.clock.advance(by: .seconds(1))
        var sessions: [AuthSession] = []
        for submit in submits { sessions.append(try #require(try await submit.value.session)) }
        #expect(Set(sessions).count == 1)
        #expect(await fixture.server.count("verify") == 1)
    }

    @Test func aDifferentCodeWaitsForTheSubmitInFlight() async throws {
        let fixture = ClientWorld()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let code = await fixture.code(for: challenge)
        let wrong = code == "000000" ? "111111" : "000000"
        await fixture.server.setRespondDelay(.seconds(1))
        let client = fixture.client
        let first = Task { try await client.submit(ChallengeAnswer(code: wrong), for: challenge) }
        await fixture.clock.waitForSleepers(count: 1)
        await fixture.server.setRespondDelay(nil)
        let second = Task { try await client.submit(ChallengeAnswer(code: code), for: challenge) }
        for _ in 0..<50 { await Task.yield() }
        // The right code has not reached the server: it waits for the wrong one.
        #expect(await fixture.server.count("verify") == 1)
        fixture.clock.advance(by: .seconds(1))
        let error = await #expect(throws: AuthError.self) { _ = try await first.value }
        #expect(error?.attemptsRemaining == 2)
        #expect(try await second.value.session != nil)
        #expect(await fixture.server.count("verify") == 2)
    }

    /// A completed flow accepts only the answer that completed it.
    @Test func aCompletedFlowAcceptsOnlyItsOwnAnswer() async throws {
        let fixture = ClientWorld()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let code = await fixture.code(for: challenge)
        let session = try #require(try await fixture.client.submit(ChallengeAnswer(code: code), for: challenge).session)
        let calls = await fixture.server.totalCalls
        #expect(try await fixture.client.submit(ChallengeAnswer(code: " \(code) "), for: challenge).session == session)
        let wrong = code == "000000" ? "111111" : "000000"
        for answer in ["", "abc", wrong] {
            let error = await #expect(throws: AuthError.self) {
                _ = try await fixture.client.submit(ChallengeAnswer(code: answer), for: challenge)
            }
            #expect(error?.code == .challengeNotPending, "answer '\(answer)'")
        }
        #expect(await fixture.server.totalCalls == calls)
    }

    @Test func theLastWrongCodePublishesAttemptsExhaustedOnce() async throws {
        let fixture = ClientWorld()
        let log = RecordingSubscriber(client: fixture.client)
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let code = await fixture.code(for: challenge)
        let wrong = code == "000000" ? "111111" : "000000"
        for _ in 0..<3 { _ = try? await fixture.client.submit(ChallengeAnswer(code: wrong), for: challenge) }
        _ = try? await fixture.client.submit(ChallengeAnswer(code: wrong), for: challenge)
        fixture.client.events.finish()
        _ = await log.waitFor(count: .max)  // until the bus finishes
        let names = log.kinds
        #expect(names.filter { $0 == "attemptsExhausted" }.count == 1)
        #expect(names.last == "attemptsExhausted")
    }

    @Test func concurrentDeliveriesOfOneRedirectShareOneExchange() async throws {
        let fixture = ClientWorld()
        let challenge = try #require(try await fixture.client.signIn(with: "fake", .email(email)).challenge)
        let url = URL(string: "fake://fake/cb?state=\(challenge.flowID.rawValue)")!
        await fixture.server.setRedirectDelay(.seconds(1))
        let client = fixture.client
        let deliveries = (0..<4).map { _ in Task { try await client.handleRedirect(url) } }
        await fixture.clock.waitForSleepers(count: 1)
        for _ in 0..<50 { await Task.yield() }
        fixture.clock.advance(by: .seconds(1))
        var sessions: [AuthSession] = []
        for delivery in deliveries { sessions.append(try #require(try await delivery.value?.session)) }
        #expect(Set(sessions).count == 1)
        #expect(await fixture.server.count("redirect") == 1)
    }
}
