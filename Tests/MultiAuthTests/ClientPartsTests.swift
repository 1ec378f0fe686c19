import Foundation
import Testing

@testable import MultiAuth

/// Unit tests of the plain types `AuthClient` is composed of: ``FlowStateMachine`` (each
/// transition's state and effects),
/// ``RedirectLedger``, ``BoundedMap``, ``SessionLifecycle``'s classification.
@Suite struct ClientPartsTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func challenge(_ provider: AuthProviderID = "p", flow: FlowID = .random()) -> Challenge {
        Challenge(
            flowID: flow, provider: provider, kind: .oneTimeCode(length: 6, channel: .email, linkAlsoSent: false),
            destination: nil, issuedAt: now, expiresAt: now.addingTimeInterval(300), attemptsRemaining: 3)
    }

    func session(_ provider: AuthProviderID = "p") -> AuthSession {
        AuthSession(
            provider: provider, user: AuthUser(id: "u"), credentials: Credentials(accessToken: "a", refreshToken: "r"),
            createdAt: now)
    }

    /// The effects of a transition, by name (`publish:codeRejected`, `end`, …), for comparisons.
    func names(_ effects: FlowEffects) -> [String] {
        effects.list.map { effect in
            switch effect {
            case .publish(let kind, _): "publish:\(kind.name)"
            case .announce(let kind, _, _): "announce:\(kind.name)"
            case .cancelEvents: "cancelEvents"
            case .cancelStart: "cancelStart"
            case .end: "end"
            case .scheduleRefresh(let restart): "scheduleRefresh:\(restart)"
            }
        }
    }

    func isAbandoned(_ state: FlowStateMachine.State?, _ reason: FlowStateMachine.Abandonment) -> Bool {
        switch (state, reason) {
        case (.abandoned(.cancelled)?, .cancelled), (.abandoned(.signedOut)?, .signedOut): true
        default: false
        }
    }

    @Test func f1OnePendingChallengePerProviderAndWrongCodesLowerItsAttempts() {
        var machine = FlowStateMachine()
        let first = challenge()
        let second = challenge()
        let issued = machine.challengeIssued(first)
        #expect(names(issued) == ["publish:challengeIssued"])
        _ = machine.challengeIssued(second)
        #expect(machine.pending("p") == second)
        #expect(machine.pending("p", flow: first.flowID) == nil)
        #expect(machine.live(first) == first, "another flow's held challenge is judged as it is")
        let wrong = AuthError(.invalidCode, "wrong")
        let rejected = machine.answerRefused(second.flowID, provider: "p", error: wrong)
        #expect(names(rejected) == ["publish:codeRejected"])
        #expect(machine.pending("p")?.attemptsRemaining == 2)
        let last = AuthError(.invalidCode, "wrong", attemptsRemaining: 0)
        let exhausted = machine.answerRefused(second.flowID, provider: "p", error: last)
        #expect(names(exhausted) == ["publish:codeRejected", "publish:attemptsExhausted"])
        #expect(machine.pending("p")?.attemptsRemaining == 0)
        guard case .refused(let error) = machine.submission(for: second, now: now) else {
            Issue.record("no attempts left: refused locally")
            return
        }
        #expect(error.code == .attemptsExhausted)
    }

    @Test func f1ANewStartCancelsTheStartInFlight() {
        var machine = FlowStateMachine()
        let first = FlowID.random()
        let started = machine.begin(first, provider: "p", summary: "a")
        #expect(names(started) == ["publish:flowStarted"])
        machine.startRunning(first, provider: "p", task: Task { throw CancellationError() })
        let second = FlowID.random()
        let replaced = machine.begin(second, provider: "p", summary: "b")
        #expect(names(replaced) == ["cancelEvents", "cancelStart", "end", "publish:flowStarted"])
        #expect(isAbandoned(machine.state(of: first), .cancelled))
        machine.startReturned(second, provider: "p")
        let cancelled = machine.cancel("p")
        #expect(cancelled.list.isEmpty, "nothing in flight, nothing pending")
    }

    @Test func f2CancelledFlowsAndFlowsStartedBeforeASignOutAreAbandoned() {
        var machine = FlowStateMachine()
        let before = challenge()
        let other = challenge("q")
        _ = machine.challengeIssued(before)
        _ = machine.challengeIssued(other)
        let signedOut = machine.signOut("p", at: now)
        #expect(names(signedOut) == ["cancelEvents", "end"])
        #expect(isAbandoned(machine.state(of: before.flowID), .signedOut))
        #expect(machine.state(of: other.flowID).map { if case .open = $0 { true } else { false } } == true)
        guard case .refused(let refusal) = machine.submission(for: before, now: now) else {
            Issue.record("an abandoned flow's answer is refused")
            return
        }
        #expect(refusal.code == .challengeNotPending)
        let after = challenge()
        _ = machine.challengeIssued(after)
        #expect(!machine.isAbandoned(after.flowID))
        let cancelledAfter = machine.cancel("p")
        #expect(names(cancelledAfter) == ["cancelEvents", "end"])
        #expect(isAbandoned(machine.state(of: after.flowID), .cancelled))
        // A challenge from an earlier process is unknown until its first answer: open, then a
        // sign-out abandons it like any other.
        var decoded = challenge()
        decoded.issuedAt = now.addingTimeInterval(1)
        guard case .open = machine.submission(for: decoded, now: now.addingTimeInterval(2)) else {
            Issue.record("a decoded challenge issued after the last sign-out is open")
            return
        }
        machine.answering(decoded)
        _ = machine.signOut("p", at: now.addingTimeInterval(3))
        #expect(machine.isAbandoned(decoded.flowID))
    }

    @Test func f3AFinishedFlowRemembersItsAnswerAndASignOutForgetsIt() {
        var machine = FlowStateMachine()
        let flow = challenge()
        _ = machine.challengeIssued(flow)
        let began = machine.beginPersisting(flow.flowID, provider: "p")
        #expect(began)
        let failure = AuthError(.storageFailure, "locked")
        guard
            case .keptForRetry(let kept) = machine.saveFailed(
                flow.flowID, provider: "p", session: session(), answer: "123456", failure: failure)
        else {
            Issue.record("a failed save is kept for a retry")
            return
        }
        #expect(names(kept) == ["publish:storageFailed"])
        guard case .retryWrite(_, let answer) = machine.submission(for: flow, now: now) else {
            Issue.record("the same answer retries the write")
            return
        }
        #expect(answer == "123456")
        let again = machine.beginPersisting(flow.flowID, provider: "p")
        #expect(again)
        let stored = machine.persisted(flow.flowID, session: session(), answer: "123456")
        #expect(names(stored) == ["end", "announce:signedIn", "scheduleRefresh:true"])
        guard case .finished(_, let finishedBy) = machine.submission(for: flow, now: now) else {
            Issue.record("a finished flow replays")
            return
        }
        #expect(finishedBy == "123456")
        #expect(machine.pending("p") == nil)
        _ = machine.signOut("p", at: now)
        guard case .refused = machine.submission(for: flow, now: now) else {
            Issue.record("after a sign-out nothing replays")
            return
        }
    }

    @Test func f4MemoryIsBounded() {
        var machine = FlowStateMachine()
        var first: Challenge?
        for index in 0..<(FlowStateMachine.finishedMemory + 10) {
            let flow = challenge()
            if index == 0 { first = flow }
            _ = machine.beginPersisting(flow.flowID, provider: "p")
            _ = machine.persisted(flow.flowID, session: session(), answer: nil)
        }
        guard case .closed? = machine.state(of: first!.flowID) else {
            Issue.record("the oldest finished flow forgot its session")
            return
        }
        guard case .refused = machine.submission(for: first!, now: now) else {
            Issue.record("a closed flow refuses every answer")
            return
        }
    }

    @Test func f7AFlowBeingSavedIsPastCancellingAndASignOutDuringItKeepsNothing() {
        var machine = FlowStateMachine()
        let flow = challenge()
        _ = machine.challengeIssued(flow)
        let saving = machine.beginPersisting(flow.flowID, provider: "p")
        #expect(saving)
        let tooLate = machine.cancel("p")
        #expect(tooLate.list.isEmpty, "cancelFlow comes too late")
        let signOutDuringSave = machine.signOut("p", at: now)
        #expect(signOutDuringSave.list.isEmpty, "the sign-out abandons nothing it could cancel")
        guard case .persisting(signedOut: true)? = machine.state(of: flow.flowID) else {
            Issue.record("the save is marked")
            return
        }
        let announced = machine.persisted(flow.flowID, session: session(), answer: "1")
        #expect(
            names(announced) == ["end", "announce:signedIn", "scheduleRefresh:true"],
            "announced: the sign-out then removes it")
        #expect(isAbandoned(machine.state(of: flow.flowID), .signedOut), "nothing kept to replay")

        let failing = challenge()
        _ = machine.challengeIssued(failing)
        let savingAgain = machine.beginPersisting(failing.flowID, provider: "p")
        #expect(savingAgain)
        _ = machine.signOut("p", at: now)
        guard
            case .signedOut = machine.saveFailed(
                failing.flowID, provider: "p", session: session(), answer: nil, failure: AuthError(.storageFailure, "x")
            )
        else {
            Issue.record("a failed save during a sign-out keeps nothing")
            return
        }
        let (effects, reason) = machine.refused(failing.flowID, provider: "p")
        #expect(names(effects) == ["end"] && reason == .signedOut)

        let late = challenge()
        _ = machine.challengeIssued(late)
        _ = machine.signOut("p", at: now)
        let refusedLate = machine.beginPersisting(late.flowID, provider: "p")
        #expect(!refusedLate, "a sign-out that came first: nothing saved")
    }

    @Test func f2AFlowThisClientDoesNotKnowIsJudgedByWhenItWasIssued() {
        var machine = FlowStateMachine()
        let before = challenge()  // issued at `now`
        _ = machine.signOut("p", at: now.addingTimeInterval(10))
        guard case .refused(let error) = machine.submission(for: before, now: now.addingTimeInterval(20)) else {
            Issue.record("a challenge issued before the last sign-out is abandoned, remembered or not")
            return
        }
        #expect(error.code == .challengeNotPending)
        #expect(machine.state(of: before.flowID) == nil, "a refused answer does not take memory")
        var later = challenge()
        later.issuedAt = now.addingTimeInterval(15)
        later.expiresAt = now.addingTimeInterval(315)
        guard case .open = machine.submission(for: later, now: now.addingTimeInterval(20)) else {
            Issue.record("a challenge issued after the sign-out is open")
            return
        }
    }

    @Test func f6AOneStepStartIsInFlightUntilItsSessionIsTakenAndPastCancellingOnceSaved() {
        var machine = FlowStateMachine()
        let flow = FlowID.random()
        _ = machine.begin(flow, provider: "p", summary: "sna")
        machine.startRunning(flow, provider: "p", task: Task { throw CancellationError() })
        let cancelled = machine.cancel("p")
        #expect(names(cancelled) == ["cancelEvents", "cancelStart", "end"])
        let refused = machine.beginPersisting(flow, provider: "p")
        #expect(!refused, "the start the app cancelled takes nothing")

        let saved = FlowID.random()
        _ = machine.begin(saved, provider: "p", summary: "sna")
        machine.startRunning(saved, provider: "p", task: Task { throw CancellationError() })
        let saving = machine.beginPersisting(saved, provider: "p")
        #expect(saving)
        let late = machine.cancel("p")
        #expect(late.list.isEmpty, "its session is being saved: too late (F7)")
        let newer = machine.begin(FlowID.random(), provider: "p", summary: "again")
        #expect(names(newer) == ["publish:flowStarted"], "a newer start does not cancel a save either")
    }

    @Test func f8AStrayLinkAnswersOnlyForTheFlowItBelongsTo() {
        var machine = FlowStateMachine()
        let first = FlowID.random()
        _ = machine.begin(first, provider: "p", summary: "a")
        let challengeA = challenge(flow: first)
        _ = machine.challengeIssued(challengeA)
        _ = machine.beginPersisting(first, provider: "p")
        let stored = session()
        _ = machine.persisted(first, session: stored, answer: "1")
        #expect(machine.answersAnotherLink(with: stored, knownFlow: nil, belongs: { _ in nil }))
        #expect(machine.answersAnotherLink(with: stored, knownFlow: nil, belongs: { $0.flowID == first }))
        #expect(!machine.answersAnotherLink(with: stored, knownFlow: nil, belongs: { _ in false }))
        #expect(!machine.answersAnotherLink(with: stored, knownFlow: .random(), belongs: { _ in true }))
        #expect(machine.answersAnotherLink(with: stored, knownFlow: first, belongs: { _ in nil }))
        #expect(
            !machine.answersAnotherLink(with: session(), knownFlow: first, belongs: { _ in true }), "another session")
    }

    @Test func anExpiredChallengeEndsItsFlowWithoutSpendingAnything() {
        var machine = FlowStateMachine()
        let flow = challenge()
        _ = machine.challengeIssued(flow)
        guard case .expired(let effects) = machine.submission(for: flow, now: now.addingTimeInterval(301)) else {
            Issue.record("expired")
            return
        }
        #expect(names(effects) == ["end", "publish:flowExpired"])
        #expect(machine.pending("p") == nil)
    }

    @Test func r1r2r3RedirectsAreEnteredBeforeTheExchangeAndRememberedAfter() {
        var ledger = RedirectLedger()
        let work = SharedWork<SignInStep>(Task { throw CancellationError() })
        ledger.begin("u", exchange: work)
        #expect(ledger.inFlight("u") === work)
        #expect(ledger.inFlightCount == 1)
        let flow = FlowID.random()
        ledger.complete("u", flow: flow)
        #expect(ledger.inFlight("u") == nil)
        #expect(ledger.completedFlow("u") == flow)
        ledger.begin("v", exchange: work)
        ledger.fail("v")
        #expect(ledger.completedFlow("v") == nil && ledger.inFlightCount == 0)
        for index in 0..<RedirectLedger.memory { ledger.complete("x\(index)", flow: .random()) }
        #expect(ledger.completedFlow("u") == nil)
    }

    @Test func boundedMapRemovesByValueAndKey() {
        var map = BoundedMap<String, Int>(capacity: 3)
        map.set(1, for: "a")
        map.set(2, for: "b")
        map.set(3, for: "c")
        map.removeAll { $0 == 2 }
        map.remove("a")
        #expect(map.count == 1)
        map.set(4, for: "d")
        map.set(5, for: "e")
        #expect(map["c"] == 3 && map.count == 3)
        map.set(6, for: "f")
        #expect(map["c"] == nil)
    }

    @Test func revocationIsSessionExpiredOrUnauthorizedOnly() {
        #expect(SessionLifecycle.isRevocation(AuthError(.sessionExpired)))
        #expect(SessionLifecycle.isRevocation(AuthError(.unauthorized)))
        for code in [AuthError.Code.network, .providerUnavailable, .rateLimited, .generic, .expired, .unsupported] {
            #expect(!SessionLifecycle.isRevocation(AuthError(code)))
        }
    }
}
