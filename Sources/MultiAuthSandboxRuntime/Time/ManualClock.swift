import Foundation
import MultiAuth

/// A clock that only moves when a test says so, driving both the sleeping clock and the wall
/// clock of a `TimeSource` together.
///
/// Sleepers registered with ``sleep(until:tolerance:)`` wake when ``advance(by:)`` (or
/// ``advance(to:)``) moves the clock to or past their deadline, in deadline order. A test that
/// needs "the code under test is now sleeping" awaits ``waitForSleepers(count:)`` instead of
/// yielding and hoping.
///
/// MultiAuth's own background work (an `AuthClient`'s auto-refresh scheduler) marks its sleeps;
/// they are counted apart (``backgroundSleeperCount``, ``waitForBackgroundSleepers(count:)``),
/// so ``sleeperCount`` and ``waitForSleepers(count:)`` see only the operations a test drives.
/// ``advance(by:)`` wakes both kinds.
///
/// Thread-safe; cancellation of a sleeping task wakes it with `CancellationError` and removes
/// its registration.
public final class ManualClock: Clock, @unchecked Sendable {
    /// A point on the manual clock: the `Duration` elapsed since the clock was created.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// Time elapsed since the clock's start.
        public var offset: Duration
        /// Creates an instant at `offset` from the clock's start.
        public init(offset: Duration) { self.offset = offset }
        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The duration from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Orders instants by offset.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        /// `+<offset>`.
        public var description: String { "+\(offset)" }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
        let background: Bool
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private let start: Date
    private var sleepers: [Sleeper] = []
    private var nextID: UInt64 = 0
    private var sleeperWaiters:
        [(id: UInt64, count: Int, background: Bool, continuation: CheckedContinuation<Void, Never>)] = []

    /// Creates a clock whose wall clock starts at `start`.
    /// - Parameter start: The wall-clock time at offset zero (default 2023-11-14T22:13:20Z,
    ///   Unix time 1 700 000 000).
    public init(start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        self.start = start
    }

    /// The current instant.
    public var now: Instant {
        lock.withLock { current }
    }

    /// The smallest step the clock measures: one nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// The wall-clock time: the start date plus the elapsed offset.
    public var wallNow: Date {
        lock.withLock { start.addingTimeInterval(current.offset.timeInterval) }
    }

    /// A `TimeSource` whose clock is this clock and whose `now` is ``wallNow``.
    public var timeSource: TimeSource {
        TimeSource(clock: self, now: { [self] in self.wallNow })
    }

    /// The number of tasks currently sleeping on this clock, background work (auto-refresh)
    /// not counted.
    public var sleeperCount: Int {
        lock.withLock { count(background: false) }
    }

    /// The number of background sleeps (an `AuthClient`'s auto-refresh schedulers) currently
    /// waiting on this clock.
    public var backgroundSleeperCount: Int {
        lock.withLock { count(background: true) }
    }

    private func count(background: Bool) -> Int {
        sleepers.reduce(0) { $0 + ($1.background == background ? 1 : 0) }
    }

    /// Suspends until the clock reaches `deadline` (returns at once if it already has).
    /// - Throws: `CancellationError` when the task is cancelled while sleeping.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let background = BackgroundWork.isActive
        let id: UInt64 = {
            lock.lock()
            defer { lock.unlock() }
            nextID += 1
            return nextID
        }()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                lock.lock()
                if deadline <= current {
                    lock.unlock()
                    continuation.resume()
                    return
                }
                if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(throwing: CancellationError())
                    return
                }
                sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation, background: background))
                let count = count(background: background)
                var ready: [CheckedContinuation<Void, Never>] = []
                sleeperWaiters.removeAll { waiter in
                    if waiter.background == background, count >= waiter.count {
                        ready.append(waiter.continuation)
                        return true
                    }
                    return false
                }
                lock.unlock()
                for waiter in ready { waiter.resume() }
            }
        } onCancel: {
            lock.lock()
            let index = sleepers.firstIndex { $0.id == id }
            let sleeper = index.map { sleepers.remove(at: $0) }
            lock.unlock()
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` and wakes every sleeper whose deadline has
    /// passed, earliest first.
    public func advance(by duration: Duration) {
        lock.lock()
        let target = current.advanced(by: duration)
        lock.unlock()
        advance(to: target)
    }

    /// Moves the clock to `instant` (never backwards) and wakes due sleepers, earliest first.
    public func advance(to instant: Instant) {
        lock.lock()
        if instant > current { current = instant }
        let due = sleepers.filter { $0.deadline <= current }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        sleepers.removeAll { $0.deadline <= current }
        lock.unlock()
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Suspends until at least `count` tasks are sleeping on this clock (background work not
    /// counted). Use it before ``advance(by:)`` so the advance finds the sleepers it is meant
    /// to wake.
    ///
    /// Returns early when the waiting task is cancelled (e.g. by a test's time limit), so a
    /// hang guard ends the test instead of leaving it suspended.
    public func waitForSleepers(count: Int = 1) async {
        await waitFor(count, background: false)
    }

    /// Suspends until at least `count` background sleeps (auto-refresh schedulers) wait on this
    /// clock. Returns early when the waiting task is cancelled, as ``waitForSleepers(count:)``.
    public func waitForBackgroundSleepers(count: Int = 1) async {
        await waitFor(count, background: true)
    }

    private func waitFor(_ wanted: Int, background: Bool) async {
        let id = lock.withLock {
            nextID += 1
            return nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lock.lock()
                if self.count(background: background) >= wanted || Task.isCancelled {
                    lock.unlock()
                    continuation.resume()
                } else {
                    sleeperWaiters.append((id, wanted, background, continuation))
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            let index = sleeperWaiters.firstIndex { $0.id == id }
            let waiter = index.map { sleeperWaiters.remove(at: $0) }
            lock.unlock()
            waiter?.continuation.resume()
        }
    }
}
