/// Persists sessions, one per provider.
///
/// Contract for conformers:
/// - `load` returns `nil` only when no session is stored. When the storage cannot be read
///   (locked keychain, unreadable or corrupt file) it throws `AuthError(.storageUnavailable)`:
///   that is **not** a sign-out, and nothing may be deleted because of it.
/// - `save` and `remove` throw `AuthError(.storageFailure)` when the write fails; never
///   swallow a write error.
/// - `remove` of an absent session succeeds (idempotent).
/// - Calls may arrive from many tasks at once.
public protocol SessionStore: Sendable {
    /// The stored session of `provider`, or `nil` when none is stored.
    /// - Throws: `AuthError` `.storageUnavailable`.
    func load(for provider: AuthProviderID) async throws -> AuthSession?

    /// Stores `session` under `session.provider`, replacing any previous one.
    /// - Throws: `AuthError` `.storageFailure`.
    func save(_ session: AuthSession) async throws

    /// Removes the session of `provider`; succeeds when none is stored.
    /// - Throws: `AuthError` `.storageFailure`.
    func remove(for provider: AuthProviderID) async throws

    /// Removes every stored session.
    /// - Throws: `AuthError` `.storageFailure`.
    func removeAll() async throws
}
