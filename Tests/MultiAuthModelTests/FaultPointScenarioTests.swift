import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Synchronization
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
            #expect(backend.isLive(refreshToken: try #require(kept.credentials.refreshToken).reveal()))
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
        let newest = try #require(kept.credentials.refreshToken).reveal()
        #expect(backend.isLive(refreshToken: newest))
        #expect(try await client.signOut(provider).wasSignedIn)
        #expect(!backend.isLive(refreshToken: newest), "the sign-out revoked the newest refresh token")
        #expect(try await store.load(for: provider) == nil)
        #expect(try await client.validSession(for: provider) == nil)
    }

    /// L9 / S5: a manual refresh whose store write fails early in the session's life (long
    /// before the scheduler would refresh it) is written by the background scheduler after one
    /// back-off, without a network call and without waiting for the next call. Without the
    /// scheduler's retry the store keeps the rotated-out session until the next call.
    @Test func l9TheSchedulerRetriesTheUnsavedWriteWithBackoff() async throws {
        for mutated in [false, true] {
            let sandbox = Sandbox(seed: 24)
            let backend = ReferenceBackend()
            sandbox.register(backend, host: host)
            let store = FailingSessionStore()
            let client = try sandbox.makeClient(
                providers: [ReferenceProvider()], store: store, autoRefresh: AutoRefresh(jitterSeed: 7))
            if mutated { await client.setMutations(ClientMutations(noUnsavedRetryOnScheduler: true)) }
            let (challenge, code) = try await Self.signIn(client, sandbox: sandbox)
            let signedIn = try #require(try await client.submit(ChallengeAnswer(code: code), for: challenge).session)
            await sandbox.clock.waitForBackgroundSleepers(count: 1)
            let log = RecordingSubscriber(client: client)
            let base = Int(client.events.currentSequence)
            sandbox.clock.advance(by: .seconds(60))
            await store.failNext(.save)
            let failure = await #expect(throws: AuthError.self) { _ = try await client.refresh(signedIn) }
            #expect(failure?.code == .storageFailure)
            let refreshCalls = sandbox.requestCount(pathPrefix: "/token/refresh")
            // At most the first back-off (2 s, jittered into 1–2 s), far before the session is due.
            for _ in 0..<4 {
                await sandbox.clock.waitForBackgroundSleepers(count: 1)
                sandbox.clock.advance(by: .seconds(1))
            }
            await sandbox.clock.waitForBackgroundSleepers(count: 1)
            let stored = try #require(try await store.load(for: provider))
            #expect(sandbox.requestCount(pathPrefix: "/token/refresh") == refreshCalls, "no network call")
            if mutated {
                #expect(stored == signedIn, "without the scheduler's retry the write waits for the next call")
            } else {
                #expect(stored.id == signedIn.id && stored.user == signedIn.user)
                #expect(
                    stored.credentials.refreshToken != signedIn.credentials.refreshToken, "the unsaved write landed")
                #expect(backend.isLive(refreshToken: try #require(stored.credentials.refreshToken).reveal()))
                let kinds = await log.waitFor(count: Int(client.events.currentSequence) - base).map(\.kind.name)
                #expect(kinds == ["storageFailed", "sessionRefreshed"], "\(kinds)")
            }
            client.stopAutoRefresh()
        }
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

    /// F7: a sign-out arriving while a submit's save is in flight comes after the save, even when
    /// the submit's task is cancelled too (SwiftUI's `.task` ending with the view; F6: too late):
    /// the session is stored and announced, then the sign-out, queued behind the save on the
    /// provider's write turn, removes it, publishes `signedOut` and revokes it on the server in a
    /// task of its own, so the issued session does not outlive the sign-out.
    @Test func f7ASignOutDuringACancelledSubmitsSaveComesAfterItAndRevokesIt() async throws {
        let sandbox = Sandbox(seed: 24)
        let backend = ReferenceBackend()
        sandbox.register(backend, host: host)
        let store = HeldSaveStore()
        let revokes = RevokeWatchingProvider()
        let client = try sandbox.makeClient(providers: [revokes], store: store, autoRefresh: .disabled)
        let (challenge, code) = try await Self.signIn(client, sandbox: sandbox)
        await store.holdNextSave()
        let submit = Task { try await client.submit(ChallengeAnswer(code: code), for: challenge) }
        await store.waitUntilHeld()
        let signOut = Task { try await client.signOut(provider) }
        await client.waitUntilStateWritesQueued(provider)
        submit.cancel()
        await store.release()
        let session = try #require(try await submit.value.session, "the save came first: the sign-in finished")
        #expect(try await signOut.value.wasSignedIn, "then the sign-out removed it")
        #expect(try await store.load(for: provider) == nil)
        let revoke = try #require(await revokes.next(), "a remote sign-out ran")
        #expect(revoke == nil, "the revoke failed: \(String(describing: revoke))")
        #expect(!backend.isLive(refreshToken: try #require(session.credentials.refreshToken).reveal()))
    }

    /// F2/F7: a challenge decoded from an earlier process (the app was killed between the code
    /// being sent and entered) is abandoned by a sign-out like a flow started in this process: a
    /// sign-out while its submit's provider call is in flight leaves nothing stored and the issued
    /// session revoked. Before, the flow was unknown to the new client's flow state machine and the
    /// sign-out was ignored: the store held a session while the sign-out said "not signed in".
    @Test func f7AChallengeFromAnEarlierProcessIsAbandonedBySignOut() async throws {
        let sandbox = Sandbox(seed: 24)
        let backend = ReferenceBackend()
        sandbox.register(backend, host: host)
        let store = InMemorySessionStore()
        let earlier = try sandbox.makeClient(providers: [ReferenceProvider()], store: store, autoRefresh: .disabled)
        let (issued, code) = try await Self.signIn(earlier, sandbox: sandbox)
        let challenge = try JSONDecoder().decode(Challenge.self, from: try JSONEncoder().encode(issued))
        let hold = Hold()
        let answered = Mutex<AuthSession?>(nil)
        let client = try sandbox.makeClient(
            providers: [HeldAnswerProvider(hold: hold, record: { step in answered.withLock { $0 = step.session } })],
            store: store, autoRefresh: .disabled)
        let log = RecordingSubscriber(client: client)
        let submit = Task { try await client.submit(ChallengeAnswer(code: code), for: challenge) }
        await hold.waitUntilHeld()
        #expect(try await client.signOut(provider).wasSignedIn == false)
        await hold.release()
        let error = await #expect(throws: AuthError.self) { _ = try await submit.value }
        #expect(error?.code == .challengeNotPending)
        #expect(try await store.load(for: provider) == nil, "the store agrees with the sign-out")
        let issuedSession = answered.withLock { $0 }
        let token = try #require(issuedSession?.credentials.refreshToken, "the server answered with a session").reveal()
        #expect(!backend.isLive(refreshToken: token), "the session issued for the flow was revoked")
        let kinds = await log.waitFor(count: Int(client.events.currentSequence)).map(\.kind.name)
        #expect(!kinds.contains("signedIn"), "\(kinds)")
    }

    /// F7: a sign-out that arrives during a save which then fails leaves nothing behind: the
    /// submit says "signed out" (`challengeNotPending`), nothing is kept for a retry (a retry of
    /// the same answer cannot sign the user back in) and the issued session is revoked. Before,
    /// the session was kept unsaved and its refresh token stayed live on the server.
    @Test func f7ASignOutDuringASaveThatFailsRevokesTheIssuedSession() async throws {
        let sandbox = Sandbox(seed: 24)
        let backend = ReferenceBackend()
        sandbox.register(backend, host: host)
        let store = HeldSaveStore()
        let revokes = RevokeWatchingProvider()
        let client = try sandbox.makeClient(providers: [revokes], store: store, autoRefresh: .disabled)
        let (challenge, code) = try await Self.signIn(client, sandbox: sandbox)
        await store.holdNextSave(thenFail: true)
        let submit = Task { try await client.submit(ChallengeAnswer(code: code), for: challenge) }
        await store.waitUntilHeld()
        let signOut = Task { try await client.signOut(provider) }
        await client.waitUntilStateWritesQueued(provider)
        await store.release()
        let error = await #expect(throws: AuthError.self) { _ = try await submit.value }
        #expect(error?.code == .challengeNotPending)
        #expect(try await signOut.value.wasSignedIn == false, "nothing was stored")
        let retry = await #expect(throws: AuthError.self) {
            _ = try await client.submit(ChallengeAnswer(code: code), for: challenge)
        }
        #expect(retry?.code == .challengeNotPending, "nothing was kept for a retry")
        #expect(try await store.load(for: provider) == nil)
        let revoke = try #require(await revokes.next(), "a remote sign-out ran")
        #expect(revoke == nil, "the revoke failed: \(String(describing: revoke))")
        let issued = try #require(await store.attempted.last?.credentials.refreshToken).reveal()
        #expect(!backend.isLive(refreshToken: issued))
    }

    /// L12: a sign-out that lands while a refresh is in flight leaves no live refresh token on
    /// the server. The sign-out revokes the credentials it found, which the refresh has just
    /// rotated out; the refresh's result is discarded (the session is gone) and revoked too.
    /// Without the rule the rotated-in refresh token stays live after the user signed out.
    @Test func l12ARefreshOvertakenBySignOutRevokesWhatItReceived() async throws {
        for mutated in [false, true] {
            let sandbox = Sandbox(seed: 24)
            let backend = ReferenceBackend()
            sandbox.register(backend, host: host)
            let hold = Hold()
            let held = HeldRefreshProvider(hold: hold)
            let client = try sandbox.makeClient(
                providers: [held], store: InMemorySessionStore(), autoRefresh: .disabled)
            if mutated { await client.setMutations(ClientMutations(noOrphanRevoke: true)) }
            let (challenge, code) = try await Self.signIn(client, sandbox: sandbox)
            let signedIn = try #require(try await client.submit(ChallengeAnswer(code: code), for: challenge).session)
            let refresh = Task { try await client.refresh(signedIn) }
            await hold.waitUntilHeld()  // the server rotated the refresh token; the answer is held
            #expect(try await client.signOut(provider).wasSignedIn)
            await hold.release()
            let error = await #expect(throws: AuthError.self) { _ = try await refresh.value }
            #expect(error?.code == .unauthorized, "the session was signed out")
            let rotatedIn = try #require(await held.refreshed.last?.credentials.refreshToken).reveal()
            #expect(!backend.isLive(refreshToken: try #require(signedIn.credentials.refreshToken).reveal()))
            if mutated {
                #expect(backend.isLive(refreshToken: rotatedIn), "without L12 the rotated-in token stays live")
                continue
            }
            _ = try #require(await held.revoked.next(), "the sign-out's revoke")
            _ = try #require(await held.revoked.next(), "the discarded refresh result was revoked")
            #expect(!backend.isLive(refreshToken: rotatedIn), "no live refresh token outlives the sign-out")
        }
    }

    /// Every state change appears once on `authStates()`: an app that starts iterating before
    /// it calls `restoreSessions()` sees the stored session in the initial state and not again
    /// as `sessionRestored`, and a second restore repeats nothing. The raw event stream, which
    /// has no initial state, still gets each event once. Before the fix the restored session
    /// arrived twice.
    @Test func aStateChangeAppearsOnceOnTheStateStream() async throws {
        let sandbox = Sandbox(seed: 24)
        sandbox.register(ReferenceBackend(), host: host)
        let store = InMemorySessionStore()
        let first = try sandbox.makeClient(providers: [ReferenceProvider()], store: store, autoRefresh: .disabled)
        let (challenge, code) = try await Self.signIn(first, sandbox: sandbox)
        let stored = try #require(try await first.submit(ChallengeAnswer(code: code), for: challenge).session)

        // The next launch: iterate first, restore second.
        let client = try sandbox.makeClient(providers: [ReferenceProvider()], store: store, autoRefresh: .disabled)
        let raw = RecordingSubscriber(client: client)
        var states = client.authStates().makeAsyncIterator()
        let initial = try #require(await states.next())
        guard case .initialState(let state) = initial.kind else {
            Issue.record("the first element was \(initial.kind.name)")
            return
        }
        #expect(state.sessions[provider]?.session == stored)
        await client.restoreSessions()
        #expect(try await client.signOut(provider).wasSignedIn)
        let next = try #require(await states.next())
        #expect(next.kind.name == "signedOut", "the restored session was announced twice: \(next.kind.name)")
        #expect(await raw.waitFor(count: 2).map(\.kind.name) == ["sessionRestored", "signedOut"])

        // A second restore announces nothing new on the state stream either.
        let (again, secondCode) = try await Self.signIn(client, sandbox: sandbox, user: "grace")
        _ = try #require(try await client.submit(ChallengeAnswer(code: secondCode), for: again).session)
        var kinds: [String] = []
        while let event = await states.next() {
            kinds.append(event.kind.name)
            if event.kind.name == "signedIn" { break }
        }
        await client.restoreSessions()
        _ = try await client.signOut(provider)
        let after = try #require(await states.next())
        #expect(after.kind.name == "signedOut", "a second restore repeated the session: \(after.kind.name)")
        raw.cancel()
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
    /// Found by the model-based test (seed 51003888 on file stores): with no pending flow the
    /// provider refuses the link (`challengeNotPending`), and the F8 fallback answered with the
    /// stored session because *some* flow that finished on this client stored it. It now answers
    /// only when that flow is the newest since the last sign-out and every other one finished.
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
        #expect(answered == nil, "B's link was answered with \(answered?.user.id ?? "-") (A is \(a.user.id))")
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
    /// Found by the model-based test: the cancelled submit published `flowCancelled`, which
    /// marked the flow cancelled in the event gate while the flow stayed pending; the retry then
    /// stored the session and the gate dropped its `signedIn`.
    @Test func f6ACancellationBeforeTheProviderCallSpendsNothingAndTheRetryIsAnnounced() async throws {
        let sandbox = Sandbox(seed: 24)
        let backend = ReferenceBackend()
        sandbox.register(backend, host: host)
        let store = InMemorySessionStore()
        let client = try sandbox.makeClient(providers: [ReferenceProvider()], store: store, autoRefresh: .disabled)
        let (challenge, code) = try await Self.signIn(client, sandbox: sandbox)
        let flow = try #require(challenge.providerState[revealing: "flowId"])
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
        #expect(kinds.contains("signedIn"), "store and events agree: \(kinds)")
    }

    /// F7: a sign-out arriving while the submit's store write is in flight is ordered after the
    /// write by the provider's write turn: the submit signs in (`signedIn`), then the sign-out
    /// removes that session (`signedOut`, `wasSignedIn`) and revokes it. Store and events agree:
    /// signed out. With the `signOutReadsOutsideTurn` mutation the sign-out reads the store before
    /// the save lands, finds nothing, and the session of a flow started before the sign-out
    /// survives it.
    @Test func f7ASignOutDuringTheSubmitsSaveComesAfterItAndEndsIt() async throws {
        for mutated in [false, true] {
            let sandbox = Sandbox(seed: 24)
            let backend = ReferenceBackend()
            sandbox.register(backend, host: host)
            let store = HeldSaveStore()
            let client = try sandbox.makeClient(providers: [ReferenceProvider()], store: store, autoRefresh: .disabled)
            if mutated { await client.setMutations(ClientMutations(signOutReadsOutsideTurn: true)) }
            let (challenge, code) = try await Self.signIn(client, sandbox: sandbox)
            let log = RecordingSubscriber(client: client)
            let base = Int(client.events.currentSequence)
            await store.holdNextSave()
            let submit = Task { try await client.submit(ChallengeAnswer(code: code), for: challenge) }
            await store.waitUntilHeld()
            let signOut = Task { try await client.signOut(provider) }
            await client.waitUntilStateWritesQueued(provider)
            await store.release()
            let session = try #require(try await submit.value.session)
            let outcome = try await signOut.value
            let stored = try await store.load(for: provider)
            let kinds = await log.waitFor(count: Int(client.events.currentSequence) - base).map(\.kind.name)
            if mutated {
                #expect(
                    !outcome.wasSignedIn && stored == session,
                    "without F7 the session of a flow started before the sign-out survives it: \(kinds)")
                continue
            }
            #expect(outcome.wasSignedIn)
            #expect(stored == nil)
            #expect(kinds.filter { ["signedIn", "signedOut"].contains($0) } == ["signedIn", "signedOut"], "\(kinds)")
            #expect(!backend.isLive(refreshToken: try #require(session.credentials.refreshToken).reveal()), "revoked")
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
    /// Called with every step the server answered, before the hold.
    var record: @Sendable (SignInStep) -> Void = { _ in }
    var id: AuthProviderID { base.id }

    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        try await base.start(request, context: context)
    }

    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        let step = try await base.respond(to: challenge, with: answer, context: context)
        record(step)
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

    /// Every session a `save` was called with (written or not), in order.
    private(set) var attempted: [AuthSession] = []
    private var failHeld = false

    /// Holds the next `save` before it writes; with `thenFail`, the held save then throws
    /// instead of writing.
    func holdNextSave(thenFail: Bool = false) {
        gate = Hold()
        failHeld = thenFail
    }

    func waitUntilHeld() async { await gate?.waitUntilHeld() }
    func release() async { await gate?.release() }

    func load(for provider: AuthProviderID) async throws -> AuthSession? { try await base.load(for: provider) }

    func save(_ session: AuthSession) async throws {
        attempted.append(session)
        if let gate {
            await gate.pass()
            if failHeld {
                failHeld = false
                self.gate = nil
                throw AuthError(.storageFailure, "the held save failed")
            }
        }
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

/// The reference provider, reporting each remote sign-out's outcome (`nil`: it succeeded) as it
/// finishes, so a test can await a revoke that runs in a task of its own.
private struct RevokeWatchingProvider: RefreshableProvider {
    let base = ReferenceProvider()
    private let outcomes: AsyncStream<AuthError?>
    private let report: AsyncStream<AuthError?>.Continuation
    var id: AuthProviderID { base.id }

    init() { (outcomes, report) = AsyncStream.makeStream() }

    /// The next remote sign-out's outcome.
    func next() async -> AuthError?? {
        var iterator = outcomes.makeAsyncIterator()
        return await iterator.next()
    }

    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        try await base.start(request, context: context)
    }

    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        try await base.respond(to: challenge, with: answer, context: context)
    }

    func signOut(_ session: AuthSession, context: AuthContext) async throws {
        do {
            try await base.signOut(session, context: context)
            report.yield(nil)
        } catch {
            report.yield(error as? AuthError ?? AuthError(.generic, "\(error)"))
            throw error
        }
    }

    func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession {
        try await base.refresh(session, context: context)
    }
}

/// The reference provider, whose first `refresh` is held by ``Hold`` after the server answered;
/// it records every refreshed session and reports each remote sign-out as it finishes.
private actor HeldRefreshProvider: RefreshableProvider {
    let base = ReferenceProvider()
    let hold: Hold
    let revoked = RevokeWatchingProvider()
    private(set) var refreshed: [AuthSession] = []
    nonisolated var id: AuthProviderID { base.id }

    init(hold: Hold) { self.hold = hold }

    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        try await base.start(request, context: context)
    }

    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        try await base.respond(to: challenge, with: answer, context: context)
    }

    func signOut(_ session: AuthSession, context: AuthContext) async throws {
        try await revoked.signOut(session, context: context)
    }

    func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession {
        let session = try await base.refresh(session, context: context)
        refreshed.append(session)
        await hold.pass()
        return session
    }
}
