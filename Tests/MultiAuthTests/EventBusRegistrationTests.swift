import Foundation
import MultiAuthSandbox
import Testing

@testable import MultiAuth

/// Subscribe and cancel are O(1) amortised (Docs/Events.md, "Cost"): counted, not timed. Before,
/// every registration and every cancellation rebuilt the whole fan-out array under the bus lock
/// (16,000 subscribers took 6–7 s to register and blocked publishers meanwhile).
@Suite(.timeLimit(.minutes(10)))
struct EventBusRegistrationTests {
    @Test func registrationWorkIsConstantPerSubscriberWhateverTheirNumber() async {
        let bus = AuthEventBus(timeSource: ManualClock().timeSource)
        var streams = (0..<16_000).map { _ in bus.subscribe(bufferCapacity: 2) }
        #expect(bus.subscriberCount == 16_000)
        #expect(bus.registrationWork == 16_000)
        // Churn in the middle of a full table, publishing meanwhile.
        for round in 0..<4_000 {
            let extra = bus.subscribe(bufferCapacity: 2)
            withExtendedLifetime(extra) {}
            if round % 100 == 0 { bus.publish(.flowExpired, provider: "p") }
        }
        #expect(bus.subscriberCount == 16_000)
        // 16,000 + 4,000 subscribes, 4,000 removals of at most 2 writes each.
        #expect(bus.registrationWork <= 16_000 + 4_000 * 3)
        // Cancelling everyone from the front (the worst order for a shifting array).
        let before = bus.registrationWork
        streams.removeAll()
        #expect(bus.subscriberCount == 0)
        #expect(bus.registrationWork - before <= 2 * 16_000)
    }

    @Test func everySubscriberStillGetsEveryEventAfterChurn() async {
        let bus = AuthEventBus(timeSource: ManualClock().timeSource)
        var streams = (0..<50).map { _ in bus.subscribe(bufferCapacity: 16) }
        // Cancel every third one (swaps move the others into their slots).
        for index in stride(from: 48, through: 0, by: -3) { streams.remove(at: index) }
        bus.publish(.flowExpired, provider: "p")
        bus.publish(.flowCancelled, provider: "p")
        bus.finish()
        #expect(streams.count == 33)
        for stream in streams {
            var kinds: [String] = []
            for await event in stream { kinds.append(event.kind.name) }
            #expect(kinds == ["flowExpired", "flowCancelled"])
        }
    }

    /// A cancelled stream's initial loader (for `authStates()`, a closure holding the client) is
    /// released after the bus lock: here the last reference to an object whose deinit publishes on
    /// the same bus, which deadlocked on the lock while the loader was dropped inside it.
    @Test func aCancelledStreamDropsItsInitialLoaderOutsideTheBusLock() async {
        let bus = AuthEventBus(timeSource: ManualClock().timeSource)
        let observer = bus.subscribe(bufferCapacity: 4)
        let stream: AuthEventStream
        do {
            let holder = PublishesWhenReleased(bus)
            stream = bus.subscribe(initial: { [holder] in
                withExtendedLifetime(holder) {}
                return (nil, .flowCancelled)
            })
        }
        stream.cancel()
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        bus.finish()
        var kinds: [String] = []
        for await event in observer { kinds.append(event.kind.name) }
        #expect(kinds == ["flowExpired"])
    }
}

/// Publishes `flowExpired` on its bus when released.
private final class PublishesWhenReleased: Sendable {
    let bus: AuthEventBus
    init(_ bus: AuthEventBus) { self.bus = bus }
    deinit { bus.publish(.flowExpired, provider: "p") }
}
