/// The sign-in flows one `AuthClient` knows about: starts in flight, pending challenges,
/// sessions waiting for a store write, finished flows, and which flows a cancellation or a
/// sign-out abandoned.
///
/// A plain value owned by the client actor; every method is synchronous. Invariants:
/// - F1. At most one start in flight and one pending challenge per provider.
/// - F2. A flow cancelled, or started before a sign-out of its provider, is abandoned: its
///   challenge is refused (`challengeNotPending`) and it can never store a session.
/// - F3. A finished flow remembers its session and the answer that finished it: the same
///   answer replays the session, any other answer is refused (`challengeNotPending`).
/// - F4. Memory is bounded: flows, finished flows and abandoned flows are forgotten oldest
///   first (``flowMemory``, ``finishedMemory``).
/// - F5–F8 (a resend keeps the flow; cancellation after the provider answered; a sign-out
///   during a save; another link of a flow that signed in) are carried out by `AuthClient`
///   with this table's records (Docs/Architecture.md, "Sign-in flows").
struct FlowTable {
    /// A start in flight: its flow and the task running `AuthProvider.start`.
    struct Starting {
        let flowID: FlowID
        let task: Task<SignInStep, any Error>
    }

    /// A flow that ended with a stored session, and the normalized answer that ended it (`nil`
    /// when a redirect or the start itself ended it).
    struct Finished {
        let session: AuthSession
        let answer: String?
    }

    /// How many flows are remembered for cancellation and sign-out checks.
    static let flowMemory = 4096
    /// How many finished flows are remembered for replays.
    static let finishedMemory = 256

    private var starting: [AuthProviderID: Starting] = [:]
    private var pendingChallenges: [AuthProviderID: Challenge] = [:]
    private var unsaved: [FlowID: (session: AuthSession, answer: String?)] = [:]
    private var finished = BoundedMap<FlowID, Finished>(capacity: FlowTable.finishedMemory)
    private var abandoned: Set<FlowID> = []
    /// Flows whose session is being saved (F7: past cancelling).
    private var persisting: Set<FlowID> = []
    private var exhausted = BoundedMap<FlowID, Bool>(capacity: FlowTable.flowMemory)
    private var epochs = BoundedMap<FlowID, Int>(capacity: FlowTable.flowMemory)
    private var signOutEpochs: [AuthProviderID: Int] = [:]
    /// Per provider, the flows started (by a sign-in, or resumed by a redirect) since the last
    /// sign-out, oldest first, at most ``flowsSinceSignOutLimit`` (F8).
    private var flowsSinceSignOut: [AuthProviderID: [FlowID]] = [:]
    /// How many flows per provider ``flowsSinceSignOut`` remembers; with more, F8 refuses.
    static let flowsSinceSignOutLimit = 16

    // MARK: Tracking and abandonment

    /// Remembers which sign-out epoch `flowID` of `provider` started in (bounded memory).
    mutating func track(_ flowID: FlowID, provider: AuthProviderID) {
        guard epochs[flowID] == nil else { return }
        if let forgotten = epochs.set(signOutEpochs[provider, default: 0], for: flowID) {
            abandoned.remove(forgotten.key)
        }
    }

    /// Whether `challenge`'s flow was cancelled, or started before a sign-out of its provider.
    func isAbandoned(_ challenge: Challenge) -> Bool { isAbandoned(challenge.flowID, provider: challenge.provider) }

    /// Whether `flowID` of `provider` was cancelled, or started before a sign-out of `provider`.
    func isAbandoned(_ flowID: FlowID, provider: AuthProviderID) -> Bool {
        abandoned.contains(flowID) || isSignedOut(flowID, provider: provider)
    }

    /// Whether `flowID` of `provider` started before a sign-out of `provider`.
    func isSignedOut(_ flowID: FlowID, provider: AuthProviderID) -> Bool {
        guard let epoch = epochs[flowID] else { return false }
        return epoch < signOutEpochs[provider, default: 0]
    }

    /// Throws `challengeNotPending` when `challenge`'s flow is abandoned (F2).
    func refuseIfAbandoned(_ challenge: Challenge) throws {
        if isAbandoned(challenge) {
            throw AuthError(
                .challengeNotPending, "this sign-in was cancelled or signed out; start again",
                provider: challenge.provider)
        }
    }

    /// Marks `flowID` abandoned and drops its unsaved session.
    mutating func abandon(_ flowID: FlowID) {
        abandoned.insert(flowID)
        unsaved[flowID] = nil
    }

    /// A sign-out of `provider`: every flow of it started before now is abandoned, and what
    /// was kept for its flows (unsaved and finished sessions) is dropped.
    mutating func signOut(_ provider: AuthProviderID) {
        flowsSinceSignOut[provider] = nil
        signOutEpochs[provider, default: 0] += 1
        unsaved = unsaved.filter { $0.value.session.provider != provider }
        finished.removeAll { $0.session.provider == provider }
    }

    /// F7: `flowID`'s session is being saved; `cancelFlow` comes too late for it from now on.
    mutating func beginPersisting(_ flowID: FlowID) { persisting.insert(flowID) }

    /// The save of `flowID`'s session ended (stored, or failed).
    mutating func endPersisting(_ flowID: FlowID) { persisting.remove(flowID) }

    /// Whether `flowID`'s session is being saved.
    func isPersisting(_ flowID: FlowID) -> Bool { persisting.contains(flowID) }

    /// Records that no attempts remain for `flowID` (the provider said so); its pending
    /// challenge is cleared.
    mutating func exhaust(_ flowID: FlowID, provider: AuthProviderID) {
        exhausted.set(true, for: flowID)
        clearPending(provider, flow: flowID)
    }

    /// Whether the provider reported `flowID` out of attempts.
    func isExhausted(_ flowID: FlowID) -> Bool { exhausted[flowID] == true }

    // MARK: Starts

    /// Records `task` as `provider`'s start in flight.
    mutating func beginStart(_ flowID: FlowID, task: Task<SignInStep, any Error>, provider: AuthProviderID) {
        starting[provider] = Starting(flowID: flowID, task: task)
    }

    /// The start in flight of `provider`, if any.
    func start(of provider: AuthProviderID) -> Starting? { starting[provider] }

    /// Forgets `provider`'s start in flight if it is `flowID`'s.
    mutating func endStart(_ flowID: FlowID, provider: AuthProviderID) {
        if starting[provider]?.flowID == flowID { starting[provider] = nil }
    }

    /// Removes and returns `provider`'s start in flight.
    mutating func takeStart(of provider: AuthProviderID) -> Starting? { starting.removeValue(forKey: provider) }

    // MARK: Pending challenges

    /// The pending challenge of `provider`.
    func pending(_ provider: AuthProviderID) -> Challenge? { pendingChallenges[provider] }

    /// The pending challenge of `provider` when it belongs to `flowID`.
    func pending(_ provider: AuthProviderID, flow flowID: FlowID) -> Challenge? {
        pendingChallenges[provider].flatMap { $0.flowID == flowID ? $0 : nil }
    }

    /// Makes `challenge` the pending challenge of its provider (F1).
    mutating func setPending(_ challenge: Challenge) {
        track(challenge.flowID, provider: challenge.provider)
        pendingChallenges[challenge.provider] = challenge
    }

    /// Clears `provider`'s pending challenge if it belongs to `flowID`.
    mutating func clearPending(_ provider: AuthProviderID, flow flowID: FlowID) {
        if pendingChallenges[provider]?.flowID == flowID { pendingChallenges[provider] = nil }
    }

    /// Removes and returns `provider`'s pending challenge.
    mutating func takePending(_ provider: AuthProviderID) -> Challenge? {
        pendingChallenges.removeValue(forKey: provider)
    }

    /// Lowers the attempts of `provider`'s pending challenge of `flowID` after a wrong code:
    /// to `reported` when the provider said, else by one.
    mutating func noteWrongCode(_ provider: AuthProviderID, flow flowID: FlowID, reported: Int?) {
        guard var updated = pending(provider, flow: flowID) else { return }
        updated.attemptsRemaining = reported ?? updated.attemptsRemaining.map { max(0, $0 - 1) }
        pendingChallenges[provider] = updated
    }

    // MARK: Unsaved and finished sessions

    /// The session of `flowID` that a failed store write left unsaved, and its answer.
    func unsavedSession(_ flowID: FlowID) -> (session: AuthSession, answer: String?)? { unsaved[flowID] }

    /// Keeps `session` of `flowID` until a retry stores it.
    mutating func keepUnsaved(_ session: AuthSession, answer: String?, flow flowID: FlowID) {
        unsaved[flowID] = (session, answer)
    }

    /// Records that `flowID` ended with the stored `session` (F3).
    mutating func finish(_ flowID: FlowID, session: AuthSession, answer: String?) {
        unsaved[flowID] = nil
        finished.set(Finished(session: session, answer: answer), for: flowID)
        clearPending(session.provider, flow: flowID)
    }

    /// Records that `flowID` of `provider` started (a `signIn`) or was resumed (a redirect); the
    /// newest flow resumed again counts once.
    mutating func noteStarted(_ flowID: FlowID, provider: AuthProviderID) {
        var flows = flowsSinceSignOut[provider, default: []]
        guard flows.last != flowID else { return }
        // One over the limit: the oldest is no longer known, so `answersAnotherLink` refuses.
        if flows.count > Self.flowsSinceSignOutLimit { flows.removeFirst() }
        flows.append(flowID)
        flowsSinceSignOut[provider] = flows
    }

    /// Whether a redirect that matches no pending flow of `session.provider` is another link of
    /// the flow that stored `session` (F8): the newest flow started since the last sign-out
    /// finished by storing it, and every other flow since then finished too. A flow that never
    /// finished (replaced by a later start, expired) may be the link's — another user's — and
    /// then the link is refused.
    func answersAnotherLink(with session: AuthSession) -> Bool {
        guard let flows = flowsSinceSignOut[session.provider], flows.count <= Self.flowsSinceSignOutLimit,
            let newest = flows.last, let done = finished[newest],
            done.session.provider == session.provider, done.session.id == session.id
        else { return false }
        return flows.allSatisfy { finished[$0] != nil }
    }

    /// The finished flow `flowID`, if remembered.
    func finishedFlow(_ flowID: FlowID) -> Finished? { finished[flowID] }
}
