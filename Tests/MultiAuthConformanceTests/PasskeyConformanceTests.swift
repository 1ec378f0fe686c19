import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

/// The passkey checks pass against the reference provider, and each broken provider or backend
/// below fails the check written for it (so the checks can fail).
@Suite(.timeLimit(.minutes(10)))
struct PasskeyConformanceTests {
    @Test("the passkey reference provider passes P01–P05")
    func referencePasses() async {
        let report = await PasskeyConformance(provider: { _ in PasskeyReferenceProvider() }, harness: .reference())
            .run()
        #expect(report.passed.count == PasskeyCheck.allCases.count, "\(report.renderTable())")
    }

    @Test("a challenge without the passkey requirement fails P01")
    func missingRequirementFailsP01() async {
        let kit = PasskeyConformance(
            provider: { _ in AlteredPasskeyProvider(dropsRequirements: true) }, harness: .reference())
        let result = await kit.run(.optionsHaveTheCeremonyShape)
        #expect(result.status == .failed)
        #expect(result.detail?.contains("Requirement.passkey") == true, "\(result)")
    }

    @Test("a provider that sends a cancelled sheet on fails P05")
    func cancelMappedElsewhereFailsP05() async {
        let kit = PasskeyConformance(
            provider: { _ in AlteredPasskeyProvider(mapsCancelToGeneric: true) }, harness: .reference())
        let result = await kit.run(.cancellationIsCancelledByUser)
        #expect(result.status == .failed)
        #expect(result.detail?.contains("generic") == true, "\(result)")
    }

    @Test("a backend that lets a flow verify twice fails P03")
    func reusableChallengeFailsP03() async {
        var harness = PasskeyConformanceHarness.reference()
        harness.installBackend = {
            $0.register(
                PasskeyBackend(
                    relyingParty: .init(id: PasskeyProtocol.relyingPartyID, origins: [PasskeyProtocol.origin]),
                    userVerification: .preferred, reusesChallenges: true), host: PasskeyProtocol.defaultHost)
        }
        let result = await PasskeyConformance(provider: { _ in PasskeyReferenceProvider() }, harness: harness).run(
            .challengeIsSingleUse)
        #expect(result.status == .failed)
        #expect(result.detail?.contains("succeeded, expected an error") == true, "\(result)")
    }
}

/// The reference provider with one rule broken.
private struct AlteredPasskeyProvider: AuthProvider {
    var dropsRequirements = false
    var mapsCancelToGeneric = false
    let base = PasskeyReferenceProvider()
    var id: AuthProviderID { base.id }

    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        let step = try await base.start(request, context: context)
        guard dropsRequirements, case .challenge(var challenge) = step else { return step }
        challenge.requirements = []
        return .challenge(challenge)
    }

    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        if mapsCancelToGeneric, answer.passkey == .cancelled { throw AuthError(.generic, "cancelled", provider: id) }
        return try await base.respond(to: challenge, with: answer, context: context)
    }

    func signOut(_ session: AuthSession, context: AuthContext) async throws {
        try await base.signOut(session, context: context)
    }
}
