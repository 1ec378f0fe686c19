#if canImport(UIKit)
import UIKit

/// The Apple-only part of one-tap (Docs/Providers/Truecaller.md): whether the Truecaller app is
/// installed and opening its profile request URL. Building and reading the
/// `NSKeyedArchiver` envelopes is left to Truecaller's SDK or the app; check what comes back
/// with ``TruecallerProvider/signIn(with:expectedNonce:context:)``.
///
/// Requires `truesdk` in `LSApplicationQueriesSchemes`. Main-actor isolated (UIKit).
@MainActor
public enum TruecallerAppHandoff {
    /// Whether `truesdk://` can be opened, i.e. the Truecaller app is installed.
    public static var isTruecallerInstalled: Bool {
        URL(string: "truesdk://").map { UIApplication.shared.canOpenURL($0) } ?? false
    }

    /// Opens `requestURL` (`https://www.truecaller.com/userProfile?profileRequest=…`).
    /// - Returns: Whether the system opened it.
    public static func open(_ requestURL: URL) async -> Bool {
        await UIApplication.shared.open(requestURL)
    }
}
#endif
