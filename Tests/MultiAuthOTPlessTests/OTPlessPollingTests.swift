import Foundation
import MultiAuth
import MultiAuthOTPless
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(10)))
struct OTPlessPollingTests {
    @Test func pollingUsesTheServerTimerInSecondsAndStopsOnCancel() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        // Keep the transaction pending and undelivered so the poller keeps polling.
        for _ in 0..<3 { world.inject(OTPlessPath.statusPoll, try .json(200, ["authDetail": ["status": "PENDING"]])) }
        let challenge = try #require(try await provider.start(.phone(phone), context: world.context()).challenge)
        await world.clock.waitForSleepers(count: 1)
        #expect(provider.activePollerCount == 1)
        world.clock.advance(by: .milliseconds(2_999))
        #expect(world.requests(containing: "/transaction/status/").isEmpty)
        world.clock.advance(by: .milliseconds(1))
        await settle { world.requests(containing: "/transaction/status/").count == 1 }
        await world.clock.waitForSleepers(count: 1)
        #expect(world.requests(containing: "/transaction/status/").count == 1)
        provider.stopPolling(flowID: challenge.flowID)
        await settle { world.clock.sleeperCount == 0 }
        #expect(world.clock.sleeperCount == 0)
        #expect(provider.activePollerCount == 0)
    }

    @Test func theClientsCancelFlowAndSignInStopPolling() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        for _ in 0..<3 { world.inject(OTPlessPath.statusPoll, try .json(200, ["authDetail": ["status": "PENDING"]])) }
        let client = try AuthClient(providers: [provider], transport: world.transport, time: world.time)
        _ = try await client.signIn(with: .otpless, .phone(phone))
        await world.clock.waitForSleepers(count: 1)
        #expect(provider.activePollerCount == 1)
        await client.cancelFlow(for: .otpless)  // AuthProvider.flowEnded stops it
        await settle { world.clock.sleeperCount == 0 }
        #expect(world.clock.sleeperCount == 0)
        #expect(provider.activePollerCount == 0)
    }

    @Test func aNewStartStopsThePreviousFlowsPolling() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        for _ in 0..<3 { world.inject(OTPlessPath.statusPoll, try .json(200, ["authDetail": ["status": "PENDING"]])) }
        _ = try await provider.start(.phone(phone), context: world.context())
        await world.clock.waitForSleepers(count: 1)
        _ = try await provider.start(.email(email, channel: .email), context: world.context())
        await settle { world.clock.sleeperCount == 1 }
        #expect(world.clock.sleeperCount == 1)
        #expect(provider.activePollerCount == 1)
    }

    @Test func cancellingTheStartLeavesNoPollerOnTheClock() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let client = try AuthClient(providers: [provider], transport: world.transport, time: world.time)
        // Owned by this test; cancelled on the next line and awaited below, so it ends here.
        let task = Task { try await client.signIn(with: .otpless, .phone(phone)) }
        task.cancel()
        _ = await task.result
        await settle { world.clock.sleeperCount == 0 }
        #expect(world.clock.sleeperCount == 0)
        #expect(provider.activePollerCount == 0)
    }

    @Test func pollingEndsWhenTheCodeIsVerified() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        for _ in 0..<3 { world.inject(OTPlessPath.statusPoll, try .json(200, ["authDetail": ["status": "PENDING"]])) }
        let context = world.context()
        let challenge = try #require(try await provider.start(.phone(phone), context: context).challenge)
        await world.clock.waitForSleepers(count: 1)
        let code = try #require(world.latest(phone.e164)?.code)
        _ = try await provider.respond(to: challenge, with: ChallengeAnswer(code: code), context: context)
        await settle { world.clock.sleeperCount == 0 }
        #expect(world.clock.sleeperCount == 0)
    }

    @Test func pollingGivesUpAfterTheTimeout() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        for _ in 0..<40 { world.inject(OTPlessPath.statusPoll, try .json(200, ["authDetail": ["status": "PENDING"]])) }
        _ = try await provider.start(.phone(phone, options: ["expiry": "900"]), context: world.context())
        for _ in 0..<20 {
            await world.clock.waitForSleepers(count: 1)
            world.clock.advance(by: .seconds(3))
        }
        await settle { world.requests(containing: "/transaction/status/").count == 20 }
        await settle { world.clock.sleeperCount == 0 && provider.activePollerCount == 0 }
        #expect(world.clock.sleeperCount == 0)
        world.clock.advance(by: .seconds(3))
        #expect(world.requests(containing: "/transaction/status/").count == 20)
    }
}
