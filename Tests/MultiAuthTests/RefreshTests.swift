import Foundation
import MultiAuthSandbox
import Testing

@testable import MultiAuth

/// Docs/Cases.md, B17: concurrent callers share one refresh of a rotating refresh token.
@Suite(.timeLimit(.minutes(10)))
struct RefreshTests {
    func expiredFixture() -> ClientWorld {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let expired = FakeProvider.session(
            provider: "fake", access: "A1", refresh: "R1", at: start.addingTimeInterval(-7200))
        return ClientWorld(sessions: [expired])
    }

    @Test func fiveConcurrentCallersShareOneRefresh() async throws {
        let fixture = expiredFixture()
        await fixture.server.setRefreshDelay(.milliseconds(200))
        let client = fixture.client
        let results = Task {
            try await withThrowingTaskGroup(of: AuthSession?.self) { group in
                for _ in 0..<5 { group.addTask { try await client.validSession(for: "fake") } }
                var sessions: [AuthSession?] = []
                for try await session in group { sessions.append(session) }
                return sessions
            }
        }
        // Callers that join while the refresh sleeps share it; callers that arrive after it
        // find the refreshed session in the store. Either way there is exactly one request.
        await fixture.clock.waitForSleepers(count: 1)
        fixture.clock.advance(by: .milliseconds(200))
        let sessions = try await results.value
        #expect(sessions.count == 5)
        #expect(sessions.allSatisfy { $0?.credentials.accessToken == "A2" })
        #expect(await fixture.server.refreshRequests == ["R1"])
        #expect(try await fixture.store.load(for: "fake")?.credentials.refreshToken == "R2")
    }

    @Test func concurrentRefreshesOfOneSessionMakeOneRequest() async throws {
        let fixture = expiredFixture()
        await fixture.server.setRefreshDelay(.milliseconds(200))
        let stored = try #require(try await fixture.store.load(for: "fake"))
        let client = fixture.client
        let callers = (0..<5).map { _ in Task { try await client.refresh(stored) } }
        await fixture.clock.waitForSleepers(count: 1)
        while await client.refreshCallersInFlight < 5 { await Task.yield() }
        fixture.clock.advance(by: .milliseconds(200))
        for caller in callers { #expect(try await caller.value.credentials.accessToken == "A2") }
        #expect(await fixture.server.refreshRequests == ["R1"])
        #expect(await client.refreshCallersInFlight == 0)
    }

    @Test func aFailedRefreshIsNotCached() async throws {
        let fixture = expiredFixture()
        await fixture.server.failNextRefresh()
        let error = await #expect(throws: AuthError.self) { _ = try await fixture.client.validSession(for: "fake") }
        #expect(error?.code == .network)
        #expect(try await fixture.store.load(for: "fake")?.credentials.refreshToken == "R1")
        let session = try await fixture.client.validSession(for: "fake")
        #expect(session?.credentials.accessToken == "A2")
        #expect(await fixture.server.refreshRequests == ["R1", "R1"])
    }

    @Test func aSessionThatIsNotStoredIsNotRefreshed() async throws {
        let fixture = expiredFixture()
        await fixture.server.addRefreshToken("R9")
        let stored = try #require(try await fixture.store.load(for: "fake"))
        var other = stored
        other.credentials.refreshToken = "R9"
        // L2: refreshing a session the store does not hold spends nothing; the caller gets the
        // stored session.
        let result = try await fixture.client.refresh(other)
        #expect(result == stored)
        #expect(await fixture.server.refreshRequests.isEmpty)
        #expect(try await fixture.store.load(for: "fake") == stored)
    }

    @Test func aCallerWithAnAlreadyRotatedTokenGetsTheStoredSession() async throws {
        let fixture = expiredFixture()
        let stale = try #require(try await fixture.store.load(for: "fake"))
        let first = try await fixture.client.refresh(stale)
        // The shared refresh is over; a late caller still holds R1. Spending R1 again would be
        // rejected by a rotating provider and log the user out: it gets R2's session instead.
        let late = try await fixture.client.refresh(stale)
        #expect(late == first)
        #expect(await fixture.server.refreshRequests == ["R1"])
        #expect(try await fixture.store.load(for: "fake")?.credentials.refreshToken == "R2")
    }

    @Test func aLateValidSessionCallerDoesNotSignOut() async throws {
        let fixture = expiredFixture()
        let stale = try #require(try await fixture.store.load(for: "fake"))
        _ = try await fixture.client.validSession(for: "fake")
        // A caller that read the store before the refresh and refreshes after it.
        let session = try await fixture.client.refresh(stale)
        #expect(session.credentials.refreshToken == "R2")
        #expect(try await fixture.store.load(for: "fake") != nil)
        #expect(await fixture.server.refreshRequests == ["R1"])
    }

    @Test func aRejectedRefreshTokenEndsTheSessionOnce() async throws {
        let fixture = expiredFixture()
        await fixture.server.revokeRefreshToken("R1")
        let log = RecordingSubscriber(client: fixture.client)
        let error = await #expect(throws: AuthError.self) { _ = try await fixture.client.refresh("fake") }
        // `unauthorized` from an older provider is read as revocation and surfaces as
        // `sessionExpired`, raw code kept.
        #expect(error?.code == .sessionExpired)
        #expect(error?.providerCode == "invalid_grant")
        #expect(try await fixture.store.load(for: "fake") == nil)
        _ = await log.waitFor(count: 1)
        #expect(log.kinds == ["sessionExpired"])
        // A second caller finds nothing stored: not signed in, no second event.
        let again = await #expect(throws: AuthError.self) { _ = try await fixture.client.refresh("fake") }
        #expect(again?.code == .unauthorized)
        fixture.client.events.finish()
        _ = await log.waitFor(count: .max)  // until the bus finishes
        #expect(log.kinds == ["sessionExpired"])
    }

    @Test func aRejectedOldTokenNeverRemovesANewerSession() async throws {
        let fixture = expiredFixture()
        let old = try #require(try await fixture.store.load(for: "fake"))
        // A new sign-in replaced the stored session (another id, another refresh token).
        var replacement = FakeProvider.session(provider: "fake", access: "N1", refresh: "RN", at: fixture.clock.wallNow)
        replacement.id = "session-2"
        try await fixture.store.save(replacement)
        await fixture.server.revokeRefreshToken("R1")
        // L10: the refresh of the old sign-in is told it is no longer signed in; it is never
        // handed the newer sign-in's session.
        let error = await #expect(throws: AuthError.self) { _ = try await fixture.client.refresh(old) }
        #expect(error?.code == .unauthorized)
        #expect(await fixture.server.refreshRequests.isEmpty)
        #expect(try await fixture.store.load(for: "fake") == replacement)
    }

    @Test func storageUnavailableIsNotASignOut() async throws {
        let fixture = expiredFixture()
        await fixture.store.setUnavailable(true)
        let error = await #expect(throws: AuthError.self) { _ = try await fixture.client.validSession(for: "fake") }
        #expect(error?.code == .storageUnavailable)
        #expect(await fixture.server.refreshRequests.isEmpty)
        await fixture.store.setUnavailable(false)
        #expect(try await fixture.store.load(for: "fake")?.credentials.refreshToken == "R1")
    }
}
