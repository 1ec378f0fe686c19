import Foundation

extension Date {
    /// Unix time in whole milliseconds, as a `Double` (exact below 2^53 ms).
    var unixMilliseconds: Double { (timeIntervalSince1970 * 1000).rounded() }

    /// This date rounded to the nearest millisecond: the precision sessions are stored with.
    /// The JSON of sessions, request bodies and provider state (Unix seconds with millisecond
    /// precision) round-trips such a date exactly.
    public var roundedToMilliseconds: Date { Date(timeIntervalSince1970: unixMilliseconds / 1000) }
}
