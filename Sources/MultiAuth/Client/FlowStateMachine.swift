import Foundation

/// The sign-in flows of one `AuthClient` as an explicit state machine (Docs/Architecture.md,
/// "Sign-in flows", "The flow state machine").
///
/// Every flow is in one ``State``. Each transition is a `mutating` method named after the event
/// that causes it (``begin(_:provider:summary:)``, ``challengeIssued(_:)``, ``answerRefused(_:provider:error:)``,
/// ``beginPersisting(_:provider:ignoringAbandonment:)``, ``persisted(_:session:answer:)``,
/// ``saveFailed(_:provider:session:answer:failure:)``, ``cancel(_:)``, ``expire(_:provider:)``,
/// ``signOut(_:)``, …) and returns the ``FlowEffects`` the client carries out at once, in order, in
/// its one `apply` (publish an event, cancel a start's task, tell the provider a flow ended,
/// schedule the background refresh). The machine does no I/O, never suspends and owns no task
/// but the start in flight it is handed; the client makes the provider and store calls between
/// transitions and feeds their outcomes back in. Queries (``submission(for:now:judgeHeldChallenge:)``,
/// ``redirectReplay(of:provider:)``, …) read the state and, where the rules say so, move it.
///
/// Rules it keeps (each numbered in Docs/Architecture.md, "Sign-in flows"):
/// - F1. At most one start in flight and one pending challenge per provider.
/// - F2. A flow cancelled, or started before a sign-out of its provider, is abandoned: answers
///   are refused (`challengeNotPending`) and its session is never saved.
/// - F3. A finished flow replays its session for the answer that finished it and refuses any
///   other.
/// - F4. Memory is bounded: ``flowMemory`` flows, ``finishedMemory`` finished sessions, oldest
///   forgotten first (a forgotten flow is unknown again; a finished flow whose session was
///   forgotten refuses every answer).
/// - F5. A resend keeps the flow's identity: answers are judged by the flow's newest challenge.
/// - F7. A flow whose session is being saved is past cancelling; a sign-out during the save marks
///   it so nothing of it is kept to replay.
/// - F8. Per provider, the flows started since the last sign-out decide whether a stray link is
///   another link of the flow that signed in.
struct FlowStateMachine {
    /// Where one flow is.
    enum State: Sendable {
        /// Started (its start in flight or its challenge out) or resumed: answers reach the
        /// provider.
        case open
        /// The provider issued a session; its save waits for the provider's write turn (L13).
        /// Still cancellable (F2, F6); answers and deliveries of its link wait for the save.
        case awaitingSave
        /// The provider issued a session and its save holds the provider's write turn (F7): past
        /// cancelling. `signedOut`: a sign-out arrived during the save; it removes the session
        /// next, so nothing of the flow is kept to replay.
        case persisting(signedOut: Bool)
        /// The save failed: the same answer (or the flow's link) retries it without a network call.
        case unsaved(AuthSession, answer: String?)
        /// Stored and announced: the same answer replays the session (F3). `answer` is `nil`
        /// when a redirect or the start itself finished it.
        case finished(AuthSession, answer: String?)
        /// Finished, and its session forgotten (F4): every answer is refused.
        case closed
        /// The provider reported no attempts left.
        case exhausted
        /// Cancelled or signed out (F2): every answer is refused.
        case abandoned(Abandonment)
    }

    /// Why a flow was abandoned.
    enum Abandonment: Sendable {
        /// `cancelFlow`, or a newer start of the same provider while this one's start was in flight.
        case cancelled
        /// A sign-out of its provider.
        case signedOut
    }

    /// What ``submission(for:now:judgeHeldChallenge:)`` found for an answer to a challenge.
    enum Submission {
        /// Refused locally, nothing spent.
        case refused(AuthError)
        /// The flow's save failed earlier: write this session (answered by `answer`) again.
        case retryWrite(AuthSession, answer: String?)
        /// The flow finished with this session, answered by `answer` (F3, F9).
        case finished(AuthSession, answer: String?)
        /// The flow's newest challenge expired: the flow ended (these effects), nothing spent.
        case expired(FlowEffects)
        /// Open: answer `current`, the flow's newest challenge (F5).
        case open(current: Challenge)
    }

    /// What a redirect already handled for a flow can be answered with, without the provider.
    enum RedirectReplay {
        /// The flow's save failed: write this session (answered by `answer`) again.
        case retryWrite(AuthSession, answer: String?)
        /// The flow finished with this session.
        case session(AuthSession)
        /// The flow's session is being saved: wait for that save, then look again.
        case saving
        /// The flow goes on with this challenge (a further step).
        case challenge(Challenge)
    }

    /// What a failed save leaves.
    enum SaveFailure {
        /// Kept for a retry of the same answer; publish these effects (`storageFailed`).
        case keptForRetry(FlowEffects)
        /// A sign-out arrived during the save: nothing is kept. What the store holds decides
        /// (``persisted(_:session:answer:)`` if the write landed, else ``refused(_:provider:)``).
        case signedOut
    }

    /// How many flows are remembered.
    static let flowMemory = 4096
    /// How many finished flows keep their session for replays.
    static let finishedMemory = 256
    /// How many flows per provider the F8 list remembers; with more, a stray link is refused.
    static let flowsSinceSignOutLimit = 16

    private struct Flow {
        let provider: AuthProviderID
        var state: State
        /// The flow's newest challenge this client saw (F5, F8).
        var challenge: Challenge?
    }

    private struct ProviderFlows {
        /// The start in flight (F1).
        var starting: (flowID: FlowID, task: Task<SignInStep, any Error>)?
        /// The pending challenge (F1).
        var pending: Challenge?
        /// The flows started or resumed since the last sign-out, oldest first (F8); one over the
        /// limit means the oldest is no longer known.
        var sinceSignOut: [FlowID] = []
    }

    private var flows = BoundedMap<FlowID, Flow>(capacity: FlowStateMachine.flowMemory)
    private var finishedOrder: [FlowID] = []
    private var providers: [AuthProviderID: ProviderFlows] = [:]
    /// Per provider, when its last sign-out happened (the client's clock): a flow this client
    /// does not know (forgotten, F4, or from an earlier process) whose challenge was issued before
    /// it is abandoned, however many flows came since (F2).
    private var lastSignOut: [AuthProviderID: Date] = [:]

    // MARK: Queries

    /// The state of `flowID`, or `nil` when this client does not know it (or forgot it, F4).
    func state(of flowID: FlowID) -> State? { flows[flowID]?.state }

    /// Whether `flowID` was abandoned (F2).
    func isAbandoned(_ flowID: FlowID) -> Bool {
        if case .abandoned? = flows[flowID]?.state { return true }
        return false
    }

    /// The pending challenge of `provider`.
    func pending(_ provider: AuthProviderID) -> Challenge? { providers[provider]?.pending }

    /// The pending challenge of `provider` when it belongs to `flowID`.
    func pending(_ provider: AuthProviderID, flow flowID: FlowID) -> Challenge? {
        providers[provider]?.pending.flatMap { $0.flowID == flowID ? $0 : nil }
    }

    /// The newest challenge of `challenge`'s flow this client holds (F5): the pending one of the
    /// same flow, else `challenge` itself.
    func live(_ challenge: Challenge) -> Challenge {
        pending(challenge.provider, flow: challenge.flowID) ?? challenge
    }

    /// F2: the refusal of an answer to an abandoned flow.
    static func abandonedError(_ provider: AuthProviderID) -> AuthError {
        AuthError(.challengeNotPending, "this sign-in was cancelled or signed out; start again", provider: provider)
    }

    /// F3: the refusal of another answer to a finished flow.
    static func finishedError(_ provider: AuthProviderID) -> AuthError {
        AuthError(
            .challengeNotPending, "this sign-in already finished with another answer; start again", provider: provider)
    }

    // MARK: Starts

    /// A sign-in starts flow `flowID` of `provider`: it is open and counts for F8; a start of the
    /// same provider still in flight is cancelled (F1: its flow abandoned, `flowCancelled`, its
    /// task cancelled, its provider told); `flowStarted` is published.
    mutating func begin(_ flowID: FlowID, provider: AuthProviderID, summary: String) -> FlowEffects {
        var effects = FlowEffects(provider: provider)
        register(flowID, provider: provider)
        noteStarted(flowID, provider: provider)
        effects.append(contentsOf: cancelStart(of: provider))
        effects.append(.publish(.flowStarted(summary: summary), flowID: flowID))
        return effects
    }

    /// Abandons `provider`'s start in flight (F1, F2): its flow's events end with `flowCancelled`,
    /// its task is cancelled, its provider told. A one-step start whose session is being saved is
    /// past cancelling (F7): it only stops counting as in flight.
    private mutating func cancelStart(of provider: AuthProviderID) -> [FlowEffects.Effect] {
        guard let starting = providers[provider]?.starting else { return [] }
        providers[provider]?.starting = nil
        if case .persisting? = flows[starting.flowID]?.state { return [] }
        set(starting.flowID, to: .abandoned(.cancelled))
        return [.cancelEvents(starting.flowID), .cancelStart(starting.task), .end(starting.flowID)]
    }

    /// The task running `provider`'s start of `flowID`. It counts as in flight — a newer start or
    /// `cancelFlow` abandons it — until ``startReturned(_:provider:)``, which the client calls once
    /// what the start answered was taken (a challenge issued, a one-step session saved or refused).
    mutating func startRunning(_ flowID: FlowID, provider: AuthProviderID, task: Task<SignInStep, any Error>) {
        providers[provider, default: ProviderFlows()].starting = (flowID, task)
    }

    /// The start of `flowID` returned (or threw): it is no longer in flight.
    mutating func startReturned(_ flowID: FlowID, provider: AuthProviderID) {
        if providers[provider]?.starting?.flowID == flowID { providers[provider]?.starting = nil }
    }

    /// A flow this client did not start (a redirect without a pending flow) becomes known, open;
    /// from now on a sign-out abandons it (F2).
    mutating func track(_ flowID: FlowID, provider: AuthProviderID) {
        register(flowID, provider: provider)
    }

    /// A redirect resumes `challenge`, saved by an earlier process: it is tracked (abandoned when
    /// it was issued before the provider's last sign-out, F2) and counts for F8.
    mutating func resume(_ challenge: Challenge) {
        register(challenge.flowID, provider: challenge.provider, challenge: challenge)
        noteStarted(challenge.flowID, provider: challenge.provider)
    }

    // MARK: Challenges

    /// The provider issued `challenge` (from a start, an answer or a resend): it is its provider's
    /// pending challenge (F1) and `challengeIssued` is published.
    mutating func challengeIssued(_ challenge: Challenge) -> FlowEffects {
        challengeUpdated(challenge)
        var effects = FlowEffects(provider: challenge.provider)
        effects.append(.publish(.challengeIssued(challenge), flowID: challenge.flowID))
        return effects
    }

    /// The provider published a newer challenge of a pending flow itself (a channel fallback):
    /// it replaces the pending one, nothing more is published.
    mutating func challengeUpdated(_ challenge: Challenge) {
        register(challenge.flowID, provider: challenge.provider)
        flows[challenge.flowID].map { flow in
            var flow = flow
            flow.challenge = challenge
            flows.set(flow, for: challenge.flowID)
        }
        providers[challenge.provider, default: ProviderFlows()].pending = challenge
    }

    /// Judges an answer to `challenge` before any provider call (F2, F3, F5, invariant 1):
    /// abandoned, unsaved, finished, expired, exhausted or open. An expired flow ends here (its
    /// pending challenge cleared, `flowExpired` among the effects).
    mutating func submission(for challenge: Challenge, now: Date, judgeHeldChallenge: Bool = false) -> Submission {
        let provider = challenge.provider
        // A flow this client does not know (a challenge decoded from an earlier process, or one
        // forgotten, F4) is judged by when it was issued: at or before the provider's last sign-out
        // it is abandoned (F2). It becomes known only when an answer goes to the provider
        // (``answering(_:)``), so answers refused locally cannot push other flows out of memory.
        let known = flows[challenge.flowID]?.state ?? (issuedBeforeSignOut(challenge) ? .abandoned(.signedOut) : nil)
        switch known {
        case .abandoned?: return .refused(Self.abandonedError(provider))
        case .closed?: return .refused(Self.finishedError(provider))
        case .unsaved(let session, let answer)?: return .retryWrite(session, answer: answer)
        case .finished(let session, let answer)?: return .finished(session, answer: answer)
        case .exhausted?:
            return .refused(
                AuthError(
                    .attemptsExhausted, "no attempts remain; start again", provider: provider, attemptsRemaining: 0))
        case .open?, .awaitingSave?, .persisting?, nil: break
        }
        let current = judgeHeldChallenge ? challenge : live(challenge)
        if current.isExpired(at: now) { return .expired(expire(challenge.flowID, provider: provider)) }
        if current.attemptsRemaining.map({ $0 <= 0 }) ?? false {
            return .refused(
                AuthError(
                    .attemptsExhausted, "no attempts remain; start again", provider: provider, attemptsRemaining: 0))
        }
        return .open(current: current)
    }

    /// An answer to `challenge` goes to the provider: its flow is known from now on (a challenge
    /// from an earlier process becomes a flow of this client, abandoned by a later sign-out, F2).
    mutating func answering(_ challenge: Challenge) {
        register(challenge.flowID, provider: challenge.provider, challenge: challenge)
    }

    /// The provider refused an answer to `flowID` with `error`: a wrong code lowers the attempts
    /// (to what the provider reported, else by one) and publishes `codeRejected` with the updated
    /// pending challenge (and, at zero, `attemptsExhausted`); no attempts left ends the flow
    /// (`attemptsExhausted`); an expired flow ends (`flowExpired`); any other error changes nothing.
    mutating func answerRefused(_ flowID: FlowID, provider: AuthProviderID, error: AuthError) -> FlowEffects {
        var effects = FlowEffects(provider: provider)
        switch error.code {
        case .invalidCode:
            // A count below zero (an absurd answer) means none left, like zero.
            let reported = error.attemptsRemaining.map { max(0, $0) }
            var updated = pending(provider, flow: flowID)
            if var challenge = updated {
                challenge.attemptsRemaining = reported ?? challenge.attemptsRemaining.map { max(0, $0 - 1) }
                providers[provider]?.pending = challenge
                updated = challenge
            }
            effects.append(.publish(.codeRejected(attemptsRemaining: reported, challenge: updated), flowID: flowID))
            if reported == 0 { effects.append(.publish(.attemptsExhausted, flowID: flowID)) }
        case .attemptsExhausted:
            set(flowID, to: .exhausted)
            clearPending(provider, flow: flowID)
            effects.append(.end(flowID))
            effects.append(.publish(.attemptsExhausted, flowID: flowID))
        case .expired:
            effects = expire(flowID, provider: provider)
        default: break
        }
        return effects
    }

    /// `flowID`'s challenge expired: its pending challenge is cleared, the provider told and
    /// `flowExpired` published. The flow stays open: a later answer finds it expired again.
    mutating func expire(_ flowID: FlowID, provider: AuthProviderID) -> FlowEffects {
        clearPending(provider, flow: flowID)
        var effects = FlowEffects(provider: provider)
        effects.append(.end(flowID))
        effects.append(.publish(.flowExpired, flowID: flowID))
        return effects
    }

    // MARK: Saving the session (F7)

    /// The provider issued a session for `flowID`; its save now waits for the write turn. A flow
    /// already abandoned, unsaved or finished keeps its state.
    mutating func awaitSave(_ flowID: FlowID, provider: AuthProviderID) {
        register(flowID, provider: provider)
        if case .open? = flows[flowID]?.state { set(flowID, to: .awaitingSave) }
    }

    /// The save of `flowID`'s session is about to begin under the provider's write turn. Returns
    /// `false` when the flow was abandoned meanwhile (the client then refuses the session,
    /// ``refused(_:provider:)``); otherwise the flow is persisting: past cancelling.
    mutating func beginPersisting(_ flowID: FlowID, provider: AuthProviderID, ignoringAbandonment: Bool = false)
        -> Bool
    {
        register(flowID, provider: provider)
        if isAbandoned(flowID), !ignoringAbandonment { return false }
        set(flowID, to: .persisting(signedOut: false))
        return true
    }

    /// The session of `flowID` is stored: the flow finished (F3), or — when a sign-out arrived
    /// during the save — it is abandoned and the sign-out removes the session next. Either way the
    /// session is announced (`signedIn`), the provider told, and the background refresh restarted.
    mutating func persisted(_ flowID: FlowID, session: AuthSession, answer: String?) -> FlowEffects {
        let provider = session.provider
        if case .persisting(signedOut: true)? = flows[flowID]?.state {
            set(flowID, to: .abandoned(.signedOut))
        } else {
            set(flowID, to: .finished(session, answer: answer))
            finishedOrder.append(flowID)
            if finishedOrder.count > Self.finishedMemory {
                let oldest = finishedOrder.removeFirst()
                if case .finished? = flows[oldest]?.state { set(oldest, to: .closed) }
            }
        }
        clearPending(provider, flow: flowID)
        var effects = FlowEffects(provider: provider)
        effects.append(.end(flowID))
        effects.append(.announce(.signedIn(session), flowID: flowID, session: session))
        effects.append(.scheduleRefresh(restart: true))
        return effects
    }

    /// The save of `flowID`'s session failed with `failure`: kept for a retry of the same answer
    /// (`storageFailed` published, invariant 2), or — a sign-out arrived during the save — nothing
    /// is kept.
    mutating func saveFailed(
        _ flowID: FlowID, provider: AuthProviderID, session: AuthSession, answer: String?, failure: AuthError
    ) -> SaveFailure {
        if case .persisting(signedOut: true)? = flows[flowID]?.state { return .signedOut }
        set(flowID, to: .unsaved(session, answer: answer))
        var effects = FlowEffects(provider: provider)
        effects.append(.publish(.storageFailed(failure), flowID: flowID))
        return .keptForRetry(effects)
    }

    /// The session issued for `flowID` is refused (F2/F7: abandoned before its save, or a save
    /// that failed while a sign-out waited): the flow is abandoned and the provider told. Returns
    /// why (the client revokes the session and throws accordingly).
    mutating func refused(_ flowID: FlowID, provider: AuthProviderID) -> (FlowEffects, Abandonment) {
        let reason: Abandonment
        switch flows[flowID]?.state {
        case .abandoned(let why)?: reason = why
        case .persisting(signedOut: true)?: reason = .signedOut
        default: reason = .cancelled
        }
        set(flowID, to: .abandoned(reason))
        clearPending(provider, flow: flowID)
        var effects = FlowEffects(provider: provider)
        effects.append(.end(flowID))
        return (effects, reason)
    }

    // MARK: Cancelling and signing out

    /// `cancelFlow`: `provider`'s start in flight and its pending flow are abandoned (F2), each with
    /// one `flowCancelled` and its provider told; the start's task is cancelled. A flow whose
    /// session is being saved is past cancelling (F7) and finishes.
    mutating func cancel(_ provider: AuthProviderID) -> FlowEffects {
        var effects = FlowEffects(provider: provider)
        effects.append(contentsOf: cancelStart(of: provider))
        if let challenge = providers[provider]?.pending {
            if case .persisting? = flows[challenge.flowID]?.state { return effects }
            providers[provider]?.pending = nil
            set(challenge.flowID, to: .abandoned(.cancelled))
            effects.append(.cancelEvents(challenge.flowID))
            effects.append(.end(challenge.flowID))
        }
        return effects
    }

    /// A sign-out of `provider`: ``cancel(_:)``, then every flow of `provider` this client knows
    /// is abandoned as signed out (F2) — a flow being saved is marked so nothing of it is kept
    /// after its save (F7), a finished flow forgets its session — and the F8 list starts over.
    mutating func signOut(_ provider: AuthProviderID, at now: Date) -> FlowEffects {
        let effects = cancel(provider)
        lastSignOut[provider] = now
        for (flowID, flow) in flows.entries where flow.provider == provider {
            switch flow.state {
            case .persisting: set(flowID, to: .persisting(signedOut: true))
            case .abandoned(.signedOut): break
            default: set(flowID, to: .abandoned(.signedOut))
            }
        }
        providers[provider]?.sinceSignOut = []
        return effects
    }

    // MARK: Redirects

    /// A redirect already exchanged for `flowID`, delivered again: what answers it without the
    /// provider — the session (finishing an interrupted write first), or the further step still
    /// pending; `nil` when nothing does (abandoned, forgotten).
    func redirectReplay(of flowID: FlowID, provider: AuthProviderID) -> RedirectReplay? {
        switch flows[flowID]?.state {
        case .unsaved(let session, let answer)?: return .retryWrite(session, answer: answer)
        case .finished(let session, _)?: return .session(session)
        case .persisting?, .awaitingSave?: return .saving
        case .abandoned?, .closed?: return nil
        default: return pending(provider, flow: flowID).map { .challenge($0) }
        }
    }

    /// F8: whether a redirect that matches no pending flow of `session.provider` is another link of
    /// the flow that stored `session`. The newest flow started since the last sign-out must have
    /// finished by storing it; then:
    /// - a redirect this client already exchanged (`knownFlow`) belongs to that flow only if it is
    ///   that flow;
    /// - when the provider can tell from the URL which flow it belongs to (`belongs` answers for the
    ///   flow's newest challenge), it must say that flow;
    /// - otherwise it must be the only flow of that provider this client remembers: any other
    ///   (finished, replaced, expired, abandoned by a sign-out) may be the link's — another user's.
    /// In every other case the link is refused.
    func answersAnotherLink(
        with session: AuthSession, knownFlow: FlowID?, belongs: (Challenge) -> Bool?
    ) -> Bool {
        guard let started = providers[session.provider]?.sinceSignOut,
            started.count <= Self.flowsSinceSignOutLimit, let newest = started.last,
            let flow = flows[newest], case .finished(let stored, _) = flow.state,
            stored.provider == session.provider, stored.id == session.id
        else { return false }
        if let knownFlow { return knownFlow == newest }
        if let challenge = flow.challenge, let verdict = belongs(challenge) { return verdict }
        return !flows.entries.contains { $0.key != newest && $0.value.provider == session.provider }
    }

    // MARK: Bookkeeping

    private mutating func register(_ flowID: FlowID, provider: AuthProviderID, challenge: Challenge? = nil) {
        guard flows[flowID] == nil else { return }
        let abandoned = challenge.map(issuedBeforeSignOut) ?? false
        flows.set(
            Flow(provider: provider, state: abandoned ? .abandoned(.signedOut) : .open, challenge: challenge),
            for: flowID)
    }

    /// Whether `challenge` was issued before its provider's last sign-out on this client.
    private func issuedBeforeSignOut(_ challenge: Challenge) -> Bool {
        guard let signedOut = lastSignOut[challenge.provider] else { return false }
        return challenge.issuedAt <= signedOut
    }

    private mutating func set(_ flowID: FlowID, to state: State) {
        guard var flow = flows[flowID] else { return }
        flow.state = state
        flows.set(flow, for: flowID)
    }

    private mutating func clearPending(_ provider: AuthProviderID, flow flowID: FlowID) {
        if providers[provider]?.pending?.flowID == flowID { providers[provider]?.pending = nil }
    }

    /// F8: `flowID` of `provider` started or was resumed; the newest flow resumed again counts once.
    private mutating func noteStarted(_ flowID: FlowID, provider: AuthProviderID) {
        var started = providers[provider, default: ProviderFlows()].sinceSignOut
        guard started.last != flowID else { return }
        if started.count > Self.flowsSinceSignOutLimit { started.removeFirst() }
        started.append(flowID)
        providers[provider, default: ProviderFlows()].sinceSignOut = started
    }
}

/// What one transition of ``FlowStateMachine`` asks the client to do, in order, at once (no
/// suspension between them): the client's `apply(_:)` carries them out.
struct FlowEffects {
    /// One side effect.
    enum Effect {
        /// Publish a flow event (dropped once the flow's `flowCancelled` was published).
        case publish(AuthEvent.Kind, flowID: FlowID)
        /// Publish a state event and record the session it announces (`nil`: none) in one step.
        case announce(AuthEvent.Kind, flowID: FlowID, session: AuthSession?)
        /// Publish `flowCancelled` once; later events of the flow are dropped.
        case cancelEvents(FlowID)
        /// Cancel a start's task.
        case cancelStart(Task<SignInStep, any Error>)
        /// Tell the provider the flow ended and forget the challenges it published.
        case end(FlowID)
        /// Start (or, after a sign-in, restart) the provider's background refresh.
        case scheduleRefresh(restart: Bool)
    }

    /// The provider every effect concerns.
    let provider: AuthProviderID
    /// The effects, in order.
    private(set) var list: [Effect] = []

    init(provider: AuthProviderID) { self.provider = provider }

    mutating func append(_ effect: Effect) { list.append(effect) }

    mutating func append(contentsOf effects: [Effect]) { list.append(contentsOf: effects) }
}
