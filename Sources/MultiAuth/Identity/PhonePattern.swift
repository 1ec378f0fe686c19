import Foundation

/// Matching of libphonenumber's metadata regexes (ICU syntax subset: classes, `\d`, groups,
/// alternation, bounded repetition) against strings of ASCII digits.
///
/// Compiled expressions are cached per pattern; the cache is lock-protected so parsing is
/// safe from any thread.
final class PhonePattern: @unchecked Sendable {
    /// The process-wide cache.
    static let shared = PhonePattern()

    private let lock = NSLock()
    private var compiled: [String: NSRegularExpression] = [:]

    /// The compiled form of `pattern`, anchored at the start (`prefix`) or at both ends.
    /// `nil` when the pattern does not compile (a metadata bug; treated as "no match").
    func expression(_ pattern: String, wholeString: Bool) -> NSRegularExpression? {
        let source = wholeString ? "^(?:" + pattern + ")$" : "^(?:" + pattern + ")"
        lock.lock()
        defer { lock.unlock() }
        if let cached = compiled[source] { return cached }
        guard let expression = try? NSRegularExpression(pattern: source) else { return nil }
        compiled[source] = expression
        return expression
    }

    /// Whether the whole of `digits` matches `pattern` (Python's `re.fullmatch`).
    static func fullMatch(_ pattern: String, _ digits: String) -> Bool {
        guard let expression = shared.expression(pattern, wholeString: true) else { return false }
        let range = NSRange(location: 0, length: digits.utf16.count)
        return expression.firstMatch(in: digits, options: [.anchored], range: range) != nil
    }

    /// The match of `pattern` at the start of `digits` (Python's `re.match`), with the
    /// expression that produced it (for capture groups and templates).
    static func prefixMatch(_ pattern: String, _ digits: String) -> (NSTextCheckingResult, NSRegularExpression)? {
        guard let expression = shared.expression(pattern, wholeString: false) else { return nil }
        let range = NSRange(location: 0, length: digits.utf16.count)
        guard let match = expression.firstMatch(in: digits, options: [.anchored], range: range) else { return nil }
        return (match, expression)
    }

    /// Whether `pattern` compiles (used by tests to validate the generated table).
    static func compiles(_ pattern: String) -> Bool {
        shared.expression(pattern, wholeString: true) != nil
    }
}
