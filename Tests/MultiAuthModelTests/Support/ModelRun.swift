import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox

/// Where the model's clients keep their sessions.
enum ModelStoreKind: Sendable {
    /// One `InMemorySessionStore` shared by both clients.
    case memory
    /// Two `FileSessionStore` instances on one temporary directory (an app and its extension).
    case file
}

/// Runs one ``ModelSchedule`` against two `AuthClient`s sharing one store and a
/// `ReferenceBackend` in a sandbox, then checks the invariants. Returns the violations.
struct ModelRun {
    let schedule: ModelSchedule
    let storeKind: ModelStoreKind
    let mutations: ClientMutations

    static let provider: AuthProviderID = "reference"

    /// Collects what the operations observed.
    actor Observations {
        var userSignOuts = [0, 0]
        var violations: [String] = []
        func signedOut(_ client: Int) { userSignOuts[client] += 1 }
        func note(_ violation: String) { violations.append(violation) }
    }

    func run() async throws -> [String] {
        let sandbox = Sandbox(seed: schedule.seed)
        let backend = ReferenceBackend()
        sandbox.register(backend, host: ReferenceProtocol.defaultHost)
        var directory: URL?
        let stores: [any SessionStore]
        switch storeKind {
        case .memory:
            stores = [InMemorySessionStore()]
        case .file:
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
                "multiauth-model-\(UUID().uuidString)")
            directory = dir
            stores = [try FileSessionStore(directory: dir), try FileSessionStore(directory: dir)]
        }
        defer { if let directory { try? FileManager.default.removeItem(at: directory) } }
        let model = ModelStore(provider: Self.provider, stores: stores, backend: backend)
        var clients: [AuthClient] = []
        var recorders: [(RecordingSubscriber, AuthClient)] = []
        for index in 0..<2 {
            let client = try sandbox.makeClient(
                providers: [ReferenceProvider()], store: model.view(index),
                autoRefresh: AutoRefresh(jitterSeed: schedule.seed &+ UInt64(index)))
            await client.setMutations(mutations)
            clients.append(client)
            recorders.append((RecordingSubscriber(client: client, bufferCapacity: 4096), client))
        }
        let observations = Observations()
        var user = 0
        for (round, (faults, operations)) in schedule.rounds.enumerated() {
            var rules: [FaultRuleID] = []
            for (path, seconds) in faults.latency {
                rules.append(
                    sandbox.faults.add(
                        .latency(.seconds(seconds)), host: ReferenceProtocol.defaultHost, pathPrefix: path))
            }
            if let fault = faults.refreshFault {
                let action: FaultAction =
                    fault == 0
                    ? .dropConnection : .jsonStatus(fault, ["code": fault == 429 ? "rate_limited" : "unavailable"])
                rules.append(
                    sandbox.faults.add(
                        action, host: ReferenceProtocol.defaultHost, pathPrefix: "/token/refresh", repeat: .once))
            }
            var tasks: [Task<Void, Never>] = []
            for (index, operation) in operations.enumerated() {
                user += 1
                let label = "round \(round) op \(index) \(operation)"
                let identity = try EmailAddress("user\(user)@example.com")
                let context = OperationContext(
                    sandbox: sandbox, backend: backend, model: model, clients: clients, observations: observations,
                    label: label,
                    identity: identity)
                // Owned by this loop; awaited below before the round ends.
                tasks.append(Task { await context.perform(operation) })
            }
            await drive(sandbox.clock, until: tasks, model: model, sandbox: sandbox)
            for rule in rules { sandbox.faults.remove(rule) }
        }
        // Let background refreshes that are due finish.
        await drive(sandbox.clock, until: [], model: model, sandbox: sandbox)
        var violations = await model.violations + observations.violations
        // The store holds the last legitimately written session.
        let final = try await model.view(0).load(for: Self.provider)
        if !AuthSession.isSameVersion(final, await model.expected) {
            violations.append("the final store differs from the model")
        }
        // Events: signedOut only after a user sign-out, sessionExpired only after a revocation.
        var expiredEvents = 0
        for (index, (recorder, client)) in recorders.enumerated() {
            let events = await recorder.waitFor(count: Int(client.events.currentSequence))
            let signedOut = events.filter { $0.kind.name == "signedOut" }.count
            let userSignOuts = await observations.userSignOuts[index]
            if signedOut != userSignOuts {
                violations.append(
                    "client \(index) published signedOut \(signedOut) times for \(userSignOuts) user sign-outs")
            }
            for event in events {
                switch event.kind {
                case .sessionExpired(let error):
                    expiredEvents += 1
                    if error.code != .sessionExpired { violations.append("sessionExpired carried \(error.code)") }
                case .sessionRefreshed(let session):
                    if !(await model.wasWritten(session)) {
                        violations.append("client \(index) published a refresh it never wrote")
                    }
                default: break
                }
            }
            recorder.cancel()
        }
        let revocations = await model.revocationRemovals
        if expiredEvents > revocations {
            violations.append("\(expiredEvents) sessionExpired events for \(revocations) removals after a revocation")
        }
        // Every grant is exchanged at most once.
        if backend.reusedGrantCount > 0 {
            violations.append("\(backend.reusedGrantCount) grant(s) were exchanged twice")
        }
        for client in clients { client.stopAutoRefresh() }
        return violations
    }

    /// Advances the manual clock one second at a time whenever the running operations (and
    /// background refreshes) are all asleep on it, until `tasks` have finished and nothing
    /// sleeps in the foreground.
    private func drive(_ clock: ManualClock, until tasks: [Task<Void, Never>], model: ModelStore, sandbox: Sandbox)
        async
    {
        let finished = Finished(tasks)
        var last = (-1, -1, -1, -1)
        var idle = 0
        while true {
            let state = (finished.count, clock.sleeperCount, sandbox.requestCount, await model.seq)
            if state == last { idle += 1 } else { idle = 0 }
            last = state
            if idle >= 6 {
                if clock.sleeperCount > 0 {
                    clock.advance(by: .seconds(1))
                    idle = 0
                } else if finished.count == tasks.count {
                    return
                }
            }
            await Task.yield()
        }
    }

    /// Counts finished tasks without awaiting them.
    final class Finished: @unchecked Sendable {
        private let lock = NSLock()
        private var done = 0
        init<Value: Sendable>(_ tasks: [Task<Value, Never>]) {
            for task in tasks {
                // Owned by this counter; ends when `task` ends.
                Task { [self] in
                    _ = await task.value
                    lock.withLock { done += 1 }
                }
            }
        }
        var count: Int { lock.withLock { done } }
    }
}

/// What one operation needs, and the checks it makes on what it observes.
struct OperationContext: Sendable {
    let sandbox: Sandbox
    let backend: ReferenceBackend
    let model: ModelStore
    let clients: [AuthClient]
    let observations: ModelRun.Observations
    let label: String
    let identity: EmailAddress

    /// Every session returned to a caller was the stored one at some moment of the call.
    func checkReturned(_ session: AuthSession?, from start: Int, _ what: String) async {
        guard let session else { return }
        let end = await model.seq
        if !(await model.wasStored(session, from: start, to: end)) {
            await observations.note(
                "\(label): \(what) returned \(ModelStore.name(session)), never stored during the call")
        }
    }

    func perform(_ operation: ModelOperation) async {
        switch operation {
        case .signInWithCode(let index):
            let client = clients[index]
            guard case .challenge(let challenge)? = try? await client.signIn(with: ModelRun.provider, .email(identity)),
                let code = sandbox.inbox.latest(for: identity.identityKey)?.code
            else { return }
            let start = await model.seq
            if case .signedIn(let session)? = try? await client.submit(ChallengeAnswer(code: code), for: challenge) {
                await checkReturned(session, from: start, "submit")
            }
        case .signInWithLink(let index, let deliveries):
            let client = clients[index]
            guard (try? await client.signIn(with: ModelRun.provider, .email(identity)))?.challenge != nil,
                let link = sandbox.inbox.latest(for: identity.identityKey)?.link
            else { return }
            let start = await model.seq
            let results = await withTaskGroup(of: Result<SignInStep?, AuthError>.self) { group in
                for _ in 0..<deliveries {
                    group.addTask {
                        do { return .success(try await client.handleRedirect(link)) } catch let error as AuthError {
                            return .failure(error)
                        } catch { return .failure(AuthError(.generic, "\(error)")) }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            // Concurrent deliveries of one link share one exchange: never two sessions, and never
            // a delivery told the grant was already used. (Local refusals may differ: a delivery
            // after the flow expired or was signed out gets `expired` or `challengeNotPending`.)
            let sessions = Set(
                results.compactMap { result -> String? in
                    if case .success(.signedIn(let session)?) = result { return session.id }
                    return nil
                })
            let spent = results.contains {
                if case .failure(let error) = $0 { error.code == .codeAlreadyUsed } else { false }
            }
            if sessions.count > 1 || spent {
                await observations.note(
                    "\(label): concurrent deliveries got \(sessions.count) sessions\(spent ? " and codeAlreadyUsed" : "")"
                )
            }
            for case .success(.signedIn(let session)?) in results {
                await checkReturned(session, from: start, "handleRedirect")
            }
        case .signOut(let index, let remoteLost):
            var rule: FaultRuleID?
            if remoteLost {
                rule = sandbox.faults.add(
                    .jsonStatus(503, ["code": "unavailable"]), host: ReferenceProtocol.defaultHost,
                    pathPrefix: "/logout",
                    repeat: .once)
            }
            await model.beginSignOut()
            if let outcome = try? await clients[index].signOut(ModelRun.provider), outcome.wasSignedIn,
                !outcome.keptNewerSession
            {
                await observations.signedOut(index)
            }
            await model.endSignOut()
            if let rule { sandbox.faults.remove(rule) }
        case .refresh(let index):
            let start = await model.seq
            if let session = try? await clients[index].refresh(ModelRun.provider) {
                await checkReturned(session, from: start, "refresh")
            }
        case .validSession(let index):
            let start = await model.seq
            if let session = try? await clients[index].validSession(for: ModelRun.provider) {
                await checkReturned(session, from: start, "validSession")
            }
        case .restoreSessions(let index):
            await clients[index].restoreSessions()
        case .revokeOnServer:
            if let token = await model.expected?.credentials.refreshToken { backend.revoke(refreshToken: token) }
        case .advance(let seconds):
            sandbox.clock.advance(by: .seconds(seconds))
        }
    }
}
