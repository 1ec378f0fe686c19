/// What one `AuthClient` keeps in memory about each provider's session, as an explicit state
/// machine (Docs/Architecture.md, "Session lifecycle", "The session state machine"). The store
/// holds the session itself; this machine holds what the store cannot: a refreshed session a
/// failed write left unsaved (L9), the refreshes in flight (L1) and whether a sign-out holds the
/// provider's write turn.
///
/// Each transition is a `mutating` method named after its event and returns the ``SessionEffects``
/// (state events) the caller publishes at once, inside the provider's write turn (L13). It does no
/// I/O and never suspends; `SessionLifecycle` holds it under its lock.
struct SessionStateMachine {
    /// A refreshed session the store did not take (L9), and the stored version it replaces.
    struct Unsaved: Sendable {
        let replaces: AuthSession
        let newest: AuthSession
    }

    /// Where one provider's session is, as far as this client's memory goes.
    enum State: Sendable {
        /// Nothing kept: the store holds the newest version this client has.
        case stored
        /// L9: a refreshed session newer than the stored version it replaces, waiting for its write
        /// (retried by the next refresh, `validSession` or the background scheduler).
        case keptUnsaved(Unsaved)
        /// A sign-out holds the provider's write turn (L11, L13); `kept` is what was kept before it,
        /// back in place if the sign-out fails, forgotten once it removes the session.
        case signingOut(kept: Unsaved?)
    }

    private var states: [AuthProviderID: State] = [:]
    private var refreshes: [RefreshKey: Task<SessionLifecycle.Outcome, Never>] = [:]
    /// The refreshes in flight whose provider call answered: only their local write is left.
    private var answered: Set<RefreshKey> = []

    /// What identifies one refresh in flight: the provider and the credential it spends.
    struct RefreshKey: Hashable {
        let provider: AuthProviderID
        let credential: String
    }

    /// The state of `provider`'s session.
    func state(of provider: AuthProviderID) -> State { states[provider] ?? .stored }

    private func kept(_ provider: AuthProviderID) -> Unsaved? {
        switch state(of: provider) {
        case .stored: nil
        case .keptUnsaved(let record): record
        case .signingOut(let kept): kept
        }
    }

    // MARK: Refreshes (L1)

    /// The refresh of `key` in flight, if any (a new caller joins it).
    func refresh(_ key: RefreshKey) -> Task<SessionLifecycle.Outcome, Never>? { refreshes[key] }

    /// A refresh of `key` began; every caller of the same credential joins `task` until it ends.
    mutating func refreshBegan(_ key: RefreshKey, task: Task<SessionLifecycle.Outcome, Never>) {
        refreshes[key] = task
    }

    /// The provider answered the refresh of `key` (success or failure): what is left is local.
    mutating func refreshAnswered(_ key: RefreshKey) { answered.insert(key) }

    /// Whether the provider answered the refresh of `key` in flight: a caller cancelled from now on
    /// comes too late to stop waiting (like F6), since only the local write is left.
    func isAnswered(_ key: RefreshKey) -> Bool { answered.contains(key) }

    /// The refresh of `key` ended (its outcome applied).
    mutating func refreshEnded(_ key: RefreshKey) {
        refreshes[key] = nil
        answered.remove(key)
    }

    /// How many refreshes are in flight.
    var refreshesInFlight: Int { refreshes.count }

    // MARK: Unsaved refreshes (L9)

    /// The kept refresh of `provider`, whatever the stored version.
    func keptRecord(_ provider: AuthProviderID) -> Unsaved? { kept(provider) }

    /// The unsaved refreshed session that replaces `stored`, if a failed write left one.
    func unsaved(replacing stored: AuthSession) -> AuthSession? {
        kept(stored.provider).flatMap { $0.replaces.isSameVersion(as: stored) ? $0.newest : nil }
    }

    /// The newest version of `stored` this client holds: its unsaved refresh, else itself.
    func newest(of stored: AuthSession) -> AuthSession { unsaved(replacing: stored) ?? stored }

    /// The conditional write of a refresh failed (L9): `newest` is kept in place of `replaces`,
    /// and `storageFailed` is published.
    mutating func writeFailed(replaces: AuthSession, newest: AuthSession, failure: AuthError) -> SessionEffects {
        let provider = newest.provider
        let record = Unsaved(replaces: replaces, newest: newest)
        if case .signingOut = state(of: provider) {
            states[provider] = .signingOut(kept: record)
        } else {
            states[provider] = .keptUnsaved(record)
        }
        return SessionEffects(provider: provider, [.publish(.storageFailed(failure))])
    }

    /// A write of `provider`'s session failed with nothing to keep (an ended session's removal,
    /// an unsaved write's retry): `storageFailed` is published, the state stays.
    func storeFailed(_ provider: AuthProviderID, failure: AuthError) -> SessionEffects {
        SessionEffects(provider: provider, [.publish(.storageFailed(failure))])
    }

    /// `record` was written (announced with `sessionRefreshed`), or found obsolete (the store holds
    /// something else now: a sign-in, a sign-out, another client's refresh): it is dropped unless
    /// a newer record took its place.
    mutating func unsavedSettled(_ record: Unsaved, written: AuthSession?) -> SessionEffects {
        let provider = record.newest.provider
        if case .keptUnsaved(let current) = state(of: provider), current.newest.isSameVersion(as: record.newest) {
            states[provider] = .stored
        }
        guard let written else { return SessionEffects(provider: provider, []) }
        return SessionEffects(provider: provider, [.announce(.sessionRefreshed(written), session: written)])
    }

    // MARK: Refresh outcomes (L2, L3)

    /// A refresh result (or an end, `replacement == nil`) was written in place of the refreshed
    /// session: `event` announces it.
    func written(_ provider: AuthProviderID, event: AuthEvent.Kind, replacement: AuthSession?) -> SessionEffects {
        SessionEffects(provider: provider, [.announce(event, session: replacement)])
    }

    // MARK: Sign-out (L6, L11, F7)

    /// A sign-out of `provider` holds the write turn and read `stored`: returns the newest
    /// credentials to revoke (an unsaved refresh's included, L9).
    mutating func signOutBegan(_ provider: AuthProviderID) {
        states[provider] = .signingOut(kept: kept(provider))
    }

    /// The sign-out removed `provider`'s session: what was kept is forgotten and `signedOut`
    /// published.
    mutating func signOutRemoved(_ provider: AuthProviderID) -> SessionEffects {
        states[provider] = .stored
        return SessionEffects(provider: provider, [.announce(.signedOut, session: nil)])
    }

    /// The sign-out found the session already removed (another sign-out, on this client or
    /// another): what was kept is forgotten; the end is announced unless it already was.
    mutating func signOutFoundNothing(_ provider: AuthProviderID) -> SessionEffects {
        states[provider] = .stored
        return SessionEffects(provider: provider, [.announceEndUnlessAnnounced(.signedOut)])
    }

    /// The sign-out ended without removing anything (nothing stored, a newer sign-in kept, or the
    /// store failed): what was kept before is back in place.
    mutating func signOutEnded(_ provider: AuthProviderID) {
        guard case .signingOut(let kept) = state(of: provider) else { return }
        states[provider] = kept.map { .keptUnsaved($0) } ?? .stored
    }
}

/// The state events one transition of ``SessionStateMachine`` asks its caller to publish, in order,
/// inside the provider's write turn.
struct SessionEffects {
    /// One state event.
    enum Effect {
        /// Publish `kind` (a flow-less event such as `storageFailed`).
        case publish(AuthEvent.Kind)
        /// Publish `kind` and record `session` (`nil`: none) as the provider's state, in one step.
        case announce(AuthEvent.Kind, session: AuthSession?)
        /// Record that the provider has no session and publish `kind` unless the last state event
        /// already announced the end.
        case announceEndUnlessAnnounced(AuthEvent.Kind)
    }

    /// The provider every effect concerns.
    let provider: AuthProviderID
    /// The effects, in order.
    let list: [Effect]

    init(provider: AuthProviderID, _ list: [Effect]) {
        self.provider = provider
        self.list = list
    }
}
