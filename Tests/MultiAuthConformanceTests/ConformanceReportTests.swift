import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(10)))
struct ConformanceReportTests {
    let report = ConformanceReport(
        provider: "acme",
        results: [
            ConformanceResult(id: "C01", title: "invalid identity", status: .passed),
            ConformanceResult(id: "C07", title: "resend", status: .skipped, detail: "the harness does not list resend"),
            ConformanceResult(
                id: "C12", title: "storage failure on save", status: .failed, detail: "retrying made 1 network call(s)"),
        ])

    @Test func tableIsAligned() {
        #expect(
            report.renderTable() == """
                ID   STATUS   TITLE                    DETAIL
                C01  passed   invalid identity
                C07  skipped  resend                   the harness does not list resend
                C12  failed   storage failure on save  retrying made 1 network call(s)
                acme: 3 checks, 1 passed, 1 failed, 1 skipped
                """)
        #expect(report.renderTable(titleWidth: 8).contains("C12  failed   storage…  retrying"))
    }

    @Test func countsNeverTreatSkippedAsPassed() {
        #expect(report.passed.map(\.id) == ["C01"])
        #expect(report.skipped.map(\.id) == ["C07"])
        #expect(report.failed.map(\.id) == ["C12"])
        #expect(!report.isConforming)
        #expect(report.result(for: .resendHonoursCooldownAndSendsNewCode)?.passed == false)
    }

    @Test func jsonRoundTrips() throws {
        let data = try report.jsonData()
        #expect(try JSONDecoder().decode(ConformanceReport.self, from: data) == report)
        let object = try #require(
            try JSONSerialization.jsonObject(with: report.jsonData(prettyPrinted: false)) as? [String: Any])
        let results = try #require(object["results"] as? [[String: Any]])
        #expect(results[1]["status"] as? String == "skipped")
        #expect(results[0]["detail"] == nil)
    }

    @Test func checksCarryTheIssueTitles() {
        #expect(ConformanceCheck.allCases.count == 24)
        #expect(ConformanceCheck.allCases.map(\.rawValue) == (1...24).map { String(format: "C%02d", $0) })
        #expect(Set(ConformanceCheck.allCases.map(\.title)).count == 24)
    }
}

/// Skips are honest: a harness without abilities skips those checks with a reason, and an
/// ability claimed for a provider that lacks the protocol fails.
@Suite(.timeLimit(.minutes(10)))
struct ConformanceSkipTests {
    /// The reference provider without its optional protocols.
    struct PlainProvider: AuthProvider {
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
    }

    @Test func missingAbilitiesAreSkippedWithAReason() async {
        var harness = ConformanceHarness.reference()
        harness.abilities = []
        harness.errorFixtures = []
        harness.invalidRequests = []
        harness.serverClockTolerance = nil
        let report = await ProviderConformance(provider: { _ in ReferenceProvider() }, harness: harness).run()
        #expect(
            report.skipped.map(\.id) == [
                "C01", "C03", "C04", "C05", "C06", "C07", "C08", "C17", "C18", "C19", "C21", "C22", "C23", "C24",
            ])
        #expect(report.skipped.allSatisfy { $0.detail?.isEmpty == false })
        #expect(report.failed.isEmpty, "\(report.renderTable())")
        #expect(report.passed.count == 10)
    }

    @Test(arguments: [
        ConformanceCheck.resendHonoursCooldownAndSendsNewCode, .redirectsAreClaimedOnlyWhenValid,
        .concurrentRefreshesCoalesce, .refreshDoesNotOverwriteNewerSession,
        .revocationEndsSessionTransientFailureKeepsIt, .duplicateRedirectsShareOneExchange,
    ])
    func claimedAbilityWithoutProtocolFails(_ check: ConformanceCheck) async {
        let result = await ProviderConformance(provider: { _ in PlainProvider() }, harness: .reference()).run(check)
        #expect(result.status == .failed)
        #expect(result.detail?.contains("the harness lists") == true)
    }

    @Test func fixturesWithoutAnUnknownCodeFailC08() async {
        var harness = ConformanceHarness.reference()
        harness.errorFixtures.removeAll { $0.expectedCode == .generic }
        let result = await ProviderConformance(provider: { _ in ReferenceProvider() }, harness: harness).run(
            .providerErrorCodesMapToAuthErrors)
        #expect(result.status == .failed)
    }

    @Test func aFailingFactoryFailsEveryCheckWithoutCrashing() async {
        struct NoProvider: Error {}
        let report = await ProviderConformance(provider: { _ in throw NoProvider() }, harness: .reference()).run()
        #expect(report.failed.count == 24)
        #expect(report.provider == "?")
    }
}
