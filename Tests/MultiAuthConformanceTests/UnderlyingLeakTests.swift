import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

/// The reference provider, except that a refused code's error carries the code one level down,
/// in its `underlying` error's message: invisible to the error's own renderings, visible to a
/// crash reporter or a log line that prints the cause.
struct UnderlyingLeakProvider: RedirectHandlingProvider, RefreshableProvider, ResendableProvider {
    let reference = ReferenceProvider()
    var id: AuthProviderID { reference.id }

    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        try await reference.start(request, context: context)
    }

    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws -> SignInStep
    {
        do { return try await reference.respond(to: challenge, with: answer, context: context) } catch var
            error
            as AuthError
        {
            error.underlying = AuthError(.generic, "the server refused \(answer.rawCode.reveal())", provider: id)
            throw error
        }
    }

    func signOut(_ session: AuthSession, context: AuthContext) async throws {
        try await reference.signOut(session, context: context)
    }

    func canHandle(_ url: URL) -> Bool { reference.canHandle(url) }

    func handleRedirect(_ url: URL, pending: Challenge?, context: AuthContext) async throws -> SignInStep {
        try await reference.handleRedirect(url, pending: pending, context: context)
    }

    func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession {
        try await reference.refresh(session, context: context)
    }

    func resend(_ challenge: Challenge, channel: DeliveryChannel?, context: AuthContext) async throws -> Challenge {
        try await reference.resend(challenge, channel: channel, context: context)
    }
}

/// The secret-rendering check (C14) walks an error's causes (Docs/Security.md, "Redaction").
@Suite(.timeLimit(.minutes(10)))
struct UnderlyingLeakTests {
    @Test func aCodePlantedInTheUnderlyingErrorFailsTheSecretRenderingCheck() async {
        let kit = ProviderConformance(provider: { _ in UnderlyingLeakProvider() }, harness: .reference())
        let report = await kit.run()
        #expect(
            report.failed.map(\.id) == [ConformanceCheck.noSecretInAnyRendering.rawValue], "\(report.renderTable())")
        #expect(report.result(for: .noSecretInAnyRendering)?.detail?.contains("causes") == true)
    }

    @Test func causesShowUserInfoAndNestedErrors() {
        let inner = NSError(domain: "x", code: 1, userInfo: ["token": "t0k3n-planted-here"])
        #expect(SecretRenderings.causes(of: inner).contains("t0k3n-planted-here"))
        let outer = AuthError(.network, "dropped", underlying: AuthError(.generic, "code 583920 refused"))
        #expect(SecretRenderings.causes(of: outer).contains("583920"))
        #expect(SecretRenderings.firstLeak(of: outer, secrets: ["583920"])?.rendering == "causes")
        // A non-AuthError cause is redacted by AuthError itself: nothing of its userInfo is left.
        let redacted = AuthError(.network, "dropped", underlying: inner)
        #expect(SecretRenderings.firstLeak(of: redacted, secrets: ["t0k3n-planted-here"]) == nil)
    }
}
