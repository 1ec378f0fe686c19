import Foundation

/// What an emulated backend is holding now, for the emulator's inspector and control API: the
/// flows it started and has not finished, and the sessions it issued. Test support (`package`).
package struct SandboxActivity: Sendable, Hashable {
    /// A flow a backend started (a code or link sent) and has not finished.
    package struct Flow: Sendable, Hashable {
        /// The provider id, e.g. `dynamic`.
        package var provider: String
        /// The E.164 number or e-mail identity key.
        package var destination: String
        /// What the user is asked for, e.g. `email code`, `magic link`.
        package var kind: String
        /// When it stops being answerable (server time).
        package var expiresAt: Date?
        /// Wrong answers so far.
        package var wrongAttempts: Int
    }

    /// A session a backend issued and still knows.
    package struct Session: Sendable, Hashable {
        /// The provider id.
        package var provider: String
        /// The user's id at the provider.
        package var userID: String
        /// The E.164 number or e-mail identity key signed in, when the backend knows it.
        package var destination: String?
        /// Whether the backend revoked it.
        package var revoked: Bool
    }

    /// The pending flows.
    package var flows: [Flow] = []
    /// The issued sessions.
    package var sessions: [Session] = []

    package init(flows: [Flow] = [], sessions: [Session] = []) {
        self.flows = flows
        self.sessions = sessions
    }
}

extension DynamicBackend {
    /// The verifications not used yet and the sessions issued (Docs/Emulator.md, "Inspector").
    package func activity() -> SandboxActivity {
        state.withLock { state in
            SandboxActivity(
                flows: state.verifications.values.filter { !$0.used }.map {
                    .init(
                        provider: "dynamic", destination: $0.destination,
                        kind: $0.channel == .sms ? "sms code" : "email code", expiresAt: $0.expiresAt,
                        wrongAttempts: $0.wrongAttempts)
                },
                sessions: state.sessions.values.map { session in
                    .init(
                        provider: "dynamic", userID: state.users[session.userKey]?.id ?? session.userKey,
                        destination: session.userKey, revoked: session.revoked)
                })
        }
    }
}

extension OTPlessBackend {
    /// The transactions not consumed yet and the sessions issued (Docs/Emulator.md, "Inspector").
    package func activity() -> SandboxActivity {
        state.withLock { state in
            let destinationOfUser = Dictionary(
                state.userIDs.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
            return SandboxActivity(
                flows: state.transactions.values.filter { !$0.consumed && $0.status != "FAILED" }.map {
                    .init(
                        provider: "otpless", destination: $0.destination,
                        kind:
                            "\($0.authType.lowercased()) via \($0.currentChannel?.rawValue ?? $0.primaryChannel?.rawValue ?? "?")",
                        expiresAt: $0.expiresAt, wrongAttempts: $0.wrongAttempts)
                },
                sessions: state.sessions.values.map {
                    .init(
                        provider: "otpless", userID: $0.userID, destination: destinationOfUser[$0.userID],
                        revoked: false)
                })
        }
    }
}
