import Foundation
import MultiAuth
import MultiAuthLocking

/// The event bus per delivery against raw `AsyncStream`, and the publisher's cost with one
/// subscriber that never reads against none.
enum EventBusBench {
    /// `count` events from one publisher to one consumer task that drains concurrently; the
    /// buffer holds them all, so nothing is dropped.
    static let ours = Kernel("bus.ours", batch: 50_000, instructions: 20_000) {
        Kernel.timedAsync { count in
            let bus = AuthEventBus()
            let stream = bus.subscribe(bufferCapacity: count)
            await withTaskGroup(of: Int.self) { group in
                group.addTask {
                    var received = 0
                    for await _ in stream { received += 1 }
                    return received
                }
                for _ in 0..<count { bus.publish(.flowExpired, provider: "bench") }
                bus.finish()
                for await received in group { precondition(received == count) }
            }
        }
    }

    /// The same with one `AsyncStream` and a continuation yielded under a lock, with a sequence
    /// number and a timestamp: what the bus offers, built by hand.
    static let raw = Kernel("bus.raw", batch: 50_000, instructions: 20_000) {
        Kernel.timedAsync { count in
            let (stream, continuation) = AsyncStream<AuthEvent>.makeStream(bufferingPolicy: .bufferingNewest(count))
            await withTaskGroup(of: Int.self) { group in
                group.addTask {
                    var received = 0
                    for await _ in stream { received += 1 }
                    return received
                }
                let sequence = Locked<UInt64>(0)
                for _ in 0..<count {
                    let now = Date()
                    sequence.withLock { sequence in
                        sequence += 1
                        continuation.yield(
                            AuthEvent(
                                sequence: sequence, timestamp: now, provider: "bench", flowID: nil, kind: .flowExpired))
                    }
                }
                continuation.finish()
                for await received in group { precondition(received == count) }
            }
        }
    }

    /// The floor: the smallest channel that does what a subscription must (one producer, one
    /// consumer task, nothing lost): an array under a lock and one stored continuation, resumed
    /// by the producer when the consumer waits. Each event carries a sequence number and a
    /// timestamp, as the bus's do; the consumer takes the whole array at once.
    static let minimal = Kernel("bus.minimal", batch: 50_000, instructions: 20_000) {
        Kernel.timedAsync { count in
            let channel = MinimalChannel()
            await withTaskGroup(of: Int.self) { group in
                group.addTask {
                    var received = 0
                    while let events = await channel.next() { received += events.count }
                    return received
                }
                var sequence: UInt64 = 0
                for _ in 0..<count {
                    sequence += 1
                    channel.send(
                        AuthEvent(
                            sequence: sequence, timestamp: Date(), provider: "bench", flowID: nil, kind: .flowExpired))
                }
                channel.finish()
                for await received in group { precondition(received == count) }
            }
        }
    }

    /// Publishing with no subscriber.
    static let none = Kernel("bus.publish.none", batch: 100_000, instructions: 50_000) {
        let bus = AuthEventBus()
        return Kernel.timed { count in
            for _ in 0..<count { bus.publish(.flowExpired, provider: "bench") }
        }
    }

    /// Publishing with one subscriber (default 256-event buffer) that never reads: after the
    /// first 256 events every publish runs the overflow policy.
    static let stalled = Kernel("bus.publish.stalled", batch: 100_000, instructions: 50_000) {
        let bus = AuthEventBus()
        let stream = bus.subscribe()
        return Runner(
            run: { count in
                let start = Clock.nanoseconds()
                for _ in 0..<count { bus.publish(.flowExpired, provider: "bench") }
                return Double(Clock.nanoseconds() - start)
            },
            close: { withExtendedLifetime(stream) {} })
    }

    /// The same with state events of two providers between flow events (the burst).
    static let stalledStates = Kernel("bus.publish.stalled-states", batch: 100_000, instructions: 50_000) {
        let bus = AuthEventBus()
        let stream = bus.subscribe()
        let session = AuthSession(
            provider: "a", user: AuthUser(id: "u"), credentials: Credentials(accessToken: "A"),
            createdAt: Date(timeIntervalSince1970: 0))
        return Runner(
            run: { count in
                let start = Clock.nanoseconds()
                for index in 0..<count {
                    if index % 2 == 0 {
                        bus.publish(.sessionRefreshed(session), provider: index % 4 == 0 ? "a" : "b")
                    } else {
                        bus.publish(.flowExpired, provider: "a")
                    }
                }
                return Double(Clock.nanoseconds() - start)
            },
            close: { withExtendedLifetime(stream) {} })
    }

    /// Publishing the same mix with no subscriber.
    static let noneStates = Kernel("bus.publish.none-states", batch: 100_000, instructions: 50_000) {
        let bus = AuthEventBus()
        let session = AuthSession(
            provider: "a", user: AuthUser(id: "u"), credentials: Credentials(accessToken: "A"),
            createdAt: Date(timeIntervalSince1970: 0))
        return Kernel.timed { count in
            for index in 0..<count {
                if index % 2 == 0 {
                    bus.publish(.sessionRefreshed(session), provider: index % 4 == 0 ? "a" : "b")
                } else {
                    bus.publish(.flowExpired, provider: "a")
                }
            }
        }
    }

    /// Subscriber churn with `residents` subscribers registered (never reading, 4-event
    /// buffers): each operation subscribes one more and cancels it; every 256th operation a
    /// publish to everyone runs in between (not timed: its cost is O(subscribers) by nature),
    /// so registration interleaves with publishing and only registration is measured.
    static func churn(_ residents: Int, name: String) -> Kernel {
        Kernel(name, batch: 20_000, instructions: 4_000) {
            let bus = AuthEventBus()
            let kept = (0..<residents).map { _ in bus.subscribe(bufferCapacity: 4) }
            return Runner(
                run: { count in
                    var elapsed: UInt64 = 0
                    var index = 0
                    while index < count {
                        let round = min(256, count - index)
                        let start = Clock.nanoseconds()
                        for _ in 0..<round {
                            // Released at the end of the iteration: cancelled, unregistered.
                            let stream = bus.subscribe(bufferCapacity: 4)
                            withExtendedLifetime(stream) {}
                        }
                        elapsed += Clock.nanoseconds() - start
                        bus.publish(.flowExpired, provider: "bench")
                        index += round
                    }
                    return Double(elapsed)
                },
                close: { withExtendedLifetime(kept) {} })
        }
    }

    static let churnOne = churn(1, name: "bus.churn.1")
    static let churn1k = churn(1_000, name: "bus.churn.1k")
    static let churn20k = churn(20_000, name: "bus.churn.20k")

    static let comparisons = [
        Comparison(
            group: "event bus", label: "per delivery, 1 → 1 vs a minimal lock + array channel",
            ours: ours, baseline: minimal, goal: .none,
            note:
                "the minimal channel is the floor: one consumer, no buffer limit, no fan-out, no overflow accounting"),
        Comparison(
            group: "event bus", label: "per delivery, 1 publisher → 1 subscriber vs raw AsyncStream", ours: ours,
            baseline: raw,
            goal: .atMost(1.0)),
        Comparison(
            group: "event bus", label: "publish with 1 never-reading subscriber vs none (flow events)", ours: stalled,
            baseline: none, goal: .atMost(2.0)),
        Comparison(
            group: "event bus", label: "the same, state events of 2 providers between flow events", ours: stalledStates,
            baseline: noneStates, goal: .atMost(2.0)),
        // Subscribe + cancel cost O(1): the same with 1,000 and 20,000 resident subscribers as
        // with one (the publishes between rounds are not timed). Goals on time: a bigger table
        // costs some cache misses, never a rebuild.
        Comparison(
            group: "event bus", label: "subscribe + cancel with 1,000 subscribers vs 1 (publishing meanwhile)",
            ours: churn1k, baseline: churnOne, goal: .atMost(2.0), judgedOnTime: true),
        Comparison(
            group: "event bus", label: "subscribe + cancel with 20,000 subscribers vs 1 (publishing meanwhile)",
            ours: churn20k, baseline: churnOne, goal: .atMost(3.0), judgedOnTime: true),
    ]
}

/// One producer, one consumer: events appended under a lock; a waiting consumer's continuation
/// is resumed with everything queued (the bench's floor for the event bus).
final class MinimalChannel: Sendable {
    private struct State {
        var queued: [AuthEvent] = []
        var waiter: CheckedContinuation<[AuthEvent]?, Never>?
        var finished = false
    }

    private let state = Locked(State())

    /// Appends `event`, handing the queue to the consumer if it waits.
    func send(_ event: AuthEvent) {
        let handOff: (CheckedContinuation<[AuthEvent]?, Never>, [AuthEvent])? = state.withLock { state in
            state.queued.append(event)
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            defer { state.queued = [] }
            return (waiter, state.queued)
        }
        if let handOff { handOff.0.resume(returning: handOff.1) }
    }

    /// Ends the stream: a waiting consumer gets `nil` once the queue is empty.
    func finish() {
        let waiting: CheckedContinuation<[AuthEvent]?, Never>? = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiting?.resume(returning: nil)
    }

    /// Everything queued, waiting while nothing is; `nil` after `finish()` and an empty queue.
    func next() async -> [AuthEvent]? {
        await withCheckedContinuation { continuation in
            let ready: [AuthEvent]?? = state.withLock { state in
                if !state.queued.isEmpty {
                    defer { state.queued = [] }
                    return .some(state.queued)
                }
                if state.finished { return .some(nil) }
                state.waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
