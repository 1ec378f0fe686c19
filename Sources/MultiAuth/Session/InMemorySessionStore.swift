/// A session store that keeps sessions in memory, with failures you can inject for tests.
///
/// Sessions are lost when the process ends. Use ``failNext(_:count:)`` or ``setUnavailable(_:)``
/// to simulate a full disk or a locked keychain.
public actor InMemorySessionStore: SessionStore {
    /// The operations a failure can be injected into.
    public enum Operation: Sendable, Hashable {
        /// ``SessionStore/load(for:)``
        case load
        /// ``SessionStore/save(_:)``
        case save
        /// ``SessionStore/remove(for:)`` and ``SessionStore/removeAll()``
        case remove
    }

    private var sessions: [AuthProviderID: AuthSession]
    private var pendingFailures: [Operation: Int] = [:]
    private var unavailable = false
    /// How many times each operation was called (failed calls included).
    public private(set) var callCounts: [Operation: Int] = [:]

    /// Creates a store holding `sessions`.
    public init(sessions: [AuthSession] = []) {
        self.sessions = Dictionary(sessions.map { ($0.provider, $0) }, uniquingKeysWith: { $1 })
    }

    /// Makes the next `count` calls of `operation` fail (`load` with `.storageUnavailable`,
    /// writes with `.storageFailure`), leaving the stored sessions untouched.
    public func failNext(_ operation: Operation, count: Int = 1) {
        pendingFailures[operation, default: 0] += count
    }

    /// While `true`, every call fails as if the storage were locked (`.storageUnavailable` for
    /// reads, `.storageFailure` for writes).
    public func setUnavailable(_ isUnavailable: Bool) { unavailable = isUnavailable }

    /// All stored sessions.
    public var allSessions: [AuthSession] { sessions.values.sorted { $0.provider < $1.provider } }

    private func check(_ operation: Operation) throws {
        callCounts[operation, default: 0] += 1
        var fail = unavailable
        if let remaining = pendingFailures[operation], remaining > 0 {
            pendingFailures[operation] = remaining - 1
            fail = true
        }
        guard fail else { return }
        switch operation {
        case .load: throw AuthError(.storageUnavailable, "the session store is unavailable (injected)")
        case .save, .remove: throw AuthError(.storageFailure, "the session store write failed (injected)")
        }
    }

    /// - Throws: `AuthError` `.storageUnavailable` when a failure was injected.
    public func load(for provider: AuthProviderID) throws -> AuthSession? {
        try check(.load)
        return sessions[provider]
    }

    /// - Throws: `AuthError` `.storageFailure` when a failure was injected.
    public func save(_ session: AuthSession) throws {
        try check(.save)
        sessions[session.provider] = session
    }

    /// - Throws: `AuthError` `.storageFailure` when a failure was injected.
    public func remove(for provider: AuthProviderID) throws {
        try check(.remove)
        sessions[provider] = nil
    }

    /// Atomic on the actor: the comparison and the write happen in one call without a
    /// suspension point. Declared `async` so that a call on the concrete type picks it over
    /// the protocol's non-atomic default (see ``SessionStore``).
    /// - Throws: `AuthError` `.storageUnavailable` / `.storageFailure` when a failure was
    ///   injected into `load` / the write, `.invalidInput` for another provider's session.
    public func replace(_ expected: AuthSession?, with replacement: AuthSession?, for provider: AuthProviderID) async throws
        -> SessionStoreWriteResult
    {
        try SessionStoreWriteResult.checkReplacement(replacement, for: provider)
        try check(.load)
        let current = sessions[provider]
        guard AuthSession.isSameVersion(current, expected) else { return .conflict(current: current) }
        try check(replacement == nil ? .remove : .save)
        sessions[provider] = replacement
        return .written
    }

    /// - Throws: `AuthError` `.storageFailure` when a failure was injected.
    public func removeAll() throws {
        try check(.remove)
        sessions.removeAll()
    }
}
