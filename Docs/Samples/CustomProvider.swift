// Sample: write your own provider (an e-mail OTP over the sandbox's reference protocol) and
// prove it with the conformance kit. Compiled and run by `swift test`; Docs/WritingAProvider.md.
import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

/// A minimal e-mail OTP provider: start → 6-digit code by e-mail → session.
struct AcmeEmailProvider: AuthProvider {
    let id: AuthProviderID = "acme"
    let baseURL: URL

    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        guard case .email(let email) = request.identity, request.channel == nil || request.channel == .email else {
            throw AuthError(.unsupported, "Acme signs in by e-mail only", provider: id)      // no network call
        }
        let flowID = context.flowID ?? .random()
        let body = ReferenceProtocol.StartRequest(identity: email.identityKey, channel: "email", allowFallback: false, state: flowID.rawValue)
        let response = try await context.transport.send(.json(.post, baseURL.appending(path: "otp/start"), body: body))
        guard response.isSuccess else { throw mapError(response) }
        let issued = try response.decodeJSON(ReferenceProtocol.ChallengeResponse.self, provider: id)
        var state = ProviderState()
        state["flowId"] = issued.flowId                                        // enough to resume after a restart
        let now = context.now.roundedToMilliseconds
        return .challenge(Challenge(
            flowID: flowID, provider: id, kind: .oneTimeCode(length: issued.length, channel: .email, linkAlsoSent: false),
            destination: email.masked, issuedAt: now, expiresAt: now.addingTimeInterval(TimeInterval(issued.expiresIn)),
            attemptsRemaining: issued.attempts, providerState: state))
    }

    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws -> SignInStep {
        guard let flowId = challenge.providerState["flowId"] else { throw AuthError(.challengeNotPending, provider: id) }
        let body = ReferenceProtocol.VerifyRequest(flowId: flowId, code: answer.rawCode)   // already normalized by AuthClient
        let response = try await context.transport.send(.json(.post, baseURL.appending(path: "otp/verify"), body: body))
        guard response.isSuccess else { throw mapError(response) }
        let tokens = try response.decodeJSON(ReferenceProtocol.TokenResponse.self, provider: id)
        let now = context.now.roundedToMilliseconds
        return .signedIn(AuthSession(
            provider: id, user: AuthUser(id: tokens.user.id, email: try? EmailAddress(tokens.user.email ?? "")),
            credentials: Credentials(
                accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
                expiresAt: now.addingTimeInterval(TimeInterval(tokens.expiresIn))),
            createdAt: now))
    }

    func signOut(_ session: AuthSession, context: AuthContext) async throws {}            // local only

    /// Provider error codes → `AuthError.Code`, raw code kept; unknown codes → `.generic`.
    func mapError(_ response: HTTPResponse) -> AuthError {
        struct Body: Decodable { var code: String?; var attemptsRemaining: Int? }
        let body = try? response.decodeJSON(Body.self)
        let raw = body?.code ?? String(response.status)
        let code: AuthError.Code = switch raw {
        case "invalid_code": .invalidCode
        case "expired": .expired
        case "attempts_exhausted": .attemptsExhausted
        case "already_used": .codeAlreadyUsed
        case "rate_limited": .rateLimited
        case "invalid_identity": .invalidInput
        case "unknown_flow": .challengeNotPending
        case "channel_unavailable": .channelUnavailable
        case "unsupported_channel": .unsupported
        default: response.status >= 500 ? .providerUnavailable : .generic
        }
        return AuthError(code, "Acme answered \(raw)", provider: id, providerCode: raw,
                         retryAfter: response.retryAfter, attemptsRemaining: body?.attemptsRemaining)
    }
}

@Suite(.timeLimit(.minutes(2)))
struct CustomProviderSample {
    @Test func acmeConformsWhereItCanAndSaysWhyElsewhere() async throws {
        var harness = ConformanceHarness.reference()
        harness.validRequest = { index in .email(try! EmailAddress("user\(index)@example.com")) }
        harness.invalidRequests = [.oauth(.google), .phone(try! PhoneNumber("+12025550199"))]
        harness.abilities = [.codeEntry, .attemptLimit, .expiry]
        harness.unsupportedReasons = [
            .resend: "Acme has no resend", .redirect: "Acme does not use links", .refresh: "Acme sessions are not refreshed",
        ]
        let report = await ProviderConformance(
            provider: { _ in AcmeEmailProvider(baseURL: URL(string: "https://\(ReferenceProtocol.defaultHost)")!) },
            harness: harness
        ).run()
        #expect(report.failed.isEmpty, "\(report.renderTable())")
        #expect(Set(report.skipped.map(\.id)) == ["C07", "C17", "C18", "C21", "C22", "C23"], "\(report.renderTable())")
    }
}
