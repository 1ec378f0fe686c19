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

    /// Whether `url` is a redirect of the flow whose newest challenge is `challenge` (its state
    /// parameter matches the challenge's), without any network call: `true`, `false`, or `nil`
    /// when the URL alone cannot tell. `AuthClient` answers a redirect that matches no pending
    /// flow with the stored session only when its provider says it belongs to the flow that
    /// stored that session, or cannot tell and no other flow could own it (rule F8,
    /// Docs/Architecture.md, "Sign-in flows"). The default implementation answers `nil`.
    func redirect(_ url: URL, belongsTo challenge: Challenge) -> Bool?
}

extension RedirectHandlingProvider {
    /// The default: the URL alone cannot tell which flow it belongs to (`nil`).
    public func redirect(_ url: URL, belongsTo challenge: Challenge) -> Bool? { nil }
}
