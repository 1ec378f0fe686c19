import Foundation

/// The single dependency an app holds: registered providers, a session store, a transport, a
/// time source and an event bus, with one API for every provider's flows.
///
/// `AuthClient` enforces the invariants of Docs/Architecture.md for every provider:
/// 1. A malformed code or an expired challenge is refused with a typed error before the
///    provider is called: no network call, no attempt used.
/// 2. A session is persisted **before** `.signedIn` is returned or published. If the write
///    fails, `storageFailure` is thrown; submitting the same challenge again finishes the
///    write without a network call.
/// 3. A new `signIn` for a provider cancels that provider's start still in flight (event
///    `flowCancelled`); a `submit` in flight is never cancelled by it.
/// 4. A wrong code throws `invalidCode` with `attemptsRemaining`, publishes `codeRejected`,
///    keeps the challenge usable and leaves any stored session untouched; the last one
///    publishes `attemptsExhausted`. One submit per challenge is in flight: the same code
///    joins it, a different code waits for it. A finished challenge replays its session for
///    the same answer and refuses any other (`challengeNotPending`).
/// 6. Cancellation before the provider call surfaces as `CancellationError`: nothing is spent
///    or stored and no event of that flow follows `flowCancelled`. Cancellation after the
///    provider answered comes too late: the session is stored and returned (rule F6).
/// 7. Events, errors and descriptions never carry secrets.
/// 9. Concurrent refreshes of one session (same refresh token) make one provider call.
/// 10. Time comes only from the injected ``TimeSource``.
/// 11. A refresh result is applied only while the refreshed session is still stored
///     (compare-and-set); otherwise it is discarded and the caller gets the stored session.
/// 12. A revoked refresh credential ends the session once (`sessionExpired`); a transient
///     failure never does, and a still-valid access token is still returned. Sessions refresh
///     themselves before expiry (``AutoRefresh``).
/// 13. One redirect is exchanged at most once, even when delivered twice at the same moment.
///
/// Internally the client composes a `FlowStateMachine` (sign-in flows), a `RedirectLedger`
/// (redirect exchanges), a `SessionLifecycle` (refresh rules) and an
/// `AutoRefreshScheduler` (background refresh); see Docs/Architecture.md.
///
/// Concurrency: an actor. Provider calls run while the actor is free for other calls, so
/// several flows of different providers (and several submits) proceed in parallel.
public actor AuthClient {
    /// The events of this client, subscribe-only: ``AuthEventSource/subscribe(bufferCapacity:onTermination:)``
    /// for live events (``authStates(bufferCapacity:)`` for the current state first). Each
    /// client has its own bus; only the client publishes on it (Docs/Events.md).
    public nonisolated let events: AuthEventSource
    /// The session store.
    public nonisolated let store: any SessionStore
    /// The transport handed to providers.
    public nonisolated let transport: any HTTPTransport
    /// The time source handed to providers and used for expiry checks.
    public nonisolated let time: TimeSource
    /// How long before expiry ``validSession(for:)`` and the background scheduler refresh a
    /// session.
    public nonisolated let refreshMargin: Duration
    /// The background refresh policy.
    public nonisolated let autoRefresh: AutoRefresh
    /// The registered provider ids, in registration order.
    public nonisolated let providerIDs: [AuthProviderID]

    let providers: [AuthProviderID: any AuthProvider]
    nonisolated let gate: FlowEventGate
    nonisolated let lifecycle: SessionLifecycle
    nonisolated let scheduler: AutoRefreshScheduler
    var flows = FlowStateMachine()
    private var redirects = RedirectLedger()
    private var submits: [FlowID: (code: String, work: SharedWork<SignInStep>)] = [:]
    /// Retried writes of a flow's session a failed save left unsaved, by flow: every retry (the
    /// same answer again, the flow's link) joins the one in flight, so one sign-in is written and
    /// announced once.
    private var saves: [FlowID: SharedWork<SignInStep>] = [:]
    /// Redirect exchanges in flight, by the flow they continue (F9).
    private var flowExchanges: [FlowID: SharedWork<SignInStep>] = [:]
    var mutations = ClientMutations()

    /// Creates a client.
    /// - Parameters:
    ///   - providers: The providers; ids must be unique.
    ///   - store: Where sessions are persisted.
    ///   - transport: The HTTP transport for every provider.
    ///   - time: The time source (inject `ManualClock` in tests).
    ///   - refreshMargin: ``validSession(for:)`` and the background scheduler refresh sessions
    ///     expiring within this margin.
    ///   - autoRefresh: Background refresh (on by default; pass ``AutoRefresh/disabled`` to
    ///     refresh only on demand).
    /// - Throws: `AuthError` `.configuration` when two providers share an id.
    public init(
        providers: [any AuthProvider], store: any SessionStore = InMemorySessionStore(), transport: any HTTPTransport,
        time: TimeSource = .system, refreshMargin: Duration = .seconds(60), autoRefresh: AutoRefresh = .enabled
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
        self.autoRefresh = autoRefresh
        let bus = AuthEventBus(timeSource: time)
        self.events = AuthEventSource(bus: bus)
        let gate = FlowEventGate(bus: bus)
        self.gate = gate
        let lifecycle = SessionLifecycle(store: store, gate: gate)
        self.lifecycle = lifecycle
        let scheduler = AutoRefreshScheduler(policy: autoRefresh, margin: refreshMargin, time: time)
        let registered = table
        self.scheduler = scheduler
        // The scheduler holds no reference to the client: a released client stops it (deinit).
        scheduler.connect(
            AutoRefreshScheduler.Hooks(
                load: { provider in try await store.load(for: provider) },
                refresh: { session in
                    guard let provider = registered[session.provider] as? any RefreshableProvider else { return .stop }
                    let context = Self.makeContext(
                        gate: gate, transport: transport, time: time, provider: session.provider, flowID: nil)
                    return Self.schedulerStep(await lifecycle.refresh(session, provider: provider, context: context))
                },
                hasUnsaved: { session in lifecycle.unsavedSession(replacing: session) != nil }))
    }

    deinit {
        scheduler.stopAll()
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

    nonisolated func context(for provider: AuthProviderID, flowID: FlowID?) -> AuthContext {
        Self.makeContext(gate: gate, transport: transport, time: time, provider: provider, flowID: flowID)
    }

    private static func makeContext(
        gate: FlowEventGate, transport: any HTTPTransport, time: TimeSource, provider: AuthProviderID, flowID: FlowID?
    ) -> AuthContext {
        AuthContext(transport: transport, time: time, flowID: flowID) { kind in
            gate.publishFromProvider(kind, provider: provider, flowID: flowID)
        }
    }

    // MARK: Test seams

    /// Switches off guards for mutation checks (the model-based test shows it then finds a
    /// violation). Never used by apps.
    package func setMutations(_ mutations: ClientMutations) {
        self.mutations = mutations
        lifecycle.setMutations(mutations)
    }

    /// Callers currently awaiting a refresh (tests use it to know every caller has joined).
    var refreshCallersInFlight: Int { lifecycle.callersInFlight }

    /// Shared refreshes in flight (tests wait for a refresh whose caller stopped waiting, L1).
    package nonisolated var refreshesInFlight: Int { lifecycle.refreshesInFlight }

    /// Background scheduler tasks running now (the bounded-task test reads it).
    package nonisolated var autoRefreshTaskCount: Int { scheduler.activeTaskCount }

    /// Returns once `count` operations wait for `provider`'s state-write turn (L13): a test holds
    /// a store write and knows, without polling, that a sign-out queued behind it.
    package nonisolated func waitUntilStateWritesQueued(_ provider: AuthProviderID, count: Int = 1) async {
        await lifecycle.writes.waitUntilQueued(provider, count: count)
    }

    /// Redirect exchanges and submits in flight (bounded-memory checks).
    package var exchangesInFlight: Int { redirects.inFlightCount + submits.count }

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
        apply(flows.begin(flowID, provider: providerID, summary: request.description))
        let context = context(for: providerID, flowID: flowID)
        // Unstructured so a newer start can cancel it; owned by the flow state machine and awaited
        // right here, so it ends before this call returns (cancelled with the caller).
        let task = Task { try await provider.start(request, context: context) }
        flows.startRunning(flowID, provider: providerID, task: task)
        let result: Result<SignInStep, any Error>
        do {
            result = .success(
                try await withTaskCancellationHandler {
                    try await task.value
                } onCancel: {
                    task.cancel()
                })
        } catch {
            result = .failure(error)
        }
        // The start counts as in flight until what it answered was taken: a `cancelFlow` or a newer
        // start while a one-step session waits for its save abandons it (F6, F7).
        defer { flows.startReturned(flowID, provider: providerID) }
        defer { gate.forget(flowID) }
        let cancelledFlow = gate.isCancelled(flowID)
        if cancelledFlow || Task.isCancelled {
            if case .success(.signedIn(let issued)) = result {
                // F6: the provider answered with a session (a one-step sign-in, e.g. SNA), so a
                // cancellation of the caller's task came too late to spend nothing: the session
                // is kept (persisted and announced). A flow the app cancelled (or a newer start,
                // or a sign-out) takes nothing: the issued session is revoked.
                if !cancelledFlow && !mutations.discardAnswerOnCancel {
                    return try await accept(.signedIn(issued), provider: providerID, flowID: flowID, answer: nil)
                }
                _ = await revokeRemotely(issued, with: provider)
            }
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
            return try await accept(step, provider: providerID, flowID: flowID, answer: nil)
        }
    }

    /// Answers a challenge, possibly one issued in an earlier process (decoded from storage).
    ///
    /// The code is normalized (whitespace removed) and checked against the challenge's length
    /// before the provider is called; an expired challenge is refused locally. A session left
    /// unsaved by a failed store write for this flow is saved without calling the provider.
    /// One submit per challenge is in flight: a second submit of the same code joins the first
    /// (both get its result); a different code waits for it and then runs against what it
    /// left (fewer attempts, or a finished flow). A finished challenge replays its session for
    /// the answer that finished it and refuses any other answer with `challengeNotPending`,
    /// without a network call.
    /// - Returns: A session, or a further challenge (e.g. a TOTP second step).
    /// - Throws: `AuthError` (`.invalidInput` with `.invalidCodeFormat`, `.expired`,
    ///   `.invalidCode` with `attemptsRemaining`, `.attemptsExhausted`, `.challengeNotPending`,
    ///   `.storageFailure`, the provider's errors) or `CancellationError`.
    public func submit(_ answer: ChallengeAnswer, for challenge: Challenge) async throws -> SignInStep {
        let providerID = challenge.provider
        let provider = try self.provider(providerID)
        while true {
            refreshPending(providerID)
            // A challenge decoded from an earlier process becomes known here; from now on a
            // sign-out abandons it like a flow started in this process (F2).
            let current: Challenge
            switch flows.submission(for: challenge, now: time.now, judgeHeldChallenge: mutations.judgeHeldChallenge) {
            case .refused(let error):
                throw error
            case .retryWrite(let session, let kept):
                let normalized = try normalizedAnswer(answer, for: challenge)
                guard kept == nil || kept == normalized.submissionKey else {
                    throw FlowStateMachine.finishedError(providerID)
                }
                return try await retryWrite(session, flowID: challenge.flowID, answer: kept)
            case .finished(let session, let finishedBy):
                // F9: a flow that a redirect (its magic link) finished answers a code with that
                // session: the same flow, the same user, already signed in.
                if finishedBy == nil && !mutations.noCodeLinkOrdering { return .signedIn(session) }
                guard let finishedBy, (try? normalizedAnswer(answer, for: challenge).submissionKey) == finishedBy else {
                    throw FlowStateMachine.finishedError(providerID)
                }
                return .signedIn(session)
            case .expired(let effects):
                apply(effects)
                throw AuthError(.expired, "the challenge expired; start again", provider: providerID)
            case .open(let live):
                current = live
            }
            let normalized = try normalizedAnswer(answer, for: current)
            // F9: the flow's magic link is being exchanged, or the flow's session written again
            // after a failed save: its grant and this code are one sign-in, so wait for that and
            // look again instead of spending the grant twice.
            if let running = flowExchanges[challenge.flowID] ?? saves[challenge.flowID], !mutations.noCodeLinkOrdering {
                _ = try? await running.value()
                try Task.checkCancellation()
                continue
            }
            if let running = submits[challenge.flowID] {
                if running.code == normalized.submissionKey { return try await running.work.value() }
                // A different code waits for the submit in flight, then looks again: the
                // attempts it sees are the ones the server applied.
                _ = try? await running.work.value()
                try Task.checkCancellation()
                continue
            }
            flows.answering(challenge)
            // Unstructured so concurrent submits of this challenge share it; owned by
            // `submits` (removed by itself when it ends); cancelled when its last waiter is.
            let work = SharedWork(
                Task { try await self.respond(provider, to: current, with: normalized, for: challenge) })
            submits[challenge.flowID] = (normalized.submissionKey, work)
            return try await work.value()
        }
    }

    /// The provider call of one submit, shared by every caller of the same code.
    private func respond(
        _ provider: any AuthProvider, to current: Challenge, with normalized: ChallengeAnswer, for challenge: Challenge
    ) async throws -> SignInStep {
        let providerID = challenge.provider
        let flowID = challenge.flowID
        defer { submits[flowID] = nil }
        let context = context(for: providerID, flowID: flowID)
        let step: SignInStep
        do {
            step = try await provider.respond(to: current, with: normalized, context: context)
        } catch is CancellationError {
            // F6: cancelled before the provider answered, nothing is spent: the flow stays
            // pending and the same answer may be submitted again, so the flow is not marked
            // cancelled (a `flowCancelled` would make the event gate drop that retry's
            // `signedIn`, leaving a stored session no event announced).
            throw CancellationError()
        } catch {
            let error = normalize(error, provider: providerID).withoutEcho(of: normalized.rawCode.reveal())
            apply(flows.answerRefused(flowID, provider: providerID, error: error))
            throw error
        }
        // F6: the provider answered, so the code is spent and the server issued what it issued;
        // a cancellation arriving now came too late to spend nothing, so what the server sent is
        // kept (persisted below) and the caller gets it (Docs/Architecture.md, "Sign-in flows").
        if mutations.discardAnswerOnCancel, Task.isCancelled {
            gate.cancel(flowID, provider: providerID)
            throw CancellationError()
        }
        // F2: signed out or cancelled while the provider answered: keep nothing of this flow, and
        // revoke the session the server issued for it, so no live refresh token outlives the
        // sign-out.
        if flows.isAbandoned(flowID) {
            if case .signedIn(let issued) = step { _ = await revokeRemotely(issued, with: provider) }
            throw FlowStateMachine.abandonedError(providerID)
        }
        return try await accept(step, provider: providerID, flowID: flowID, answer: normalized.submissionKey)
    }

    private func normalizedAnswer(_ answer: ChallengeAnswer, for challenge: Challenge) throws -> ChallengeAnswer {
        switch challenge.kind {
        case .oneTimeCode, .totp:
            guard answer.passkey == nil else {
                throw AuthError(
                    .invalidInput, "this challenge takes a code, not a passkey", provider: challenge.provider,
                    reason: .answerMismatch)
            }
            return ChallengeAnswer(
                code: try answer.normalizedCode(length: challenge.expectedCodeLength), name: answer.name)
        case .silentNetworkAuth, .profileConsent:
            let code = answer.rawCode.reveal().trimmingCharacters(in: .whitespacesAndNewlines)
            return ChallengeAnswer(code: code.isEmpty ? "" : try answer.normalizedCode(length: nil), name: answer.name)
        case .magicLink, .oauthRedirect:
            throw AuthError(
                .invalidInput, "this challenge completes through a redirect; call handleRedirect(_:)",
                provider: challenge.provider, reason: .answerMismatch)
        case .passkey(let ceremony):
            guard let result = answer.passkey else {
                throw AuthError(
                    .invalidInput, "this challenge is a passkey ceremony; answer with ChallengeAnswer(passkey:)",
                    provider: challenge.provider, reason: .answerMismatch)
            }
            var normalized = ChallengeAnswer(passkey: result)
            normalized.passkeyKey = Secret(try result.checked(for: ceremony, provider: challenge.provider))
            return normalized
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
        if flows.isAbandoned(challenge.flowID) { throw FlowStateMachine.abandonedError(providerID) }
        let now = time.now
        // F5: judged by the flow's newest challenge (a value held from before a resend is the same flow).
        let challenge = mutations.judgeHeldChallenge ? challenge : flows.live(challenge)
        if challenge.isExpired(at: now) {
            throw AuthError(.expired, "the challenge expired; start again", provider: providerID)
        }
        if let available = challenge.resendAvailableAt, now < available {
            let wait = Duration.interval(available.timeIntervalSince(now))
            throw AuthError(.rateLimited, "a new code can be requested later", provider: providerID, retryAfter: wait)
        }
        let updated: Challenge
        do {
            updated = try await provider.resend(
                challenge, channel: channel, context: context(for: providerID, flowID: challenge.flowID))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw normalize(error, provider: providerID)
        }
        apply(flows.challengeIssued(updated))
        return updated
    }

    /// Routes a redirect URL (magic link, OAuth return, deep link) to the provider that claims
    /// it.
    ///
    /// A redirect is accepted only while a flow of that provider is pending (the provider
    /// checks its state against the pending challenge). The URL is entered before the provider
    /// is called, so deliveries of the same URL while its exchange is in flight share that one
    /// exchange and all get its result. A re-delivered redirect replays its result without a
    /// network call: the session it led to (directly, or after a further step such as TOTP), or
    /// that further step while it is still pending.
    /// - Parameters:
    ///   - url: The redirect URL the app received (a magic link, an OAuth callback).
    ///   - resuming: A challenge saved before the process died, used as the pending flow when
    ///     this client has none.
    /// - Returns: `nil` when no registered provider claims the URL; otherwise the next step.
    /// A link of a flow that already signed in on this client (a second e-mail of the same
    /// sign-in) answers with the session that flow stored while it is still the stored one.
    /// - Throws: `AuthError` (`.challengeNotPending`, `.unauthorized`, `.storageFailure`, the
    ///   provider's errors) or `CancellationError`.
    public func handleRedirect(_ url: URL, resuming: Challenge? = nil) async throws -> SignInStep? {
        guard
            let provider = providerIDs.lazy.compactMap({ self.providers[$0] as? any RedirectHandlingProvider })
                .first(where: { $0.canHandle(url) })
        else { return nil }
        let providerID = provider.id
        let key = url.absoluteString
        if let flowID = redirects.completedFlow(key) {
            // A re-delivered redirect replays its result without a network call: the session
            // (finishing an interrupted store write first), or the further step still pending.
            switch flows.redirectReplay(of: flowID, provider: providerID) {
            case .retryWrite(let session, let answer)?:
                return try await retryWrite(session, flowID: flowID, answer: answer)
            case .session(let session)?: return .signedIn(session)
            case .saving?:
                // Its session is being saved: every delivery gets that save's result (R1).
                if let running = flowExchanges[flowID] ?? saves[flowID] {
                    _ = try? await running.value()
                    try Task.checkCancellation()
                    return try await handleRedirect(url, resuming: resuming)
                }
            case .challenge(let next)?: return .challenge(next)
            case nil: break
            }
        }
        if !mutations.noRedirectSingleFlight, let running = redirects.inFlight(key) {
            return try await running.value()
        }
        let pendingChallenge = flows.pending(providerID) ?? resuming.flatMap { $0.provider == providerID ? $0 : nil }
        if flows.pending(providerID) == nil, let resumed = pendingChallenge {
            flows.resume(resumed)
        }
        if let pendingChallenge, pendingChallenge.isExpired(at: time.now) {
            apply(flows.expire(pendingChallenge.flowID, provider: providerID))
            throw AuthError(.expired, "the sign-in link expired; start again", provider: providerID)
        }
        if let pendingChallenge,
            case .answer(let step) = try await answerAfterSameFlowCode(
                url, pending: pendingChallenge, resuming: resuming)
        {
            return step
        }
        let flowID = pendingChallenge?.flowID ?? FlowID.random()
        // Unstructured so concurrent deliveries share it; owned by the redirect ledger (entered
        // before the provider call, removed when the exchange ends); cancelled when its last
        // waiter is.
        let work = SharedWork(
            Task { try await self.exchange(url, key: key, with: provider, pending: pendingChallenge, flowID: flowID) })
        redirects.begin(key, exchange: work)
        flowExchanges[flowID] = work
        do {
            return try await work.value()
        } catch let error as AuthError
            where pendingChallenge == nil && !mutations.noAlreadySignedInRedirect
            && [.challengeNotPending, .codeAlreadyUsed].contains(error.code)
        {
            // F8: another link of a flow that already signed in here (the user tapped two
            // e-mails): the provider finds no pending sign-in, and the session that flow stored
            // is still the stored one, so the answer is that result, not an error telling a
            // signed-in user to start again (Docs/Architecture.md, "Sign-in flows"). Only when that
            // flow is the newest since the last sign-out and every other one finished: a flow
            // that never finished may be the link's — another user's — and then it is refused.
            if let stored = try? await store.load(for: providerID),
                flows.answersAnotherLink(
                    with: stored, knownFlow: redirects.completedFlow(key),
                    belongs: { provider.redirect(url, belongsTo: $0) })
            {
                return .signedIn(stored)
            }
            throw error
        }
    }

    /// What a phase of ``handleRedirect(_:resuming:)`` decided: answer the delivery with a step
    /// now, or go on to the next phase.
    private enum RedirectPhase {
        case answer(SignInStep?)
        case proceed
    }

    /// The F9 phase of ``handleRedirect(_:resuming:)``: the link of a flow whose code is being
    /// submitted, whose session is being written again, or whose code signed in but whose store
    /// write failed waits for or finishes that work instead of spending the flow's grant again.
    private func answerAfterSameFlowCode(_ url: URL, pending pendingChallenge: Challenge, resuming: Challenge?)
        async throws -> RedirectPhase
    {
        // F9: a submit of the same flow's code is in flight: wait for it, then answer with what
        // it finished (a second exchange of the flow would be refused as already used).
        if let running = submits[pendingChallenge.flowID], !mutations.noCodeLinkOrdering {
            let flow = pendingChallenge.flowID
            do {
                _ = try await running.work.value()
            } catch let error as AuthError where ![.invalidCode, .invalidInput].contains(error.code) {
                // The server may have spent the flow's grant for the code: the link gets the
                // same answer the code got (finishing a failed store write first), rather than
                // spending the grant a second time. A wrong code spent nothing: the link goes on.
                try Task.checkCancellation()
                if case .unsaved(let session, let answer)? = flows.state(of: flow) {
                    return .answer(try await retryWrite(session, flowID: flow, answer: answer))
                }
                throw error
            } catch {
                // A wrong code (or a cancelled submit) leaves the link its own exchange.
            }
            try Task.checkCancellation()
            if case .finished(let session, _)? = flows.state(of: flow) { return .answer(.signedIn(session)) }
            return .answer(try await handleRedirect(url, resuming: resuming))
        }
        // F9: the flow's session is being written again after a failed save: the link waits for
        // that write and answers with what it stored.
        if let running = saves[pendingChallenge.flowID], !mutations.noCodeLinkOrdering {
            _ = try? await running.value()
            try Task.checkCancellation()
            if case .finished(let session, _)? = flows.state(of: pendingChallenge.flowID) {
                return .answer(.signedIn(session))
            }
            return .answer(try await handleRedirect(url, resuming: resuming))
        }
        // F9: the flow's code already signed in on the server but the store write failed: the
        // link finishes that write instead of spending the flow's grant again.
        if case .unsaved(let session, let answer)? = flows.state(of: pendingChallenge.flowID),
            !mutations.noCodeLinkOrdering
        {
            return .answer(try await retryWrite(session, flowID: pendingChallenge.flowID, answer: answer))
        }
        return .proceed
    }

    /// The provider exchange of one redirect, shared by every delivery of the URL.
    private func exchange(
        _ url: URL, key: String, with provider: any RedirectHandlingProvider, pending: Challenge?, flowID: FlowID
    ) async throws -> SignInStep {
        let providerID = provider.id
        flows.track(flowID, provider: providerID)
        defer { flowExchanges[flowID] = nil }
        let step: SignInStep
        do {
            step = try await provider.handleRedirect(
                url, pending: pending, context: context(for: providerID, flowID: flowID))
        } catch is CancellationError {
            redirects.fail(key)
            throw CancellationError()
        } catch {
            redirects.fail(key)
            throw normalize(error, provider: providerID)
        }
        switch step {
        case .signedIn: redirects.complete(key, flow: flowID)
        case .challenge(let next): redirects.complete(key, flow: next.flowID)
        }
        return try await accept(step, provider: providerID, flowID: flowID, answer: nil)
    }

    /// The challenge of `provider`'s pending flow, if any, including changes the provider
    /// published since (e.g. the channel after a fallback).
    public func pendingChallenge(for provider: AuthProviderID) -> Challenge? {
        refreshPending(provider)
        return flows.pending(provider)
    }

    /// Applies a challenge the provider published for the pending flow (fallback, SNA → OTP).
    private func refreshPending(_ provider: AuthProviderID) {
        guard let current = flows.pending(provider), let updated = gate.takeUpdatedChallenge(current.flowID) else {
            return
        }
        var challenge = updated
        challenge.provider = provider
        flows.challengeUpdated(challenge)
    }

    /// Carries out what a transition of the flow state machine asks, in order, without suspending.
    func apply(_ effects: FlowEffects) {
        let provider = effects.provider
        for effect in effects.list {
            switch effect {
            case .publish(let kind, let flowID): gate.publish(kind, provider: provider, flowID: flowID)
            case .announce(let kind, let flowID, let session):
                gate.publishState(kind, provider: provider, flowID: flowID, session: session)
            case .cancelEvents(let flowID): gate.cancel(flowID, provider: provider)
            case .cancelStart(let task): task.cancel()
            case .end(let flowID):
                gate.forgetChallenges(of: flowID)
                providers[provider]?.flowEnded(flowID)
            case .scheduleRefresh(let restart): scheduleRefresh(of: provider, restart: restart)
            }
        }
    }

    /// Abandons `provider`'s pending flow (and its start in flight): publishes `flowCancelled`
    /// once; later events of that flow are dropped. A flow whose session is already being saved
    /// is past cancelling and finishes (rule F7).
    public func cancelFlow(for provider: AuthProviderID) {
        apply(flows.cancel(provider))
    }

    private func accept(_ step: SignInStep, provider: AuthProviderID, flowID: FlowID, answer: String?) async throws
        -> SignInStep
    {
        switch step {
        case .challenge(var challenge):
            challenge.provider = provider
            apply(flows.challengeIssued(challenge))
            return .challenge(challenge)
        case .signedIn(let session):
            // L8: a session is stored under the provider that produced it; one naming another
            // provider would be stored under that provider's key while this one reads as signed
            // out (Docs/Architecture.md, "Session lifecycle").
            guard session.provider == provider || mutations.noSessionProviderCheck else {
                throw AuthError(
                    .malformedResponse, "the provider answered with a session of another provider; nothing was stored",
                    provider: provider)
            }
            return try await persist(session, flowID: flowID, answer: answer)
        }
    }

    /// Writes again the session a failed save left for `flowID` (invariant 2), once: every retry
    /// (the same answer again, the flow's link delivered) joins the write in flight.
    private func retryWrite(_ session: AuthSession, flowID: FlowID, answer: String?) async throws -> SignInStep {
        if let running = saves[flowID] { return try await running.value() }
        // Unstructured so concurrent retries share it; owned by `saves` (removed by itself when
        // it ends); cancelled when its last waiter is.
        let work = SharedWork(Task { try await self.persistAgain(session, flowID: flowID, answer: answer) })
        saves[flowID] = work
        return try await work.value()
    }

    private func persistAgain(_ session: AuthSession, flowID: FlowID, answer: String?) async throws -> SignInStep {
        defer { saves[flowID] = nil }
        return try await persist(session, flowID: flowID, answer: answer)
    }

    /// Saves `session`, then (only then) publishes `signedIn` and returns it.
    ///
    /// F7: the save and a sign-out of the same provider are ordered by the provider's write turn
    /// (L13). A sign-out that took its turn first has removed what was stored and abandoned this
    /// flow: nothing is saved, the issued session is revoked and `challengeNotPending` thrown. Once
    /// this save holds the turn it comes first: a sign-out or `cancelFlow` arriving meanwhile comes
    /// too late for it (as a cancellation does, F6), the session is stored and announced, and the
    /// sign-out, which reads and removes under its own turn, then removes it and publishes
    /// `signedOut` (Docs/Architecture.md, "Sign-in flows").
    private func persist(_ session: AuthSession, flowID: FlowID, answer: String?) async throws -> SignInStep {
        let providerID = session.provider
        flows.awaitSave(flowID, provider: providerID)
        // L13: the save and the event that announces it are one step of this provider's state.
        let turn = await lifecycle.writes.turn(providerID)
        defer { turn.end() }
        guard flows.beginPersisting(flowID, provider: providerID, ignoringAbandonment: mutations.noAbandonBeforeSave)
        else {
            turn.end()
            try await refuseAbandoned(session, flowID: flowID)
        }
        // The session this save displaces, if any: another sign-in's, revoked once this one is
        // stored, so no live refresh token outlives its place in the store (L14). Unreadable:
        // nothing is revoked.
        let displaced = try? await store.load(for: providerID)
        do {
            try await store.save(session)
        } catch {
            let failure =
                (error as? AuthError).map {
                    $0.code == .storageFailure
                        ? $0 : AuthError(.storageFailure, $0.message, provider: session.provider, underlying: $0)
                }
                ?? AuthError(
                    .storageFailure, "the session could not be saved", provider: session.provider, underlying: error)
            switch flows.saveFailed(flowID, provider: providerID, session: session, answer: answer, failure: failure) {
            case .keptForRetry(let effects):
                apply(effects)
                throw failure
            case .signedOut:
                // F7: a sign-out arrived during a save that failed, and waits for this turn. What
                // the store holds decides: a write that landed before the store threw
                // (`FileSessionStore.save` when only the directory sync fails) is a stored session,
                // announced like any other, which the sign-out then removes; a write that did not
                // land leaves the issued session to revoke.
                let landed = (try? await store.load(for: providerID))?.isSameVersion(as: session) ?? false
                if !landed {
                    turn.end()
                    try await refuseAbandoned(session, flowID: flowID)
                }
            }
        }
        apply(flows.persisted(flowID, session: session, answer: answer))
        if let displaced, displaced.id != session.id, let adapter = providers[providerID] {
            // L14: revoked in a task of its own; the sign-in does not wait for it and nobody reads
            // its outcome, so it is one task (no timer: the sign-out's bound only limits how long
            // a caller waits). The newest credentials this client holds for it are the ones
            // revoked (L9).
            let revoked = lifecycle.newest(of: displaced)
            let context = context(for: providerID, flowID: nil)
            Task { try? await adapter.signOut(revoked, context: context) }
        }
        return .signedIn(session)
    }

    /// F2/F7: refuses `session`, issued for a flow that a sign-out or `cancelFlow` abandoned before
    /// its save began (or whose save failed while a sign-out waited): nothing is stored, the issued
    /// session is revoked on the server in a task of its own with the sign-out's bound
    /// (``AuthClient/remoteSignOutTimeout``; a cancelled caller does not cancel it). Always throws:
    /// `challengeNotPending` (signed out) or `CancellationError` (cancelled).
    private func refuseAbandoned(_ session: AuthSession, flowID: FlowID) async throws -> Never {
        let providerID = session.provider
        let (effects, reason) = flows.refused(flowID, provider: providerID)
        apply(effects)
        if let adapter = providers[providerID] { _ = await revokeRemotely(session, with: adapter) }
        switch reason {
        case .signedOut:
            throw AuthError(
                .challengeNotPending, "signed out while this sign-in was finishing; nothing was kept",
                provider: providerID)
        case .cancelled:
            throw CancellationError()
        }
    }

    nonisolated func normalize(_ error: any Error, provider: AuthProviderID) -> AuthError {
        SessionLifecycle.normalize(error, provider: provider)
    }
}
