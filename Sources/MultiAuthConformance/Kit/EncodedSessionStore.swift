import Foundation
import MultiAuth

/// A session store that keeps only the encoded bytes of each session (JSON with
/// `JSONEncoder.multiAuth`), as `FileSessionStore` and `KeychainSessionStore` do: a session
/// that does not survive encoding comes back different. Used by C12.
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

    func removeAll() { data.removeAll() }
}
