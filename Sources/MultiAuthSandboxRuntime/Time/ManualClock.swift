import Foundation
import MultiAuth
import MultiAuthLocking

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
public final class ManualClock: Clock, Sendable {
    /// A point on the manual clock: the `Duration` elapsed since the clock was created.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
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
    }

    private struct Sleeper: Sendable {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
        let background: Bool
    }

    /// The clock's mutable fields, only touched inside `state.withLock`.
    private struct State {
        var current = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        var sleeperWaiters:
            [(id: UInt64, count: Int, background: Bool, continuation: CheckedContinuation<Void, Never>)] = []

        /// The number of registered sleepers of one kind (background or not).
        func count(background: Bool) -> Int {
            sleepers.reduce(0) { $0 + ($1.background == background ? 1 : 0) }
        }

        /// A fresh id for a sleeper or a sleeper waiter.
        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }
    }

    private let state = Locked(State())
    private let start: Date

    /// Creates a clock whose wall clock starts at `start`.
    /// - Parameter start: The wall-clock time at offset zero (default 2023-11-14T22:13:20Z,
    ///   Unix time 1 700 000 000).
    public init(start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        self.start = start
    }

    /// The current instant.
    public var now: Instant {
        state.withLock { $0.current }
    }

    /// The smallest step the clock measures: one nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// The wall-clock time: the start date plus the elapsed offset.
    public var wallNow: Date {
        state.withLock { start.addingTimeInterval($0.current.offset.timeInterval) }
    }

    /// A `TimeSource` whose clock is this clock and whose `now` is ``wallNow``.
    public var timeSource: TimeSource {
        TimeSource(clock: self, now: { [self] in self.wallNow })
    }

    /// The number of tasks currently sleeping on this clock, background work (auto-refresh)
    /// not counted.
    public var sleeperCount: Int {
        state.withLock { $0.count(background: false) }
    }

    /// The number of background sleeps (an `AuthClient`'s auto-refresh schedulers) currently
    /// waiting on this clock.
    public var backgroundSleeperCount: Int {
        state.withLock { $0.count(background: true) }
    }

    /// Suspends until the clock reaches `deadline` (returns at once if it already has).
    /// - Throws: `CancellationError` when the task is cancelled while sleeping.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let background = BackgroundWork.isActive
        let id = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome {
                    case due
                    case cancelled
                    case registered(ready: [CheckedContinuation<Void, Never>])
                }
                let outcome = state.withLock { state -> Outcome in
                    if deadline <= state.current { return .due }
                    if Task.isCancelled { return .cancelled }
                    state.sleepers.append(
                        Sleeper(id: id, deadline: deadline, continuation: continuation, background: background))
                    let count = state.count(background: background)
                    var ready: [CheckedContinuation<Void, Never>] = []
                    state.sleeperWaiters.removeAll { waiter in
                        if waiter.background == background, count >= waiter.count {
                            ready.append(waiter.continuation)
                            return true
                        }
                        return false
                    }
                    return .registered(ready: ready)
                }
                switch outcome {
                case .due: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .registered(let ready): for waiter in ready { waiter.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                let index = state.sleepers.firstIndex { $0.id == id }
                return index.map { state.sleepers.remove(at: $0) }
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` and wakes every sleeper whose deadline has
    /// passed, earliest first.
    public func advance(by duration: Duration) {
        let target = state.withLock { $0.current.advanced(by: duration) }
        advance(to: target)
    }

    /// Moves the clock to `instant` (never backwards) and wakes due sleepers, earliest first.
    public func advance(to instant: Instant) {
        let due = state.withLock { state in
            if instant > state.current { state.current = instant }
            let current = state.current
            let due = state.sleepers.filter { $0.deadline <= current }.sorted {
                ($0.deadline, $0.id) < ($1.deadline, $1.id)
            }
            state.sleepers.removeAll { $0.deadline <= current }
            return due
        }
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
        let id = state.withLock { $0.makeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.count(background: background) >= wanted || Task.isCancelled { return true }
                    state.sleeperWaiters.append((id, wanted, background, continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                let index = state.sleeperWaiters.firstIndex { $0.id == id }
                return index.map { state.sleeperWaiters.remove(at: $0) }
            }
            waiter?.continuation.resume()
        }
    }
}
