import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

/// Breaker checks on the bus after its table and every subscriber's buffer moved into one
/// `Locked` box: cancel, release and finish racing publishes; handlers that re-enter the bus.
@Suite(.timeLimit(.minutes(10)))
struct BreakerBusRaceTests {
    @Test func cancelReleaseAndFinishRacingPublishesEndEveryStreamOnce() async {
        for round in 0..<20 {
            let bus = AuthEventBus()
            let subscribers = 64
            let counts = (0..<subscribers).map { _ in Counter() }
            var streams: [AuthEventStream] = []
            for index in 0..<subscribers {
                streams.append(bus.subscribe(bufferCapacity: 4, onTermination: { counts[index].increment() }))
            }
            await withTaskGroup(of: Void.self) { group in
                for (index, stream) in streams.enumerated() {
                    group.addTask {
                        var seen = 0
                        for await _ in stream {
                            seen += 1
                            if seen == 1 + index % 5 { break }
                        }
                        if index % 3 == 0 { stream.cancel() }
                    }
                }
                for _ in 0..<4 {
                    group.addTask {
                        for _ in 0..<500 { bus.publish(.flowExpired, provider: "p") }
                    }
                }
                group.addTask {
                    if round % 2 == 0 {
                        for _ in 0..<100 { await Task.yield() }
                        bus.finish()
                    }
                }
            }
            streams.removeAll()
            bus.finish()
            bus.finish()
            #expect(bus.subscriberCount == 0)
            for (index, count) in counts.enumerated() {
                #expect(count.value == 1, "round \(round), subscriber \(index): \(count.value) terminations")
            }
        }
    }

    @Test func terminationHandlersMayUseTheSameBus() async {
        let bus = AuthEventBus()
        let other = BreakerBox<AuthEventStream?>(nil)
        let ran = Counter()
        let stream = bus.subscribe(onTermination: {
            // Runs after the table's lock is released: subscribing, publishing and cancelling
            // another stream of the same bus must not deadlock.
            let fresh = bus.subscribe()
            bus.publish(.flowExpired, provider: "p")
            other.withLock { $0 }?.cancel()
            fresh.cancel()
            ran.increment()
        })
        other.withLock { $0 = bus.subscribe() }
        #expect(bus.subscriberCount == 2)
        stream.cancel()
        #expect(ran.value == 1)
        #expect(bus.subscriberCount == 0)
        let third = bus.subscribe(onTermination: { bus.finish() })
        bus.finish()
        _ = third
        #expect(bus.isTerminated)
    }
}

/// A tiny lock box for the test (the package's `Locked` is package-internal to its module).
final class BreakerBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
