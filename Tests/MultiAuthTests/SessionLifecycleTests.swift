import Foundation
import MultiAuthSandbox
import Testing

@testable import MultiAuth

/// The refresh rules L1–L5 (Docs/Architecture.md, "Session lifecycle"), one test each at least.
@Suite(.timeLimit(.minutes(10)))
struct SessionLifecycleTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// A stored session whose access token expires in `remaining` seconds (R1, rotating).
    func fixture(remaining: TimeInterval = -7200) -> ClientWorld {
        let session = FakeProvider.session(
            provider: "fake", access: "A1", refresh: "R1", at: start, lifetime: remaining)
        return ClientWorld(sessions: [session])
    }

    @Test func l2AStaleRefreshResultIsDiscardedAndNeverAnswersWithAnotherSignIn() async throws {
        let fixture = fixture()
        let stale = try #require(try await fixture.store.load(for: "fake"))
        await fixture.server.setRefreshDelay(.seconds(1))
        let log = RecordingSubscriber(client: fixture.client)
        let client = fixture.client
        let refresh = Task { try await client.refresh(stale) }
        await fixture.clock.waitForSleepers(count: 1)
        // While it is in flight the user signs out and another user's session is stored.
        try await client.signOut("fake")
        var next = FakeProvider.session(provider: "fake", access: "B1", refresh: "RB", at: fixture.clock.wallNow)
        next.id = "session-b"
        try await fixture.store.save(next)
        fixture.clock.advance(by: .seconds(1))
        let error = await #expect(throws: AuthError.self) { _ = try await refresh.value }
        #expect(error?.code == .unauthorized, "L10: never the other sign-in's session")
        #expect(try await fixture.store.load(for: "fake") == next)
        fixture.client.events.finish()
        _ = await log.waitFor(count: .max)  // until the bus finishes
        #expect(log.kinds == ["signedOut"])
    }

    @Test func l2AResultForASessionSignedOutMeanwhileIsNotSignedIn() async throws {
        let fixture = fixture()
        let stale = try #require(try await fixture.store.load(for: "fake"))
        await fixture.server.setRefreshDelay(.seconds(1))
        let client = fixture.client
        let refresh = Task { try await client.refresh(stale) }
        await fixture.clock.waitForSleepers(count: 1)
        try await client.signOut("fake")
        fixture.clock.advance(by: .seconds(1))
        let error = await #expect(throws: AuthError.self) { _ = try await refresh.value }
        #expect(error?.code == .unauthorized)
        #expect(try await fixture.store.load(for: "fake") == nil)
    }

    @Test(arguments: [AuthError.Code.sessionExpired, .unauthorized])
    func l3ARevokedCredentialEndsTheSessionOnceForEveryCaller(_ code: AuthError.Code) async throws {
        let fixture = fixture()
        await fixture.server.setRefreshDelay(.seconds(1))
        await fixture.server.failNextRefresh(with: AuthError(code, "revoked", providerCode: "refresh_token_not_found"))
        let log = RecordingSubscriber(client: fixture.client)
        let client = fixture.client
        let callers = (0..<3).map { _ in Task { try await client.validSession(for: "fake") } }
        await fixture.clock.waitForSleepers(count: 1)
        while await client.refreshCallersInFlight < 3 { await Task.yield() }
        fixture.clock.advance(by: .seconds(1))
        for caller in callers {
            let error = await #expect(throws: AuthError.self) { _ = try await caller.value }
            #expect(error?.code == .sessionExpired)
            #expect(error?.providerCode == "refresh_token_not_found")
        }
        #expect(try await fixture.store.load(for: "fake") == nil)
        #expect(try await client.validSession(for: "fake") == nil)
        fixture.client.events.finish()
        _ = await log.waitFor(count: .max)  // until the bus finishes
        #expect(log.kinds == ["sessionExpired"])
        #expect(await fixture.server.refreshRequests == ["R1"])
    }

    static let transient: [AuthError] = [
        AuthError(.network, "offline"), AuthError(.providerUnavailable, "503", providerCode: "503"),
        AuthError(.rateLimited, "429", retryAfter: .seconds(30)),
    ]

    @Test(arguments: transient)
    func l4ATransientFailureKeepsTheSessionAndReturnsItWhileItsTokenIsValid(_ failure: AuthError) async throws {
        let fixture = fixture(remaining: 40)  // 40 s left: inside the 60 s margin
        let stored = try #require(try await fixture.store.load(for: "fake"))
        await fixture.server.failNextRefresh(with: failure)
        let log = RecordingSubscriber(client: fixture.client)
        #expect(try await fixture.client.validSession(for: "fake") == stored)
        #expect(try await fixture.store.load(for: "fake") == stored)
        // Expired and still failing: the transient error, never a sign-out.
        fixture.clock.advance(by: .seconds(41))
        await fixture.server.failNextRefresh(with: failure)
        let error = await #expect(throws: AuthError.self) { _ = try await fixture.client.validSession(for: "fake") }
        #expect(error?.code == failure.code)
        #expect(try await fixture.store.load(for: "fake") == stored)
        fixture.client.events.finish()
        _ = await log.waitFor(count: .max)  // until the bus finishes
        #expect(log.kinds.isEmpty)
    }

    @Test func l5ACredentialAnotherInstanceRotatedReturnsTheNewerSession() async throws {
        let fixture = fixture()
        let stored = try #require(try await fixture.store.load(for: "fake"))
        // A second client (an app extension) on the same store and server.
        let other = try AuthClient(
            providers: [fixture.provider], store: fixture.store, transport: NoNetworkTransport(),
            time: fixture.clock.timeSource, autoRefresh: .disabled)
        let log = RecordingSubscriber(client: other)
        await fixture.server.setRefreshDelay(.seconds(1))
        let loser = Task { try await other.refresh(stored) }
        await fixture.clock.waitForSleepers(count: 1)
        await fixture.server.setRefreshDelay(nil)
        let winner = try await fixture.client.refresh(stored)  // rotates R1 → R2 first
        fixture.clock.advance(by: .seconds(1))  // the loser's R1 is now rejected
        #expect(try await loser.value == winner)
        #expect(try await fixture.store.load(for: "fake") == winner)
        other.events.finish()
        _ = await log.waitFor(count: .max)  // until the bus finishes
        #expect(log.kinds.isEmpty)  // no signedOut, no sessionExpired
        #expect(await fixture.server.refreshRequests == ["R1", "R1"])
    }

    @Test func sessionExpiredIsAStateEventDistinctFromSignedOut() {
        let kind = AuthEvent.Kind.sessionExpired(AuthError(.sessionExpired, providerCode: "invalid_grant"))
        #expect(kind.isStateEvent)
        #expect(kind.name == "sessionExpired")
        #expect(kind.name != AuthEvent.Kind.signedOut.name)
        #expect(!AuthEvent.Kind.attemptsExhausted.isStateEvent)
    }

    @Test func anUnsupportedRefreshKeepsTheSessionAsItIs() async throws {
        let fixture = fixture()
        let stored = try #require(try await fixture.store.load(for: "fake"))
        await fixture.server.failNextRefresh(with: AuthError(.unsupported, "no refresh token"))
        #expect(try await fixture.client.validSession(for: "fake") == stored)
        #expect(try await fixture.store.load(for: "fake") == stored)
    }
}
