import Foundation
import Testing

@testable import MultiAuth

/// Unit tests of the plain types `AuthClient` is composed of: ``FlowTable``,
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

    @Test func f1OnePendingChallengePerProvider() {
        var table = FlowTable()
        let first = challenge()
        let second = challenge()
        table.setPending(first)
        table.setPending(second)
        #expect(table.pending("p") == second)
        #expect(table.pending("p", flow: first.flowID) == nil)
        table.clearPending("p", flow: first.flowID)
        #expect(table.pending("p") == second)
        table.noteWrongCode("p", flow: second.flowID, reported: nil)
        #expect(table.pending("p")?.attemptsRemaining == 2)
        table.noteWrongCode("p", flow: second.flowID, reported: 0)
        #expect(table.pending("p")?.attemptsRemaining == 0)
    }

    @Test func f2CancelledFlowsAndFlowsStartedBeforeASignOutAreAbandoned() throws {
        var table = FlowTable()
        let before = challenge()
        let other = challenge("q")
        table.setPending(before)
        table.setPending(other)
        table.signOut("p")
        #expect(table.isAbandoned(before))
        #expect(!table.isAbandoned(other))
        let after = challenge()
        table.setPending(after)
        #expect(!table.isAbandoned(after))
        table.abandon(after.flowID)
        #expect(throws: AuthError.self) { try table.refuseIfAbandoned(after) }
    }

    @Test func f3AFinishedFlowRemembersItsAnswerAndASignOutForgetsIt() {
        var table = FlowTable()
        let flow = challenge()
        table.setPending(flow)
        table.keepUnsaved(session(), answer: "123456", flow: flow.flowID)
        #expect(table.unsavedSession(flow.flowID)?.answer == "123456")
        table.finish(flow.flowID, session: session(), answer: "123456")
        #expect(table.unsavedSession(flow.flowID) == nil)
        #expect(table.finishedFlow(flow.flowID)?.answer == "123456")
        #expect(table.pending("p") == nil)
        table.signOut("p")
        #expect(table.finishedFlow(flow.flowID) == nil)
    }

    @Test func f4MemoryIsBounded() {
        var table = FlowTable()
        var first: Challenge?
        for index in 0..<(FlowTable.finishedMemory + 10) {
            let flow = challenge()
            if index == 0 { first = flow }
            table.finish(flow.flowID, session: session(), answer: nil)
        }
        #expect(table.finishedFlow(first!.flowID) == nil)
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
