import Foundation

/// A provider that can refresh a session's tokens.
///
/// How `AuthClient` reads your errors (Docs/Architecture.md, "Session lifecycle"):
/// - Throw **`.sessionExpired`** when the server rejects the refresh credential as revoked,
///   expired or unknown (`invalid_grant`, `refresh_token_not_found`, `session_not_found`, …),
///   keeping the raw code in `providerCode`. The client removes the session once and
///   publishes `sessionExpired`. For compatibility, `.unauthorized` is read the same way; new
///   adapters should throw `.sessionExpired`.
/// - Throw `.network`, `.providerUnavailable` (5xx) or `.rateLimited` (with `retryAfter`) for
///   transient failures: the session is kept and retried later, never signed out.
/// - Throw `.unsupported` when this session cannot be refreshed at all (no refresh
///   credential): the client keeps it as it is and stops refreshing it in the background.
public protocol RefreshableProvider: AuthProvider {
    /// Exchanges the session's refresh credential for new tokens.
    /// - Returns: The refreshed session. `AuthClient` keeps the original ``AuthSession/id``
    ///   whatever id this value carries: a refresh continues the same signed-in session.
    /// - Throws: `AuthError` (`.sessionExpired` when the refresh credential is rejected,
    ///   `.network`, `.providerUnavailable`, `.rateLimited`, `.unsupported`, …) or
    ///   `CancellationError`.
    func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession
}
