/// Persists sessions, one per provider.
///
/// Contract for conformers:
/// - `load` returns `nil` only when no session is stored. When the storage cannot be read
///   (locked keychain, unreadable or corrupt file) it throws `AuthError(.storageUnavailable)`:
///   that is **not** a sign-out, and nothing may be deleted because of it.
/// - `save` and `remove` throw `AuthError(.storageFailure)` when the write fails; never
///   swallow a write error.
/// - `remove` of an absent session succeeds (idempotent).
/// - ``replace(_:with:for:)`` is a compare-and-set: it writes only when the stored session is
///   still the one the caller read (``AuthSession/isSameVersion(as:)``). Stores shared by
///   several processes (an app and its extension) make it atomic across processes.
/// - Calls may arrive from many tasks at once.
///
/// Implementing ``replace(_:with:for:)``: declare it `async` even when its body is
/// synchronous (an actor method without `await` is still atomic). In an asynchronous context
/// Swift prefers an `async` method over a synchronous one of the same name, so a synchronous
/// implementation would lose to the non-atomic default below whenever code in another module
/// calls `replace` on the concrete store type (calls through `any SessionStore` are not
/// affected).
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

    /// Conditional write (compare-and-set): if the session stored for `provider` is the same
    /// version as `expected` (``AuthSession/isSameVersion(as:)``; `nil` means "nothing is
    /// stored"), stores `replacement` (`nil` removes the session) and returns `.written`;
    /// otherwise writes nothing and returns `.conflict(current:)` with what is stored now.
    ///
    /// `replacement`, when given, must belong to `provider`.
    /// - Throws: `AuthError` `.storageUnavailable` when the stored session cannot be read (nothing
    ///   is written), `.storageFailure` when the write fails (the stored session is unchanged),
    ///   `.invalidInput` when `replacement` belongs to another provider.
    func replace(_ expected: AuthSession?, with replacement: AuthSession?, for provider: AuthProviderID) async throws
        -> SessionStoreWriteResult
}

extension SessionStore {
    /// A default for stores written before conditional writes existed: `load`, compare, then
    /// `save`/`remove`. It is **not atomic** (another writer can slip between the read and the
    /// write), so stores shared by several tasks or processes must implement
    /// ``replace(_:with:for:)`` themselves; the stores MultiAuth ships all do.
    /// - Throws: `AuthError` `.storageUnavailable`, `.storageFailure`, `.invalidInput`.
    public func replace(_ expected: AuthSession?, with replacement: AuthSession?, for provider: AuthProviderID)
        async throws -> SessionStoreWriteResult
    {
        try SessionStoreWriteResult.checkReplacement(replacement, for: provider)
        let current = try await load(for: provider)
        guard AuthSession.isSameVersion(current, expected) else { return .conflict(current: current) }
        if let replacement { try await save(replacement) } else { try await remove(for: provider) }
        return .written
    }
}
