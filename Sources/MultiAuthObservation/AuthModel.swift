import Foundation
import MultiAuth
import Observation

/// An `@Observable` view of an ``/MultiAuth/AuthClient`` for SwiftUI (and any Observation
/// client): who is signed in, the pending challenge of each provider, whether sessions were
/// restored, and the last error, readable synchronously on the main actor; plus the client's
/// actions (sign in, submit, resend, redirects, sign out, refresh, restore).
///
/// The state follows `AuthClient.authStates()` (Docs/GettingStarted.md, "2. Watch the
/// state"): call ``observe()`` once from a task that lives as long as the UI (SwiftUI:
/// `.task { await model.observe() }`). Each change is applied **once**: a `sessionRestored`
/// that brings the session the initial state already showed, or any event that changes
/// nothing, leaves the properties untouched, so observers see one change per real change. When
/// the stream reports a gap (a lagging buffer dropped events: an `eventsDropped(count:)` marker,
/// and the sequence numbers jump), the model re-reads the client's state (`currentState()` and
/// `pendingChallenge(for:)`) instead of trusting what it folded so far; it does the same for an
/// event kind it does not know (one added by a later version of the core).
///
/// Actions forward to the client and return or throw what it returns or throws; an `AuthError`
/// is also kept in ``lastError`` (a successful action clears it), except a `CancellationError`
/// and `.cancelledByUser` (the person dismissed the passkey sheet: nothing to show, and an
/// earlier error is cleared).
/// Sessions and challenges change only through the event stream, never from an action's result,
/// so nothing is applied twice.
///
/// Concurrency: main-actor isolated; the client does its work off the main actor.
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class AuthModel {
    /// Whether the stored sessions were loaded yet (``restore()``).
    public enum RestoreStatus: Sendable, Hashable {
        /// ``restore()`` has not been called.
        case notRestored
        /// ``restore()`` is loading the stored sessions.
        case restoring
        /// The stored sessions were loaded.
        case restored
    }

    /// The client every action goes to.
    @ObservationIgnored public nonisolated let client: AuthClient
    /// The buffer size of the model's `authStates()` subscription.
    @ObservationIgnored public nonisolated let bufferCapacity: Int

    /// The stored session of each signed-in provider (expired sessions included: check
    /// `AuthSession.isExpired(at:)`, or call ``refresh(_:)``).
    public private(set) var sessions: [AuthProviderID: AuthSession] = [:]
    /// Providers whose stored session cannot be read right now (`storageUnavailable`, e.g. a
    /// locked keychain): **not** signed out.
    public private(set) var unavailable: [AuthProviderID: AuthError] = [:]
    /// The challenge of each provider's pending sign-in (with its attempts left), until the flow
    /// signs in, is cancelled, expires or runs out of attempts (`attemptsExhausted`).
    public private(set) var pendingChallenges: [AuthProviderID: Challenge] = [:]
    /// Whether the stored sessions were loaded.
    public private(set) var restoreStatus: RestoreStatus = .notRestored
    /// The error of the last failed action, or the last error the client reported on its own
    /// (a session write that failed, a session the provider ended: `sessionExpired`, which
    /// also removes the session from ``sessions``); cleared by a successful
    /// action or ``clearError()``. Show it with `localizedDescription` and
    /// `recoverySuggestion`.
    public private(set) var lastError: AuthError?

    /// Whether ``observe()`` is running.
    @ObservationIgnored public private(set) var isObserving = false
    /// The sequence number of the last event applied (tests wait on it).
    @ObservationIgnored package private(set) var processedSequence: UInt64 = 0
    /// How many times the model re-read the client's state after a gap (tests read it).
    @ObservationIgnored package private(set) var resyncCount = 0
    @ObservationIgnored private var receivedInitialState = false
    @ObservationIgnored private var waiters: [(through: UInt64, continuation: CheckedContinuation<Void, Never>)] = []

    /// Creates a model over `client`; nothing happens until ``observe()``.
    /// - Parameters:
    ///   - client: The client.
    ///   - bufferCapacity: The event buffer of the model's subscription (see
    ///     ``/MultiAuth/AuthEventSource/subscribe(bufferCapacity:onTermination:)``).
    public init(client: AuthClient, bufferCapacity: Int = AuthEventSource.defaultBufferCapacity) {
        self.client = client
        self.bufferCapacity = bufferCapacity
    }

    // MARK: Reading

    /// The session of `provider`, if signed in.
    public func session(for provider: AuthProviderID) -> AuthSession? { sessions[provider] }

    /// The pending challenge of `provider`, if any.
    public func pendingChallenge(for provider: AuthProviderID) -> Challenge? { pendingChallenges[provider] }

    /// Whether any provider has a stored session.
    public var isSignedIn: Bool { !sessions.isEmpty }

    // MARK: Following the client

    /// Follows the client's state until the calling task is cancelled: subscribes to
    /// `authStates()` and applies every change. Returns at once when already observing.
    /// Call it from a task owned by the UI, e.g. SwiftUI's `.task { await model.observe() }`.
    public func observe() async {
        guard !isObserving else { return }
        isObserving = true
        defer { isObserving = false }
        // Every sequence number, repeats included: the model folds repeats itself (`same`) and
        // its waiters count sequence numbers.
        let stream = client.authStates(bufferCapacity: bufferCapacity, skipRepeats: false)
        for await event in stream {
            await apply(event)
        }
    }

    /// Waits until the model has applied every event up to `sequence` (tests).
    package func waitUntilProcessed(through sequence: UInt64) async {
        if receivedInitialState && processedSequence >= sequence { return }
        await withCheckedContinuation { waiters.append((sequence, $0)) }
    }

    private func apply(_ event: AuthEvent) async {
        if case .initialState(let state) = event.kind {
            receivedInitialState = true
            adopt(state)
        } else if event.sequence > processedSequence + 1 {
            // Events were dropped before this one: what was folded so far may be stale.
            await resync()
            if event.sequence > processedSequence { _ = fold(event) }
        } else if event.sequence > processedSequence {
            if !fold(event) {
                // A kind this build does not know: re-read rather than guess what it changed.
                await resync()
            }
        }
        processedSequence = max(processedSequence, event.sequence)
        let ready = waiters.filter { receivedInitialState && $0.through <= processedSequence }
        waiters.removeAll { receivedInitialState && $0.through <= processedSequence }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Re-reads the state and the pending challenges from the client; events published before
    /// the read are then skipped (the read already reflects them).
    private func resync() async {
        resyncCount += 1
        let sequence = client.events.currentSequence
        let state = await client.currentState()
        var challenges: [AuthProviderID: Challenge] = [:]
        for provider in client.providerIDs {
            if let challenge = await client.pendingChallenge(for: provider) { challenges[provider] = challenge }
        }
        adopt(state)
        if pendingChallenges != challenges { pendingChallenges = challenges }
        processedSequence = max(processedSequence, sequence)
    }

    /// Replaces the sessions and unavailable stores with `state`, changing only what differs.
    private func adopt(_ state: AuthState) {
        let loaded = state.sessions.mapValues(\.session)
        var next = sessions.filter { loaded[$0.key] != nil }
        for (provider, session) in loaded where !Self.same(next[provider], session) { next[provider] = session }
        if next != sessions { sessions = next }
        if state.unavailable != unavailable { unavailable = state.unavailable }
    }

    /// Applies one live event; `false` for a kind this build does not know (the caller then
    /// re-reads the client's state).
    private func fold(_ event: AuthEvent) -> Bool {
        let provider = event.provider
        switch event.kind {
        case .signedIn(let session), .sessionRestored(let session), .sessionRefreshed(let session):
            setSession(session, for: provider ?? session.provider)
            if case .signedIn = event.kind { endFlow(event.flowID, of: provider ?? session.provider) }
        case .signedOut:
            if let provider { setSession(nil, for: provider) }
        case .sessionExpired(let error):
            // The provider ended the session (a revoked refresh credential): gone, and why.
            if let provider = provider ?? error.provider { setSession(nil, for: provider) }
            record(error)
        case .challengeIssued(let challenge):
            let owner = provider ?? challenge.provider
            if pendingChallenges[owner] != challenge { pendingChallenges[owner] = challenge }
        case .codeRejected(_, let updated?):
            // The client's pending challenge after the wrong code (its attempts left): taken as is.
            let owner = provider ?? updated.provider
            if let current = pendingChallenges[owner], current.flowID == updated.flowID, current != updated {
                pendingChallenges[owner] = updated
            }
        case .codeRejected(_, nil):
            break  // the client holds no pending challenge of this flow: nothing shown changes
        case .flowCancelled, .flowExpired, .attemptsExhausted:
            if let provider { endFlow(event.flowID, of: provider) }
        case .storageFailed(let error):
            record(error)
        case .initialState(let state):
            adopt(state)
        case .flowStarted, .deliveryStatus, .fallbackTriggered, .verificationStateChanged:
            break  // flow progress: nothing the model shows
        case .eventsDropped:
            return false  // this subscription's buffer dropped events: re-read, as for a gap
        @unknown default:
            return false
        }
        return true
    }

    private func setSession(_ session: AuthSession?, for provider: AuthProviderID) {
        if let session {
            if !Self.same(sessions[provider], session) { sessions[provider] = session }
        } else if sessions[provider] != nil {
            sessions[provider] = nil
        }
        if unavailable[provider] != nil { unavailable[provider] = nil }
    }

    private func endFlow(_ flowID: FlowID?, of provider: AuthProviderID) {
        guard let challenge = pendingChallenges[provider], flowID == nil || challenge.flowID == flowID else { return }
        pendingChallenges[provider] = nil
    }

    /// The same session for display: same version (tokens, expiry) and same user.
    private static func same(_ current: AuthSession?, _ new: AuthSession) -> Bool {
        guard let current else { return false }
        return current.isSameVersion(as: new) && current.user == new.user
    }

    // MARK: Actions

    /// Loads the stored sessions (`AuthClient.restoreSessions()`; call once at launch):
    /// ``restoreStatus`` goes `restoring`, then `restored`. The sessions themselves arrive
    /// through ``observe()``, at most once each.
    public func restore() async {
        restoreStatus = .restoring
        _ = await client.restoreSessions()
        restoreStatus = .restored
    }

    /// Starts a sign-in (`AuthClient.signIn(with:_:)`).
    /// - Throws: What the client throws (`AuthError`, also kept in ``lastError``, or
    ///   `CancellationError`).
    @discardableResult
    public func signIn(with provider: AuthProviderID, _ request: SignInRequest) async throws -> SignInStep {
        try await perform { try await $0.signIn(with: provider, request) }
    }

    /// Answers a challenge (`AuthClient.submit(_:for:)`).
    /// - Throws: What the client throws (`AuthError`, also kept in ``lastError``, or
    ///   `CancellationError`).
    @discardableResult
    public func submit(_ answer: ChallengeAnswer, for challenge: Challenge) async throws -> SignInStep {
        try await perform { try await $0.submit(answer, for: challenge) }
    }

    /// Asks for a new code (`AuthClient.resend(_:channel:)`).
    /// - Throws: What the client throws (`AuthError`, also kept in ``lastError``, or
    ///   `CancellationError`).
    @discardableResult
    public func resend(_ challenge: Challenge, channel: DeliveryChannel? = nil) async throws -> Challenge {
        try await perform { try await $0.resend(challenge, channel: channel) }
    }

    /// Routes a redirect URL (`AuthClient.handleRedirect(_:resuming:)`).
    /// - Returns: `nil` when no provider claims the URL.
    /// - Throws: What the client throws (`AuthError`, also kept in ``lastError``, or
    ///   `CancellationError`).
    @discardableResult
    public func handleRedirect(_ url: URL, resuming: Challenge? = nil) async throws -> SignInStep? {
        try await perform { try await $0.handleRedirect(url, resuming: resuming) }
    }

    /// Signs out of `provider` (`AuthClient.signOut(_:)`).
    /// - Throws: What the client throws (`AuthError`, also kept in ``lastError``, or
    ///   `CancellationError`).
    @discardableResult
    public func signOut(_ provider: AuthProviderID) async throws -> AuthClient.SignOutOutcome {
        try await perform { try await $0.signOut(provider) }
    }

    /// Refreshes the stored session of `provider` (`AuthClient.refresh(_:)`).
    /// - Throws: What the client throws (`AuthError`, also kept in ``lastError``, or
    ///   `CancellationError`).
    @discardableResult
    public func refresh(_ provider: AuthProviderID) async throws -> AuthSession {
        try await perform { try await $0.refresh(provider) }
    }

    /// Forgets ``lastError`` (e.g. when the person dismissed it).
    public func clearError() {
        if lastError != nil { lastError = nil }
    }

    private func perform<T: Sendable>(_ action: (AuthClient) async throws -> T) async throws -> T {
        do {
            let result = try await action(client)
            clearError()
            return result
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as AuthError where error.code == .cancelledByUser {
            clearError()
            throw error
        } catch let error as AuthError {
            record(error)
            throw error
        } catch {
            record(AuthError(.generic, "unexpected error", underlying: error))
            throw error
        }
    }

    private func record(_ error: AuthError) {
        if lastError != error { lastError = error }
    }
}
