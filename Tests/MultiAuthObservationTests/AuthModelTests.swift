import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Observation
import Testing

@testable import MultiAuthObservation

/// Counts the changes Observation reports for one property (re-registering synchronously in
/// `onChange`, which runs on the main actor inside the mutation, so no change is missed).
@MainActor
final class ChangeCounter {
    private(set) var count = 0
    private let read: @MainActor () -> Void

    init(_ read: @escaping @MainActor () -> Void) {
        self.read = read
        track()
    }

    private func track() {
        withObservationTracking {
            read()
        } onChange: { [weak self] in
            MainActor.assumeIsolated {
                self?.count += 1
                self?.track()
            }
        }
    }
}

/// `AuthModel` driven through sign-in, restore, refresh and sign-out against the
/// reference provider in the sandbox, every change seen through Observation exactly once.
@MainActor
@Suite(.timeLimit(.minutes(10)))
struct AuthModelTests {
    static let provider: AuthProviderID = "reference"
    let sandbox: Sandbox
    let backend = ReferenceBackend()
    let store = InMemorySessionStore()

    init() {
        sandbox = Sandbox(seed: 17)
        sandbox.register(backend, host: ReferenceProtocol.defaultHost)
    }

    func makeClient() throws -> AuthClient {
        try sandbox.makeClient(providers: [ReferenceProvider()], store: store)
    }

    /// Starts `model.observe()` and waits for the initial state. The returned task is owned by
    /// the test, which cancels it at the end (ending `observe()`).
    func start(_ model: AuthModel) async -> Task<Void, Never> {
        let task = Task { await model.observe() }
        await settle(model)
        return task
    }

    /// Waits until the model applied every event published so far.
    func settle(_ model: AuthModel) async {
        await model.waitUntilProcessed(through: model.client.events.currentSequence)
    }

    @Test("a dismissed passkey sheet is not an error to show; the challenge stays pending and then signs in")
    func aCancelledPasskeySheetIsNotKeptAsAnError() async throws {
        sandbox.register(PasskeyBackend(), host: PasskeyProtocol.defaultHost)
        let model = AuthModel(
            client: try sandbox.makeClient(providers: [PasskeyReferenceProvider()], store: InMemorySessionStore()))
        let task = await start(model)
        defer { task.cancel() }
        let challenge = try #require(
            try await model.signIn(with: "passkeys", .email(try EmailAddress("kim@example.com"))).challenge)
        _ = await #expect(throws: AuthError.self) {
            try await model.submit(ChallengeAnswer(code: "123456"), for: challenge)
        }
        #expect(model.lastError?.reason == .answerMismatch)
        let dismissed = await #expect(throws: AuthError.self) {
            try await model.submit(ChallengeAnswer(passkey: .cancelled), for: challenge)
        }
        #expect(dismissed?.code == .cancelledByUser)
        #expect(model.lastError == nil, "a dismissed sheet clears the error and shows none")
        await settle(model)
        #expect(model.pendingChallenge(for: "passkeys") == challenge)
        let session = try await model.submit(try SoftwareAuthenticator(seed: 3).answer(challenge), for: challenge)
        await settle(model)
        #expect(model.session(for: "passkeys") == session.session)
    }

    @Test func signInRestoreRefreshAndSignOutEachChangeTheModelOnce() async throws {
        // Sign-in with a first client.
        let first = AuthModel(client: try makeClient())
        let firstTask = await start(first)
        let sessions = ChangeCounter { _ = first.sessions }
        let challenges = ChangeCounter { _ = first.pendingChallenges }
        let errors = ChangeCounter { _ = first.lastError }

        let email = try EmailAddress("ada@example.com")
        let challenge = try #require(try await first.signIn(with: Self.provider, .email(email)).challenge)
        await settle(first)
        #expect(challenges.count == 1)
        #expect(first.pendingChallenge(for: Self.provider) == challenge)
        #expect(sessions.count == 0)

        let wrong = await #expect(throws: AuthError.self) {
            try await first.submit(ChallengeAnswer(code: "000000"), for: challenge)
        }
        await settle(first)
        #expect(wrong?.code == .invalidCode)
        #expect(first.lastError == wrong)
        #expect(errors.count == 1)
        #expect(challenges.count == 2, "codeRejected updates the attempts left")
        #expect(first.pendingChallenge(for: Self.provider)?.attemptsRemaining == wrong?.attemptsRemaining)

        let code = try #require(sandbox.inbox.latest(for: "ada@example.com")?.code)
        let session = try #require(try await first.submit(ChallengeAnswer(code: code), for: challenge).session)
        await settle(first)
        #expect(sessions.count == 1)
        #expect(first.sessions == [Self.provider: session])
        #expect(first.isSignedIn)
        #expect(challenges.count == 3)
        #expect(first.pendingChallenges.isEmpty)
        #expect(first.lastError == nil)
        #expect(errors.count == 2)
        firstTask.cancel()

        // A restart: a second client on the same store, restored once.
        let second = AuthModel(client: try makeClient())
        let restoredSessions = ChangeCounter { _ = second.sessions }
        let status = ChangeCounter { _ = second.restoreStatus }
        let secondTask = await start(second)
        #expect(second.restoreStatus == .notRestored)
        await second.restore()
        await settle(second)
        #expect(second.restoreStatus == .restored)
        #expect(status.count == 2, "notRestored → restoring → restored")
        #expect(second.sessions == [Self.provider: session])
        #expect(
            restoredSessions.count == 1,
            "the restored session arrived in the initial state and again as sessionRestored: one change, not two")

        // Refresh: one change, the new tokens.
        let refreshed = try await second.refresh(Self.provider)
        await settle(second)
        #expect(restoredSessions.count == 2)
        #expect(second.session(for: Self.provider) == refreshed)
        #expect(refreshed.credentials.accessToken != session.credentials.accessToken)

        // Sign-out: one change, nothing left.
        let outcome = try await second.signOut(Self.provider)
        await settle(second)
        #expect(outcome.wasSignedIn)
        #expect(restoredSessions.count == 3)
        #expect(second.sessions.isEmpty)
        #expect(!second.isSignedIn)

        // Signing out again publishes nothing and changes nothing.
        _ = try await second.signOut(Self.provider)
        await settle(second)
        #expect(restoredSessions.count == 3)
        secondTask.cancel()
    }

    /// A lagging subscription drops events (here: a burst larger than the buffer while the main
    /// actor is busy); the model notices the gap and re-reads the client's state, so it shows a
    /// session another client stored even though no event it received announced it.
    @Test func aGapInTheStreamMakesTheModelReReadTheClientsState() async throws {
        let client = try makeClient()
        let model = AuthModel(client: client, bufferCapacity: 4)
        let task = await start(model)
        let sessions = ChangeCounter { _ = model.sessions }

        // Another client (another process's extension, say) signs in on the same store.
        let other = try makeClient()
        let challenge = try #require(
            try await other.signIn(with: Self.provider, .email(try EmailAddress("bo@example.com"))).challenge)
        let code = try #require(sandbox.inbox.latest(for: "bo@example.com")?.code)
        let session = try #require(try await other.submit(ChallengeAnswer(code: code), for: challenge).session)
        #expect(model.sessions.isEmpty)

        // A burst on the model's bus while this (main-actor) test does not yield.
        for _ in 0..<12 {
            client.events.publish(.deliveryStatus(channel: .email, status: .sent), provider: Self.provider)
        }
        await settle(model)
        #expect(model.resyncCount == 1)
        #expect(model.sessions == [Self.provider: session])
        #expect(sessions.count == 1)
        task.cancel()
    }

    /// Without a gap the model trusts its events: the same store change made by another client
    /// is not shown until an event or a gap says so (the control for the test above).
    @Test func withoutAGapTheModelDoesNotReRead() async throws {
        let client = try makeClient()
        let model = AuthModel(client: client, bufferCapacity: 64)
        let task = await start(model)
        let other = try makeClient()
        let challenge = try #require(
            try await other.signIn(with: Self.provider, .email(try EmailAddress("cy@example.com"))).challenge)
        let code = try #require(sandbox.inbox.latest(for: "cy@example.com")?.code)
        _ = try await other.submit(ChallengeAnswer(code: code), for: challenge)
        for _ in 0..<12 {
            client.events.publish(.deliveryStatus(channel: .email, status: .sent), provider: Self.provider)
        }
        await settle(model)
        #expect(model.resyncCount == 0)
        #expect(model.sessions.isEmpty)
        task.cancel()
    }

    /// Errors the client reports on its own (a failed session write) land in `lastError`; an
    /// event kind the model does not handle changes nothing.
    @Test func clientReportedErrorsAndUnhandledEventsAreHandledGracefully() async throws {
        let client = try makeClient()
        let model = AuthModel(client: client)
        let task = await start(model)
        let errors = ChangeCounter { _ = model.lastError }
        let all = ChangeCounter {
            _ = (model.sessions, model.pendingChallenges, model.unavailable, model.restoreStatus)
        }
        let failure = AuthError(.storageFailure, "disk full", provider: Self.provider)
        client.events.publish(.storageFailed(failure), provider: Self.provider)
        client.events.publish(.verificationStateChanged("otpReceived"), provider: Self.provider)
        client.events.publish(.fallbackTriggered(from: .whatsapp, to: .sms), provider: Self.provider)
        await settle(model)
        #expect(model.lastError == failure)
        #expect(errors.count == 1)
        #expect(all.count == 0)
        model.clearError()
        #expect(model.lastError == nil)
        #expect(errors.count == 2)
        task.cancel()
    }

    /// The provider ends the session (its refresh credential revoked): the refresh fails with
    /// `sessionExpired`, the client publishes it, and the model drops the session once and
    /// keeps the error.
    @Test func aSessionTheProviderEndedLeavesTheModelOnce() async throws {
        let model = AuthModel(client: try makeClient())
        let task = await start(model)
        let challenge = try #require(
            try await model.signIn(with: Self.provider, .email(try EmailAddress("di@example.com"))).challenge)
        let code = try #require(sandbox.inbox.latest(for: "di@example.com")?.code)
        let session = try #require(try await model.submit(ChallengeAnswer(code: code), for: challenge).session)
        await settle(model)
        let sessions = ChangeCounter { _ = model.sessions }
        backend.revoke(refreshToken: try #require(session.credentials.refreshToken).reveal())
        let error = await #expect(throws: AuthError.self) { try await model.refresh(Self.provider) }
        await settle(model)
        #expect(error?.code == .sessionExpired)
        #expect(model.sessions.isEmpty)
        #expect(sessions.count == 1)
        #expect(model.lastError?.code == .sessionExpired)
        #expect(model.resyncCount == 0, "sessionExpired is folded, not handled as an unknown kind")
        task.cancel()
    }

    /// The last allowed wrong code ends the flow (`attemptsExhausted`): the pending challenge
    /// goes.
    @Test func exhaustedAttemptsEndThePendingChallenge() async throws {
        let model = AuthModel(client: try makeClient())
        let task = await start(model)
        let challenge = try #require(
            try await model.signIn(with: Self.provider, .email(try EmailAddress("ed@example.com"))).challenge)
        await settle(model)
        #expect(model.pendingChallenge(for: Self.provider) != nil)
        var last: AuthError?
        for _ in 0..<20 {
            do { _ = try await model.submit(ChallengeAnswer(code: "000000"), for: challenge) } catch let error
                as AuthError
            {
                last = error
                if error.code != .invalidCode { break }
            }
        }
        await settle(model)
        #expect(last?.code == .attemptsExhausted)
        #expect(model.pendingChallenges.isEmpty)
        #expect(model.resyncCount == 0, "attemptsExhausted is folded, not handled as an unknown kind")
        task.cancel()
    }
}
