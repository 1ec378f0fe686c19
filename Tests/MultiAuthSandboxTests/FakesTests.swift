import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(10)))
struct FakesTests {
    static func session(_ provider: AuthProviderID = "p") -> AuthSession {
        AuthSession(
            provider: provider, user: AuthUser(id: "u1"), credentials: Credentials(accessToken: "at"),
            createdAt: Date(timeIntervalSince1970: 0))
    }

    @Test func recorderGetsEventsPublishedRightAfterInit() async {
        let bus = AuthEventBus(timeSource: ManualClock().timeSource)
        let recorder = RecordingSubscriber(bus: bus)
        bus.publish(.flowStarted(summary: "x"), provider: "p")
        bus.publish(.flowCancelled, provider: "p")
        bus.publish(.signedOut, provider: "p")
        let events = await recorder.waitFor(count: 3)
        #expect(events.map(\.kind.name) == ["flowStarted", "flowCancelled", "signedOut"])
        #expect(events.map(\.sequence) == [1, 2, 3])
        #expect(recorder.kinds == ["flowStarted", "flowCancelled", "signedOut"])
        #expect(await recorder.waitFor(kind: "signedOut")?.sequence == 3)
    }

    @Test func recorderWaitersResumeWhenTheBusFinishes() async {
        let bus = AuthEventBus()
        let recorder = RecordingSubscriber(bus: bus)
        bus.publish(.signedOut)
        bus.finish()
        #expect(await recorder.waitFor(count: 10).count == 1)
        #expect(await recorder.waitFor(kind: "signedIn") == nil)
    }

    /// A hang guard (a test's time limit) cancels the test's task: a wait for events that
    /// never come must then return what was recorded, so the test ends instead of hanging.
    @Test func aCancelledWaitReturnsWhatWasRecorded() async {
        let bus = AuthEventBus()
        let recorder = RecordingSubscriber(bus: bus)
        bus.publish(.signedOut, provider: "p")
        _ = await recorder.waitFor(count: 1)
        let waiter = Task { await recorder.waitFor(count: 5) }
        waiter.cancel()
        #expect(await waiter.value.map(\.kind.name) == ["signedOut"])
        bus.finish()
    }

    @Test func recorderCancelUnregisters() async {
        let bus = AuthEventBus()
        let recorder = RecordingSubscriber(bus: bus)
        #expect(bus.subscriberCount == 1)
        recorder.cancel()
        #expect(bus.subscriberCount == 0)
        #expect(await recorder.waitFor(count: 1).isEmpty)
    }

    @Test func failingStoreFailsOnCommandAndKeepsTheStoredSession() async throws {
        let base = InMemorySessionStore()
        let saved = SavedBox()
        let store = FailingSessionStore(wrapping: base) { saved.append($0.id) }
        let session = Self.session()
        try await store.save(session)
        await store.failNext(.save, count: 2)
        await store.failNext(.load)
        await store.failNext(.remove)
        await #expect(throws: AuthError(.storageFailure, "the session store write failed (injected)")) {
            try await store.save(Self.session())
        }
        await #expect(throws: AuthError(.storageFailure, "the session store write failed (injected)")) {
            try await store.save(Self.session())
        }
        await #expect(throws: AuthError(.storageUnavailable, "the session store is unavailable (injected)")) {
            _ = try await store.load(for: "p")
        }
        await #expect(throws: AuthError.self) { try await store.remove(for: "p") }
        #expect(try await store.load(for: "p") == session)
        #expect(try await base.load(for: "p") == session)
        #expect(await store.callCounts[.save] == 3)
        #expect(await store.savedSessions == [session])
        #expect(saved.ids == [session.id])
        await store.setUnavailable(true)
        await #expect(throws: AuthError.self) { _ = try await store.load(for: "p") }
        await store.setUnavailable(false)
        try await store.removeAll()
        #expect(try await store.load(for: "p") == nil)
    }

    @Test func waitForCallsIsResumedByTheCalls() async throws {
        let store = FailingSessionStore()
        async let waited: Void = store.waitForCalls(.load, count: 3)
        for _ in 0..<3 { _ = try await store.load(for: "p") }
        await waited
        #expect(await store.callCounts[.load] == 3)
        await store.waitForCalls(.load, count: 1)
    }

    final class SavedBox: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        func append(_ id: String) { lock.withLock { stored.append(id) } }
        var ids: [String] { lock.withLock { stored } }
    }
}
