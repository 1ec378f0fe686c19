import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

/// One scenario per fault point of the session lifecycle (Docs/Architecture.md, "Session
/// lifecycle" L9, "Sign-in flows" F6 and F7), each against the reference provider and its
/// emulated backend on the manual clock. Each test runs twice: with every guard on it checks
/// the rule; with the rule's mutation (`ClientMutations`) it checks that the failure the rule
/// prevents happens, so the test is shown to be able to fail.
@Suite(.timeLimit(.minutes(10)))
struct FaultPointScenarioTests {
    let provider: AuthProviderID = "reference"
    let host = ReferenceProtocol.defaultHost

    static func signIn(
        _ client: AuthClient, sandbox: Sandbox, user: String = "ada"
    ) async throws -> (Challenge, String) {
        let email = try EmailAddress("\(user)@example.com")
        let challenge = try #require(try await client.signIn(with: "reference", .email(email)).challenge)
        let code = try #require(sandbox.inbox.latest(for: email.identityKey)?.code)
        return (challenge, code)
    }

    /// L9: a store write that fails after a rotating refresh (a keychain locked for a moment)
    /// no longer logs the user out. The refreshed session is kept unsaved; the next
    /// `validSession` writes it without a network call and returns it. Without the rule the
    /// next refresh spends the rotated-out refresh token, the server answers `invalid_grant`
    /// and rule L3 ends the session.
    @Test func l9AFailedWriteAfterARotatingRefreshNeverEndsTheSession() async throws {
        for mutated in [false, true] {
            let sandbox = Sandbox(seed: 24)
            let backend = ReferenceBackend()
            sandbox.register(backend, host: host)
            let store = FailingSessionStore()
            let client = try sandbox.makeClient(providers: [ReferenceProvider()], store: store, autoRefresh: .disabled)
            if mutated { await client.setMutations(ClientMutations(noUnsavedRefresh: true)) }
            let (challenge, code) = try await Self.signIn(client, sandbox: sandbox)
            let signedIn = try #require(try await client.submit(ChallengeAnswer(code: code), for: challenge).session)
            let log = RecordingSubscriber(client: client)
            let base = Int(client.events.currentSequence)
            sandbox.clock.advance(by: .seconds(ReferenceProtocol.accessTokenTTL - 30))
            await store.failNext(.save)
            let failure = await #expect(throws: AuthError.self) { _ = try await client.refresh(signedIn) }
            #expect(failure?.code == .storageFailure)
            #expect(try await store.load(for: provider) == signedIn, "the failed write changed nothing stored")
            // Past the server's reuse interval: the old refresh token is rotated out for good.
            sandbox.clock.advance(by: .seconds(ReferenceProtocol.refreshReuseInterval + 1))
            let refreshCalls = sandbox.requestCount(pathPrefix: "/token/refresh")
            let valid: AuthSession?
            do { valid = try await client.validSession(for: provider) } catch { valid = nil }
            let stored = try await store.load(for: provider)
            let kinds = await log.waitFor(count: Int(client.events.currentSequence) - base).map(\.kind.name)
            if mutated {
                #expect(
                    stored == nil && kinds.contains("sessionExpired"),
                    "without L9 the rotated-out refresh token should end the session: \(kinds)")
                continue
            }
            let kept = try #require(valid, "validSession returned no session: \(kinds)")
            #expect(kept.id == signedIn.id && kept.user == signedIn.user)
            #expect(kept.credentials.refreshToken != signedIn.credentials.refreshToken)
            #expect(stored == kept, "the unsaved session was written")
            #expect(sandbox.requestCount(pathPrefix: "/token/refresh") == refreshCalls, "no network call")
            #expect(backend.isLive(refreshToken: try #require(kept.credentials.refreshToken)))
            #expect(kinds == ["storageFailed", "sessionRefreshed"], "\(kinds)")
        }
    }

    /// L9: while the store keeps failing, `validSession` returns the unsaved session (its
    /// access token is the newest) and a sign-out revokes the unsaved refresh token, not the
    /// rotated-out one.
    @Test func l9TheUnsavedSessionIsReturnedWhileTheStoreFailsAndRevokedBySignOut() async throws {
        let sandbox = Sandbox(seed: 24)
        let backend = ReferenceBackend()
        sandbox.register(backend, host: host)
        let store = FailingSessionStore()
        let client = try sandbox.makeClient(providers: [ReferenceProvider()], store: store, autoRefresh: .disabled)
        let (challenge, code) = try await Self.signIn(client, sandbox: sandbox)
        let signedIn = try #require(try await client.submit(ChallengeAnswer(code: code), for: challenge).session)
        sandbox.clock.advance(by: .seconds(ReferenceProtocol.accessTokenTTL - 30))
        await store.failNext(.save, count: 2)
        _ = try? await client.refresh(signedIn)
        let kept = try #require(try await client.validSession(for: provider))
        #expect(kept.id == signedIn.id)
        #expect(kept.credentials.refreshToken != signedIn.credentials.refreshToken)
        #expect(try await store.load(for: provider) == signedIn, "the second write failed too")
        let newest = try #require(kept.credentials.refreshToken)
        #expect(backend.isLive(refreshToken: newest))
        #expect(try await client.signOut(provider).wasSignedIn)
        #expect(!backend.isLive(refreshToken: newest), "the sign-out revoked the newest refresh token")
        #expect(try await store.load(for: provider) == nil)
        #expect(try await client.validSession(for: provider) == nil)
    }

    /// L10: a refresh of user A's session that is discarded because user B signed in meanwhile
    /// throws `unauthorized`; the caller is never handed B's session. Without the rule the
    /// caller of A's refresh gets B's session.
    @Test func l10ARefreshOfOneUsersSessionNeverAnswersWithAnothers() async throws {
        for mutated in [false, true] {
            let sandbox = Sandbox(seed: 24)
            sandbox.register(ReferenceBackend(), host: host)
            let store = InMemorySessionStore()
            let client = try sandbox.makeClient(providers: [ReferenceProvider()], store: store, autoRefresh: .disabled)
            if mutated { await client.setMutations(ClientMutations(refreshReturnsAnySession: true)) }
            let (first, firstCode) = try await Self.signIn(client, sandbox: sandbox, user: "a")
            let a = try #require(try await client.submit(ChallengeAnswer(code: firstCode), for: first).session)
            sandbox.faults.add(.latency(.seconds(5)), host: host, pathPrefix: "/token/refresh", repeat: .once)
            let refresh = Task { try await client.refresh(a) }
            await sandbox.clock.waitForSleepers(count: 1)
            let (second, secondCode) = try await Self.signIn(client, sandbox: sandbox, user: "b")
            let b = try #require(try await client.submit(ChallengeAnswer(code: secondCode), for: second).session)
            sandbox.clock.advance(by: .seconds(5))
            let answer: Result<AuthSession, any Error>
            do { answer = .success(try await refresh.value) } catch { answer = .failure(error) }
            #expect(try await store.load(for: provider) == b)
            if mutated {
                #expect((try? answer.get()) == b, "without L10 the refresh of A answers with B's session")
                continue
            }
            guard case .failure(let error as AuthError) = answer else {
                Issue.record("the refresh of A should throw unauthorized, got \(answer)")
                continue
            }
            #expect(error.code == .unauthorized)
        }
    }

    /// L11: a sign-out whose remote revoke never answers (a dead network) ends the session
    /// locally at once: the store is empty, `validSession` returns `nil` and `signedOut` is
    /// published while the revoke still hangs; after ``AuthClient/remoteSignOutTimeout`` the
    /// sign-out returns with the revoke reported as a `.network` error. Without the rule the
    /// session stays stored and valid until the revoke answers.
    @Test func l11ASignOutWithAHangingRevokeEndsTheSessionLocallyAtOnce() async throws {
        for mutated in [false, true] {
            let sandbox = Sandbox(seed: 24)
            sandbox.register(ReferenceBackend(), host: host)
            let store = InMemorySessionStore()
            let client = try sandbox.makeClient(providers: [ReferenceProvider()], store: store, autoRefresh: .disabled)
            if mutated { await client.setMutations(ClientMutations(revokeBeforeLocalRemoval: true)) }
            let (challenge, code) = try await Self.signIn(client, sandbox: sandbox)
            _ = try #require(try await client.submit(ChallengeAnswer(code: code), for: challenge).session)
            let log = RecordingSubscriber(client: client)
            let base = Int(client.events.currentSequence)
            let dead = sandbox.faults.add(.latency(.seconds(86_400)), host: host, pathPrefix: "/logout")
            let signOut = Task { try await client.signOut(provider) }
            await sandbox.clock.waitForSleepers(count: 1)  // the revoke hangs on the dead network
            let stored = try await store.load(for: provider)
            let valid = try await client.validSession(for: provider)
            if mutated {
                #expect(stored != nil && valid != nil, "without L11 the session stays while the revoke hangs")
                sandbox.clock.advance(by: .seconds(86_400))
                _ = try await signOut.value
                sandbox.faults.remove(dead)
                continue
            }
            #expect(stored == nil)
            #expect(valid == nil)
            let kinds = await log.waitFor(count: 1).map(\.kind.name)
            #expect(kinds == ["signedOut"])
            sandbox.clock.advance(by: AuthClient.remoteSignOutTimeout)
            let outcome = try await signOut.value
            #expect(outcome.wasSignedIn)
            #expect(outcome.remoteError?.code == .network)
            #expect(Int(client.events.currentSequence) - base == 1, "one signedOut, nothing else")
            sandbox.faults.remove(dead)
        }
    }

    /// F8: the user asked for a second e-mail, signed in with its link, then tapped the link of
    /// the first e-mail: the answer is the session that flow stored, not an error telling a
    /// signed-in user to start again. After a sign-out the old link is refused as before.
    /// Without the rule the second link throws `challengeNotPending`.
    @Test func f8ASecondLinkOfAFlowThatSignedInAnswersWithItsSession() async throws {
        for mutated in [false, true] {
            let sandbox = Sandbox(seed: 24)
            sandbox.register(ReferenceBackend(), host: host)
            let client = try sandbox.makeClient(providers: [ReferenceProvider()], autoRefresh: .disabled)
            if mutated { await client.setMutations(ClientMutations(noAlreadySignedInRedirect: true)) }
            let (challenge, _) = try await Self.signIn(client, sandbox: sandbox)
            let email = try EmailAddress("ada@example.com")
            let firstLink = try #require(sandbox.inbox.latest(for: email.identityKey)?.link)
            sandbox.clock.advance(by: .seconds(ReferenceProtocol.resendAfter))
            _ = try await client.resend(challenge)
            let secondLink = try #require(sandbox.inbox.latest(for: email.identityKey)?.link)
            #expect(secondLink != firstLink)
            let session = try #require(try await client.handleRedirect(secondLink)?.session)
            let again: Result<SignInStep?, any Error>
            do { again = .success(try await client.handleRedirect(firstLink)) } catch { again = .failure(error) }
            if mutated {
                guard case .failure(let error as AuthError) = again else {
                    Issue.record("without F8 the first link should throw, got \(again)")
                    continue
                }
                #expect(error.code == .challengeNotPending)
                continue
            }
            #expect((try? again.get())??.session == session, "\(again)")
            #expect(try await client.signOut(provider).wasSignedIn)
            let afterSignOut = await #expect(throws: AuthError.self) { _ = try await client.handleRedirect(firstLink) }
            #expect(afterSignOut?.code == .challengeNotPending)
        }
    }

    /// F8 and L10: a link of another user's flow never answers with the stored session. User A
    /// signed in on this client; user B started a sign-in by link on it and the link expired.
    /// The first delivery of B's link is refused as expired; delivered again (no flow is pending
    /// any more) it must be refused too, never answered with A's session.
    ///
    /// KNOWN FAILURE (found by the model-based test, seed 51003888 of `SessionLifecycleModelTests`
    /// on file stores): with no pending flow the provider refuses the link
    /// (`challengeNotPending`), and the F8 fallback answers with the stored session because
    /// *some* flow finished on this client stored it, without checking that the link belongs
    /// to that flow. Remove `withKnownIssue` once the library is fixed.
    @Test func f8ALinkOfAnotherUsersFlowNeverAnswersWithTheStoredSession() async throws {
        let sandbox = Sandbox(seed: 24)
        sandbox.register(ReferenceBackend(), host: host)
        let client = try sandbox.makeClient(providers: [ReferenceProvider()], autoRefresh: .disabled)
        let (challenge, code) = try await Self.signIn(client, sandbox: sandbox, user: "a")
        let a = try #require(try await client.submit(ChallengeAnswer(code: code), for: challenge).session)
        let b = try EmailAddress("b@example.com")
        _ = try #require(try await client.signIn(with: provider, .email(b)).challenge)
        let link = try #require(sandbox.inbox.latest(for: b.identityKey)?.link)
        sandbox.clock.advance(by: .seconds(ReferenceProtocol.challengeTTL + 1))
        let first = await #expect(throws: AuthError.self) { _ = try await client.handleRedirect(link) }
        #expect(first?.code == .expired)
        let again: Result<SignInStep?, any Error>
        do { again = .success(try await client.handleRedirect(link)) } catch { again = .failure(error) }
        let answered = (try? again.get())??.session
        withKnownIssue("F8 answers a link of user B's flow with user A's stored session") {
            #expect(answered == nil, "B's link was answered with \(answered?.user.id ?? "-") (A is \(a.user.id))")
        }
    }

    /// F5: after a resend, the challenge value the app held from before it still addresses the
    /// live flow with the new expiry: submitting the new code with it signs in although the old
    /// value's own expiry has passed. Without the rule it is refused as `expired` locally.
    @Test func f5AChallengeHeldFromBeforeAResendStillAddressesTheLiveFlow() async throws {
        for mutated in [false, true] {
            let sandbox = Sandbox(seed: 24)
            sandbox.register(ReferenceBackend(), host: host)
            let client = try sandbox.makeClient(providers: [ReferenceProvider()], autoRefresh: .disabled)
            if mutated { await client.setMutations(ClientMutations(judgeHeldChallenge: true)) }
            let (held, _) = try await Self.signIn(client, sandbox: sandbox)
            sandbox.clock.advance(by: .seconds(ReferenceProtocol.challengeTTL - 100))
            let renewed = try await client.resend(held)
            #expect(renewed.flowID == held.flowID)
            let code = try #require(sandbox.inbox.latest(for: try EmailAddress("ada@example.com").identityKey)?.code)
            sandbox.clock.advance(by: .seconds(150))  // past the held value's expiry, inside the renewed one
            #expect(held.isExpired(at: sandbox.clock.wallNow) && !renewed.isExpired(at: sandbox.clock.wallNow))
            let result: Result<SignInStep, any Error>
            do { result = .success(try await client.submit(ChallengeAnswer(code: code), for: held)) } catch {
                result = .failure(error)
            }
            if mutated {
                if case .failure(let error as AuthError) = result {
                    #expect(error.code == .expired)
                } else {
                    Issue.record("without F5 the held challenge should be refused as expired, got \(result)")
                }
                continue
            }
            #expect((try? result.get())?.session != nil, "\(result)")
        }
    }

    /// F6: a submit whose task is cancelled after the provider answered (SwiftUI's `.task`
    /// cancels when the view disappears) keeps what the server issued: the session is stored and
    /// announced, and the same answer gets it again. Without the rule the session is thrown
    /// away, the code is spent, and the retry is refused.
    @Test func f6ACancellationAfterTheProviderAnsweredKeepsTheSession() async throws {
        for mutated in [false, true] {
            let sandbox = Sandbox(seed: 24)
            sandbox.register(ReferenceBackend(), host: host)
            let hold = Hold()
            let store = InMemorySessionStore()
            let client = try sandbox.makeClient(
                providers: [HeldAnswerProvider(hold: hold)], store: store, autoRefresh: .disabled)
            if mutated { await client.setMutations(ClientMutations(discardAnswerOnCancel: true)) }
            let (challenge, code) = try await Self.signIn(client, sandbox: sandbox)
            let log = RecordingSubscriber(client: client)
            let base = Int(client.events.currentSequence)
            let submit = Task { try await client.submit(ChallengeAnswer(code: code), for: challenge) }
            await hold.waitUntilHeld()
            submit.cancel()
            await hold.release()
            let first = try? await submit.value
            let stored = try await store.load(for: provider)
            if mutated {
                #expect(stored == nil, "without F6 the cancelled submit should throw the session away")
                continue
            }
            let session = try #require(stored, "the session the server issued was stored")
            #expect(first?.session == session, "the cancellation came too late: the caller gets the session")
            let again = try await client.submit(ChallengeAnswer(code: code), for: challenge)
            #expect(again.session == session, "the same answer gets the session again")
            let kinds = await log.waitFor(count: Int(client.events.currentSequence) - base).map(\.kind.name)
            #expect(kinds.contains("signedIn") && !kinds.contains("flowCancelled"), "\(kinds)")
        }
    }

    /// F6, the other half: a submit whose task is cancelled before the provider call (here while
    /// its request waits on the network) spends nothing: the code is not verified on the
    /// server, and the same code submitted again signs in — stored, returned and announced with
    /// `signedIn`, so store and events agree.
    ///
    /// KNOWN FAILURE (found by the model-based test, `SessionLifecycleModelTests`): the cancelled
    /// submit publishes `flowCancelled`, which marks the flow cancelled in the event gate while
    /// the flow stays pending; the retry then stores the session and the gate drops its
    /// `signedIn`. Remove `withKnownIssue` once the library is fixed.
    @Test func f6ACancellationBeforeTheProviderCallSpendsNothingAndTheRetryIsAnnounced() async throws {
        let sandbox = Sandbox(seed: 24)
        let backend = ReferenceBackend()
        sandbox.register(backend, host: host)
        let store = InMemorySessionStore()
        let client = try sandbox.makeClient(providers: [ReferenceProvider()], store: store, autoRefresh: .disabled)
        let (challenge, code) = try await Self.signIn(client, sandbox: sandbox)
        let flow = try #require(challenge.providerState["flowId"])
        let log = RecordingSubscriber(client: client)
        let base = Int(client.events.currentSequence)
        let slow = sandbox.faults.add(.latency(.seconds(5)), host: host, pathPrefix: "/otp/verify", repeat: .once)
        let submit = Task { try await client.submit(ChallengeAnswer(code: code), for: challenge) }
        await sandbox.clock.waitForSleepers(count: 1)  // the request waits on the network
        submit.cancel()
        let first: Result<SignInStep, any Error>
        do { first = .success(try await submit.value) } catch { first = .failure(error) }
        sandbox.faults.remove(slow)
        guard case .failure(is CancellationError) = first else {
            Issue.record("the cancelled submit should throw CancellationError, got \(first)")
            return
        }
        #expect(backend.successfulVerifications(ofFlow: flow) == 0, "nothing was spent")
        #expect(try await store.load(for: provider) == nil)
        let session = try #require(try await client.submit(ChallengeAnswer(code: code), for: challenge).session)
        #expect(try await store.load(for: provider) == session, "the same code signed in")
        let kinds = await log.waitFor(count: Int(client.events.currentSequence) - base).map(\.kind.name)
        withKnownIssue(
            "a cancelled submit leaves its flow cancelled in the event gate: the retry's signedIn is dropped"
        ) {
            #expect(kinds.contains("signedIn"), "store and events agree: \(kinds)")
        }
    }

    /// F7: a sign-out arriving while the submit's store write is in flight. The sign-out finds
    /// nothing stored and says so; the submit then takes its session back and fails with
    /// `challengeNotPending`: the store is empty and no event says otherwise. Without the rule
    /// the store holds a session that no `signedIn` announced and the sign-out did not remove.
    @Test func f7ASignOutDuringTheSubmitsSaveLeavesStoreAndEventsAgreeing() async throws {
        for mutated in [false, true] {
            let sandbox = Sandbox(seed: 24)
            let backend = ReferenceBackend()
            sandbox.register(backend, host: host)
            let store = HeldSaveStore()
            let client = try sandbox.makeClient(providers: [ReferenceProvider()], store: store, autoRefresh: .disabled)
            if mutated { await client.setMutations(ClientMutations(noAbandonAfterSave: true)) }
            let (challenge, code) = try await Self.signIn(client, sandbox: sandbox)
            let log = RecordingSubscriber(client: client)
            let base = Int(client.events.currentSequence)
            await store.holdNextSave()
            let submit = Task { try await client.submit(ChallengeAnswer(code: code), for: challenge) }
            await store.waitUntilHeld()
            let outcome = try await client.signOut(provider)
            #expect(!outcome.wasSignedIn, "nothing was stored when the sign-out looked")
            await store.release()
            let result: Result<SignInStep, any Error>
            do { result = .success(try await submit.value) } catch { result = .failure(error) }
            let stored = try await store.load(for: provider)
            let kinds = await log.waitFor(count: Int(client.events.currentSequence) - base).map(\.kind.name)
            if mutated {
                #expect(
                    stored != nil && !kinds.contains("signedIn"),
                    "without F7 the store should hold a session no event announced: \(kinds)")
                continue
            }
            guard case .failure(let error as AuthError) = result else {
                Issue.record("the submit should fail after the sign-out, got \(result)")
                continue
            }
            #expect(error.code == .challengeNotPending)
            #expect(stored == nil)
            #expect(!kinds.contains("signedIn") && !kinds.contains("signedOut"), "\(kinds)")
            let withdrawn = try #require(await store.saved.last?.credentials.refreshToken)
            #expect(!backend.isLive(refreshToken: withdrawn), "the withdrawn session was revoked on the server")
        }
    }
}

/// A one-shot gate: the first `pass()` suspends until ``release()``.
actor Hold {
    private var held: CheckedContinuation<Void, Never>?
    private var watchers: [CheckedContinuation<Void, Never>] = []
    private var armed = true
    private var reached = false

    /// Suspends the first caller until ``release()``; later callers pass at once.
    func pass() async {
        guard armed else { return }
        armed = false
        reached = true
        for watcher in watchers { watcher.resume() }
        watchers = []
        await withCheckedContinuation { held = $0 }
    }

    /// Returns once a caller is held in ``pass()``.
    func waitUntilHeld() async {
        guard !reached else { return }
        await withCheckedContinuation { watchers.append($0) }
    }

    /// Lets the held caller go (waits for it to arrive first).
    func release() async {
        await waitUntilHeld()
        while held == nil { await Task.yield() }
        held?.resume()
        held = nil
    }
}

/// The reference provider, whose first `respond` is held by ``Hold`` after the server answered.
private struct HeldAnswerProvider: RefreshableProvider {
    let base = ReferenceProvider()
    let hold: Hold
    var id: AuthProviderID { base.id }

    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        try await base.start(request, context: context)
    }

    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        let step = try await base.respond(to: challenge, with: answer, context: context)
        await hold.pass()
        return step
    }

    func signOut(_ session: AuthSession, context: AuthContext) async throws {
        try await base.signOut(session, context: context)
    }

    func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession {
        try await base.refresh(session, context: context)
    }
}

/// An in-memory store whose next `save` is held (before it writes) until released.
actor HeldSaveStore: SessionStore {
    let base = InMemorySessionStore()
    private var gate: Hold?
    /// Every session saved, in order.
    private(set) var saved: [AuthSession] = []

    /// Holds the next `save` before it writes.
    func holdNextSave() { gate = Hold() }

    func waitUntilHeld() async { await gate?.waitUntilHeld() }
    func release() async { await gate?.release() }

    func load(for provider: AuthProviderID) async throws -> AuthSession? { try await base.load(for: provider) }

    func save(_ session: AuthSession) async throws {
        if let gate { await gate.pass() }
        try await base.save(session)
        saved.append(session)
    }

    func remove(for provider: AuthProviderID) async throws { try await base.remove(for: provider) }
    func removeAll() async throws { try await base.removeAll() }
    func replace(_ expected: AuthSession?, with replacement: AuthSession?, for provider: AuthProviderID) async throws
        -> SessionStoreWriteResult
    {
        try await base.replace(expected, with: replacement, for: provider)
    }
}
