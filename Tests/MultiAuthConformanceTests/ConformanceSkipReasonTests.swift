import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

/// A harness states why its provider lacks an ability (`unsupportedReasons`); the skip detail
/// carries that reason, and a skip without one keeps the generic wording.
@Suite(.timeLimit(.minutes(10)))
struct ConformanceSkipReasonTests {
    static let checks: [ConformanceCheck] = [
        .malformedCodesHandledLocally, .wrongCodeThenRightCodeSucceeds, .exhaustedAttemptsEndTheChallenge,
        .expiredChallengeRefusedLocally, .resendHonoursCooldownAndSendsNewCode, .redirectsAreClaimedOnlyWhenValid,
        .concurrentRefreshesCoalesce,
    ]

    @Test func skipDetailsCarryTheHarnessReasons() async {
        var harness = ConformanceHarness.reference()
        harness.abilities = []
        harness.unsupportedReasons = [
            .codeEntry: "the first challenge is a link", .attemptLimit: "the limit is a rate limit",
            [.resend, .refresh]: "no such API",
        ]
        let kit = ProviderConformance(provider: { _ in ReferenceProvider() }, harness: harness)
        let report = await kit.run(Self.checks)
        #expect(report.skipped.count == Self.checks.count, "\(report.renderTable())")
        let details = Dictionary(uniqueKeysWithValues: report.results.map { ($0.id, $0.detail ?? "") })
        #expect(
            details["C03"] == "codeEntry unsupported, needed to submit malformed codes: the first challenge is a link")
        #expect(details["C04"] == "codeEntry unsupported, needed to submit a wrong code: the first challenge is a link")
        #expect(details["C05"] == "attemptLimit unsupported: the limit is a rate limit")
        #expect(details["C06"] == "the harness does not list expiry")
        #expect(details["C07"] == "resend unsupported: no such API")
        #expect(details["C17"] == "the harness does not list redirect")
        #expect(details["C18"] == "refresh unsupported: no such API")
    }

    @Test func aReasonForAListedAbilityIsIgnored() async {
        var harness = ConformanceHarness.reference()
        harness.unsupportedReasons = [.resend: "stale reason"]
        let result = await ProviderConformance(provider: { _ in ReferenceProvider() }, harness: harness).run(
            .resendHonoursCooldownAndSendsNewCode)
        #expect(result.status == .passed, "\(result)")
    }
}

/// C14 treats every provider-state value as a secret unless the harness declares its key
/// public.
@Suite(.timeLimit(.minutes(10)))
struct ConformancePublicStateTests {
    /// The reference provider showing provider state `flowId` as the user's id (ids appear in
    /// descriptions; attribute values do not).
    struct ShowingStateProvider: AuthProvider {
        let base = ReferenceProvider()
        var id: AuthProviderID { base.id }
        func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
            try await base.start(request, context: context)
        }
        func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
            -> SignInStep
        {
            guard case .signedIn(var session) = try await base.respond(to: challenge, with: answer, context: context)
            else {
                throw AuthError(.generic, "expected a session")
            }
            session.user.id = challenge.providerState[revealing: "flowId"] ?? session.user.id
            return .signedIn(session)
        }
        func signOut(_ session: AuthSession, context: AuthContext) async throws {
            try await base.signOut(session, context: context)
        }
    }

    @Test func aShownProviderStateValueFailsC14UnlessItsKeyIsPublic() async {
        var harness = ConformanceHarness.reference()
        let kit = { ProviderConformance(provider: { _ in ShowingStateProvider() }, harness: harness) }
        let failed = await kit().run(.noSecretInAnyRendering)
        #expect(failed.status == .failed && failed.detail?.contains("provider state 'flowId'") == true, "\(failed)")
        harness.publicProviderStateKeys = ["flowId"]
        let passed = await kit().run(.noSecretInAnyRendering)
        #expect(passed.status == .passed, "\(passed)")
    }
}
