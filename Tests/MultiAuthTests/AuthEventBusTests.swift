import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(10)))
struct AuthEventBusTests {
    static let user = AuthUser(id: "u1")
    static let challenge = Challenge(
        flowID: FlowID(rawValue: "f-1"), provider: "p",
        kind: .oneTimeCode(length: 6, channel: .sms, linkAlsoSent: false),
        issuedAt: Date(timeIntervalSince1970: 0))
    static func session(_ n: Int) -> AuthSession {
        AuthSession(
            id: "s", provider: "p", user: user, credentials: Credentials(accessToken: Secret("A\(n)")),
            createdAt: Date(timeIntervalSince1970: 0))
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

    /// Docs/Cases.md, B25 (still holds under the overflow policy of Docs/Events.md): with
    /// capacity 8 and 20 refreshes queued for a suspended subscriber, it gets the 8 newest
    /// (13…20), after one gap marker counting the 12 dropped.
    @Test func slowSubscriberKeepsTheNewestStateEvents() async {
        let bus = AuthEventBus()
        let stream = bus.subscribe(bufferCapacity: 8)
        for n in 1...20 { bus.publish(.sessionRefreshed(Self.session(n)), provider: "p") }
        bus.finish()
        var tokens: [String] = []
        var markers: [Int] = []
        for await event in stream {
            switch event.kind {
            case .sessionRefreshed(let session): tokens.append(session.credentials.accessToken?.reveal() ?? "")
            case .eventsDropped(let count): markers.append(count)
            default: Issue.record("unexpected \(event)")
            }
        }
        #expect(tokens == (13...20).map { "A\($0)" })
        #expect(markers == [12])
        #expect(stream.droppedCount == 12)
    }

    /// A lagging subscriber keeps the latest state event per provider, then the newest flow
    /// events: a superseded `signedIn` goes before any flow event; the marker comes first
    /// (Docs/Cases.md, B25: a state event is never dropped in favour of older noise).
    @Test func laggingSubscriberKeepsLatestStatePerProviderThenNewestFlowEvents() async {
        let bus = AuthEventBus()
        let stream = bus.subscribe(bufferCapacity: 4)
        bus.publish(.signedIn(Self.session(1)), provider: "p")
        for _ in 0..<50 { bus.publish(.deliveryStatus(channel: .sms, status: .sent), provider: "p") }
        bus.publish(.signedOut, provider: "p")
        for _ in 0..<50 { bus.publish(.deliveryStatus(channel: .sms, status: .delivered), provider: "q") }
        bus.finish()
        var events: [AuthEvent] = []
        for await event in stream { events.append(event) }
        #expect(
            events.map(\.kind.name) == [
                "eventsDropped", "signedOut", "deliveryStatus", "deliveryStatus", "deliveryStatus",
            ])
        #expect(events.map(\.sequence) == [0, 52, 100, 101, 102])
        guard case .eventsDropped(let count) = events.first?.kind else { return }
        #expect(count == 98)
        #expect(stream.droppedCount == 98)
    }

    /// The client's newer events under the overflow policy: `sessionExpired` is a state event
    /// (it supersedes the provider's `signedIn` and is kept as its latest state), while
    /// `attemptsExhausted` is a flow event (dropped, oldest first, like any other).
    @Test func sessionExpiredIsKeptAsStateAndAttemptsExhaustedIsAFlowEvent() async {
        #expect(AuthEvent.Kind.sessionExpired(AuthError(.sessionExpired, "revoked")).isStateEvent)
        #expect(!AuthEvent.Kind.attemptsExhausted.isStateEvent)
        #expect(!AuthEvent.Kind.eventsDropped(count: 1).isStateEvent)
        let bus = AuthEventBus()
        let stream = bus.subscribe(bufferCapacity: 3)
        bus.publish(.signedIn(Self.session(1)), provider: "p")
        bus.publish(.signedIn(Self.session(2)), provider: "q")
        bus.publish(.attemptsExhausted, provider: "q")
        bus.publish(.sessionExpired(AuthError(.sessionExpired, "revoked")), provider: "p")
        for _ in 0..<10 { bus.publish(.attemptsExhausted, provider: "q") }
        bus.finish()
        var events: [AuthEvent] = []
        for await event in stream { events.append(event) }
        // p's signedIn (superseded by sessionExpired) and 10 of the 11 attemptsExhausted went.
        #expect(events.map(\.kind.name) == ["eventsDropped", "signedIn", "sessionExpired", "attemptsExhausted"])
        #expect(events.map(\.sequence) == [0, 2, 4, 14])
        if case .eventsDropped(let count) = events.first?.kind { #expect(count == 11) }
    }

    /// A burst: two providers refresh again and again between flow events. The
    /// lagging subscriber ends with one state event per provider (the latest), the newest flow
    /// events, and the newest event of all; never a buffer of superseded states.
    @Test func aBurstLeavesOneStatePerProviderAndTheNewestFlowEvents() async {
        let bus = AuthEventBus()
        let stream = bus.subscribe(bufferCapacity: 16)
        var lastState: [String: UInt64] = [:]
        var flowSequences: [UInt64] = []
        for index in 0..<1_000 {
            let provider = index % 3 == 0 ? "p" : "q"
            if index % 2 == 0 {
                bus.publish(.sessionRefreshed(Self.session(index)), provider: AuthProviderID(provider))
                lastState[provider] = bus.currentSequence
            } else {
                bus.publish(.challengeIssued(Self.challenge), provider: AuthProviderID(provider))
                flowSequences.append(bus.currentSequence)
            }
        }
        bus.finish()
        var events: [AuthEvent] = []
        for await event in stream { events.append(event) }
        #expect(events.first?.kind.name == "eventsDropped")
        let kept = events.dropFirst()
        #expect(kept.count == 16)
        let states = kept.filter(\.kind.isStateEvent)
        #expect(states.map(\.sequence).sorted() == lastState.values.sorted())
        #expect(kept.filter { !$0.kind.isStateEvent }.map(\.sequence) == Array(flowSequences.suffix(14)))
        #expect(kept.last?.sequence == 1_000)
        #expect(kept.map(\.sequence) == kept.map(\.sequence).sorted())
        if case .eventsDropped(let count) = events.first?.kind { #expect(count == 1_000 - 16) }
    }

    /// The marker comes right before the events that survived, repeats the sequence number of
    /// the element before it, and appears only when something was dropped.
    @Test func theGapMarkerSitsWhereTheSubscriberFellBehind() async {
        let bus = AuthEventBus()
        let stream = bus.subscribe(bufferCapacity: 2)
        var iterator = stream.makeAsyncIterator()
        bus.publish(.flowExpired, provider: "p")
        #expect(await iterator.next()?.sequence == 1)
        for _ in 0..<5 { bus.publish(.flowExpired, provider: "p") }  // 2…6; 2…4 dropped
        let marker = await iterator.next()
        #expect(marker?.kind.name == "eventsDropped" && marker?.sequence == 1 && marker?.provider == nil)
        if case .eventsDropped(let count) = marker?.kind { #expect(count == 3) }
        #expect(await iterator.next()?.sequence == 5)
        #expect(await iterator.next()?.sequence == 6)
        bus.publish(.flowExpired, provider: "p")
        bus.publish(.flowExpired, provider: "p")
        bus.finish()
        #expect(await iterator.next()?.sequence == 7)  // nothing dropped: no marker
        #expect(await iterator.next()?.sequence == 8)
        #expect(await iterator.next() == nil)
        #expect(stream.droppedCount == 3)
    }

    @Test func distinctProvidersLatestStatesAreAllKept() async {
        let bus = AuthEventBus()
        let stream = bus.subscribe(bufferCapacity: 2)
        for provider in ["a", "b", "c", "d"] { bus.publish(.signedOut, provider: AuthProviderID(provider)) }
        bus.finish()
        var providers: [String] = []
        for await event in stream { providers.append(event.provider?.rawValue ?? "") }
        #expect(providers == ["a", "b", "c", "d"])
        #expect(stream.droppedCount == 0)
    }

    @Test func manyProviderIDsStayWithinTwiceTheCapacity() async {
        let bus = AuthEventBus()
        let stream = bus.subscribe(bufferCapacity: 8)
        for index in 0..<5_000 { bus.publish(.signedOut, provider: AuthProviderID("p\(index)")) }
        bus.finish()
        var providers: [String] = []
        var markers: [Int] = []
        for await event in stream {
            if case .eventsDropped(let count) = event.kind {
                markers.append(count)
            } else {
                providers.append(event.provider?.rawValue ?? "")
            }
        }
        #expect(providers == (4_984..<5_000).map { "p\($0)" })
        #expect(markers == [4_984])
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
        let expired = FakeProvider.session(
            provider: "fake", access: "A1", refresh: "R1", at: clock.wallNow.addingTimeInterval(-7200))
        let store = InMemorySessionStore(sessions: [expired])
        let server = FakeServer(clock: clock)
        let client = try AuthClient(
            providers: [FakeProvider(server: server)], store: store, transport: NoNetworkTransport(),
            time: clock.timeSource)
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
        let fixture = ClientWorld()
        var iterator = fixture.client.authStates().makeAsyncIterator()
        let first = try #require(await iterator.next())
        guard case .initialState(let state) = first.kind else {
            Issue.record("first event was \(first.kind.name)")
            return
        }
        #expect(state.isSignedOut)
    }

    @Test func authStatesReportUnavailableStorageNotSignedOut() async throws {
        let session = FakeProvider.session(
            provider: "fake", access: "A", refresh: "R", at: Date(timeIntervalSince1970: 1_700_000_000))
        let fixture = ClientWorld(sessions: [session])
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
