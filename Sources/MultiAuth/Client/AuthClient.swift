import Foundation

/// The single dependency an app holds: registered providers, a session store, a transport, a
/// time source and an event bus, with one API for every provider's flows.
///
/// `AuthClient` enforces the invariants of DESIGN.md §3 for every provider:
/// 1. A malformed code or an expired challenge is refused with a typed error before the
///    provider is called: no network call, no attempt used.
/// 2. A session is persisted **before** `.signedIn` is returned or published. If the write
///    fails, `storageFailure` is thrown; submitting the same challenge again finishes the
///    write without a network call.
/// 3. A new `signIn` for a provider cancels that provider's start still in flight (event
///    `flowCancelled`); a `submit` in flight is never cancelled by it.
/// 4. A wrong code throws `invalidCode` with `attemptsRemaining`, publishes `codeRejected`,
///    keeps the challenge usable and leaves any stored session untouched.
/// 6. Cancellation surfaces as `CancellationError`; no session is stored and no event of that
///    flow follows `flowCancelled`.
/// 7. Events, errors and descriptions never carry secrets.
/// 9. Concurrent refreshes of one session (same refresh token) make one provider call.
/// 10. Time comes only from the injected ``TimeSource``.
///
/// Concurrency: an actor. Provider calls run while the actor is free for other calls, so
/// several flows of different providers (and several submits) proceed in parallel.
public actor AuthClient {
    /// The bus every event of this client is published on. Each client has its own.
    public nonisolated let events: AuthEventBus
    /// The session store.
    public nonisolated let store: any SessionStore
    /// The transport handed to providers.
    public nonisolated let transport: any HTTPTransport
    /// The time source handed to providers and used for expiry checks.
    public nonisolated let time: TimeSource
    /// How long before expiry ``validSession(for:)`` refreshes a session.
    public nonisolated let refreshMargin: Duration
    /// The registered provider ids, in registration order.
    public nonisolated let providerIDs: [AuthProviderID]

    private let providers: [AuthProviderID: any AuthProvider]
    private nonisolated let gate: FlowEventGate
    private var startingFlows: [AuthProviderID: (flowID: FlowID, task: Task<SignInStep, any Error>)] = [:]
    private var pending: [AuthProviderID: Challenge] = [:]
    private var unsaved: [FlowID: AuthSession] = [:]
    private var completedRedirects = BoundedMap<String, FlowID>(capacity: AuthClient.redirectMemory)
    private var finishedSessions: [FlowID: AuthSession] = [:]
    private var refreshes: [RefreshKey: Task<AuthSession, any Error>] = [:]
    /// Flows abandoned by `cancelFlow` (explicitly) or by `signOut` (every flow of that provider
    /// started before it, through `signOutEpochs`): their challenges are refused.
    private var abandonedFlows: Set<FlowID> = []
    private var flowEpochs = BoundedMap<FlowID, Int>(capacity: AuthClient.flowMemory)
    private var signOutEpochs: [AuthProviderID: Int] = [:]
    /// Results of completed refreshes by the credential they spent (bounded, in order).
    private var rotated = BoundedMap<RefreshKey, AuthSession>(capacity: 64)
    /// Callers currently awaiting a refresh (tests use it to know every caller has joined).
    private(set) var refreshCallersInFlight = 0

    private struct RefreshKey: Hashable {
        let provider: AuthProviderID
        let credential: String
    }

    /// How many completed redirects are remembered for replay.
    static let redirectMemory = 64
    /// How many flows are remembered for cancellation and sign-out checks.
    static let flowMemory = 4096

    /// Creates a client.
    /// - Parameters:
    ///   - providers: The providers; ids must be unique.
    ///   - store: Where sessions are persisted.
    ///   - transport: The HTTP transport for every provider.
    ///   - time: The time source (inject `ManualClock` in tests).
    ///   - refreshMargin: ``validSession(for:)`` refreshes sessions expiring within this margin.
    /// - Throws: `AuthError` `.configuration` when two providers share an id.
    public init(
        providers: [any AuthProvider], store: any SessionStore = InMemorySessionStore(), transport: any HTTPTransport,
        time: TimeSource = .system, refreshMargin: Duration = .seconds(60)
    ) throws {
        var table: [AuthProviderID: any AuthProvider] = [:]
        for provider in providers {
            guard table[provider.id] == nil else {
                throw AuthError(.configuration, "two providers are registered with id '\(provider.id)'")
            }
            table[provider.id] = provider
        }
        self.providers = table
        self.providerIDs = providers.map(\.id)
        self.store = store
        self.transport = transport
        self.time = time
        self.refreshMargin = refreshMargin
        self.events = AuthEventBus(timeSource: time)
        self.gate = FlowEventGate(bus: events)
    }

    // MARK: Providers

    /// The registered provider with `id`.
    /// - Throws: `AuthError` `.configuration` when none is registered.
    public func provider(_ id: AuthProviderID) throws -> any AuthProvider {
        guard let provider = providers[id] else {
            throw AuthError(.configuration, "no provider is registered with id '\(id)'", provider: id)
        }
        return provider
    }

    private nonisolated func context(for provider: AuthProviderID, flowID: FlowID?) -> AuthContext {
        let gate = self.gate
        return AuthContext(transport: transport, time: time, flowID: flowID) { kind in
            gate.publishFromProvider(kind, provider: provider, flowID: flowID)
        }
    }

    // MARK: Sign-in

    /// Starts a sign-in with `providerID`.
    ///
    /// Publishes `flowStarted`, then `challengeIssued` or `signedIn` (after persisting). A start
    /// of the same provider still in flight is cancelled first (it throws `CancellationError`).
    /// - Returns: A challenge to answer with ``submit(_:for:)``, or a session.
    /// - Throws: `AuthError` (`.configuration` for an unknown provider, the provider's errors,
    ///   `.storageFailure`) or `CancellationError`.
    public func signIn(with providerID: AuthProviderID, _ request: SignInRequest) async throws -> SignInStep {
        let provider = try self.provider(providerID)
        let flowID = FlowID.random()
        track(flowID, provider: providerID)
        if let previous = startingFlows[providerID] {
            gate.cancel(previous.flowID, provider: providerID)
            previous.task.cancel()
            endFlow(previous.flowID, provider: providerID)
        }
        gate.publish(.flowStarted(summary: request.description), provider: providerID, flowID: flowID)
        let context = context(for: providerID, flowID: flowID)
        // Unstructured so a newer start can cancel it; owned by `startingFlows` and awaited
        // right here, so it ends before this call returns (cancelled with the caller).
        let task = Task { try await provider.start(request, context: context) }
        startingFlows[providerID] = (flowID, task)
        let result: Result<SignInStep, any Error>
        do {
            result = .success(try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() })
        } catch {
            result = .failure(error)
        }
        if startingFlows[providerID]?.flowID == flowID { startingFlows[providerID] = nil }
        defer { gate.forget(flowID) }
        if gate.isCancelled(flowID) || Task.isCancelled {
            gate.cancel(flowID, provider: providerID)
            throw CancellationError()
        }
        switch result {
        case .failure(let error as CancellationError):
            gate.cancel(flowID, provider: providerID)
            throw error
        case .failure(let error):
            throw normalize(error, provider: providerID)
        case .success(let step):
            return try await accept(step, provider: providerID, flowID: flowID)
        }
    }

    /// Answers a challenge, possibly one issued in an earlier process (decoded from storage).
    ///
    /// The code is normalized (whitespace removed) and checked against the challenge's length
    /// before the provider is called; an expired challenge is refused locally. A session left
    /// unsaved by a failed store write for this flow is saved without calling the provider.
    /// - Returns: A session, or a further challenge (e.g. a TOTP second step).
    /// - Throws: `AuthError` (`.invalidInput` with `.invalidCodeFormat`, `.expired`,
    ///   `.invalidCode` with `attemptsRemaining`, `.attemptsExhausted`, `.storageFailure`, the
    ///   provider's errors) or `CancellationError`.
    public func submit(_ answer: ChallengeAnswer, for challenge: Challenge) async throws -> SignInStep {
        let providerID = challenge.provider
        let provider = try self.provider(providerID)
        try refuseIfAbandoned(challenge)
        if let session = unsaved[challenge.flowID] {
            _ = try normalizedAnswer(answer, for: challenge)
            return try await persist(session, flowID: challenge.flowID)
        }
        if let session = finishedSessions[challenge.flowID] {
            return .signedIn(session)
        }
        let now = time.now
        if challenge.isExpired(at: now) {
            if pending[providerID]?.flowID == challenge.flowID { pending[providerID] = nil }
            endFlow(challenge.flowID, provider: providerID)
            gate.publish(.flowExpired, provider: providerID, flowID: challenge.flowID)
            throw AuthError(.expired, "the challenge expired; start again", provider: providerID)
        }
        refreshPending(providerID)
        let current = pending[providerID]?.flowID == challenge.flowID ? pending[providerID]! : challenge
        if let remaining = current.attemptsRemaining, remaining <= 0 {
            throw AuthError(.attemptsExhausted, "no attempts remain; start again", provider: providerID, attemptsRemaining: 0)
        }
        let normalized = try normalizedAnswer(answer, for: current)
        let context = context(for: providerID, flowID: challenge.flowID)
        let step: SignInStep
        do {
            step = try await provider.respond(to: current, with: normalized, context: context)
        } catch is CancellationError {
            gate.cancel(challenge.flowID, provider: providerID)
            throw CancellationError()
        } catch {
            let error = normalize(error, provider: providerID)
            switch error.code {
            case .invalidCode:
                if var updated = pending[providerID], updated.flowID == challenge.flowID {
                    updated.attemptsRemaining = error.attemptsRemaining ?? updated.attemptsRemaining.map { max(0, $0 - 1) }
                    pending[providerID] = updated
                }
                gate.publish(.codeRejected(attemptsRemaining: error.attemptsRemaining), provider: providerID, flowID: challenge.flowID)
            case .attemptsExhausted, .expired:
                if pending[providerID]?.flowID == challenge.flowID { pending[providerID] = nil }
                endFlow(challenge.flowID, provider: providerID)
                if error.code == .expired { gate.publish(.flowExpired, provider: providerID, flowID: challenge.flowID) }
            default: break
            }
            throw error
        }
        if Task.isCancelled {
            gate.cancel(challenge.flowID, provider: providerID)
            throw CancellationError()
        }
        // Signed out or cancelled while the provider answered: keep nothing of this flow.
        try refuseIfAbandoned(challenge)
        return try await accept(step, provider: providerID, flowID: challenge.flowID)
    }

    /// Remembers which sign-out epoch `flowID` of `provider` started in (bounded memory).
    private func track(_ flowID: FlowID, provider: AuthProviderID) {
        guard flowEpochs[flowID] == nil else { return }
        if let forgotten = flowEpochs.set(signOutEpochs[provider, default: 0], for: flowID) {
            abandonedFlows.remove(forgotten.key)
        }
    }

    /// Throws `challengeNotPending` when `challenge`'s flow was cancelled, or started before a
    /// sign-out of its provider, in this client.
    private func refuseIfAbandoned(_ challenge: Challenge) throws {
        let epoch = flowEpochs[challenge.flowID]
        if abandonedFlows.contains(challenge.flowID) || epoch.map({ $0 < signOutEpochs[challenge.provider, default: 0] }) == true {
            throw AuthError(
                .challengeNotPending, "this sign-in was cancelled or signed out; start again", provider: challenge.provider)
        }
    }

    private func normalizedAnswer(_ answer: ChallengeAnswer, for challenge: Challenge) throws -> ChallengeAnswer {
        switch challenge.kind {
        case .oneTimeCode, .totp:
            return ChallengeAnswer(code: try answer.normalizedCode(length: challenge.expectedCodeLength), name: answer.name)
        case .silentNetworkAuth, .profileConsent:
            let code = answer.rawCode.trimmingCharacters(in: .whitespacesAndNewlines)
            return ChallengeAnswer(code: code.isEmpty ? "" : try answer.normalizedCode(length: nil), name: answer.name)
        case .magicLink, .oauthRedirect:
            throw AuthError(
                .invalidInput, "this challenge completes through a redirect; call handleRedirect(_:)",
                provider: challenge.provider, reason: .answerMismatch)
        }
    }

    /// Asks the provider to send a new code, on `channel` when given.
    ///
    /// Refused locally with `rateLimited` and `retryAfter` before `resendAvailableAt`.
    /// - Returns: The updated challenge (also published as `challengeIssued`).
    /// - Throws: `AuthError` (`.rateLimited`, `.unsupported` when the provider cannot resend,
    ///   `.expired`, the provider's errors) or `CancellationError`.
    public func resend(_ challenge: Challenge, channel: DeliveryChannel? = nil) async throws -> Challenge {
        let providerID = challenge.provider
        guard let provider = try self.provider(providerID) as? any ResendableProvider else {
            throw AuthError(.unsupported, "this provider cannot resend codes", provider: providerID)
        }
        try refuseIfAbandoned(challenge)
        let now = time.now
        if challenge.isExpired(at: now) {
            throw AuthError(.expired, "the challenge expired; start again", provider: providerID)
        }
        if let available = challenge.resendAvailableAt, now < available {
            let wait = Duration.interval(available.timeIntervalSince(now))
            throw AuthError(.rateLimited, "a new code can be requested later", provider: providerID, retryAfter: wait)
        }
        let updated: Challenge
        do {
            updated = try await provider.resend(challenge, channel: channel, context: context(for: providerID, flowID: challenge.flowID))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw normalize(error, provider: providerID)
        }
        pending[providerID] = updated
        gate.publish(.challengeIssued(updated), provider: providerID, flowID: updated.flowID)
        return updated
    }

    /// Routes a redirect URL (magic link, OAuth return, deep link) to the provider that claims
    /// it.
    ///
    /// A redirect is accepted only while a flow of that provider is pending (the provider
    /// checks its state against the pending challenge). A re-delivered redirect replays its
    /// result without a network call: the session it led to (directly, or after a further
    /// step such as TOTP), or that further step while it is still pending.
    /// - Parameter resuming: A challenge saved before the process died, used as the pending
    ///   flow when this client has none.
    /// - Returns: `nil` when no registered provider claims the URL; otherwise the next step.
    /// - Throws: `AuthError` (`.challengeNotPending`, `.unauthorized`, `.storageFailure`, the
    ///   provider's errors) or `CancellationError`.
    public func handleRedirect(_ url: URL, resuming: Challenge? = nil) async throws -> SignInStep? {
        guard
            let provider = providerIDs.lazy.compactMap({ self.providers[$0] as? any RedirectHandlingProvider })
                .first(where: { $0.canHandle(url) })
        else { return nil }
        let providerID = provider.id
        let key = url.absoluteString
        if let flowID = completedRedirects[key] {
            // A re-delivered redirect replays its result without a network call: the session
            // (finishing an interrupted store write first), or the further step still pending.
            if let session = unsaved[flowID] { return try await persist(session, flowID: flowID) }
            if let session = finishedSessions[flowID] { return .signedIn(session) }
            if let next = pending[providerID], next.flowID == flowID { return .challenge(next) }
        }
        let pendingChallenge = pending[providerID] ?? resuming.flatMap { $0.provider == providerID ? $0 : nil }
        if let pendingChallenge, pendingChallenge.isExpired(at: time.now) {
            pending[providerID] = nil
            gate.publish(.flowExpired, provider: providerID, flowID: pendingChallenge.flowID)
            throw AuthError(.expired, "the sign-in link expired; start again", provider: providerID)
        }
        let flowID = pendingChallenge?.flowID ?? FlowID.random()
        let step: SignInStep
        do {
            step = try await provider.handleRedirect(url, pending: pendingChallenge, context: context(for: providerID, flowID: flowID))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw normalize(error, provider: providerID)
        }
        switch step {
        case .signedIn: remember(redirect: key, flowID: flowID)
        case .challenge(let next): remember(redirect: key, flowID: next.flowID)
        }
        return try await accept(step, provider: providerID, flowID: flowID)
    }

    private func remember(redirect key: String, flowID: FlowID) {
        if let forgotten = completedRedirects.set(flowID, for: key) { finishedSessions[forgotten.value] = nil }
    }

    /// The challenge of `provider`'s pending flow, if any, including changes the provider
    /// published since (e.g. the channel after a fallback).
    public func pendingChallenge(for provider: AuthProviderID) -> Challenge? {
        refreshPending(provider)
        return pending[provider]
    }

    /// Applies a challenge the provider published for the pending flow (fallback, SNA → OTP).
    private func refreshPending(_ provider: AuthProviderID) {
        guard let current = pending[provider], let updated = gate.takeUpdatedChallenge(current.flowID) else { return }
        var challenge = updated
        challenge.provider = provider
        pending[provider] = challenge
    }

    /// Tells the provider a flow ended and drops what the client kept for it.
    private func endFlow(_ flowID: FlowID, provider: AuthProviderID) {
        gate.forgetChallenges(of: flowID)
        providers[provider]?.flowEnded(flowID)
    }

    /// Abandons `provider`'s pending flow (and its start in flight): publishes `flowCancelled`
    /// once; later events of that flow are dropped.
    public func cancelFlow(for provider: AuthProviderID) {
        if let starting = startingFlows.removeValue(forKey: provider) {
            abandonedFlows.insert(starting.flowID)
            gate.cancel(starting.flowID, provider: provider)
            starting.task.cancel()
            endFlow(starting.flowID, provider: provider)
        }
        if let challenge = pending.removeValue(forKey: provider) {
            abandonedFlows.insert(challenge.flowID)
            unsaved[challenge.flowID] = nil
            gate.cancel(challenge.flowID, provider: provider)
            endFlow(challenge.flowID, provider: provider)
        }
    }

    private func accept(_ step: SignInStep, provider: AuthProviderID, flowID: FlowID) async throws -> SignInStep {
        switch step {
        case .challenge(var challenge):
            challenge.provider = provider
            track(challenge.flowID, provider: provider)
            pending[provider] = challenge
            gate.publish(.challengeIssued(challenge), provider: provider, flowID: challenge.flowID)
            return .challenge(challenge)
        case .signedIn(let session):
            return try await persist(session, flowID: flowID)
        }
    }

    /// Saves `session`, then (only then) publishes `signedIn` and returns it.
    private func persist(_ session: AuthSession, flowID: FlowID) async throws -> SignInStep {
        do {
            try await store.save(session)
        } catch {
            let failure = (error as? AuthError).map { $0.code == .storageFailure ? $0 : AuthError(.storageFailure, $0.message, provider: session.provider, underlying: $0) }
                ?? AuthError(.storageFailure, "the session could not be saved", provider: session.provider, underlying: error)
            unsaved[flowID] = session
            gate.publish(.storageFailed(failure), provider: session.provider, flowID: flowID)
            throw failure
        }
        unsaved[flowID] = nil
        finishedSessions[flowID] = session
        trimFinishedSessions()
        if pending[session.provider]?.flowID == flowID { pending[session.provider] = nil }
        endFlow(flowID, provider: session.provider)
        gate.publishState(.signedIn(session), provider: session.provider, flowID: flowID, session: session)
        return .signedIn(session)
    }

    private func trimFinishedSessions() {
        guard finishedSessions.count > Self.redirectMemory * 2 else { return }
        let keep = Set(completedRedirects.allValues)
        finishedSessions = finishedSessions.filter { keep.contains($0.key) }
    }

    private nonisolated func normalize(_ error: any Error, provider: AuthProviderID) -> AuthError {
        if var error = error as? AuthError {
            if error.provider == nil { error.provider = provider }
            return error
        }
        return AuthError(.generic, "unexpected provider error", provider: provider, underlying: error)
    }

    // MARK: Sessions

    /// The stored session of `provider`, expired or not.
    /// - Throws: `AuthError` `.storageUnavailable` (never treated as signed out).
    public func session(for provider: AuthProviderID) async throws -> AuthSession? {
        try await store.load(for: provider)
    }

    /// The stored session of `provider`, refreshed first when it expires within
    /// ``refreshMargin`` and the provider can refresh. Concurrent callers share one refresh
    /// (case B17).
    /// - Returns: A valid session, or `nil` when signed out (or the refresh token was rejected).
    /// - Throws: `AuthError` (`.storageUnavailable`, `.network`, …); a session that is expired
    ///   and cannot be refreshed is returned as it is, for the caller to inspect.
    public func validSession(for provider: AuthProviderID) async throws -> AuthSession? {
        guard let session = try await store.load(for: provider) else { return nil }
        guard let expiresAt = session.expiresAt,
            time.now.addingTimeInterval(refreshMargin.timeInterval) >= expiresAt,
            providers[provider] is any RefreshableProvider
        else { return session }
        do {
            return try await refresh(session)
        } catch let error as AuthError where error.code == .unauthorized {
            return nil
        }
    }

    /// Refreshes the stored session of `provider`.
    /// - Throws: `AuthError` `.unauthorized` when nothing is stored; see ``refresh(_:)-(AuthSession)``.
    public func refresh(_ provider: AuthProviderID) async throws -> AuthSession {
        guard let session = try await store.load(for: provider) else {
            throw AuthError(.unauthorized, "no session is stored; sign in first", provider: provider)
        }
        return try await refresh(session)
    }

    /// Refreshes `session` through its provider, persists the result and publishes
    /// `sessionRefreshed`.
    ///
    /// Single-flight: concurrent calls for the same session credential share one provider
    /// call; a call for a different credential never gets another's result. A failure is not
    /// cached. A caller whose credential this client already spent in a completed refresh
    /// gets that refresh's result without a network call. When the provider
    /// rejects the refresh credential (`unauthorized`) and the store still holds that
    /// credential, the session is removed and `signedOut` is published; a session refreshed or
    /// replaced meanwhile is never removed.
    /// - Throws: `AuthError` (`.unsupported`, `.unauthorized`, `.network`, `.storageFailure`)
    ///   or `CancellationError` (this caller only; the shared refresh goes on).
    public func refresh(_ session: AuthSession) async throws -> AuthSession {
        let providerID = session.provider
        guard let provider = try self.provider(providerID) as? any RefreshableProvider else {
            throw AuthError(.unsupported, "this provider cannot refresh sessions", provider: providerID)
        }
        let credential = Self.refreshCredential(of: session)
        let key = RefreshKey(provider: providerID, credential: credential)
        refreshCallersInFlight += 1
        defer { refreshCallersInFlight -= 1 }
        if let running = refreshes[key] {
            return try await running.value
        }
        // A caller holding a credential this client already spent (the shared refresh finished
        // before it arrived) gets that refresh's result instead of spending a used refresh
        // token, which a rotating provider would reject (case B17).
        if let refreshed = rotated[key] {
            let expiring = refreshed.expiresAt.map { time.now.addingTimeInterval(refreshMargin.timeInterval) >= $0 } ?? false
            return expiring ? try await refresh(refreshed) : refreshed
        }
        let context = context(for: providerID, flowID: nil)
        let store = self.store
        let gate = self.gate
        // Unstructured so every concurrent caller awaits the same refresh; owned by
        // `refreshes`, removed when it completes (success or failure), never cancelled by a
        // single caller.
        let task = Task<AuthSession, any Error> {
            let refreshed: AuthSession
            do {
                refreshed = try await provider.refresh(session, context: context)
            } catch let error as AuthError where error.code == .unauthorized {
                do {
                    // Sign out only if the store still holds the credential the provider
                    // rejected: a session refreshed or replaced meanwhile stays.
                    if let stored = try await store.load(for: providerID), Self.refreshCredential(of: stored) == credential {
                        try await store.remove(for: providerID)
                        gate.publishState(.signedOut, provider: providerID, flowID: nil, session: nil)
                    }
                } catch {
                    let failure = AuthError(.storageFailure, "the rejected session could not be removed", provider: providerID, underlying: error)
                    gate.publish(.storageFailed(failure), provider: providerID, flowID: nil)
                }
                throw error
            }
            do { try await store.save(refreshed) } catch {
                let failure = AuthError(.storageFailure, "the refreshed session could not be saved", provider: providerID, underlying: error)
                gate.publish(.storageFailed(failure), provider: providerID, flowID: nil)
                throw failure
            }
            gate.publishState(.sessionRefreshed(refreshed), provider: providerID, flowID: nil, session: refreshed)
            return refreshed
        }
        refreshes[key] = task
        defer { refreshes[key] = nil }
        do {
            let refreshed = try await task.value
            remember(rotation: key, result: refreshed)
            return refreshed
        } catch {
            throw error is CancellationError ? error : normalize(error, provider: providerID)
        }
    }

    /// Records that refreshing with `key`'s credential produced `result` (latest 64 kept), when
    /// the provider rotated the credential: the old one is spent, so a late caller holding it
    /// must get this result. A provider that keeps its refresh token needs no memory.
    private func remember(rotation key: RefreshKey, result: AuthSession) {
        guard Self.refreshCredential(of: result) != key.credential else { return }
        rotated.set(result, for: key)
    }

    /// The credential a refresh spends: the refresh token, else the access token, else the id.
    private static func refreshCredential(of session: AuthSession) -> String {
        session.credentials.refreshToken ?? session.credentials.accessToken ?? session.id
    }

    /// The outcome of ``signOut(_:)``.
    public struct SignOutOutcome: Sendable {
        /// Whether a session was stored (and is now removed).
        public var wasSignedIn: Bool
        /// The provider-side revocation error, when revoking failed; the local session was
        /// removed anyway.
        public var remoteError: AuthError?
    }

    /// Signs out of `provider`: revokes remotely when the provider can, removes the stored
    /// session, publishes `signedOut`. Idempotent: with no session it does nothing and
    /// publishes nothing.
    /// - Returns: Whether a session existed, and a remote revocation error if one occurred
    ///   (the local session is removed even then).
    /// - Throws: `AuthError` `.storageUnavailable` / `.storageFailure` (the session stays), or
    ///   `CancellationError`.
    @discardableResult
    public func signOut(_ provider: AuthProviderID) async throws -> SignOutOutcome {
        let adapter = try self.provider(provider)
        cancelFlow(for: provider)
        // Every flow of this provider started before now is abandoned: its challenges are
        // refused, and a submit in flight stores nothing.
        signOutEpochs[provider, default: 0] += 1
        unsaved = unsaved.filter { $0.value.provider != provider }
        guard let session = try await store.load(for: provider) else {
            return SignOutOutcome(wasSignedIn: false, remoteError: nil)
        }
        var remoteError: AuthError?
        do {
            try await adapter.signOut(session, context: context(for: provider, flowID: nil))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            remoteError = normalize(error, provider: provider)
        }
        try await store.remove(for: provider)
        finishedSessions = finishedSessions.filter { $0.value.provider != provider }
        gate.publishState(.signedOut, provider: provider, flowID: nil, session: nil)
        return SignOutOutcome(wasSignedIn: true, remoteError: remoteError)
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

    /// Loads every stored session, keeps the state in memory for ``authStates(bufferCapacity:)``
    /// and publishes `sessionRestored` for each session (call once at launch).
    /// - Returns: The state that was restored.
    @discardableResult
    public func restoreSessions() async -> AuthState {
        let state = await currentState()
        gate.setLoadedState(state)
        for id in providerIDs {
            if let entry = state.sessions[id] { gate.publish(.sessionRestored(entry.session), provider: id, flowID: nil) }
        }
        return state
    }

    /// A stream whose first element is `initialState` (the current state), followed by every
    /// live event published after this call.
    ///
    /// The subscriber is registered before this returns, so nothing published afterwards is
    /// missed (cases B21, B22); each subscriber gets its own initial state exactly once, and
    /// past events are not replayed. After ``restoreSessions()`` the state is a snapshot taken
    /// atomically with the registration (expired flags as of this call); before it, the state
    /// is read from the store when the consumer first iterates.
    /// - Parameter bufferCapacity: The subscriber's buffer size; see ``AuthEventBus``.
    public nonisolated func authStates(bufferCapacity: Int = AuthEventBus.defaultBufferCapacity) -> AuthEventStream {
        let time = self.time
        return gate.subscribeWithState(bufferCapacity: bufferCapacity, now: { time.now }) { [self] in
            await self.currentState()
        }
    }
}
