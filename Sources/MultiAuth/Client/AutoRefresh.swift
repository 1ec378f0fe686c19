/// How an `AuthClient` refreshes sessions in the background: on by default, off per client
/// with ``disabled``.
///
/// With auto-refresh on, the client keeps one scheduler per provider that has a stored,
/// refreshable session with a known access-token expiry. It sleeps on the client's
/// `TimeSource` clock until `expiresAt − refreshMargin`, then refreshes through the same
/// single-flight, compare-and-set path as ``AuthClient/refresh(_:)-(AuthSession)``. A
/// transient failure (offline, timeout, 429, 5xx) is retried with exponential back-off and
/// jitter, never sooner than the error's `retryAfter`. The scheduler stops when the session
/// is signed out or ended by the provider (`sessionExpired`), when it cannot be refreshed
/// (no expiry, or its maximum lifetime ends first), when ``AuthClient/stopAutoRefresh()`` is
/// called, and when the client is released.
///
/// The models are supabase-swift's `autoRefreshToken`, Firebase Auth's proactive token
/// refresh and Okta's `automaticRefresh` (see Docs/Architecture.md, "Session lifecycle").
public struct AutoRefresh: Sendable, Hashable {
    /// Whether sessions are refreshed in the background.
    public var isEnabled: Bool
    /// The first back-off after a failed background refresh (doubled per further failure).
    public var initialBackoff: Duration
    /// The longest back-off between background retries.
    public var maximumBackoff: Duration
    /// Seeds the jitter generator, so tests on a manual clock are deterministic; `nil` seeds it
    /// from the system's random source.
    public var jitterSeed: UInt64?

    /// Creates a policy.
    /// - Parameters:
    ///   - isEnabled: Whether to refresh in the background.
    ///   - initialBackoff: The first retry delay after a transient failure (default 2 s).
    ///   - maximumBackoff: The cap of the doubling retry delay (default 5 min).
    ///   - jitterSeed: A seed for the jitter (each delay is drawn from [½, 1] × the back-off).
    public init(
        isEnabled: Bool = true, initialBackoff: Duration = .seconds(2), maximumBackoff: Duration = .seconds(300),
        jitterSeed: UInt64? = nil
    ) {
        self.isEnabled = isEnabled
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.jitterSeed = jitterSeed
    }

    /// Background refresh on, with the default back-off.
    public static let enabled = AutoRefresh()
    /// No background refresh: sessions refresh only when ``AuthClient/validSession(for:)`` or
    /// ``AuthClient/refresh(_:)-(AuthProviderID)`` is called.
    public static let disabled = AutoRefresh(isEnabled: false)
}
