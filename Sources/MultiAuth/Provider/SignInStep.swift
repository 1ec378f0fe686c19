/// The result of one step of a sign-in: another challenge, or a session.
public enum SignInStep: Sendable {
    /// The user must answer this challenge.
    case challenge(Challenge)
    /// Signed in; the session is already persisted when this is returned through `AuthClient`.
    case signedIn(AuthSession)

    /// The challenge, if this step is one.
    public var challenge: Challenge? { if case .challenge(let c) = self { c } else { nil } }
    /// The session, if this step is one.
    public var session: AuthSession? { if case .signedIn(let s) = self { s } else { nil } }
}
