import Foundation

/// The signed-in state of an `AuthClient`: each provider's stored session with its expired
/// flag, and the providers whose storage could not be read.
public struct AuthState: Sendable, CustomStringConvertible {
    /// One stored session and whether it was expired when the state was taken.
    public struct Entry: Sendable {
        /// The stored session.
        public var session: AuthSession
        /// Whether `session` was expired at the time the state was taken (Docs/Cases.md, B21).
        public var isExpired: Bool
        /// Creates an entry.
        public init(session: AuthSession, isExpired: Bool) {
            self.session = session
            self.isExpired = isExpired
        }
    }
    /// Stored sessions by provider.
    public var sessions: [AuthProviderID: Entry]
    /// Providers whose stored session could not be read (`storageUnavailable`): not signed out.
    public var unavailable: [AuthProviderID: AuthError]

    /// Creates a state.
    public init(sessions: [AuthProviderID: Entry] = [:], unavailable: [AuthProviderID: AuthError] = [:]) {
        self.sessions = sessions
        self.unavailable = unavailable
    }

    /// Whether no session is stored and no storage is unavailable.
    public var isSignedOut: Bool { sessions.isEmpty && unavailable.isEmpty }

    /// e.g. `AuthState(dynamic: valid, portal: expired)`.
    public var description: String {
        let parts =
            sessions.keys.sorted().map { "\($0): \(sessions[$0]!.isExpired ? "expired" : "valid")" }
            + unavailable.keys.sorted().map { "\($0): unavailable" }
        return "AuthState(" + (parts.isEmpty ? "signed out" : parts.joined(separator: ", ")) + ")"
    }
}
