import Foundation

extension Duration {
    /// The duration as fractional seconds (`TimeInterval`).
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// Creates a duration from fractional seconds (`TimeInterval`), rounded to milliseconds and
    /// saturating at ±100 years (`NaN` is zero), so no computed or server-sent interval traps
    /// (``WireNumber/duration(seconds:)``).
    package static func interval(_ seconds: TimeInterval) -> Duration {
        WireNumber.duration(seconds: seconds)
    }
}
