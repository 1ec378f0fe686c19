// Sample: a whole provider for an invented service, "Acme", that signs people in with a code
// sent by e-mail (Docs/WritingAProvider.md). In your package this file is
// Sources/AcmeAuth/AcmeProvider.swift, the adapter target `AcmeAuth`, which depends on the
// product `MultiAuth` only. `AcmeProvider` is public: the app and the test target use it from
// other modules. Compiled and proved by the conformance kit in `swift test` (CustomProvider.swift).
import Foundation
import MultiAuth

/// Acme's wire protocol, as its documentation describes it (Docs/WritingAProvider.md,
/// "The example: Acme's e-mail codes"). Written from the service's documentation, never from
/// the emulated backend: the kit then tests the adapter against an independent reading.
enum AcmeWire {
    struct StartRequest: Codable { var email: String; var state: String }
    struct Ticket: Codable { var ticket: String; var digits: Int; var expires_in: Int; var attempts: Int }
    struct VerifyRequest: Codable { var ticket: String; var code: String }
    struct Grant: Codable { var user_id: String; var email: String; var access_token: String; var expires_in: Int }
    struct Failure: Codable { var error: String; var attempts_left: Int? }
}

/// An e-mail OTP provider: start → a code by e-mail → session.
public struct AcmeProvider: AuthProvider {
    /// The provider's id in `AuthClient` and in stored sessions.
    public let id: AuthProviderID = "acme"
    /// The root of Acme's API (in tests, `AcmeBackend.baseURL`: the sandbox plays Acme).
    public let baseURL: URL

    /// A provider talking to Acme's API at `baseURL`.
    public init(baseURL: URL) { self.baseURL = baseURL }

    public func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        guard case .email(let email) = request.identity, request.channel == nil || request.channel == .email else {
            throw AuthError(.unsupported, "Acme signs in by e-mail only", provider: id)       // no network call
        }
        let flowID = context.flowID ?? .random()
        let body = AcmeWire.StartRequest(email: email.identityKey, state: flowID.rawValue)
        let response = try await context.transport.send(.json(.post, baseURL.appending(path: "v1/email-codes"), body: body))
        guard response.isSuccess else { throw mapError(response) }
        let ticket = try response.decodeJSON(AcmeWire.Ticket.self, provider: id)
        var state = ProviderState()
        state["ticket"] = Secret(ticket.ticket)                 // enough to resume after a restart
        let now = context.now.roundedToMilliseconds
        return .challenge(Challenge(
            flowID: flowID, provider: id, kind: .oneTimeCode(length: ticket.digits, channel: .email, linkAlsoSent: false),
            destination: email.masked, issuedAt: now, expiresAt: now.addingTimeInterval(TimeInterval(ticket.expires_in)),
            attemptsRemaining: ticket.attempts, providerState: state))
    }

    public func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws -> SignInStep {
        guard let ticket = challenge.providerState["ticket"]?.reveal() else { throw AuthError(.challengeNotPending, provider: id) }
        let body = AcmeWire.VerifyRequest(ticket: ticket, code: answer.rawCode.reveal())   // already normalized by AuthClient
        let response = try await context.transport.send(.json(.post, baseURL.appending(path: "v1/email-codes/verify"), body: body))
        guard response.isSuccess else { throw mapError(response) }
        let grant = try response.decodeJSON(AcmeWire.Grant.self, provider: id)
        let now = context.now.roundedToMilliseconds
        return .signedIn(AuthSession(
            provider: id, user: AuthUser(id: grant.user_id, email: try? EmailAddress(grant.email)),
            credentials: Credentials(accessToken: Secret(grant.access_token), expiresAt: now.addingTimeInterval(TimeInterval(grant.expires_in))),
            createdAt: now))
    }

    public func signOut(_ session: AuthSession, context: AuthContext) async throws {}     // Acme has no logout: local only

    /// Acme's error codes → `AuthError.Code`; the raw code is kept in `providerCode`; unknown
    /// codes become `.generic`, 5xx `.providerUnavailable` (retryable).
    func mapError(_ response: HTTPResponse) -> AuthError {
        let failure = try? response.decodeJSON(AcmeWire.Failure.self)
        let raw = failure?.error ?? String(response.status)
        let code: AuthError.Code = switch raw {
        case "wrong_code": .invalidCode
        case "code_expired": .expired
        case "too_many_attempts": .attemptsExhausted
        case "code_used": .codeAlreadyUsed
        case "unknown_ticket": .challengeNotPending
        case "invalid_email": .invalidInput
        case "slow_down": .rateLimited
        default: response.status >= 500 ? .providerUnavailable : .generic
        }
        return AuthError(code, "Acme answered \(raw)", provider: id, providerCode: raw,
                         retryAfter: response.retryAfter, attemptsRemaining: failure?.attempts_left)
    }
}
