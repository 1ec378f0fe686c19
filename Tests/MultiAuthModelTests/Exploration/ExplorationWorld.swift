import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox

/// One operation of an explored scope. Client 0 signed in user A at set-up and holds a pending
/// code flow of user B (its code and magic link are in the inbox); client 1 shares the store.
enum ExplorationOp: Hashable, Sendable, CustomStringConvertible {
    /// Client 0 submits B's code.
    case submit
    /// A full sign-in of user C on client `c`: start, then submit the code.
    case signIn(Int)
    /// Client 0 handles B's magic link.
    case link
    /// Client 0 asks for a new code for B's flow.
    case resend
    /// Client `c` refreshes A's session (the value the app holds from the set-up).
    case refresh(Int)
    /// `validSession` on client `c`.
    case valid(Int)
    /// A user sign-out on client `c`.
    case signOut(Int)
    /// `restoreSessions` on client `c`.
    case restore(Int)
    /// The clock jumps past A's refresh due time (the background scheduler refreshes).
    case tick
    /// The clock jumps past B's first challenge's expiry, not past a challenge resent after the
    /// set-up (F5).
    case lapse
    /// Client 0's process dies; a new client on the same store restores and refreshes.
    case takeover

    var description: String {
        switch self {
        case .submit: "submit@0"
        case .signIn(let c): "signIn@\(c)"
        case .link: "link@0"
        case .resend: "resend@0"
        case .refresh(let c): "refresh@\(c)"
        case .valid(let c): "valid@\(c)"
        case .signOut(let c): "signOut@\(c)"
        case .restore(let c): "restore@\(c)"
        case .tick: "tick"
        case .lapse: "lapse"
        case .takeover: "takeover"
        }
    }

    /// The client whose task runs the operation (`nil`: a driver action).
    var client: Int? {
        switch self {
        case .submit, .link, .resend: 0
        case .signIn(let c), .refresh(let c), .valid(let c), .signOut(let c), .restore(let c): c
        case .tick, .lapse, .takeover: nil
        }
    }
}

/// A fresh sandbox, backend, reference model and two clients for one explored schedule, with the
/// ledger of what the server issued and what the clients wrote, and the checks of every rule
/// that are judged as things happen.
final class ExplorationWorld: @unchecked Sendable {
    static let provider: AuthProviderID = "reference"
    /// How far `tick` moves the clock: from 30 s after the set-up sign-in to 11 s past its
    /// refresh due time (`expiresAt − 60 s`), which is also past the server's reuse interval.
    static let tickSeconds = ReferenceProtocol.accessTokenTTL - 60 + 11 - 30
    /// How far `lapse` moves the clock: from 30 s after B's challenge was issued to 15 s past its
    /// expiry, while a challenge resent at set-up time + 30 s is still valid for 15 s (F5).
    static let lapseSeconds = ReferenceProtocol.challengeTTL - ReferenceProtocol.resendAfter + 15

    let sandbox: Sandbox
    let backend: ReferenceBackend
    let model: ModelStore
    let board = GateBoard()
    let operations: [ExplorationOp]
    let mutations: ClientMutations
    let quiet: Int

    private let lock = NSLock()
    private var clientList: [AuthClient] = []
    private var recorderList: [RecordingSubscriber] = []
    private var issuedTo: [String: (user: String, client: Int, signIn: Bool, tag: String)] = [:]
    private var forgedTokens: Set<String> = []
    private var lostTokens: Set<String> = []
    private var failedWrites: [AuthSession] = []
    private var failedRemovals: [AuthSession] = []
    private var writtenTokens: Set<String> = []
    private var lastWriter: (seq: Int, client: Int, tag: String, removal: Bool)?
    private var problemList: [String] = []
    private var signOutsInFlight = 0
    private var signOutStarts = [0, 0, 0]
    private var userSignOuts = [0, 0, 0]
    /// Per client, whether a sign-out returned without throwing (F2/F7 end check).
    private var signOutsReturned = [false, false, false]
    /// When a resend of B's flow succeeded (F5 check).
    private var resentAt: Date?
    private var exemptTokens: Set<String> = []
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var started: Set<Int> = []
    private var finishedOps: Set<Int> = []
    private var outcomes: [Int: String] = [:]

    // What the set-up made.
    private(set) var sessionA: AuthSession!
    private(set) var challengeB: Challenge!
    private(set) var codeB = ""
    private(set) var linkB: URL!
    private(set) var flowB = ""
    let emailA: EmailAddress
    let emailB: EmailAddress
    let emailC: EmailAddress

    private init(operations: [ExplorationOp], mutations: ClientMutations, quiet: Int) throws {
        sandbox = Sandbox(seed: 31)
        backend = ReferenceBackend()
        sandbox.register(backend, host: ReferenceProtocol.defaultHost)
        model = ModelStore(
            provider: Self.provider, stores: [InMemorySessionStore()], backend: backend, hooks: ModelHooks(),
            time: sandbox.time)
        self.operations = operations
        self.mutations = mutations
        self.quiet = quiet
        emailA = try EmailAddress("ada@example.com")
        emailB = try EmailAddress("bea@example.com")
        emailC = try EmailAddress("cid@example.com")
    }

    var clients: [AuthClient] { lock.withLock { clientList } }
    var problems: [String] { lock.withLock { problemList } }
    var problemCount: Int { lock.withLock { problemList.count } }
    func note(_ problem: String) { lock.withLock { problemList.append(problem) } }

    /// Forgets the problems noted so far (the driver judges the schedule again after a gate that
    /// arrived late was released).
    func clearProblems() { lock.withLock { problemList.removeAll() } }

    /// Builds the world and runs the set-up with every gate open: client 0 signs in A, starts
    /// B's flow, and the clock moves 30 s (so a resend is allowed). Then every gate holds.
    static func make(operations: [ExplorationOp], mutations: ClientMutations, quiet: Int) async throws
        -> ExplorationWorld
    {
        let world = try ExplorationWorld(operations: operations, mutations: mutations, quiet: quiet)
        for index in 0..<2 { try await world.addClient(index) }
        let client = world.clients[0]
        let first = try await client.signIn(with: provider, .email(world.emailA))
        guard case .challenge(let challengeA) = first,
            let codeA = world.sandbox.inbox.latest(for: world.emailA.identityKey)?.code,
            case .signedIn(let session) = try await client.submit(ChallengeAnswer(code: codeA), for: challengeA)
        else { throw AuthError(.generic, "the set-up sign-in failed") }
        world.sessionA = session
        guard case .challenge(let challengeB) = try await client.signIn(with: provider, .email(world.emailB)),
            let message = world.sandbox.inbox.latest(for: world.emailB.identityKey), let code = message.code,
            let link = message.link, let flow = challengeB.providerState[revealing: "flowId"]
        else { throw AuthError(.generic, "the set-up start of B's flow failed") }
        (world.challengeB, world.codeB, world.linkB, world.flowB) = (challengeB, code, link, flow)
        world.sandbox.clock.advance(by: .seconds(ReferenceProtocol.resendAfter))
        await world.settle()
        world.board.hold()
        return world
    }

    private func addClient(_ index: Int) async throws {
        let client = try sandbox.makeClient(
            providers: [GatedProvider(world: self, client: index)],
            store: GatedStore(world: self, client: index, view: model.view(0)),
            autoRefresh: AutoRefresh(jitterSeed: UInt64(index) + 1))
        await client.setMutations(mutations)
        let recorder = RecordingSubscriber(client: client)
        lock.withLock {
            clientList.append(client)
            recorderList.append(recorder)
        }
    }

    // MARK: Quiescence

    /// Everything that moves when a task makes progress.
    private func fingerprint() async -> [Int] {
        let clients = self.clients
        let events = clients.reduce(0) { $0 + Int($1.events.currentSequence) }
        let finished = lock.withLock { finishedOps.count * 1000 + outcomes.count * 10 + signOutsInFlight }
        return [
            board.activity, finished, sandbox.clock.sleeperCount, sandbox.clock.backgroundSleeperCount,
            sandbox.requestCount, await model.seq, events, clients.count,
        ]
    }

    /// Waits until nothing moved for `quiet` consecutive yields (every task parked at a gate,
    /// asleep on the clock or finished). A premature answer on a busy machine only makes the
    /// driver see fewer gates: the run is still a valid interleaving, checked like any other.
    /// Waits until something visible moved since `baseline` (a task the driver just let go
    /// reached its next step), at most `patience` yields: a choice that only makes a task join
    /// work already in flight moves nothing.
    func awaitProgress(from baseline: [Int], patience: Int = 4000) async {
        var waited = 0
        while waited < patience, await fingerprint() == baseline, board.busy == 0 {
            await Task.yield()
            waited += 1
        }
    }

    /// The current quiescence signals (see ``settle(_:)``).
    func signals() async -> [Int] { await fingerprint() }

    func settle(_ factor: Int = 1) async {
        var last: [Int] = []
        var idle = 0
        while idle < quiet * factor * (board.inTransit > 0 ? 2 : 1) {
            let now = await fingerprint()
            if now == last && board.busy == 0 { idle += 1 } else { idle = 0 }
            last = now
            await Task.yield()
        }
    }

    // MARK: Operations

    func isStarted(_ index: Int) -> Bool { lock.withLock { started.contains(index) } }

    /// Marks operation `index` (a driver action such as `tick`) as started and finished.
    func markDriverAction(_ index: Int) {
        lock.withLock {
            started.insert(index)
            finishedOps.insert(index)
        }
    }
    func isFinished(_ index: Int) -> Bool { lock.withLock { finishedOps.contains(index) } }
    func outcome(_ index: Int) -> String? { lock.withLock { outcomes[index] } }

    func tag(_ index: Int) -> String { "\(index).\(operations[index])" }

    /// Starts operation `index` in a task of its own.
    func start(_ index: Int) {
        let tag = tag(index)
        let operation = operations[index]
        let task = Task {
            self.board.enterTransit()
            await ExplorationTag.$operation.withValue(tag) { await self.perform(operation, index: index) }
            self.lock.withLock { _ = self.finishedOps.insert(index) }
            self.board.leaveTransit()
        }
        lock.withLock {
            tasks[index] = task
            started.insert(index)
        }
    }

    func cancel(_ index: Int) { lock.withLock { tasks[index] }?.cancel() }

    /// Client 0's process dies: its held and later calls fail, its scheduler stops, and the
    /// `takeover` operation starts a new client on the same store.
    func kill(takeover index: Int) {
        board.kill(0)
        clients[0].stopAutoRefresh()
        start(index)
    }

    private func finish(_ index: Int, _ result: String) { lock.withLock { outcomes[index] = result } }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? AuthError { return "\(error.code)" }
        if error is CancellationError { return "cancelled" }
        return "\(type(of: error))"
    }

    /// Every session returned to a caller was stored at some moment of the call, or is the
    /// refreshed session a failed write left unsaved (rule L9).
    private func checkReturned(_ session: AuthSession, from start: Int, _ what: String) async {
        let end = await model.seq
        if await model.wasStored(session, from: start, to: end) { return }
        if lock.withLock({ failedWrites.contains { $0.isSameVersion(as: session) } }) { return }
        note("\(what) returned \(ModelStore.name(session)), never stored during the call")
    }

    private func perform(_ operation: ExplorationOp, index: Int) async {
        let label = tag(index)
        let start = await model.seq
        switch operation {
        case .submit:
            await signIn(label, index: index, client: 0, email: emailB, start: start) {
                do {
                    return try await self.clients[0].submit(ChallengeAnswer(code: self.codeB), for: self.challengeB)
                } catch let error as AuthError where error.code == .expired {
                    // F5: the challenge value held from the set-up addresses the live flow; after a
                    // resend it expires with the resent challenge, not the first one.
                    let resent = self.lock.withLock { self.resentAt }
                    let ttl = TimeInterval(ReferenceProtocol.challengeTTL)
                    if let resent, self.sandbox.time.now < resent.addingTimeInterval(ttl) {
                        self.note(
                            "\(label): B's held challenge was refused as expired although its resend is live (F5)")
                    }
                    throw error
                }
            }
        case .signIn(let c):
            let client = clients[c]
            do {
                guard case .challenge(let challenge) = try await client.signIn(with: Self.provider, .email(emailC)),
                    let code = sandbox.inbox.latest(for: emailC.identityKey)?.code
                else { return finish(index, "no challenge") }
                await signIn(label, index: index, client: c, email: emailC, start: await model.seq) {
                    try await client.submit(ChallengeAnswer(code: code), for: challenge)
                }
            } catch { finish(index, Self.describe(error)) }
        case .link:
            let before = await model.expected
            let nothingPending = await clients[0].pendingChallenge(for: Self.provider) == nil
            await signIn(label, index: index, client: 0, email: emailB, start: start) {
                do {
                    guard let step = try await self.clients[0].handleRedirect(self.linkB) else {
                        throw AuthError(.generic, "no provider claimed the link")
                    }
                    return step
                } catch let error as AuthError where [.challengeNotPending, .codeAlreadyUsed].contains(error.code) {
                    // F8: a link of a flow that already signed in here answers with its session
                    // while it is still the stored one.
                    let now = await self.model.expected
                    let fromB = before.flatMap { $0.credentials.refreshToken?.reveal() }.flatMap {
                        self.backend.origin(ofRefreshToken: $0)
                    }
                    // After a sign-out of client 0 started, the link is refused as before (F8).
                    let signedOut = self.lock.withLock { self.signOutStarts[0] } > 0
                    if nothingPending, !signedOut,
                        !self.operations.contains(where: { if case .signIn = $0 { true } else { false } }),
                        fromB == .signIn(flowId: Secret(self.flowB)), AuthSession.isSameVersion(before, now),
                        await self.clients[0].pendingChallenge(for: Self.provider) == nil
                    {
                        self.note("\(label): B's link threw \(error.code) although B's flow signed in here (F8)")
                    }
                    throw error
                }
            }
        case .resend:
            do {
                let before = sandbox.time.now
                let updated = try await clients[0].resend(challengeB)
                if updated.flowID != challengeB.flowID { note("\(label): the resend changed the flow (F5)") }
                lock.withLock { resentAt = before }
                finish(index, "resent")
            } catch { finish(index, Self.describe(error)) }
        case .refresh(let c):
            do {
                let session = try await clients[c].refresh(sessionA)
                if session.id != sessionA.id || session.user.id != sessionA.user.id {
                    note("\(label): the refresh of A's session answered with \(session.user.id)'s session (L10)")
                }
                await checkReturned(session, from: start, label)
                finish(index, "refreshed")
            } catch { finish(index, Self.describe(error)) }
        case .valid(let c):
            do {
                let session = try await clients[c].validSession(for: Self.provider)
                if let session { await checkReturned(session, from: start, label) }
                finish(index, session == nil ? "nil" : "session")
            } catch { finish(index, Self.describe(error)) }
        case .signOut(let c):
            lock.withLock {
                signOutsInFlight += 1
                signOutStarts[c] += 1
            }
            await model.beginSignOut(client: c)
            do {
                let outcome = try await clients[c].signOut(Self.provider)
                lock.withLock { signOutsReturned[c] = true }
                if outcome.wasSignedIn && !outcome.keptNewerSession { lock.withLock { userSignOuts[c] += 1 } }
                finish(index, outcome.wasSignedIn ? (outcome.keptNewerSession ? "kept newer" : "signed out") : "none")
            } catch { finish(index, Self.describe(error)) }
            await model.endSignOut(client: c)
            lock.withLock { signOutsInFlight -= 1 }
        case .restore(let c):
            await clients[c].restoreSessions()
            finish(index, "restored")
        case .tick, .lapse:
            break
        case .takeover:
            do {
                try await addClient(2)
                let client = clients[2]
                await client.restoreSessions()
                let start = await model.seq
                let session = try await client.refresh(Self.provider)
                await checkReturned(session, from: start, label)
                finish(index, "refreshed")
            } catch { finish(index, Self.describe(error)) }
        }
    }

    /// A sign-in operation: the session returned is the expected user's and was stored.
    private func signIn(
        _ label: String, index: Int, client: Int, email: EmailAddress, start: Int,
        _ body: @Sendable () async throws -> SignInStep
    ) async {
        do {
            let step = try await body()
            guard case .signedIn(let session) = step else { return finish(index, "challenge") }
            if session.user.email != email {
                note("\(label): the sign-in of \(email.identityKey) answered with another user's session")
            }
            await checkReturned(session, from: start, label)
            finish(index, "signed in")
        } catch {
            finish(index, Self.describe(error))
            // F2: a submit abandoned by a sign-out (started by the driver before this call ended;
            // the library may run its first steps later) while the provider answered stores nothing;
            // the session the server issued is dropped without a revoke (counted, not failed).
            if (error as? AuthError)?.code == .challengeNotPending, lock.withLock({ signOutStarts[client] }) > 0 {
                lock.withLock {
                    for (token, info) in issuedTo where info.tag == label && info.signIn {
                        exemptTokens.insert(token)
                    }
                }
            }
        }
    }

    // MARK: Ledger (called by the gated store and provider)

    /// The server issued `session` to `client`.
    func issued(_ session: AuthSession, to client: Int, bySignIn: Bool) {
        guard let token = session.credentials.refreshToken?.reveal() else { return }
        let tag = ExplorationTag.operation ?? "bg"
        lock.withLock { issuedTo[token] = (session.user.id, client, bySignIn, tag) }
    }

    /// The driver forged `session`'s answer (another user or provider).
    func forged(_ session: AuthSession) {
        if let token = session.credentials.refreshToken?.reveal() { lock.withLock { _ = forgedTokens.insert(token) } }
    }

    /// `session`'s answer never reached the client (its process died).
    func lost(_ session: AuthSession) {
        if let token = session.credentials.refreshToken?.reveal() { lock.withLock { _ = lostTokens.insert(token) } }
    }

    /// Before a store write: a failure the driver injects, or a dead process, throws.
    func beforeWrite(_ session: AuthSession?, removing: AuthSession? = nil, verdict: GateVerdict, client: Int)
        async throws
    {
        switch verdict {
        case .processDeath: throw InjectedStoreFailure()
        case .storeFailure:
            if let session { lock.withLock { failedWrites.append(session) } }
            if let removing { lock.withLock { failedRemovals.append(removing) } }
            throw InjectedStoreFailure()
        default: return
        }
    }

    /// After a store write by `client`: the rules judged on what was written or removed.
    func afterWrite(client: Int, removed: AuthSession?) async {
        let seq = await model.seq
        let stored = await model.expected
        let tag = ExplorationTag.operation ?? "bg"
        lock.withLock {
            if lastWriter.map({ seq > $0.seq }) ?? true { lastWriter = (seq, client, tag, removed != nil) }
        }
        if let written = stored, removed == nil {
            if let token = written.credentials.refreshToken?.reveal() {
                lock.withLock { _ = writtenTokens.insert(token) }
            }
            // L8: a session belongs to the provider that produced it.
            if written.provider != Self.provider {
                note(
                    "client \(client) stored a session of provider '\(written.provider)' for a 'reference' sign-in (L8)"
                )
            }
            // L7: a stored session names the user the server issued its refresh token to.
            if let token = written.credentials.refreshToken?.reveal(), let owner = lock.withLock({ issuedTo[token] }),
                owner.user != written.user.id
            {
                note(
                    "client \(client) stored a session naming user '\(written.user.id)' with a refresh token of '\(owner.user)' (L7)"
                )
            }
        }
        // L9: outside a sign-out, a client never ends a session while a newer refresh token it
        // received itself is still accepted by the server. (Another client's unsaved refresh lives
        // in that client's memory only, like a process that died holding it.)
        if let removed, let token = removed.credentials.refreshToken?.reveal(),
            lock.withLock({ signOutsInFlight }) == 0,
            !backend.isLive(refreshToken: token), let newer = liveDescendant(of: token, receivedBy: client)
        {
            note(
                "client \(client) ended \(ModelStore.name(removed)) while its newer token ..\(newer.suffix(6)) is live (L9)"
            )
        }
    }

    private func liveDescendant(of token: String, receivedBy client: Int) -> String? {
        let candidates = lock.withLock {
            issuedTo.filter { !$0.value.signIn && !forgedTokens.contains($0.key) && !lostTokens.contains($0.key) }
        }
        for (candidate, info) in candidates.sorted(by: { $0.key < $1.key })
        where info.client == client && backend.isLive(refreshToken: candidate) {
            var cursor = candidate
            while case .refresh(let parent)? = backend.origin(ofRefreshToken: cursor) {
                if parent.reveal() == token { return candidate }
                cursor = parent.reveal()
            }
        }
        return nil
    }

    /// L11: a sign-out revokes only after the session was removed locally.
    func checkRevoke(_ session: AuthSession) async {
        guard let token = session.credentials.refreshToken?.reveal() else { return }
        if await model.expected?.credentials.refreshToken?.reveal() == token {
            note("the revoke of ..\(token.suffix(6)) was sent while the store still holds that session (L11)")
        }
    }

    // MARK: End of a schedule

    /// The checks made once every operation finished. A disagreement between the store and the
    /// events may be a task still on its way from its write to its event on a busy machine: the
    /// end-of-schedule checks are made again after longer waits before anything is reported.
    func finalChecks() async {
        var attempt = 0
        while true {
            let before = problemCount
            await endChecks()
            attempt += 1
            if problemCount == before || attempt == 5 { return }
            lock.withLock { problemList.removeLast(problemList.count - before) }
            await settle(40)
        }
    }

    private func endChecks() async {
        for violation in await model.violations { note("model: \(violation)") }
        // The store holds what the model says.
        let final = try? await model.view(0).load(for: Self.provider)
        let expected = await model.expected
        if !AuthSession.isSameVersion(final, expected) { note("the final store differs from the model") }
        // F2/F7: B's flow started at set-up, before any sign-out of client 0. Once such a sign-out
        // returned, B's sign-in (its code or its link), or a refresh of what it stored, is never
        // what the store holds: it finished before the sign-out read the store and was removed,
        // or it was abandoned and stored nothing.
        if lock.withLock({ signOutsReturned[0] }), var token = expected?.credentials.refreshToken?.reveal() {
            while case .refresh(let parent)? = backend.origin(ofRefreshToken: token) { token = parent.reveal() }
            if let info = lock.withLock({ issuedTo[token] }), info.client == 0, info.signIn,
                info.tag.hasSuffix(".\(ExplorationOp.submit)") || info.tag.hasSuffix(".\(ExplorationOp.link)")
            {
                note(
                    "\(info.tag): B's sign-in, started before client 0's sign-out, is still stored after it returned (F2/F7)"
                )
            }
        }
        // A flow's code and link handled at once were a finding here; F9 orders them now. After
        // a forged answer (refused, L7/L8) the other half of the flow may be tried again against
        // that hostile server: harmless, and not counted.
        if backend.reusedGrantCount > 0 && lock.withLock({ forgedTokens.isEmpty }) {
            note("\(backend.reusedGrantCount) grant(s) were exchanged twice")
        }
        // Every session the server issued at sign-in was stored, or a write of it failed, or it
        // was revoked: none is dropped while the server still accepts it (F6).
        let leaked = lock.withLock {
            issuedTo.filter { token, info in
                info.signIn && !forgedTokens.contains(token) && !lostTokens.contains(token)
                    && !board.isDead(info.client) && !writtenTokens.contains(token)
                    && !failedWrites.contains { $0.credentials.refreshToken?.reveal() == token }
            }
        }
        for (token, info) in leaked.sorted(by: { $0.key < $1.key }) where backend.isLive(refreshToken: token) {
            if lock.withLock({ exemptTokens.contains(token) }) {
                note(
                    "\(info.tag): a submit abandoned by a sign-out dropped the issued session without revoking it (F2)")
            } else {
                note("\(info.tag): the session the server issued at sign-in was dropped, never stored nor revoked (F6)")
            }
        }
        // Events.
        let clients = self.clients
        let recorders = lock.withLock { recorderList }
        var expiredEvents = 0
        let writer = lock.withLock { lastWriter }
        for (index, client) in clients.enumerated() where !(index == 0 && board.isDead(0)) {
            let events = await recorders[index].waitFor(count: Int(client.events.currentSequence))
            let signedOut = events.filter { $0.kind.name == "signedOut" }.count
            let userSignOuts = lock.withLock { self.userSignOuts[index] }
            if signedOut != userSignOuts {
                note("client \(index) published signedOut \(signedOut) times for \(userSignOuts) user sign-outs")
            }
            var announced: AuthSession?
            var announcements: [AuthSession?] = []
            for event in events {
                switch event.kind {
                case .sessionExpired: expiredEvents += 1
                case .sessionRefreshed(let session):
                    if !(await model.wasWritten(session)) { note("client \(index) published a refresh it never wrote") }
                default: break
                }
                switch event.kind {
                case .signedIn(let session), .sessionRefreshed(let session), .sessionRestored(let session):
                    announced = session
                    announcements.append(session)
                case .signedOut, .sessionExpired:
                    announced = nil
                    announcements.append(nil)
                default: break
                }
            }
            // The client that wrote last says what the store holds.
            // A removal the driver made fail leaves its session stored: the store is allowed to
            // hold it (the client published storageFailed).
            let failedRemoval = lock.withLock { failedRemovals.contains { AuthSession.isSameVersion($0, expected) } }
            if let writer, writer.client == index, !AuthSession.isSameVersion(announced, expected), !failedRemoval {
                // A cancelled submit silencing the same flow's link (F6) and state events published
                // out of the store's write order (L13) were findings here; both are fixed and fail.
                let outOfOrder = announcements.dropLast().contains { AuthSession.isSameVersion($0, expected) }
                note(
                    (outOfOrder ? "state events out of the store's write order (L13): " : "")
                        + "client \(index) wrote last and its last state event announced \(ModelStore.name(announced)), the store holds \(ModelStore.name(expected))"
                )
            }
        }
        let revocations = await model.revocationRemovals
        if expiredEvents > revocations {
            note("\(expiredEvents) sessionExpired events for \(revocations) removals after a revocation")
        }
    }

    /// Stops the world's background work.
    func tearDown() {
        for client in clients { client.stopAutoRefresh() }
        for recorder in lock.withLock({ recorderList }) { recorder.cancel() }
    }
}
