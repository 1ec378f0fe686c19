import Foundation

extension Duration {
    /// The duration as fractional seconds (`TimeInterval`).
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// Creates a duration from fractional seconds (`TimeInterval`), rounded to milliseconds.
    package static func interval(_ seconds: TimeInterval) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
