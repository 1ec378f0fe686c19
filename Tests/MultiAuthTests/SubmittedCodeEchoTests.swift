import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

/// Breaker finding: `AuthError.plausibleProviderCode` keeps short all-digit codes (OTPLESS's
/// `7118`), so a server echoing a 4-digit one-time code as its error code kept it in
/// `providerCode`, which every rendering shows. `AuthClient` now strips the submitted code from
/// a submit error's `providerCode` and `message` (Docs/Security.md, "Redaction").
@Suite(.timeLimit(.minutes(10)))
struct SubmittedCodeEchoTests {
    /// Issues a 4-digit code challenge and rejects every answer, echoing it back.
    struct EchoingProvider: AuthProvider {
        let id: AuthProviderID = "echo"
        func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
            .challenge(
                Challenge(
                    flowID: context.flowID ?? .random(), provider: id,
                    kind: .oneTimeCode(length: 4, channel: .sms, linkAlsoSent: false), issuedAt: context.now,
                    expiresAt: context.now.addingTimeInterval(300), attemptsRemaining: 3))
        }
        func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
            -> SignInStep
        {
            throw AuthError(
                .invalidCode, "the server said: code \(answer.rawCode.reveal()) is wrong", provider: id,
                providerCode: answer.rawCode.reveal(), attemptsRemaining: 2)
        }
        func signOut(_ session: AuthSession, context: AuthContext) async throws {}
    }

    @Test func aSubmitErrorNeverEchoesTheSubmittedCode() async throws {
        let sandbox = Sandbox(seed: 1)
        let client = try sandbox.makeClient(providers: [EchoingProvider()], autoRefresh: .disabled)
        let challenge = try #require(
            try await client.signIn(with: "echo", .email(try EmailAddress("a@example.com"))).challenge)
        let error = await #expect(throws: AuthError.self) {
            try await client.submit(ChallengeAnswer(code: "4821"), for: challenge)
        }
        #expect(error?.code == .invalidCode && error?.attemptsRemaining == 2)
        #expect(error?.providerCode == nil)
        var dumped = ""
        dump(error, to: &dumped)
        for rendering in [String(describing: error), String(reflecting: error), error?.message ?? "", dumped] {
            #expect(!rendering.contains("4821"), "\(rendering)")
        }
        #expect(error?.message.contains("<redacted>") == true)
    }
}
