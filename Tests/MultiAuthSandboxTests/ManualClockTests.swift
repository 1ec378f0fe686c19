import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(10)))
struct ManualClockTests {
    @Test func advanceWakesDueSleepersAndMovesWallClock() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_700_000_000))
        let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
        await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(clock.sleeperCount == 0)
        #expect(clock.wallNow == Date(timeIntervalSince1970: 1_700_000_005))
        #expect(clock.timeSource.now == clock.wallNow)
    }

    @Test func cancellingASleeperRemovesIt() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
        await clock.waitForSleepers(count: 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    /// A hang guard (a test's time limit) cancels the test's task: a wait for sleepers that
    /// never come must then return, so the test ends instead of hanging the run.
    @Test func aCancelledWaitForSleepersReturns() async {
        let clock = ManualClock()
        let waiter = Task { await clock.waitForSleepers(count: 3) }
        waiter.cancel()
        await waiter.value
        #expect(clock.sleeperCount == 0)
    }

    /// Background sleeps (the auto-refresh scheduler's) are counted apart, and a cancelled
    /// wait for them returns as a cancelled wait for ordinary sleepers does: a background sleep
    /// never satisfies `waitForSleepers`, so only cancellation ends that wait.
    @Test func backgroundSleepersAreCountedApartAndCancelledWaitsReturn() async throws {
        let clock = ManualClock()
        let background = Task {
            try await BackgroundWork.$isActive.withValue(true) { try await clock.sleep(for: .seconds(5)) }
        }
        await clock.waitForBackgroundSleepers(count: 1)
        #expect(clock.backgroundSleeperCount == 1 && clock.sleeperCount == 0)
        let foregroundWait = Task { await clock.waitForSleepers(count: 1) }
        let backgroundWait = Task { await clock.waitForBackgroundSleepers(count: 2) }
        foregroundWait.cancel()
        backgroundWait.cancel()
        await foregroundWait.value
        await backgroundWait.value
        clock.advance(by: .seconds(5))
        try await background.value
        #expect(clock.backgroundSleeperCount == 0)
    }
}
