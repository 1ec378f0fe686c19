import Foundation

/// A JWT NumericDate (RFC 7519 §2): seconds since 1970-01-01T00:00:00Z UTC, ignoring leap
/// seconds, possibly fractional.
public struct NumericDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Seconds since 1970, possibly fractional.
    public var secondsSince1970: Double

    /// Creates a NumericDate from seconds since 1970.
    public init(_ secondsSince1970: Double) { self.secondsSince1970 = secondsSince1970 }

    /// Creates a NumericDate from a `Date`.
    public init(_ date: Date) { self.secondsSince1970 = date.timeIntervalSince1970 }

    /// The same instant as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: secondsSince1970) }

    /// Orders by time.
    public static func < (lhs: NumericDate, rhs: NumericDate) -> Bool { lhs.secondsSince1970 < rhs.secondsSince1970 }

    /// Decodes from a JSON number; a string is a type error.
    public init(from decoder: any Decoder) throws {
        secondsSince1970 = try decoder.singleValueContainer().decode(Double.self)
    }

    /// Encodes as a JSON number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(secondsSince1970)
    }

    /// The seconds, e.g. `1700000000`.
    public var description: String {
        secondsSince1970.rounded() == secondsSince1970 && abs(secondsSince1970) < 1e15
            ? String(Int64(secondsSince1970)) : String(secondsSince1970)
    }
}
