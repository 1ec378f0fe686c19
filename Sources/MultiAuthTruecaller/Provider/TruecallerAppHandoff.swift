#if canImport(UIKit)
import UIKit

/// The Apple-only part of one-tap (Docs/Providers/Truecaller.md, "One-tap hand-off"): whether
/// the Truecaller app is installed, and opening the hand-off URL of a one-tap challenge.
///
/// The rest runs everywhere: `AuthClient.signIn(with: .truecaller, .truecallerOneTap(…))`
/// builds the hand-off URL (the challenge's `.oauthRedirect(url:)`); the app opens it with
/// ``open(_:)`` (the system opener, never an in-app browser session, which would not hand the
/// universal link to the Truecaller app); the Truecaller app answers through the app link,
/// and the app passes `userActivity.webpageURL` (or the `truecallersdk-<appKey>://` URL) to
/// `AuthClient.handleRedirect(_:)`.
///
/// Requires `truesdk` in `LSApplicationQueriesSchemes`, the app link in the associated
/// domains and `truecallersdk-<appKey>` in `CFBundleURLSchemes`. Main-actor isolated (UIKit).
@MainActor
public enum TruecallerAppHandoff {
    /// Whether `truesdk://` can be opened, i.e. the Truecaller app is installed.
    public static var isTruecallerInstalled: Bool {
        URL(string: "truesdk://").map { UIApplication.shared.canOpenURL($0) } ?? false
    }

    /// Opens a one-tap challenge's hand-off URL (`https://www.truecaller.com/userProfile?profileRequest=…`)
    /// with the system opener, which hands it to the Truecaller app.
    /// - Returns: Whether the system opened it.
    public static func open(_ requestURL: URL) async -> Bool {
        await UIApplication.shared.open(requestURL)
    }
}
#endif
