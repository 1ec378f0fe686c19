import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

/// Scenarios 1–5 (and 8) of the lifecycle cases (Docs/Reliability.md), each as a named test
/// against the reference provider and its emulated backend, on the manual clock.
@Suite(.timeLimit(.minutes(10)))
struct LifecycleScenarioTests {
    let provider: AuthProviderID = "reference"
    let host = ReferenceProtocol.defaultHost

    /// A sandbox with the reference backend and `count` clients sharing one in-memory store.
    struct LifecycleWorld {
        let sandbox = Sandbox(seed: 13)
        let backend = ReferenceBackend()
        let store: SlowLoadStore
        let clients: [AuthClient]

        init(clients count: Int = 1) throws {
            store = SlowLoadStore(time: sandbox.clock.timeSource)
            sandbox.register(backend, host: ReferenceProtocol.defaultHost)
            var clients: [AuthClient] = []
            for _ in 0..<count {
                clients.append(
                    try sandbox.makeClient(providers: [ReferenceProvider()], store: store, autoRefresh: .disabled))
            }
            self.clients = clients
        }

        var client: AuthClient { clients[0] }

        func signIn(_ user: String, client: AuthClient? = nil) async throws -> AuthSession {
            let client = client ?? self.client
            let email = try EmailAddress("\(user)@example.com")
            let challenge = try #require(try await client.signIn(with: "reference", .email(email)).challenge)
            let code = try #require(sandbox.inbox.latest(for: email.identityKey)?.code)
            return try #require(try await client.submit(ChallengeAnswer(code: code), for: challenge).session)
        }
    }

    @Test func scenario1ARefreshInFlightNeverOverwritesTheNextUsersSession() async throws {
        let world = try LifecycleWorld()
        let a = try await world.signIn("a")
        let log = RecordingSubscriber(client: world.client)
        let base = Int(world.client.events.currentSequence)
        let slow = world.sandbox.faults.add(.latency(.seconds(5)), host: host, pathPrefix: "/token/refresh")
        let client = world.client
        let refresh = Task { try await client.refresh(a) }
        await world.sandbox.clock.waitForSleepers(count: 1)
        // A signs out (the remote revocation is lost, so A's refresh token still works) and B
        // signs in with the same provider.
        world.sandbox.faults.add(
            .jsonStatus(503, ["code": "unavailable"]), host: host, pathPrefix: "/logout", repeat: .once)
        let outcome = try await client.signOut(provider)
        #expect(outcome.remoteError?.code == .providerUnavailable)
        let b = try await world.signIn("b")
        world.sandbox.clock.advance(by: .seconds(5))
        // A's refresh succeeded on the server, but its result is discarded, and the caller is
        // told A is no longer signed in: never handed B's session (rule L10).
        let stale = await #expect(throws: AuthError.self) { _ = try await refresh.value }
        #expect(stale?.code == .unauthorized)
        #expect(try await world.store.load(for: provider) == b)
        world.sandbox.faults.remove(slow)
        let events = await log.waitFor(count: Int(client.events.currentSequence) - base)
        #expect(!events.contains { $0.kind.name == "sessionRefreshed" })
        #expect(events.filter { $0.kind.name == "signedOut" }.count == 1)
    }

    /// A's sign-out has read A from the store (the read is held on the clock) when B signs in on
    /// a second client sharing the store: the sign-out's removal then finds B, B's session stays
    /// stored and no `signedOut` follows B's `signedIn`. With the conditional write removed (the
    /// `unconditionalWrites` mutation) the sign-out deletes B: the test fails.
    @Test func aSignOutInFlightNeverRemovesASessionSignedInMeanwhile() async throws {
        for mutated in [false, true] {
            let world = try LifecycleWorld(clients: 2)
            if mutated { await world.client.setMutations(ClientMutations(unconditionalWrites: true)) }
            _ = try await world.signIn("a")
            let logs = world.clients.map { ($0, RecordingSubscriber(client: $0), Int($0.events.currentSequence)) }
            await world.store.delayNextLoad(by: .seconds(5))
            let client = world.client
            let signOut = Task { try await client.signOut(provider) }
            await world.sandbox.clock.waitForSleepers(count: 1)
            let b = try await world.signIn("b", client: world.clients[1])
            world.sandbox.clock.advance(by: .seconds(5))
            let outcome = try await signOut.value
            #expect(outcome.wasSignedIn)
            #expect(outcome.keptNewerSession == !mutated)
            let stored = try await world.store.load(for: provider)
            if mutated {
                #expect(stored == nil, "the mutation should lose B's session, proving the guard matters")
                continue
            }
            #expect(stored == b)
            var names: [String] = []
            for (client, log, base) in logs {
                names += await log.waitFor(count: Int(client.events.currentSequence) - base).map(\.kind.name)
            }
            #expect(names.contains("signedIn"))
            #expect(!names.contains("signedOut"))
            #expect(try await world.clients[1].validSession(for: provider) == b)
        }
    }

    /// On one client a sign-out and a sign-in's save are ordered by the provider's write turn
    /// (F7, L13): B's save, reached while the sign-out's read of A is held, waits for the sign-out,
    /// which removes A (`signedOut`); then B is stored and announced (`signedIn`). B is never
    /// removed by a sign-out that came first, and nothing survives it that started before it.
    @Test func onOneClientASignInSaveWaitsForASignOutInFlight() async throws {
        let world = try LifecycleWorld(clients: 1)
        let a = try await world.signIn("a")
        let client = world.client
        let log = RecordingSubscriber(client: client)
        let base = Int(client.events.currentSequence)
        await world.store.delayNextLoad(by: .seconds(5))
        let signOut = Task { try await client.signOut(provider) }
        await world.sandbox.clock.waitForSleepers(count: 1)
        let signIn = Task { try await world.signIn("b") }
        await client.waitUntilStateWritesQueued(provider)
        world.sandbox.clock.advance(by: .seconds(5))
        let outcome = try await signOut.value
        let b = try await signIn.value
        #expect(outcome.wasSignedIn && !outcome.keptNewerSession)
        #expect(b != a)
        #expect(try await world.store.load(for: provider) == b)
        let kinds = await log.waitFor(count: Int(client.events.currentSequence) - base).map(\.kind.name)
        #expect(kinds.filter { ["signedIn", "signedOut"].contains($0) } == ["signedOut", "signedIn"], "\(kinds)")
    }

    /// The first state a new `authStates()` subscriber gets.
    static func initialState(_ client: AuthClient) async -> AuthState? {
        var iterator = client.authStates().makeAsyncIterator()
        guard case .initialState(let state)? = await iterator.next()?.kind else { return nil }
        return state
    }

    /// Breaker finding: `restoreSessions` read session S, a sign-out finished before the read
    /// returned, and the restore then published `sessionRestored(S)` and cached S, so later
    /// subscribers were told the signed-out user was signed in. The mirror: restore read
    /// nothing, a sign-in finished meanwhile, and later subscribers were told "signed out".
    @Test func restoreNeverContradictsASignOutOrSignInThatFinishedMeanwhile() async throws {
        for signOutFirst in [true, false] {
            let sandbox = Sandbox(seed: 13)
            sandbox.register(ReferenceBackend(), host: host)
            let store = SlowLoadStore(time: sandbox.clock.timeSource)
            let client = try sandbox.makeClient(providers: [ReferenceProvider()], store: store, autoRefresh: .disabled)
            let email = try EmailAddress("ada@example.com")
            func signIn() async throws -> AuthSession {
                let challenge = try #require(try await client.signIn(with: provider, .email(email)).challenge)
                let code = try #require(sandbox.inbox.latest(for: email.identityKey)?.code)
                return try #require(try await client.submit(ChallengeAnswer(code: code), for: challenge).session)
            }
            let signedIn: AuthSession? = signOutFirst ? try await signIn() : nil
            let log = RecordingSubscriber(client: client)
            let base = Int(client.events.currentSequence)
            await store.delayNextLoad(by: .seconds(1))
            let restore = Task { await client.restoreSessions() }
            await sandbox.clock.waitForSleepers(count: 1)
            let expected: AuthSession?
            if signOutFirst {
                #expect(try await client.signOut(provider).wasSignedIn)
                expected = nil
            } else {
                expected = try await signIn()
            }
            sandbox.clock.advance(by: .seconds(1))
            let restored = await restore.value
            #expect(try await store.load(for: provider) == expected)
            #expect(restored.sessions[provider]?.session == expected, "signOutFirst: \(signOutFirst)")
            #expect(await Self.initialState(client)?.sessions[provider]?.session == expected)
            let kinds = await log.waitFor(count: Int(client.events.currentSequence) - base).map(\.kind.name)
            #expect(!kinds.contains("sessionRestored"), "\(kinds)")
            _ = signedIn
        }
    }

    /// Breaker finding: two sign-outs at once on one client published `signedOut` twice. Now
    /// the second reports `wasSignedIn == false` and publishes nothing; a sign-out on a second
    /// client sharing the store still tells that client's subscribers.
    @Test func concurrentSignOutsPublishOneSignedOutPerClient() async throws {
        let world = try LifecycleWorld(clients: 2)
        _ = try await world.signIn("a")
        let logs = world.clients.map { ($0, RecordingSubscriber(client: $0), Int($0.events.currentSequence)) }
        // The two clients read the session before either removes it (their reads are held on the
        // clock); the second sign-out on the first client waits for the first's write turn (L13).
        await world.store.delayNextLoad(by: .seconds(2), count: 2)
        let first = world.clients[0]
        let second = world.clients[1]
        let outcomes = [
            Task { try await first.signOut(provider) }, Task { try await first.signOut(provider) },
            Task { try await second.signOut(provider) },
        ]
        await world.sandbox.clock.waitForSleepers(count: 2)
        await first.waitUntilStateWritesQueued(provider)
        world.sandbox.clock.advance(by: .seconds(2))
        var removed = 0
        for task in outcomes where try await task.value.wasSignedIn { removed += 1 }
        #expect(removed == 2, "one per client")
        #expect(try await world.store.load(for: provider) == nil)
        for (client, log, base) in logs {
            let kinds = await log.waitFor(count: Int(client.events.currentSequence) - base).map(\.kind.name)
            #expect(kinds.filter { $0 == "signedOut" }.count == 1, "\(kinds)")
        }
    }

    /// Breaker finding: a provider whose refresh builds a session with a new `id` made L6 take
    /// the rotated session for a newer sign-in and keep it after sign-out. The client now keeps
    /// the id across refreshes, so the sign-out on the other client removes the rotated version.
    @Test func aSignOutRemovesTheSessionRotatedByAProviderThatChangesIDs() async throws {
        struct NewIDOnRefresh: RefreshableProvider {
            let base = ReferenceProvider()
            var id: AuthProviderID { base.id }
            func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
                try await base.start(request, context: context)
            }
            func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
                -> SignInStep
            {
                try await base.respond(to: challenge, with: answer, context: context)
            }
            func signOut(_ session: AuthSession, context: AuthContext) async throws {
                try await base.signOut(session, context: context)
            }
            func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession {
                var refreshed = try await base.refresh(session, context: context)
                refreshed.id = "rotated-" + session.id
                return refreshed
            }
        }
        let sandbox = Sandbox(seed: 13)
        sandbox.register(ReferenceBackend(), host: host)
        let store = SlowLoadStore(time: sandbox.clock.timeSource)
        let clients = try (0..<2).map { _ in
            try sandbox.makeClient(providers: [NewIDOnRefresh()], store: store, autoRefresh: .disabled)
        }
        let email = try EmailAddress("ada@example.com")
        let challenge = try #require(try await clients[0].signIn(with: provider, .email(email)).challenge)
        let code = try #require(sandbox.inbox.latest(for: email.identityKey)?.code)
        let session = try #require(try await clients[0].submit(ChallengeAnswer(code: code), for: challenge).session)
        await store.delayNextLoad(by: .seconds(2))
        let signOut = Task { try await clients[0].signOut(provider) }
        await sandbox.clock.waitForSleepers(count: 1)  // the sign-out has read the session
        let refreshed = try await clients[1].refresh(session)
        #expect(refreshed.id == session.id)
        sandbox.clock.advance(by: .seconds(2))
        let outcome = try await signOut.value
        #expect(outcome.wasSignedIn && !outcome.keptNewerSession)
        #expect(try await store.load(for: provider) == nil)
    }

    @Test func scenario2RevocationEndsTheSessionOnceAndTransientFailuresNeverDo() async throws {
        let world = try LifecycleWorld()
        let session = try await world.signIn("a")
        let log = RecordingSubscriber(client: world.client)
        let base = Int(world.client.events.currentSequence)
        // Offline with an access token still valid for 40 s: the valid session is returned.
        world.sandbox.clock.advance(by: .seconds(ReferenceProtocol.accessTokenTTL - 40))
        let offline = world.sandbox.faults.add(.dropConnection, host: host, pathPrefix: "/token/refresh")
        #expect(try await world.client.validSession(for: provider) == session)
        world.sandbox.faults.remove(offline)
        for (status, code) in [(429, "rate_limited"), (503, "unavailable")] {
            world.sandbox.faults.add(
                .jsonStatus(status, ["code": code]), host: host, pathPrefix: "/token/refresh", repeat: .once)
            #expect(try await world.client.validSession(for: provider) == session)
        }
        // Once it has expired, the transient error is thrown; still never a sign-out.
        world.sandbox.clock.advance(by: .seconds(41))
        world.sandbox.faults.add(.dropConnection, host: host, pathPrefix: "/token/refresh", repeat: .once)
        let network = await #expect(throws: AuthError.self) { _ = try await world.client.validSession(for: provider) }
        #expect(network?.code == .network)
        #expect(try await world.store.load(for: provider) == session)
        // Revoked on the server: removed once, sessionExpired once, raw code kept.
        world.backend.revoke(refreshToken: try #require(session.credentials.refreshToken).reveal())
        let expired = await #expect(throws: AuthError.self) { _ = try await world.client.validSession(for: provider) }
        #expect(expired?.code == .sessionExpired)
        #expect(expired?.providerCode == "invalid_grant")
        #expect(try await world.store.load(for: provider) == nil)
        #expect(try await world.client.validSession(for: provider) == nil)
        let events = await log.waitFor(count: Int(world.client.events.currentSequence) - base)
        #expect(events.map(\.kind.name) == ["sessionExpired"])
    }

    @Test func scenario3ALinkDeliveredTwiceWhileInFlightIsExchangedOnce() async throws {
        let world = try LifecycleWorld()
        let email = try EmailAddress("link@example.com")
        _ = try await world.client.signIn(with: provider, .email(email))
        let link = try #require(world.sandbox.inbox.latest(for: email.identityKey)?.link)
        world.sandbox.faults.add(.latency(.seconds(2)), host: host, pathPrefix: "/otp/verify", repeat: .once)
        let client = world.client
        let first = Task { try await client.handleRedirect(link) }
        await world.sandbox.clock.waitForSleepers(count: 1)
        let second = Task { try await client.handleRedirect(link) }
        for _ in 0..<50 { await Task.yield() }
        world.sandbox.clock.advance(by: .seconds(2))
        let a = try #require(try await first.value?.session)
        let b = try #require(try await second.value?.session)
        #expect(a == b)
        #expect(world.sandbox.requestCount(pathPrefix: "/otp/verify") == 1)
        #expect(world.backend.reusedGrantCount == 0)
    }

    @Test func scenario4TwoClientsOnOneStoreNeverSignOutTheWinner() async throws {
        let world = try LifecycleWorld(clients: 2)
        _ = try await world.signIn("shared")
        var random = ModelRandom(seed: 4)
        for round in 0..<40 {
            let logs = world.clients.map { RecordingSubscriber(client: $0) }
            let bases = world.clients.map { Int($0.events.currentSequence) }
            // Both instances find the session due at once; the network answers them in either order.
            world.sandbox.clock.advance(by: .seconds(ReferenceProtocol.accessTokenTTL - 30))
            let latency = world.sandbox.faults.add(
                .latency(.seconds(Int.random(in: 1...3, using: &random))), host: host, pathPrefix: "/token/refresh",
                repeat: .once)
            let tasks = world.clients.map { client in Task { try? await client.validSession(for: "reference") } }
            let done = ModelWorld.Finished(tasks)
            while done.count < tasks.count {
                if world.sandbox.clock.sleeperCount > 0 { world.sandbox.clock.advance(by: .seconds(1)) }
                await Task.yield()
            }
            world.sandbox.faults.remove(latency)
            var results: [AuthSession?] = []
            for task in tasks { results.append(await task.value) }
            let events0 = await logs[0].waitFor(count: Int(world.clients[0].events.currentSequence) - bases[0]).map(
                \.description)
            let events1 = await logs[1].waitFor(count: Int(world.clients[1].events.currentSequence) - bases[1]).map(
                \.description)
            let names =
                results.map { $0.map { ModelStore.name($0) } ?? "nil" }
                + world.sandbox.requestLog.suffix(4).map(\.description)
            let stored = try #require(
                try await world.store.load(for: provider),
                "round \(round): signed out; results \(names); events \(events0) / \(events1)")
            #expect(
                world.backend.isLive(refreshToken: try #require(stored.credentials.refreshToken).reveal()),
                "round \(round)")
            #expect(results.allSatisfy { $0 == stored }, "round \(round)")
            for (index, log) in logs.enumerated() {
                let names = await log.waitFor(count: Int(world.clients[index].events.currentSequence) - bases[index])
                    .map(\.kind.name)
                #expect(
                    !names.contains("signedOut") && !names.contains("sessionExpired"), "round \(round) client \(index)")
                log.cancel()
            }
        }
    }

    @Test func scenario5TheLastWrongCodePublishesAttemptsExhausted() async throws {
        let world = try LifecycleWorld()
        let log = RecordingSubscriber(client: world.client)
        let email = try EmailAddress("wrong@example.com")
        let challenge = try #require(try await world.client.signIn(with: provider, .email(email)).challenge)
        let code = try #require(world.sandbox.inbox.latest(for: email.identityKey)?.code)
        let wrong = ConformanceHarness.defaultWrongCode(code)
        var errors: [AuthError.Code] = []
        for _ in 0..<ReferenceProtocol.maximumAttempts {
            do { _ = try await world.client.submit(ChallengeAnswer(code: wrong), for: challenge) } catch let error
                as AuthError
            {
                errors.append(error.code)
            }
        }
        #expect(errors == [.invalidCode, .invalidCode, .attemptsExhausted])
        let events = await log.waitFor(count: Int(world.client.events.currentSequence))
        #expect(
            events.map(\.kind.name).filter { ["codeRejected", "attemptsExhausted"].contains($0) } == [
                "codeRejected", "codeRejected", "attemptsExhausted",
            ])
        #expect(events.last?.kind.name == "attemptsExhausted")
        #expect(await world.client.pendingChallenge(for: provider) == nil)
    }

    /// Case 8: sixteen simultaneous submits, the right code among them, sign in; the
    /// attempts the client shows are the ones the server applied.
    @Test func concurrentSubmitsWithTheRightCodeInsideTheBatchSignIn() async throws {
        for round in 0..<20 {
            let world = try LifecycleWorld()
            let email = try EmailAddress("tap\(round)@example.com")
            let challenge = try #require(try await world.client.signIn(with: provider, .email(email)).challenge)
            let code = try #require(world.sandbox.inbox.latest(for: email.identityKey)?.code)
            let wrong = ConformanceHarness.defaultWrongCode(code)
            let client = world.client
            let results = await withTaskGroup(of: AuthSession?.self) { group in
                for index in 0..<16 {
                    let answer = index == 7 ? code : (index < 2 ? wrong : code)
                    group.addTask { try? await client.submit(ChallengeAnswer(code: answer), for: challenge).session }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.contains { $0 != nil }, "round \(round): the right code was never accepted")
            #expect(world.sandbox.requestCount(pathPrefix: "/otp/verify") <= 3, "round \(round)")
        }
    }
}

/// A provider whose sign-in issues user `u1` and whose refresh answers for user `u2`, or for
/// another provider id: a buggy or hostile server.
private struct ForeignRefreshProvider: RefreshableProvider {
    let id: AuthProviderID = "foreign"
    let answerProvider: AuthProviderID
    let answerUser: String
    var signInProvider: AuthProviderID = "foreign"

    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        .signedIn(
            AuthSession(
                id: "s1", provider: signInProvider, user: AuthUser(id: "u1"),
                credentials: Credentials(accessToken: "a1", refreshToken: "r1"), createdAt: context.time.now))
    }

    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        throw AuthError(.unsupported, "no challenges", provider: id)
    }

    func signOut(_ session: AuthSession, context: AuthContext) async throws {}

    func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession {
        AuthSession(
            id: "s2", provider: answerProvider, user: AuthUser(id: answerUser),
            credentials: Credentials(accessToken: "a2", refreshToken: "r2"), createdAt: context.time.now)
    }
}

/// Rule L7 (Docs/Architecture.md, "Session lifecycle"): a refresh answer for another user, or
/// naming another provider, is refused as `malformedResponse`; the stored session stays user
/// 1's and no `sessionRefreshed` is published. With the `noRefreshIdentityCheck` mutation the
/// other user's session is stored as "the same session" (or, for another provider id, the store
/// write fails instead): the test sees it.
@Suite(.timeLimit(.minutes(10)))
struct RefreshIdentityTests {
    @Test(arguments: [("foreign", "u2"), ("other", "u1")])
    func l7ARefreshAnswerForAnotherUserIsRefusedAndTheSessionKept(provider: String, user: String) async throws {
        for mutated in [false, true] {
            let sandbox = Sandbox(seed: 7)
            let store = InMemorySessionStore()
            let client = try AuthClient(
                providers: [ForeignRefreshProvider(answerProvider: AuthProviderID(provider), answerUser: user)],
                store: store, transport: sandbox.transport, time: sandbox.clock.timeSource, autoRefresh: .disabled)
            if mutated { await client.setMutations(ClientMutations(noRefreshIdentityCheck: true)) }
            let email = try EmailAddress("ada@example.com")
            let signedIn = try #require(try await client.signIn(with: "foreign", .email(email)).session)
            let log = RecordingSubscriber(client: client)
            let base = Int(client.events.currentSequence)
            var refusal: AuthError?
            do { _ = try await client.refresh(signedIn) } catch let error as AuthError { refusal = error }
            let stored = try await store.load(for: "foreign")
            if mutated {
                #expect(
                    !(refusal?.code == .malformedResponse && stored == signedIn),
                    "without the guard the foreign answer is applied or fails otherwise, proving the guard matters")
                continue
            }
            #expect(refusal?.code == .malformedResponse)
            #expect(stored == signedIn)
            let events = await log.waitFor(count: Int(client.events.currentSequence) - base)
            #expect(!events.contains { $0.kind.name == "sessionRefreshed" })
        }
    }
}

/// Rule L8 (Docs/Architecture.md, "Session lifecycle"): a sign-in that answers with a session
/// naming another provider is refused as `malformedResponse` and nothing is stored under either
/// provider. With the `noSessionProviderCheck` mutation the session is stored under the other
/// provider's key and the client reports `.signedIn`: the test sees it.
@Suite(.timeLimit(.minutes(10)))
struct SessionProviderTests {
    @Test func l8ASessionOfAnotherProviderIsRefusedAndNothingStored() async throws {
        for mutated in [false, true] {
            let sandbox = Sandbox(seed: 8)
            let store = InMemorySessionStore()
            let client = try AuthClient(
                providers: [
                    ForeignRefreshProvider(answerProvider: "foreign", answerUser: "u1", signInProvider: "other")
                ],
                store: store, transport: sandbox.transport, time: sandbox.clock.timeSource, autoRefresh: .disabled)
            if mutated { await client.setMutations(ClientMutations(noSessionProviderCheck: true)) }
            let email = try EmailAddress("ada@example.com")
            var refusal: AuthError?
            var step: SignInStep?
            do { step = try await client.signIn(with: "foreign", .email(email)) } catch let error as AuthError {
                refusal = error
            }
            let storedOther = try await store.load(for: "other")
            let storedForeign = try await store.load(for: "foreign")
            if mutated {
                #expect(
                    step?.session != nil && storedOther != nil,
                    "the mutation should store the session under the other provider, proving the guard matters")
                continue
            }
            #expect(refusal?.code == .malformedResponse)
            #expect(step == nil)
            #expect(storedOther == nil)
            #expect(storedForeign == nil)
        }
    }
}
