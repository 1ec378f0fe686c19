import Foundation

extension JSONEncoder {
    /// The encoder MultiAuth uses for request bodies and stores: sorted keys, unescaped slashes,
    /// dates as Unix time in seconds with millisecond precision (a JSON number such as
    /// `1700000000.123`).
    ///
    /// A date on a whole millisecond (what providers put in sessions) round-trips exactly:
    /// `decode(encode(date)) == date`. Finer fractions are rounded to the millisecond.
    package static var multiAuth: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.unixMilliseconds / 1000)
        }
        return encoder
    }
}
