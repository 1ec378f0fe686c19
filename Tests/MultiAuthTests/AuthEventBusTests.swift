import Foundation
import Testing
import MultiAuth
import MultiAuthSandbox

@Suite(.timeLimit(.minutes(1)))
struct AuthEventBusTests {
    static let user = AuthUser(id: "u1")
    static func session(_ n: Int) -> AuthSession {
        AuthSession(id: "s", provider: "p", user: user, credentials: Credentials(accessToken: "A\(n)"), createdAt: Date(timeIntervalSince1970: 0))
    }

    /// Docs/Cases.md, B22: events published synchronously right after `subscribe()` all arrive, in order, also
    /// through `map`/`filter`.
    @Test func eventsRightAfterSubscribeAreNotLost() async {
        let bus = AuthEventBus(timeSource: ManualClock().timeSource)
        let stream = bus.subscribe()
        bus.publish(.signedIn(Self.session(1)), provider: "p")
        bus.publish(.sessionRefreshed(Self.session(2)), provider: "p")
        bus.publish(.signedOut, provider: "p")
        bus.finish()
        var names: [String] = []
        for await name in stream.map(\.kind.name).filter({ !$0.isEmpty }) { names.append(name) }
        #expect(names == ["signedIn", "sessionRefreshed", "signedOut"])
    }

    @Test func sequenceNumbersRiseByOnePerPublish() async {
        let bus = AuthEventBus()
        let stream = bus.subscribe()
        for _ in 0..<5 { bus.publish(.flowExpired) }
        bus.finish()
        var sequences: [UInt64] = []
        for await event in stream { sequences.append(event.sequence) }
        #expect(sequences == [1, 2, 3, 4, 5])
        #expect(bus.currentSequence == 5)
    }

    /// Docs/Cases.md, B24: cancelling the consuming task unregisters it; the termination handler runs once;
    /// finishing twice is safe; publishing afterwards reports `terminated`.
    @Test func cancellationUnregistersAndFinishIsIdempotent() async {
        let bus = AuthEventBus()
        let terminations = Counter()
        let stream = bus.subscribe(onTermination: { terminations.increment() })
        #expect(bus.subscriberCount == 1)
        let started = Counter()
        let task = Task {
            started.increment()
            for await _ in stream {}
        }
        while started.value == 0 { await Task.yield() }
        task.cancel()
        await task.value
        #expect(bus.subscriberCount == 0)
        #expect(terminations.value == 1)
        bus.finish()
        bus.finish()
        #expect(terminations.value == 1)
        #expect(bus.publish(.signedOut) == .terminated)
        #expect(bus.isTerminated)
    }

    @Test func releasingTheStreamUnregisters() {
        let bus = AuthEventBus()
        let terminations = Counter()
        do {
            let stream = bus.subscribe(onTermination: { terminations.increment() })
            #expect(bus.subscriberCount == 1)
            _ = stream
        }
        #expect(bus.subscriberCount == 0)
        #expect(terminations.value == 1)
    }

    @Test func subscribingToAFinishedBusEndsAtOnce() async {
        let bus = AuthEventBus()
        bus.finish()
        var count = 0
        for await _ in bus.subscribe() { count += 1 }
        #expect(count == 0)
    }

    /// Docs/Cases.md, B25: with capacity 8 and 20 refreshes queued for a suspended subscriber, it gets the 8
    /// newest (13…20).
    @Test func slowSubscriberKeepsTheNewestStateEvents() async {
        let bus = AuthEventBus()
        let stream = bus.subscribe(bufferCapacity: 8)
        for n in 1...20 { bus.publish(.sessionRefreshed(Self.session(n)), provider: "p") }
        bus.finish()
        var tokens: [String] = []
        for await event in stream {
            if case .sessionRefreshed(let session) = event.kind { tokens.append(session.credentials.accessToken ?? "") }
        }
        #expect(tokens == (13...20).map { "A\($0)" })
        #expect(stream.droppedCount == 12)
    }

    /// Docs/Cases.md, B25: a state event is never dropped in favour of older noise.
    @Test func stateEventsSurviveFloodsOfFlowEvents() async {
        let bus = AuthEventBus()
        let stream = bus.subscribe(bufferCapacity: 4)
        bus.publish(.signedIn(Self.session(1)), provider: "p")
        for _ in 0..<50 { bus.publish(.deliveryStatus(channel: .sms, status: .sent), provider: "p") }
        bus.publish(.signedOut, provider: "p")
        for _ in 0..<50 { bus.publish(.deliveryStatus(channel: .sms, status: .delivered), provider: "q") }
        bus.finish()
        var names: [String] = []
        for await event in stream { names.append(event.kind.name) }
        #expect(names.count == 4)
        #expect(names.contains("signedIn"))
        #expect(names.contains("signedOut"))
        #expect(names.firstIndex(of: "signedIn")! < names.firstIndex(of: "signedOut")!)
        #expect(stream.droppedCount == 98)
    }

    @Test func distinctProvidersLatestStatesAreAllKept() async {
        let bus = AuthEventBus()
        let stream = bus.subscribe(bufferCapacity: 2)
        for provider in ["a", "b", "c", "d"] { bus.publish(.signedOut, provider: AuthProviderID(provider)) }
        bus.finish()
        var providers: [String] = []
        for await event in stream { providers.append(event.provider?.rawValue ?? "") }
        #expect(providers == ["a", "b", "c", "d"])
    }

    @Test func manyProviderIDsStayWithinTwiceTheCapacity() async {
        let bus = AuthEventBus()
        let stream = bus.subscribe(bufferCapacity: 8)
        for index in 0..<5_000 { bus.publish(.signedOut, provider: AuthProviderID("p\(index)")) }
        bus.finish()
        var providers: [String] = []
        for await event in stream { providers.append(event.provider?.rawValue ?? "") }
        #expect(providers == (4_984..<5_000).map { "p\($0)" })
        #expect(stream.droppedCount == 4_984)
    }

    @Test func twoBusesNeverShareSubscribers() async {
        let one = AuthEventBus()
        let two = AuthEventBus()
        let streamTwo = two.subscribe()
        #expect(one.publish(.signedOut) == .delivered(subscribers: 0))
        two.finish()
        var count = 0
        for await _ in streamTwo { count += 1 }
        #expect(count == 0)
    }

    @Test func concurrentPublishersKeepPerSubscriberOrderWithoutGaps() async {
        let bus = AuthEventBus()
        let streams = (0..<8).map { _ in bus.subscribe(bufferCapacity: 10_000) }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<500 { bus.publish(.flowExpired) } }
            }
        }
        bus.finish()
        for stream in streams {
            var sequences: [UInt64] = []
            for await event in stream { sequences.append(event.sequence) }
            #expect(sequences == Array(1...2000))
        }
    }

    /// Docs/Cases.md, B21: the first element of `authStates()` is the current state (expired flag set), a
    /// later subscriber gets its own initial state, and past events are not replayed.
    @Test func authStatesStartWithTheCurrentState() async throws {
        let clock = ManualClock()
        let expired = FakeProvider.session(provider: "fake", access: "A1", refresh: "R1", at: clock.wallNow.addingTimeInterval(-7200))
        let store = InMemorySessionStore(sessions: [expired])
        let server = FakeServer(clock: clock)
        let client = try AuthClient(
            providers: [FakeProvider(server: server)], store: store, transport: NoNetworkTransport(), time: clock.timeSource)
        await client.restoreSessions()
        let states = client.authStates()
        let refreshed = try #require(try await client.validSession(for: "fake"))
        #expect(refreshed.credentials.accessToken == "A2")
        var iterator = states.makeAsyncIterator()
        let first = try #require(await iterator.next())
        guard case .initialState(let state) = first.kind else {
            Issue.record("first event was \(first.kind.name)")
            return
        }
        #expect(state.sessions["fake"]?.isExpired == true)
        #expect(state.sessions["fake"]?.session.credentials.accessToken == "A1")
        let second = try #require(await iterator.next())
        #expect(second.kind.name == "sessionRefreshed")
        #expect(second.sequence == first.sequence + 1)

        var late = client.authStates().makeAsyncIterator()
        let lateFirst = try #require(await late.next())
        guard case .initialState(let lateState) = lateFirst.kind else {
            Issue.record("late subscriber's first event was \(lateFirst.kind.name)")
            return
        }
        #expect(lateState.sessions["fake"]?.isExpired == false)
        #expect(lateState.sessions["fake"]?.session.credentials.accessToken == "A2")
        client.events.finish()
        #expect(await late.next() == nil)
    }

    @Test func authStatesWithNothingStoredIsSignedOut() async throws {
        let fixture = Fixture()
        var iterator = fixture.client.authStates().makeAsyncIterator()
        let first = try #require(await iterator.next())
        guard case .initialState(let state) = first.kind else {
            Issue.record("first event was \(first.kind.name)")
            return
        }
        #expect(state.isSignedOut)
    }

    @Test func authStatesReportUnavailableStorageNotSignedOut() async throws {
        let session = FakeProvider.session(provider: "fake", access: "A", refresh: "R", at: Date(timeIntervalSince1970: 1_700_000_000))
        let fixture = Fixture(sessions: [session])
        await fixture.store.setUnavailable(true)
        var iterator = fixture.client.authStates().makeAsyncIterator()
        guard case .initialState(let state) = try #require(await iterator.next()).kind else {
            Issue.record("no initial state")
            return
        }
        #expect(state.unavailable["fake"]?.code == .storageUnavailable)
        #expect(!state.isSignedOut)
        await fixture.store.setUnavailable(false)
        #expect(try await fixture.store.load(for: "fake") == session)
    }
}

/// A thread-safe counter for callbacks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
