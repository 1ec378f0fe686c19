import Foundation
import MultiAuth

/// A session store that keeps only the encoded bytes of each session (JSON with
/// `JSONEncoder.multiAuth`), as `FileSessionStore` and `KeychainSessionStore` do: a session
/// that does not survive encoding comes back different. Used by C12. Conditional writes are
/// atomic on the actor.
actor EncodedSessionStore: SessionStore {
    private var data: [AuthProviderID: Data] = [:]

    func load(for provider: AuthProviderID) throws -> AuthSession? {
        guard let bytes = data[provider] else { return nil }
        do { return try JSONDecoder.multiAuth.decode(AuthSession.self, from: bytes) } catch {
            throw AuthError(.storageUnavailable, "the stored session is not readable")
        }
    }

    func save(_ session: AuthSession) throws {
        do { data[session.provider] = try JSONEncoder.multiAuth.encode(session) } catch {
            throw AuthError(.storageFailure, "the session could not be encoded")
        }
    }

    func remove(for provider: AuthProviderID) { data[provider] = nil }

    /// Compare-and-set on the actor (the read, the comparison and the write happen in one call),
    /// comparing the decoded stored session with `expected` by ``/MultiAuth/AuthSession/isSameVersion(as:)``.
    func replace(_ expected: AuthSession?, with replacement: AuthSession?, for provider: AuthProviderID) async throws
        -> SessionStoreWriteResult
    {
        if let replacement, replacement.provider != provider {
            throw AuthError(
                .invalidInput, "a conditional write for '\(provider)' was given a session of '\(replacement.provider)'",
                provider: provider)
        }
        let current = try load(for: provider)
        guard AuthSession.isSameVersion(current, expected) else { return .conflict(current: current) }
        if let replacement { try save(replacement) } else { remove(for: provider) }
        return .written
    }

    func removeAll() { data.removeAll() }
}
