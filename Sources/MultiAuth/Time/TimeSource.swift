import Foundation

/// The single source of time for everything MultiAuth does: a `Clock` for sleeping, polling
/// and back-off, plus a wall clock (`now`) for expiry, TTL and TOTP.
///
/// No MultiAuth code reads `Date()` or calls `Task.sleep` directly; it goes through the
/// `TimeSource` in its ``AuthContext``. Tests inject `ManualClock` (from `MultiAuthSandbox`),
/// which moves both together, so no test ever sleeps in real time.
public struct TimeSource: Sendable {
    /// The clock used for sleeping (`Duration`-based).
    public let clock: any Clock<Duration>
    private let wallClock: @Sendable () -> Date

    /// Creates a time source.
    /// - Parameters:
    ///   - clock: Used for every sleep (polling intervals, latency, back-off).
    ///   - now: Returns the current wall-clock time (expiry, TTL, TOTP time steps).
    public init(clock: any Clock<Duration>, now: @escaping @Sendable () -> Date) {
        self.clock = clock
        self.wallClock = now
    }

    /// The real time: `ContinuousClock` for sleeping and the system's wall clock.
    public static var system: TimeSource {
        TimeSource(clock: ContinuousClock(), now: { Date() })
    }

    /// The current wall-clock time.
    public var now: Date { wallClock() }

    /// Suspends for `duration` on ``clock``.
    /// - Throws: `CancellationError` when the task is cancelled while sleeping.
    public func sleep(for duration: Duration) async throws {
        try await clock.sleep(for: duration, tolerance: nil)
    }
}
