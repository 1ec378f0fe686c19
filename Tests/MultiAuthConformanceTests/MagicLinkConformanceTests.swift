import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

/// A provider whose challenges complete only through a redirect (a magic link): the kit answers
/// them with the harness's redirect fixture, and skips the checks that need typed codes.
@Suite(.timeLimit(.minutes(10)))
struct MagicLinkConformanceTests {
    /// The reference provider presenting its challenges as magic links.
    struct MagicLinkProvider: RedirectHandlingProvider, RefreshableProvider, ResendableProvider {
        let base = ReferenceProvider()
        var id: AuthProviderID { base.id }

        private func asLink(_ challenge: Challenge) -> Challenge {
            var challenge = challenge
            if case .oneTimeCode(_, let channel, _) = challenge.kind { challenge.kind = .magicLink(channel: channel) }
            return challenge
        }

        func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
            let step = try await base.start(request, context: context)
            return step.challenge.map { .challenge(asLink($0)) } ?? step
        }
        func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
            -> SignInStep
        {
            try await base.respond(to: challenge, with: answer, context: context)
        }
        func signOut(_ session: AuthSession, context: AuthContext) async throws {
            try await base.signOut(session, context: context)
        }
        func canHandle(_ url: URL) -> Bool { base.canHandle(url) }
        func handleRedirect(_ url: URL, pending: Challenge?, context: AuthContext) async throws -> SignInStep {
            try await base.handleRedirect(url, pending: pending, context: context)
        }
        func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession {
            try await base.refresh(session, context: context)
        }
        func resend(_ challenge: Challenge, channel: DeliveryChannel?, context: AuthContext) async throws -> Challenge {
            asLink(try await base.resend(challenge, channel: channel, context: context))
        }
    }

    @Test func redirectOnlyProviderPassesEveryCheckItCanRun() async {
        var harness = ConformanceHarness.reference()
        harness.abilities = [.expiry, .resend, .redirect, .refresh]
        harness.concurrentFlows = 50
        let report = await ProviderConformance(provider: { _ in MagicLinkProvider() }, harness: harness).run()
        #expect(report.failed.isEmpty, "\(report.renderTable())")
        #expect(report.skipped.map(\.id) == ["C03", "C04", "C05", "C24"])
    }
}
