import Foundation
import MultiAuthSandbox
import Testing

@testable import MultiAuth

/// Background refresh (``AutoRefresh``): due time, back-off with jitter and `retryAfter`,
/// stopping, and no task left behind.
@Suite(.timeLimit(.minutes(10)))
struct AutoRefreshTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    func fixture(policy: AutoRefresh = AutoRefresh(jitterSeed: 7)) -> ClientWorld {
        ClientWorld(
            sessions: [FakeProvider.session(provider: "fake", access: "A1", refresh: "R1", at: start)],
            autoRefresh: policy)
    }

    @Test func refreshesAtExpiryMinusTheMarginOnTheClock() async throws {
        let fixture = fixture()
        let log = RecordingSubscriber(client: fixture.client)
        await fixture.client.restoreSessions()
        await fixture.clock.waitForBackgroundSleepers(count: 1)
        #expect(fixture.clock.sleeperCount == 0)  // background sleeps are counted apart
        fixture.clock.advance(by: .seconds(3600 - 61))
        #expect(await fixture.server.refreshRequests.isEmpty)
        fixture.clock.advance(by: .seconds(1))
        _ = await log.waitFor(count: 2)
        #expect(log.kinds == ["sessionRestored", "sessionRefreshed"])
        #expect(await fixture.server.refreshRequests == ["R1"])
        // The next refresh is scheduled for the new session.
        await fixture.clock.waitForBackgroundSleepers(count: 1)
        #expect(fixture.client.autoRefreshTaskCount == 1)
        log.cancel()
    }

    @Test func transientFailuresBackOffWithJitterNeverBeforeRetryAfter() async throws {
        let fixture = fixture()
        await fixture.server.failNextRefresh(with: AuthError(.rateLimited, "429", retryAfter: .seconds(30)))
        await fixture.server.failNextRefresh(with: AuthError(.providerUnavailable, "503"))
        let log = RecordingSubscriber(client: fixture.client)
        await fixture.client.restoreSessions()
        await fixture.clock.waitForBackgroundSleepers(count: 1)
        fixture.clock.advance(by: .seconds(3600 - 60))
        await settle { await fixture.server.refreshRequests.count == 1 }
        await fixture.clock.waitForBackgroundSleepers(count: 1)
        // First retry: the back-off (2 s jittered into [1, 2]) is shorter than retryAfter.
        fixture.clock.advance(by: .seconds(29))
        for _ in 0..<100 { await Task.yield() }
        #expect(await fixture.server.refreshRequests.count == 1)
        fixture.clock.advance(by: .seconds(1))
        await settle { await fixture.server.refreshRequests.count == 2 }
        await fixture.clock.waitForBackgroundSleepers(count: 1)
        // Second retry: 4 s jittered into [2, 4].
        fixture.clock.advance(by: .seconds(4))
        _ = await log.waitFor(count: 2)
        #expect(log.kinds == ["sessionRestored", "sessionRefreshed"])
        #expect(await fixture.server.refreshRequests == ["R1", "R1", "R1"])
        log.cancel()
    }

    @Test func jitterIsDeterministicForASeedAndStaysInItsBounds() {
        let policy = AutoRefresh(initialBackoff: .seconds(2), maximumBackoff: .seconds(60), jitterSeed: 42)
        let clock = ManualClock()
        let a = AutoRefreshScheduler(policy: policy, margin: .seconds(60), time: clock.timeSource)
        let b = AutoRefreshScheduler(policy: policy, margin: .seconds(60), time: clock.timeSource)
        for failures in 1...10 {
            let delay = a.backoff(failures: failures, retryAfter: nil)
            #expect(delay == b.backoff(failures: failures, retryAfter: nil))
            let base = min(Duration.seconds(60), .seconds(2) * (1 << (failures - 1)))
            #expect(delay >= base / 2 && delay <= base)
        }
        #expect(a.backoff(failures: 1, retryAfter: .seconds(90)) == .seconds(90))
    }

    @Test func dueDateIsExpiryMinusMarginUnlessTheLifetimeEndsFirst() {
        var session = FakeProvider.session(provider: "fake", access: "A", refresh: "R", at: start)
        #expect(AutoRefreshScheduler.dueDate(of: session, margin: .seconds(60)) == start.addingTimeInterval(3540))
        session.maximumLifetimeEndsAt = start.addingTimeInterval(1800)
        #expect(AutoRefreshScheduler.dueDate(of: session, margin: .seconds(60)) == nil)
        session.maximumLifetimeEndsAt = nil
        session.credentials.expiresAt = nil
        #expect(AutoRefreshScheduler.dueDate(of: session, margin: .seconds(60)) == nil)
    }

    @Test func signOutRevocationAndAnExplicitStopEndTheScheduler() async throws {
        let fixture = fixture()
        await fixture.client.restoreSessions()
        await fixture.clock.waitForBackgroundSleepers(count: 1)
        try await fixture.client.signOut("fake")
        await settle { fixture.clock.backgroundSleeperCount == 0 && fixture.client.autoRefreshTaskCount == 0 }
        #expect(fixture.clock.backgroundSleeperCount == 0)
        #expect(fixture.client.autoRefreshTaskCount == 0)

        try await fixture.store.save(FakeProvider.session(provider: "fake", access: "A1", refresh: "R1", at: start))
        await fixture.client.restoreSessions()
        await fixture.clock.waitForBackgroundSleepers(count: 1)
        fixture.client.stopAutoRefresh()
        await settle { fixture.client.autoRefreshTaskCount == 0 }
        #expect(fixture.client.autoRefreshTaskCount == 0)

        // Revoked: the background refresh ends the session once and stops.
        fixture.client.startAutoRefresh()
        await fixture.server.revokeRefreshToken("R1")
        let log = RecordingSubscriber(client: fixture.client)
        fixture.clock.advance(by: .seconds(3600))
        _ = await log.waitFor(count: 1)
        #expect(log.kinds == ["sessionExpired"])
        await settle { fixture.client.autoRefreshTaskCount == 0 }
        #expect(fixture.client.autoRefreshTaskCount == 0)
        log.cancel()
    }

    @Test func releasingTheClientStopsItsScheduler() async throws {
        let clock = ManualClock()
        let server = FakeServer(clock: clock)
        let store = InMemorySessionStore(sessions: [
            FakeProvider.session(provider: "fake", access: "A1", refresh: "R1", at: start)
        ])
        var client: AuthClient? = try AuthClient(
            providers: [FakeProvider(server: server)], store: store, transport: NoNetworkTransport(),
            time: clock.timeSource)
        await client?.restoreSessions()
        await clock.waitForBackgroundSleepers(count: 1)
        weak let released = client
        client = nil
        #expect(released == nil)
        await settle { clock.backgroundSleeperCount == 0 }
        #expect(clock.backgroundSleeperCount == 0)
    }

    @Test func disabledMeansNoBackgroundWork() async throws {
        let fixture = fixture(policy: .disabled)
        await fixture.client.restoreSessions()
        fixture.client.startAutoRefresh()
        for _ in 0..<100 { await Task.yield() }
        #expect(fixture.clock.backgroundSleeperCount == 0)
        #expect(fixture.client.autoRefreshTaskCount == 0)
    }

    /// No per-session task leak: 10,000 sign-in/sign-out cycles leave at most one scheduler
    /// task (and one background sleep) alive at any time, and none after the last sign-out.
    @Test func tenThousandSessionCyclesKeepTheTaskCountBounded() async throws {
        let fixture = fixture()
        var peak = 0
        for cycle in 0..<10_000 {
            var session = FakeProvider.session(
                provider: "fake", access: "A\(cycle)", refresh: "R\(cycle)", at: fixture.clock.wallNow)
            session.id = "session-\(cycle)"
            try await fixture.store.save(session)
            await fixture.client.restoreSessions()
            peak = max(peak, fixture.client.autoRefreshTaskCount)
            try await fixture.client.signOut("fake")
            peak = max(peak, fixture.client.autoRefreshTaskCount, fixture.clock.backgroundSleeperCount)
        }
        await settle { fixture.client.autoRefreshTaskCount == 0 && fixture.clock.backgroundSleeperCount == 0 }
        // A replaced task may still be noticing its cancellation when the next one starts, so
        // the bound is small, not 1; a leak would reach 10,000.
        #expect(peak < 64, "peak \(peak) scheduler tasks")
        #expect(fixture.client.autoRefreshTaskCount == 0)
        #expect(fixture.clock.backgroundSleeperCount == 0)
    }
}
