import Foundation

/// Translates the user-facing texts of `AuthError` (``AuthError/errorDescription``,
/// ``AuthError/recoverySuggestion``): given a key of ``AuthError/englishStrings`` and its
/// English text, returns the text to show.
///
/// Concurrency: a `Sendable` value; the lookup may run on any thread.
public struct AuthErrorLocalizer: Sendable {
    /// The table name ``AuthError/localizer`` reads by default: `"MultiAuth"`.
    public static let defaultTable = "MultiAuth"

    private let lookup: @Sendable (_ key: String, _ english: String) -> String

    /// A localizer with your own lookup (for example a server-driven or in-app table).
    /// - Parameter lookup: Returns the text for a key; return `english` when you have none.
    public init(_ lookup: @escaping @Sendable (_ key: String, _ english: String) -> String) {
        self.lookup = lookup
    }

    /// The text for `key`.
    public func localizedString(forKey key: String, english: String) -> String { lookup(key, english) }

    /// English only, whatever the app's tables hold.
    public static let english = AuthErrorLocalizer { _, english in english }

    /// Reads table `table` of `bundle` (`<table>.strings` or `<table>.xcstrings` in the app's
    /// `.lproj` folders) with `Bundle.localizedString(forKey:value:table:)`; a key without an
    /// entry gives its English text.
    public static func bundle(_ bundle: Bundle, table: String = defaultTable) -> AuthErrorLocalizer {
        AuthErrorLocalizer { key, english in bundle.localizedString(forKey: key, value: english, table: table) }
    }
}
