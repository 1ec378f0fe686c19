import Foundation

/// A provider whose flows complete through a redirect URL (magic links, OAuth, deep links).
public protocol RedirectHandlingProvider: AuthProvider {
    /// Whether `url` belongs to this provider (scheme, host, path). Must not claim foreign URLs.
    func canHandle(_ url: URL) -> Bool

    /// Completes the pending flow with the redirect.
    /// - Parameters:
    ///   - url: The redirect URL.
    ///   - pending: The challenge of the flow this provider started that is still pending,
    ///     or `nil` when none is; a provider must refuse a code when `pending` is `nil` or
    ///     the URL's state does not match it.
    ///   - context: Transport, time and event sink for this call.
    /// - Throws: `AuthError` (`.challengeNotPending`, `.unauthorized`, `.invalidInput`, …).
    func handleRedirect(_ url: URL, pending: Challenge?, context: AuthContext) async throws -> SignInStep
}
