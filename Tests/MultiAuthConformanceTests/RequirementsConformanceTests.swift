import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

/// C24 from both sides: a provider that needs a name and says so passes (the kit completes
/// with a name); one that claims a name it does not need fails. (`BrokenProviderTests` covers
/// the provider that needs a name without saying so.)
@Suite(.timeLimit(.minutes(10)))
struct RequirementsConformanceTests {
    /// The reference provider announcing a name requirement, and enforcing it or not.
    struct NamedReferenceProvider: AuthProvider {
        let enforces: Bool
        let reference = ReferenceProvider()
        var id: AuthProviderID { reference.id }

        func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
            guard case .challenge(var challenge) = try await reference.start(request, context: context) else {
                throw AuthError(.generic, "expected a challenge", provider: id)
            }
            challenge.requirements = [.name]
            return .challenge(challenge)
        }

        func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
            -> SignInStep
        {
            if enforces, answer.name == nil {
                throw AuthError(.invalidInput, "a name is required", provider: id, reason: .answerMismatch)
            }
            return try await reference.respond(to: challenge, with: answer, context: context)
        }

        func signOut(_ session: AuthSession, context: AuthContext) async throws {
            try await reference.signOut(session, context: context)
        }
    }

    @Test func aProviderThatNeedsANameAndSaysSoPasses() async {
        let kit = ProviderConformance(provider: { _ in NamedReferenceProvider(enforces: true) }, harness: .reference())
        let result = await kit.run(.challengeAnnouncesAnswerRequirements)
        #expect(result.status == .passed, "\(result)")
    }

    @Test func aProviderThatClaimsANameItDoesNotNeedFails() async {
        let kit = ProviderConformance(provider: { _ in NamedReferenceProvider(enforces: false) }, harness: .reference())
        let result = await kit.run(.challengeAnnouncesAnswerRequirements)
        #expect(result.status == .failed)
        #expect(result.detail?.contains("required a name") == true, "\(result)")
    }
}
