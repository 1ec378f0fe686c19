/// A session store that keeps sessions in memory, for tests and previews.
///
/// Sessions are lost when the process ends. To simulate a full disk or a locked keychain, wrap
/// it in `FailingSessionStore` (module `MultiAuthSandbox`).
public actor InMemorySessionStore: SessionStore {
    private var sessions: [AuthProviderID: AuthSession]

    /// Creates a store holding `sessions`.
    public init(sessions: [AuthSession] = []) {
        self.sessions = Dictionary(sessions.map { ($0.provider, $0) }, uniquingKeysWith: { $1 })
    }

    /// All stored sessions.
    public var allSessions: [AuthSession] { sessions.values.sorted { $0.provider < $1.provider } }

    /// Never throws: the sessions are in memory.
    public func load(for provider: AuthProviderID) throws -> AuthSession? {
        sessions[provider]
    }

    /// Never throws: the sessions are in memory.
    public func save(_ session: AuthSession) throws {
        sessions[session.provider] = session
    }

    /// Never throws: the sessions are in memory.
    public func remove(for provider: AuthProviderID) throws {
        sessions[provider] = nil
    }

    /// Atomic on the actor: the comparison and the write happen in one call without a
    /// suspension point. Declared `async` so that a call on the concrete type picks it over
    /// the protocol's non-atomic default (see ``SessionStore``).
    /// - Throws: `AuthError` `.invalidInput` for another provider's session.
    public func replace(_ expected: AuthSession?, with replacement: AuthSession?, for provider: AuthProviderID)
        async throws
        -> SessionStoreWriteResult
    {
        try SessionStoreWriteResult.checkReplacement(replacement, for: provider)
        let current = sessions[provider]
        guard AuthSession.isSameVersion(current, expected) else { return .conflict(current: current) }
        sessions[provider] = replacement
        return .written
    }

    /// Never throws: the sessions are in memory.
    public func removeAll() throws {
        sessions.removeAll()
    }
}
