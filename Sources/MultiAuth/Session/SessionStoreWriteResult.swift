/// The outcome of a conditional write, ``SessionStore/replace(_:with:for:)``.
public enum SessionStoreWriteResult: Sendable, Hashable {
    /// The stored session was the expected one; the replacement is stored (or the session
    /// removed).
    case written
    /// The stored session was not the expected one (another writer got there first); nothing
    /// was written. `current` is what the store holds now (`nil`: nothing).
    case conflict(current: AuthSession?)
}

extension SessionStoreWriteResult {
    /// Throws `.invalidInput` when `replacement` belongs to another provider than `provider`.
    static func checkReplacement(_ replacement: AuthSession?, for provider: AuthProviderID) throws {
        if let replacement, replacement.provider != provider {
            throw AuthError(
                .invalidInput, "a conditional write for '\(provider)' was given a session of '\(replacement.provider)'",
                provider: provider)
        }
    }
}
