import Foundation

/// A signed-in session: who the user is, the credentials the provider issued, and when it
/// was created and expires.
///
/// `Codable` (stores write it as JSON) and `Sendable`. Every rendering (`description`, `dump`,
/// the mirror) is the default one: the tokens are ``Secret``s and the user masks its phone and
/// e-mail, so none shows a token.
public struct AuthSession: Sendable, Codable, Hashable, Identifiable {
    /// A local id for this session (a UUID), stable across refreshes.
    public var id: String
    /// The provider that issued the session.
    public var provider: AuthProviderID
    /// The signed-in user.
    public var user: AuthUser
    /// Tokens and their expiry.
    public var credentials: Credentials
    /// When the session was created (wall clock of the injected `TimeSource`).
    public var createdAt: Date
    /// A hard end of the session independent of token expiry (e.g. Portal's 7-day maximum),
    /// or `nil`.
    public var maximumLifetimeEndsAt: Date?

    /// Creates a session.
    public init(
        id: String = UUID().uuidString.lowercased(), provider: AuthProviderID, user: AuthUser, credentials: Credentials,
        createdAt: Date, maximumLifetimeEndsAt: Date? = nil
    ) {
        self.id = id
        self.provider = provider
        self.user = user
        self.credentials = credentials
        self.createdAt = createdAt
        self.maximumLifetimeEndsAt = maximumLifetimeEndsAt
    }

    /// When the session stops being usable without a refresh: the earlier of the access
    /// token's expiry and the maximum lifetime; `nil` when neither is known.
    public var expiresAt: Date? {
        switch (credentials.expiresAt, maximumLifetimeEndsAt) {
        case (let token?, let max?): min(token, max)
        case (let token?, nil): token
        case (nil, let max?): max
        case (nil, nil): nil
        }
    }

    /// Whether the session is expired at `now` (`now >= expiresAt`).
    public func isExpired(at now: Date) -> Bool { expiresAt.map { now >= $0 } ?? false }
}
