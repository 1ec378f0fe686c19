import Foundation
import MultiAuthLocking

/// The refresh coordinator of one `AuthClient`: runs refreshes single-flight and applies
/// their results to the store by the session-lifecycle rules (Docs/Architecture.md,
/// "Session lifecycle"):
///
/// - L1. Concurrent refreshes of one session credential share one provider call; every caller
///   gets the same ``Outcome``. A failure is not cached.
/// - L2. A refresh result, success or failure, is applied only if the store still holds the
///   session that was refreshed (``SessionStore/replace(_:with:for:)``). Otherwise it is
///   discarded, nothing is written or published, and the outcome is
///   ``Outcome/superseded(_:)`` with what the store holds now. A session that is no longer
///   stored is not refreshed at all.
/// - L3. A revoked or unknown refresh credential (`sessionExpired`, or `unauthorized` from
///   providers written before `sessionExpired` existed) removes the session once, by a
///   conditional remove, and publishes one `sessionExpired`; the error is `.sessionExpired`
///   with the provider's raw code kept.
/// - L4. Any other failure (offline, timeout, 429, 5xx, …) changes nothing: the session is
///   kept and no event is published. The caller decides (``AuthClient/validSession(for:)``
///   returns a session whose access token is still valid).
/// - L7. A refresh answer whose session names another provider or another user id than the
///   session refreshed is refused as `malformedResponse`: nothing is written or published and
///   the stored session is kept (Docs/Architecture.md, "Session lifecycle").
/// - L9. A refreshed session whose store write failed is never dropped: it is kept in memory
///   as *unsaved* (with the stored version it replaces). The next refresh of that provider —
///   manual, ``AuthClient/validSession(for:)`` or the background scheduler, which retries with
///   backoff — first retries the write, without a network call, so a refresh never spends a
///   refresh token older than the newest one the client received; `validSession` returns the
///   unsaved session meanwhile and sign-out revokes it (Docs/Architecture.md, "Session
///   lifecycle").
/// - L12. A refresh result discarded because its session was signed out (or replaced by another
///   sign-in) meanwhile is revoked with the provider: the sign-out revoked the credentials it
///   found, which the refresh had just rotated out (Docs/Architecture.md, "Session lifecycle").
/// - L13. A write that changes the stored session and the state event that announces it are one
///   step per provider (``StateWriteLock``): events come out in the order of the writes.
/// - L5. Another instance that rotated the credential first makes the provider reject this
///   one: the conditional remove then finds the newer session and the outcome is
///   ``Outcome/superseded(_:)`` with it — never a sign-out.
///
/// Concurrency: what it keeps per provider is a ``SessionStateMachine`` in a `Locked` (the refresh
/// tasks in flight among it); refreshes run in unstructured tasks owned by that machine (removed
/// when they finish), never cancelled by a single caller.
final class SessionLifecycle: Sendable {
    /// What a refresh came to, shared by every caller that joined it.
    enum Outcome: Sendable {
        /// The refreshed session was written (it replaced the refreshed one) and
        /// `sessionRefreshed` was published.
        case refreshed(AuthSession)
        /// The store no longer held the refreshed session; the result was discarded. The
        /// associated session is what the store holds now (`nil`: nothing).
        case superseded(AuthSession?)
        /// The provider ended the session: it was removed and `sessionExpired` published.
        case ended(AuthError)
        /// Nothing changed (transient or other failure, or a store error).
        case failed(AuthError)
        /// The provider call was cancelled.
        case cancelled
    }

    private struct State {
        /// What this client keeps in memory per provider: unsaved refreshes, refreshes in
        /// flight, sign-outs holding the write turn.
        var machine = SessionStateMachine()
        var callers = 0
        var mutations = ClientMutations()
    }

    /// Orders this client's state writes and their events per provider (L13).
    let writes = StateWriteLock()
    /// The machine, the caller count and the test seams; read and moved only inside `withLock`.
    private let state = Locked(State())
    let store: any SessionStore
    let gate: FlowEventGate

    init(store: any SessionStore, gate: FlowEventGate) {
        self.store = store
        self.gate = gate
    }

    /// Callers currently awaiting a refresh (tests use it to know every caller has joined).
    var callersInFlight: Int { state.withLock { $0.callers } }

    /// Refreshes in flight.
    var refreshesInFlight: Int { state.withLock { $0.machine.refreshesInFlight } }

    /// Moves the session state machine (under the lock) and returns what the transition returned.
    func transition<Result>(_ body: (inout SessionStateMachine) -> Result) -> Result {
        state.withLock { body(&$0.machine) }
    }

    /// Publishes what a transition asks, in order. Returns `false` when an end the effects asked
    /// to announce was already announced.
    @discardableResult
    func publish(_ effects: SessionEffects) -> Bool {
        var announced = true
        for effect in effects.list {
            switch effect {
            case .publish(let kind): gate.publish(kind, provider: effects.provider, flowID: nil)
            case .announce(let kind, let session):
                gate.publishState(kind, provider: effects.provider, flowID: nil, session: session)
            case .announceEndUnlessAnnounced(let kind):
                announced = gate.publishEndUnlessAnnounced(kind, provider: effects.provider)
            }
        }
        return announced
    }

    /// Sets the test seams (mutation checks).
    func setMutations(_ mutations: ClientMutations) {
        state.withLock { $0.mutations = mutations }
        writes.setDisabled(mutations.unorderedStateWrites)
    }

    /// The unsaved refreshed session that replaces `stored` (L9), if a failed write left one.
    func unsavedSession(replacing stored: AuthSession) -> AuthSession? {
        state.withLock { $0.machine.unsaved(replacing: stored) }
    }

    /// The newest version of `stored` this client holds: its unsaved refresh (L9), else itself.
    func newest(of stored: AuthSession) -> AuthSession { state.withLock { $0.machine.newest(of: stored) } }

    /// Whether a refresh error means the provider ended the session (L3).
    static func isRevocation(_ error: AuthError) -> Bool {
        error.code == .sessionExpired || error.code == .unauthorized
    }

    /// The credential a refresh spends: the refresh token, else the access token, else the id.
    static func refreshCredential(of session: AuthSession) -> String {
        (session.credentials.refreshToken ?? session.credentials.accessToken)?.reveal() ?? session.id
    }

    /// Refreshes `session` with `provider` (single-flight, L1) and applies the result (L2–L5).
    func refresh(_ session: AuthSession, provider: any RefreshableProvider, context: AuthContext) async -> Outcome {
        let key = SessionStateMachine.RefreshKey(
            provider: session.provider, credential: Self.refreshCredential(of: session))
        let task: Task<Outcome, Never> = state.withLock { state in
            state.callers += 1
            if let running = state.machine.refresh(key) { return running }
            // Unstructured so every concurrent caller awaits the same refresh; owned by the
            // session state machine and removed by itself when it completes; never cancelled by a
            // caller.
            let task = Task { [self] in
                let outcome = await self.run(session, provider: provider, context: context, key: key)
                self.state.withLock { $0.machine.refreshEnded(key) }
                return outcome
            }
            state.machine.refreshBegan(key, task: task)
            return task
        }
        // The refresh is not this caller's to cancel (L1), but a caller cancelled while the
        // provider has not answered stops waiting at once (invariant 6): it gets `.cancelled`
        // while the refresh goes on and its outcome is applied for everyone else. Once the
        // provider answered, only the local write is left and the caller gets the outcome.
        let first = FirstResult<Outcome>()
        Task { first.offer(await task.value) }
        let outcome = await withTaskCancellationHandler {
            await first.value()
        } onCancel: { [self] in
            if !state.withLock({ $0.machine.isAnswered(key) }) { first.offer(.cancelled) }
        }
        state.withLock { $0.callers -= 1 }
        return outcome
    }

    private func run(
        _ session: AuthSession, provider: any RefreshableProvider, context: AuthContext,
        key: SessionStateMachine.RefreshKey
    ) async -> Outcome {
        let providerID = session.provider
        // L9: an unsaved refreshed session is written first, with no network call: its refresh
        // token is the newest, the stored one may already be rotated out.
        if let record = state.withLock({ $0.machine.keptRecord(providerID) }) {
            if let outcome = await retry(record, for: session) { return outcome }
        }
        // L2: a session that is no longer stored is not refreshed (its credential may be
        // spent, or belong to a user who signed out).
        do {
            let stored = try await store.load(for: providerID)
            guard let stored, stored.isSameVersion(as: session) else { return .superseded(stored) }
        } catch {
            return .failed(Self.normalize(error, provider: providerID))
        }
        var refreshed: AuthSession
        do {
            refreshed = try await provider.refresh(session, context: context)
            state.withLock { $0.machine.refreshAnswered(key) }
        } catch is CancellationError {
            return .cancelled
        } catch {
            state.withLock { $0.machine.refreshAnswered(key) }
            let error = Self.normalize(error, provider: providerID)
            guard Self.isRevocation(error) else { return .failed(error) }
            return await end(session, rejectedWith: error)
        }
        // L7: a refresh continues the same user's session with the same provider. An answer that
        // names another provider or another user (a buggy or hostile server) is refused and the
        // stored session is kept, so one user's session never turns into another's.
        let checkIdentity = !state.withLock { $0.mutations.noRefreshIdentityCheck }
        if checkIdentity, refreshed.provider != providerID || refreshed.user.id != session.user.id {
            return .failed(
                AuthError(
                    .malformedResponse,
                    "the refresh answer names another user or provider than the session refreshed; the session is kept",
                    provider: providerID))
        }
        // A refresh continues the signed-in session: it keeps the session's `id` even when the
        // provider built the refreshed value with a new one (rule L6 tells a rotated version of
        // a signed-out session from a newer sign-in by its id).
        refreshed.id = session.id
        let outcome = await apply(
            session, replacement: refreshed, publishing: .sessionRefreshed(refreshed), outcome: .refreshed(refreshed),
            storageFailure: "the refreshed session could not be saved; it is kept and the write retried")
        // L12: the session was signed out (or replaced by another sign-in) while its refresh was
        // in flight. The sign-out revoked the credentials it found, which this refresh had just
        // rotated out; what the provider issued instead is revoked here, so no live refresh
        // token outlives the sign-out.
        if case .superseded(let current) = outcome, current?.id != session.id,
            !state.withLock({ $0.mutations.noOrphanRevoke })
        {
            // Unstructured: the revoke is not the caller's to cancel; it ends when the
            // provider's call does (bounded by the transport's timeouts).
            let orphan = refreshed
            Task { try? await provider.signOut(orphan, context: context) }
        }
        return outcome
    }

    /// L9: writes the unsaved session of `record` in place of what it replaces. `nil`: the store
    /// holds something else now (a sign-in, a sign-out or another client's refresh), the
    /// record is dropped and the refresh goes on as usual.
    private func retry(_ record: SessionStateMachine.Unsaved, for session: AuthSession) async -> Outcome? {
        let providerID = record.newest.provider
        await writes.acquire(providerID)
        defer { writes.release(providerID) }
        do {
            switch try await write(record.replaces, record.newest, provider: providerID) {
            case .written:
                publish(transition { $0.unsavedSettled(record, written: record.newest) })
                return record.newest.id == session.id ? .refreshed(record.newest) : .superseded(record.newest)
            case .conflict(let current):
                if let current, current.isSameVersion(as: record.newest) {
                    // The failed write had landed (a store that wrote, then threw): the store
                    // holds the unsaved session, which was never announced. Announce it now.
                    publish(transition { $0.unsavedSettled(record, written: current) })
                    return current.id == session.id ? .refreshed(current) : .superseded(current)
                }
                publish(transition { $0.unsavedSettled(record, written: nil) })
                return nil
            }
        } catch {
            let failure = AuthError(
                .storageFailure, "the refreshed session could not be saved; it is kept and the write retried",
                provider: providerID, underlying: error)
            publish(transition { $0.storeFailed(providerID, failure: failure) })
            return .failed(failure)
        }
    }

    /// L3/L5: removes `session` if it is still stored; otherwise another writer got there
    /// first and its session stands.
    private func end(_ session: AuthSession, rejectedWith error: AuthError) async -> Outcome {
        let providerID = session.provider
        let expired = AuthError(
            .sessionExpired,
            "the provider ended the session (its refresh credential was revoked or is unknown); sign in again",
            provider: providerID, providerCode: error.providerCode, underlying: error)
        return await apply(
            session, replacement: nil, publishing: .sessionExpired(expired), outcome: .ended(expired),
            storageFailure: "the ended session could not be removed")
    }

    /// L2: puts `replacement` (`nil`: nothing) in place of `session` if the store still holds
    /// it, then publishes `event` and returns `outcome`. A newer stored session makes the
    /// outcome ``Outcome/superseded(_:)`` with it, nothing published; a store error publishes
    /// `storageFailed` (a `.storageFailure` with `message`) and changes nothing.
    private func apply(
        _ session: AuthSession, replacement: AuthSession?, publishing event: AuthEvent.Kind, outcome: Outcome,
        storageFailure message: String
    ) async -> Outcome {
        let providerID = session.provider
        // L13: the write and the event that announces it are one step of this provider's state.
        await writes.acquire(providerID)
        defer { writes.release(providerID) }
        do {
            switch try await write(session, replacement, provider: providerID) {
            case .written:
                publish(transition { $0.written(providerID, event: event, replacement: replacement) })
                return outcome
            case .conflict(let current):
                return .superseded(current)
            }
        } catch {
            let failure = AuthError(.storageFailure, message, provider: providerID, underlying: error)
            // L9: what the provider issued is kept for the next write; dropping it would make the
            // next refresh spend a rotated-out refresh token and end the session.
            if let replacement, !state.withLock({ $0.mutations.noUnsavedRefresh }) {
                publish(transition { $0.writeFailed(replaces: session, newest: replacement, failure: failure) })
            } else {
                publish(transition { $0.storeFailed(providerID, failure: failure) })
            }
            return .failed(failure)
        }
    }

    /// The conditional write (L2), or — with the `unconditionalWrites` test seam — the plain
    /// save/remove the client made before conditional writes existed.
    func write(_ expected: AuthSession, _ replacement: AuthSession?, provider: AuthProviderID) async throws
        -> SessionStoreWriteResult
    {
        if state.withLock({ $0.mutations.unconditionalWrites }) {
            if let replacement { try await store.save(replacement) } else { try await store.remove(for: provider) }
            return .written
        }
        return try await store.replace(expected, with: replacement, for: provider)
    }

    static func normalize(_ error: any Error, provider: AuthProviderID) -> AuthError {
        if var error = error as? AuthError {
            if error.provider == nil { error.provider = provider }
            return error
        }
        return AuthError(.generic, "unexpected provider error", provider: provider, underlying: error)
    }
}
