import Foundation

/// The one checked way from a number a server sent (a JSON number, a numeric string, a header)
/// to a Swift `Int`, `Duration`, lifetime or `Date` (Docs/Security.md, "Numbers from the wire").
///
/// Every conversion refuses non-finite values and clamps or refuses values out of its range, so
/// no server answer can trap (`Int(1e300)`), stall (a poll timeout of 10³⁰⁰ s) or produce a
/// value that cannot be encoded again (an `inf` expiry). The bounds:
///
/// | value | bound | out of range |
/// |---|---|---|
/// | a lifetime (TTL, `exp − iat`) | 0 < s ≤ ``maximumLifetime`` (10 years) | `malformedResponse` |
/// | an expiry in Unix seconds | 1970 ≤ t ≤ now + ``maximumLifetime`` | `malformedResponse` |
/// | a timer (poll interval, poll budget) | 0 ≤ s, clamped to ``maximumTimer`` (1 day) | `malformedResponse` below 0 |
/// | a wait (`Retry-After`, `retryAfter`) | clamped into 0 … ``maximumTimer`` | never refused |
/// | an integer | whole, within ±2⁵³ | `nil` / `malformedResponse` |
/// | an error code | kept as a string (`7118`, `1e+19`) | never a number conversion |
///
/// Adapter code (and the core) converts through these functions only; `Scripts/check_wire_numbers.py`
/// refuses an unchecked `Int(…)`/`Int64(…)` of a floating-point value or `.seconds(…)` of a
/// `Double` anywhere else. Package-only: the built-in adapters share it. Concurrency: pure.
package enum WireNumber {
    /// The longest lifetime or the furthest expiry a server may state: 10 years of 365.25 days
    /// (315,576,000 s).
    package static let maximumLifetime: TimeInterval = 10 * 365.25 * 86_400
    /// The longest timer or wait a server may set: one day. Longer values are clamped.
    package static let maximumTimer: Duration = .seconds(86_400)
    /// The largest magnitude an integer from JSON keeps exactly (2⁵³).
    package static let maximumExactInteger: Double = 9_007_199_254_740_992
    /// The largest magnitude ``Duration/interval(_:)`` represents (100 years of seconds); past
    /// it a duration saturates.
    package static let maximumInterval: TimeInterval = 100 * 365.25 * 86_400

    // MARK: Reading

    /// A JSON number (`number`) or a string holding an RFC 8259 §6 number (`text`: `"3600"`,
    /// `"1.5e3"`) as a finite `Double`; `nil` for anything else (`"inf"`, `"NaN"`, `"0x10"`,
    /// `"1e999"`, neither given). Pass a JSON value's number and string readings.
    package static func number(_ number: Double?, text: String?) -> Double? {
        if let number { return number.isFinite ? number : nil }
        return text.flatMap(self.number)
    }

    /// `text` as a finite `Double` when it is an RFC 8259 §6 number (surrounding spaces
    /// allowed, at most 64 bytes); `nil` for `"inf"`, `"nan"`, hex, or a value past `Double`.
    package static func number(_ text: String) -> Double? {
        let trimmed = text.utf8.count <= 64 ? text.trimmingCharacters(in: .whitespaces) : ""
        guard isJSONNumber(trimmed.utf8), let value = Double(trimmed), value.isFinite else { return nil }
        return value
    }

    /// `value` as an `Int` when it is a whole number within ±2⁵³; `nil` otherwise (never traps).
    package static func integer(_ value: Double) -> Int? {
        guard value.isFinite, value.rounded(.towardZero) == value, abs(value) <= maximumExactInteger else {
            return nil
        }
        return Int(exactly: value)
    }

    /// An integer field: a whole number within ±2⁵³.
    /// - Throws: `AuthError` `.malformedResponse` naming `field` otherwise.
    package static func integer(_ value: Double?, field: String, provider: AuthProviderID?) throws -> Int {
        guard let value, let integer = integer(value) else {
            throw malformed(field, "is not a whole number within ±2^53", provider: provider)
        }
        return integer
    }

    /// A lifetime in seconds (a TTL, `exp − iat`): finite, above zero, at most
    /// ``maximumLifetime``.
    /// - Throws: `AuthError` `.malformedResponse` naming `field` otherwise.
    package static func lifetime(seconds: Double, field: String, provider: AuthProviderID?) throws -> TimeInterval {
        guard seconds.isFinite else { throw malformed(field, "is not a finite number", provider: provider) }
        guard seconds > 0 else { throw malformed(field, "is not positive", provider: provider) }
        guard seconds <= maximumLifetime else { throw malformed(field, "is longer than 10 years", provider: provider) }
        return seconds
    }

    /// An expiry in Unix seconds: finite, not before 1970 and at most ``maximumLifetime`` after
    /// `now`. An expiry in the past is valid (the session is due for a refresh).
    /// - Throws: `AuthError` `.malformedResponse` naming `field` otherwise.
    package static func expiry(
        unixSeconds: Double, now: Date, field: String, provider: AuthProviderID?
    ) throws -> Date {
        guard unixSeconds.isFinite else { throw malformed(field, "is not a finite number", provider: provider) }
        guard unixSeconds >= 0 else { throw malformed(field, "is before 1970", provider: provider) }
        guard unixSeconds <= now.timeIntervalSince1970 + maximumLifetime else {
            throw malformed(field, "is more than 10 years ahead", provider: provider)
        }
        return Date(timeIntervalSince1970: unixSeconds)
    }

    /// A timer a server sets (a poll interval or budget) in `unit`s (1 for seconds, 0.001 for
    /// milliseconds): finite and not negative, raised to `minimum` and clamped to
    /// ``maximumTimer``.
    /// - Throws: `AuthError` `.malformedResponse` naming `field` for a non-finite or negative value.
    package static func timer(
        _ value: Double, unit: TimeInterval, minimum: Duration = .zero, field: String, provider: AuthProviderID?
    ) throws -> Duration {
        guard value.isFinite else { throw malformed(field, "is not a finite number", provider: provider) }
        guard value >= 0 else { throw malformed(field, "is negative", provider: provider) }
        let seconds = min(value * unit, maximumTimer.timeInterval)
        return max(minimum, .interval(seconds))
    }

    /// A wait a server asks for in whole seconds (`Retry-After`, a `retryAfter` field), clamped
    /// into 0 … ``maximumTimer``: a wait is advice, so it is never refused.
    package static func wait(seconds: Int64) -> Duration {
        .seconds(min(max(seconds, 0), Int64(maximumTimer.components.seconds)))
    }

    /// A wait in seconds from a JSON number (rounded, clamped like ``wait(seconds:)``);
    /// `nil` when the value is missing or not finite.
    package static func wait(_ value: Double?) -> Duration? {
        guard let value, value.isFinite else { return nil }
        let clamped = min(max(value.rounded(), 0), maximumTimer.timeInterval)
        return wait(seconds: Int64(exactly: clamped) ?? 0)
    }

    /// A server's error code kept as a string: a string (`text`) as it is; a whole number within
    /// ±2⁵³ in decimal (`7118`); any other finite number in Swift's shortest form (`1e+19`,
    /// `-9.3e+18`). Never converts a number to an integer type unchecked, so no code can trap.
    package static func code(_ number: Double?, text: String?) -> String? {
        if let text { return text }
        guard let number, number.isFinite else { return nil }
        if let integer = integer(number) { return String(integer) }
        return "\(number)"
    }

    /// Whole seconds of `date` since 1970 for a request id or log line: saturating, never traps.
    package static func unixSeconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite else { return 0 }
        return Int64(exactly: min(max(seconds, -maximumExactInteger), maximumExactInteger)) ?? 0
    }

    /// A `Duration` of `seconds` rounded to milliseconds, saturating at ±``maximumInterval``;
    /// `NaN` is zero. The body of ``Duration/interval(_:)``.
    package static func duration(seconds: TimeInterval) -> Duration {
        guard !seconds.isNaN else { return .zero }
        let clamped = min(max(seconds, -maximumInterval), maximumInterval)
        return .milliseconds(Int64(exactly: (clamped * 1000).rounded()) ?? 0)
    }

    // MARK: Private

    private static func malformed(_ field: String, _ problem: String, provider: AuthProviderID?) -> AuthError {
        AuthError(.malformedResponse, "the response's \(field) \(problem)", provider: provider)
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private static func isJSONNumber(_ bytes: String.UTF8View) -> Bool {
        var index = bytes.startIndex
        func peek() -> UInt8? { index < bytes.endIndex ? bytes[index] : nil }
        func digits() -> Int {
            var count = 0
            while let byte = peek(), byte &- UInt8(ascii: "0") < 10 {
                count += 1
                index = bytes.index(after: index)
            }
            return count
        }
        if peek() == UInt8(ascii: "-") { index = bytes.index(after: index) }
        if peek() == UInt8(ascii: "0") {
            index = bytes.index(after: index)
        } else if digits() == 0 {
            return false
        }
        if peek() == UInt8(ascii: ".") {
            index = bytes.index(after: index)
            guard digits() > 0 else { return false }
        }
        if let byte = peek(), byte | 0x20 == UInt8(ascii: "e") {
            index = bytes.index(after: index)
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                index = bytes.index(after: index)
            }
            guard digits() > 0 else { return false }
        }
        return index == bytes.endIndex
    }
}
