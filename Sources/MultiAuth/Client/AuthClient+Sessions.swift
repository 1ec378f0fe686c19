import Foundation

// Sessions, sign-out, state and background refresh: the facade over `SessionLifecycle` and
// `AutoRefreshScheduler` (Docs/Architecture.md, "Session lifecycle").
extension AuthClient {
    // MARK: Sessions

    /// The stored session of `provider`, expired or not.
    /// - Throws: `AuthError` `.storageUnavailable` (never treated as signed out).
    public func session(for provider: AuthProviderID) async throws -> AuthSession? {
        try await store.load(for: provider)
    }

    /// The stored session of `provider`, refreshed first when it expires within
    /// ``refreshMargin`` and the provider can refresh. Concurrent callers share one refresh
    /// (Docs/Cases.md, B17).
    ///
    /// The refresh follows the session-lifecycle rules (Docs/Architecture.md): a result that
    /// finds another session stored is discarded and that session is returned; a revoked
    /// refresh credential ends the session (`sessionExpired`); a transient failure (offline,
    /// timeout, 429, 5xx) keeps it and, while its access token has not expired, returns it.
    /// - Returns: A valid session, the stored session when it cannot be refreshed (no
    ///   refreshable provider), or `nil` when signed out.
    /// - Throws: `AuthError` `.sessionExpired` (the provider ended the session; the raw code
    ///   is kept), `.storageUnavailable`, `.storageFailure`, or the transient error (`.network`,
    ///   `.providerUnavailable`, `.rateLimited`, …) when the access token has expired too; or
    ///   `CancellationError`.
    public func validSession(for provider: AuthProviderID) async throws -> AuthSession? {
        guard let session = try await store.load(for: provider) else { return nil }
        guard let refreshable = providers[provider] as? any RefreshableProvider else { return session }
        scheduleRefresh(of: provider, restart: false)
        // L9: a refreshed session a failed write left unsaved is the newest: its write is
        // retried first (no network call), and it is returned even when the write fails again.
        let unsaved = lifecycle.unsavedSession(replacing: session)
        guard needsRefresh(session) || unsaved != nil else { return session }
        switch await lifecycle.refresh(session, provider: refreshable, context: context(for: provider, flowID: nil)) {
        case .refreshed(let refreshed): return refreshed
        case .superseded(let current): return current
        case .ended(let error):
            scheduler.stop(provider)
            throw error
        case .cancelled: throw CancellationError()
        case .failed(let error):
            if error.code == .unsupported { return session }
            retryUnsavedWrite(after: error, refreshing: session)
            if error.code == .storageFailure, let kept = lifecycle.unsavedSession(replacing: session),
                !kept.isExpired(at: time.now)
            {
                return kept
            }
            // L4: the session is kept; a still-valid access token is still good.
            guard !session.isExpired(at: time.now),
                [.network, .providerUnavailable, .rateLimited, .generic, .malformedResponse].contains(error.code)
            else {
                throw error
            }
            guard let stored = try await store.load(for: provider) else { return nil }
            if stored.isSameVersion(as: session) || !needsRefresh(stored) { return stored }
            throw error
        }
    }

    /// Refreshes the stored session of `provider`.
    /// - Throws: `AuthError` `.unauthorized` when nothing is stored; see ``refresh(_:)-(AuthSession)``.
    public func refresh(_ provider: AuthProviderID) async throws -> AuthSession {
        guard let session = try await store.load(for: provider) else {
            throw Self.notSignedIn(provider)
        }
        return try await refresh(session)
    }

    /// Refreshes `session` through its provider, persists the result and publishes
    /// `sessionRefreshed`.
    ///
    /// Single-flight: concurrent calls for the same session credential share one provider
    /// call and get the same result; a call for a different credential never gets another's
    /// result. A failure is not cached. The result is written only if the store still holds
    /// `session` (compare-and-set); otherwise nothing is written or published and the caller
    /// gets the session stored now — which is also what a caller holding a credential already
    /// spent gets, without a network call. When the provider rejects the refresh credential as
    /// revoked (`sessionExpired`, or `unauthorized` from older providers) and the store still
    /// holds `session`, it is removed and `sessionExpired` is published, once; a session
    /// refreshed or replaced meanwhile (another instance rotated the credential first) is
    /// returned instead and nothing is removed; a different sign-in stored meanwhile is never
    /// returned (`.unauthorized`). Transient failures change nothing.
    /// - Returns: The refreshed session, or the session stored now when `session` was
    ///   superseded by a newer version of the same sign-in (refreshed elsewhere). A session of
    ///   another sign-in is never returned (rule L10, Docs/Architecture.md, "Session lifecycle").
    /// - Throws: `AuthError` `.sessionExpired` (raw provider code kept), `.unauthorized` when
    ///   no session is stored any more or the stored one belongs to another sign-in,
    ///   `.unsupported`, `.network`, `.providerUnavailable`,
    ///   `.rateLimited`, `.storageUnavailable`, `.storageFailure`; or `CancellationError`.
    public func refresh(_ session: AuthSession) async throws -> AuthSession {
        let providerID = session.provider
        guard let provider = try self.provider(providerID) as? any RefreshableProvider else {
            throw AuthError(.unsupported, "this provider cannot refresh sessions", provider: providerID)
        }
        switch await lifecycle.refresh(session, provider: provider, context: context(for: providerID, flowID: nil)) {
        case .refreshed(let refreshed):
            scheduleRefresh(of: providerID, restart: false)
            return refreshed
        case .superseded(let current?):
            // L10: a refresh of one sign-in never answers with another's: the session stored
            // now is returned only when it continues `session` (same sign-in, same user).
            guard (current.id == session.id && current.user.id == session.user.id) || mutations.refreshReturnsAnySession
            else {
                throw AuthError(
                    .unauthorized, "this session was signed out or replaced by another sign-in; nothing was refreshed",
                    provider: providerID)
            }
            return current
        case .superseded(nil): throw Self.notSignedIn(providerID)
        case .ended(let error):
            scheduler.stop(providerID)
            throw error
        case .failed(let error):
            retryUnsavedWrite(after: error, refreshing: session)
            throw error
        case .cancelled: throw CancellationError()
        }
    }

    /// L9 / S5: after a refresh whose store write failed outside the scheduler (a manual refresh
    /// or `validSession`), the scheduler retries the write with back-off, so the refreshed
    /// session reaches the store without waiting for the next call.
    private func retryUnsavedWrite(after error: AuthError, refreshing session: AuthSession) {
        guard error.code == .storageFailure, !mutations.noUnsavedRetryOnScheduler,
            lifecycle.unsavedSession(replacing: session) != nil
        else { return }
        scheduler.retryUnsaved(session.provider)
    }

    static func notSignedIn(_ provider: AuthProviderID) -> AuthError {
        AuthError(.unauthorized, "no session is stored; sign in first", provider: provider)
    }

    func needsRefresh(_ session: AuthSession) -> Bool {
        guard let expiresAt = session.expiresAt else { return false }
        return time.now.addingTimeInterval(refreshMargin.timeInterval) >= expiresAt
    }

    /// Starts (or, after a new sign-in, restarts) the background refresh of `provider`.
    nonisolated func scheduleRefresh(of provider: AuthProviderID, restart: Bool) {
        guard providers[provider] is any RefreshableProvider else { return }
        if restart { scheduler.restart(provider) } else { scheduler.ensure(provider) }
    }

    /// Classifies a background refresh for the scheduler.
    static func schedulerStep(_ outcome: SessionLifecycle.Outcome) -> AutoRefreshScheduler.Step {
        switch outcome {
        case .refreshed, .superseded(.some): .proceed
        case .superseded(nil), .ended, .cancelled: .stop
        case .failed(let error): error.code == .unsupported ? .stop : .retry(retryAfter: error.retryAfter)
        }
    }

    /// Starts the background refresh of every provider with a stored session (it starts by
    /// itself after a sign-in, a restore or a refresh; use this after ``stopAutoRefresh()``).
    /// Does nothing when ``autoRefresh`` is off.
    public nonisolated func startAutoRefresh() {
        for id in providerIDs { scheduleRefresh(of: id, restart: false) }
    }

    /// Stops the background refresh of every provider until the next sign-in, restore,
    /// refresh or ``startAutoRefresh()`` (e.g. while the app is in the background).
    public nonisolated func stopAutoRefresh() {
        scheduler.stopAll()
    }

    /// The outcome of ``signOut(_:)``.
    public struct SignOutOutcome: Sendable {
        /// Whether a session was stored and this call removed it (or, when another client on the
        /// same store removed it first, announced its end here). `false` for a second
        /// concurrent sign-out on the same client: the first one published the `signedOut`.
        public var wasSignedIn: Bool
        /// The provider-side revocation error, when revoking failed, or `.network` when it did
        /// not answer within ``AuthClient/remoteSignOutTimeout``; the local session was removed
        /// anyway, before the revoke (Docs/Architecture.md, "Session lifecycle", L11).
        public var remoteError: AuthError?
        /// Whether a different session signed in between the sign-out's read of the store and
        /// its removal (another client on the same store): it was kept, and no `signedOut` was
        /// published for it (Docs/Architecture.md, "Session lifecycle", L6).
        public var keptNewerSession = false
    }

    /// How long ``signOut(_:)`` waits for the provider's remote revoke after the session was
    /// removed locally: 10 s on the client's clock. A revoke that has not answered by then is
    /// reported as `SignOutOutcome.remoteError` (`.network`) and left running on its own.
    public static let remoteSignOutTimeout: Duration = .seconds(10)

    /// Signs out of `provider`: stops its background refresh, removes the stored session and
    /// publishes `signedOut` — at once, before any network call — then revokes the session
    /// remotely when the provider can, waiting at most ``remoteSignOutTimeout``. Idempotent:
    /// with no session it does nothing and publishes nothing. A refresh in flight during the
    /// sign-out finds its session gone and is discarded; a submit whose store write was in
    /// flight stores nothing (rule F7). The removal is conditional: a session that signed in
    /// between the read and the removal (on another client on the same store) is kept, and then
    /// no `signedOut` is published (rule L6, Docs/Architecture.md, "Session lifecycle").
    ///
    /// The remote revoke never keeps a session: a dead network, a failing provider or a
    /// cancelled caller only sets `remoteError` (the revoke goes on in the background until its
    /// transport gives up; a caller that is cancelled stops waiting for it).
    /// - Returns: Whether a session existed, and a remote revocation error if one occurred
    ///   (the local session is removed even then).
    /// - Throws: `AuthError` `.storageUnavailable` / `.storageFailure` (the session stays,
    ///   nothing was revoked).
    @discardableResult
    public func signOut(_ provider: AuthProviderID) async throws -> SignOutOutcome {
        let adapter = try self.provider(provider)
        // The pending flow and the start in flight are cancelled, and every flow of this provider
        // started before now is abandoned: its challenges are refused, and a sign-in whose save
        // has not begun stores nothing (F2, F7).
        apply(flows.signOut(provider, at: time.now))
        scheduler.stop(provider)
        var outcome: SignOutOutcome
        let revoked: AuthSession
        do {
            // F7/L13: the read and the removal are one step of this provider's state, taken after
            // any sign-in save that holds the turn now: what that save stored is what this sign-out
            // reads and removes; a save that comes later finds its flow abandoned and stores
            // nothing. Each removal and the event that announces it are in the same step.
            let readOutside = mutations.signOutReadsOutsideTurn ? try await store.load(for: provider) : nil
            let turn = await lifecycle.writes.turn(provider)
            defer { turn.end() }
            lifecycle.transition { $0.signOutBegan(provider) }
            // Whatever ends this step without removing the session puts back what was kept (L9).
            defer { lifecycle.transition { $0.signOutEnded(provider) } }
            let read = mutations.signOutReadsOutsideTurn ? readOutside : try await store.load(for: provider)
            guard let session = read else {
                return SignOutOutcome(wasSignedIn: false, remoteError: nil)
            }
            // L9: the revoke names the newest credentials, an unsaved refresh's included.
            var newest = lifecycle.newest(of: session)
            // Remove the session signed out, in whatever version the store holds now (a refresh
            // elsewhere may have rotated it), but never a different session: one that signed in
            // meanwhile (another client on the same store) stands, and no `signedOut` follows
            // its `signedIn` (rule L6, conditional writes as in L2).
            var expected = session
            if mutations.revokeBeforeLocalRemoval {
                try? await adapter.signOut(newest, context: context(for: provider, flowID: nil))
            }
            removal: while true {
                let written: SessionStoreWriteResult
                do {
                    written = try await lifecycle.write(expected, nil, provider: provider)
                } catch {
                    // A store that removed, then threw (e.g. a failed directory sync after the
                    // file was gone): what it holds decides. Nothing stored: the removal landed.
                    let stillStored: Bool
                    do { stillStored = try await store.load(for: provider) != nil } catch { stillStored = true }
                    if stillStored { throw error }
                    written = .written
                }
                switch written {
                case .written:
                    lifecycle.publish(lifecycle.transition { $0.signOutRemoved(provider) })
                    outcome = SignOutOutcome(wasSignedIn: true, remoteError: nil)
                    break removal
                case .conflict(nil):
                    // Already removed by a concurrent sign-out: on another client, this client's
                    // subscribers still need the `signedOut`; on this one, it was published once.
                    let published = lifecycle.publish(lifecycle.transition { $0.signOutFoundNothing(provider) })
                    outcome = SignOutOutcome(wasSignedIn: published, remoteError: nil)
                    break removal
                case .conflict(let current?) where current.id == session.id:
                    expected = current
                    newest = lifecycle.newest(of: current)
                case .conflict:
                    scheduleRefresh(of: provider, restart: false)
                    outcome = SignOutOutcome(wasSignedIn: true, remoteError: nil, keptNewerSession: true)
                    break removal
                }
            }
            revoked = newest
        } catch {
            // The session stays: so does its background refresh.
            scheduleRefresh(of: provider, restart: false)
            throw error
        }
        if !mutations.revokeBeforeLocalRemoval {
            outcome.remoteError = await revokeRemotely(revoked, with: adapter)
        }
        return outcome
    }

    /// The remote half of a sign-out: `adapter.signOut` in a task of its own (a cancelled
    /// caller does not cancel it), awaited at most ``remoteSignOutTimeout`` on the client's
    /// clock. Returns the provider's error, a `.network` error when the bound passed first, or
    /// `nil` when the revoke succeeded.
    nonisolated func revokeRemotely(_ session: AuthSession, with adapter: any AuthProvider) async -> AuthError? {
        let provider = session.provider
        let context = context(for: provider, flowID: nil)
        let first = FirstResult<AuthError?>()
        Task {
            do {
                try await adapter.signOut(session, context: context)
                first.offer(nil)
            } catch {
                first.offer(SessionLifecycle.normalize(error, provider: provider))
            }
        }
        let time = self.time
        let bound = Self.remoteSignOutTimeout
        let timer = Task {
            // Marked as background work: tests that wait for the sleeps they drive do not count it.
            try? await BackgroundWork.$isActive.withValue(true) { try await time.sleep(for: bound) }
            guard !Task.isCancelled else { return }
            first.offer(
                AuthError(
                    .network, "the remote sign-out did not answer within \(bound); the local session was removed",
                    provider: provider))
        }
        let result = await withTaskCancellationHandler {
            await first.value()
        } onCancel: {
            first.offer(
                AuthError(
                    .network, "the caller stopped waiting for the remote sign-out; the local session was removed",
                    provider: provider))
        }
        timer.cancel()
        return result
    }

    // MARK: State

    /// The current state: every registered provider's stored session with its expired flag,
    /// and the providers whose storage is unavailable.
    public func currentState() async -> AuthState {
        var state = AuthState()
        let now = time.now
        for id in providerIDs {
            do {
                if let session = try await store.load(for: id) {
                    state.sessions[id] = AuthState.Entry(session: session, isExpired: session.isExpired(at: now))
                }
            } catch {
                state.unavailable[id] = normalize(error, provider: id)
            }
        }
        return state
    }

    /// Loads every stored session, keeps the state in memory for ``authStates(bufferCapacity:)``,
    /// publishes `sessionRestored` for each session (call once at launch) and starts their
    /// background refresh. A provider whose session changed on this client while the store was
    /// read (a sign-in, refresh or sign-out finished meanwhile) keeps that newer state: no
    /// `sessionRestored` is published for it, so no event contradicts the store.
    /// - Returns: The state that was restored.
    @discardableResult
    public func restoreSessions() async -> AuthState {
        // A sign-in, refresh or sign-out that finishes while the store is read is newer than
        // what was read: the gate keeps its state for that provider and publishes nothing.
        let mark = gate.stateMark()
        let loaded = await currentState()
        let (state, restored) = gate.restore(loaded, since: mark, providers: providerIDs, now: time.now)
        for id in restored {
            scheduleRefresh(of: id, restart: true)
        }
        return state
    }

    /// A stream whose first element is `initialState` (the current state), followed by every
    /// live event published after this call.
    ///
    /// The subscriber is registered before this returns, so nothing published afterwards is
    /// missed (Docs/Cases.md, B21 and B22); each subscriber gets its own initial state exactly once, and
    /// past events are not replayed. After ``restoreSessions()`` the state is a snapshot taken
    /// atomically with the registration (expired flags as of this call); before it, the state
    /// is read from the store when the consumer first iterates. A state event outside a flow that
    /// repeats what the stream has shown (the initial state's session announced again by
    /// ``restoreSessions()``) is skipped, so every state change appears once (Docs/Events.md,
    /// "Every state change once").
    /// - Parameter bufferCapacity: The subscriber's buffer size; see
    ///   ``AuthEventSource/subscribe(bufferCapacity:onTermination:)``.
    public nonisolated func authStates(bufferCapacity: Int = AuthEventSource.defaultBufferCapacity) -> AuthEventStream {
        authStates(bufferCapacity: bufferCapacity, skipRepeats: true)
    }

    /// ``authStates(bufferCapacity:)`` that, with `skipRepeats` off, also delivers state events
    /// that repeat what the stream has shown, so every sequence number arrives (`AuthModel`
    /// folds repeats itself and waits for sequence numbers).
    package nonisolated func authStates(bufferCapacity: Int, skipRepeats: Bool) -> AuthEventStream {
        let time = self.time
        return gate.subscribeWithState(bufferCapacity: bufferCapacity, skipRepeats: skipRepeats, now: { time.now }) {
            [self] in
            await self.currentState()
        }
    }
}
