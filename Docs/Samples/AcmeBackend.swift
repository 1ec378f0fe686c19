// Sample: the emulated Acme server (Docs/WritingAProvider.md). In your package this file is
// Sources/AcmeAuthTestSupport/AcmeBackend.swift, the test-support target `AcmeAuthTestSupport`,
// which depends on the products `MultiAuth` and `MultiAuthSandboxRuntime` and never on your
// adapter, so the kit tests the adapter against an independent reading of Acme's documentation.
// `AcmeBackend` is public: the test target (and an app's own tests) use it from other modules.
import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

/// Acme's server as its documentation describes it: codes of 6 digits valid 10 minutes, 3
/// attempts, one use; answers in Acme's JSON. Codes and tickets come from the sandbox's seeded
/// random source, time from the sandbox clock (`context.time`), delivery through the inbox.
public final class AcmeBackend: SandboxBackend, @unchecked Sendable {
    /// The host the backend is registered under in a `Sandbox`.
    public static let host = "api.acme.test"
    /// The base URL to give `AcmeProvider` in tests.
    public static let baseURL = URL(string: "https://\(host)")!

    // Acme's JSON, read from its documentation (not the adapter's types: an independent reading).
    private struct StartBody: Decodable { var email: String; var state: String }
    private struct VerifyBody: Decodable { var ticket: String; var code: String }
    private struct TicketBody: Encodable { var ticket: String; var digits = 6; var expires_in = 600; var attempts = 3 }
    private struct GrantBody: Encodable { var user_id: String; var email: String; var access_token: String; var expires_in = 3600 }
    private struct ErrorBody: Encodable, Error { var error: String; var attempts_left: Int? = nil }

    private struct Ticket { var email: String; var code: String; var expiresAt: Date; var attempts: Int; var used = false }
    private let lock = NSLock()
    private var tickets: [String: Ticket] = [:]

    /// A backend with no tickets issued yet.
    public init() {}

    /// Answers one request the way Acme's server does (`SandboxBackend`).
    public func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse {
        guard request.method == .post else { return try Self.failure(405, "method_not_allowed") }
        switch request.url.path {
        case "/v1/email-codes":
            guard let body = try? request.decodeJSON(StartBody.self) else { return try Self.failure(400, "bad_request") }
            return try start(body, context: context)
        case "/v1/email-codes/verify":
            guard let body = try? request.decodeJSON(VerifyBody.self) else { return try Self.failure(400, "bad_request") }
            return try verify(body, context: context)
        default:
            return try Self.failure(404, "not_found")
        }
    }

    private func start(_ body: StartBody, context: SandboxContext) throws -> HTTPResponse {
        guard (try? EmailAddress(body.email))?.identityKey == body.email else { return try Self.failure(400, "invalid_email") }
        let code = context.random.digits(6)
        let ticket = "tk_" + context.random.hex(bytes: 12)
        _ = context.deliver(code: code, to: body.email, channel: .email)
        lock.withLock { tickets[ticket] = Ticket(email: body.email, code: code, expiresAt: context.time.now + 600, attempts: 3) }
        return try .json(200, TicketBody(ticket: ticket))
    }

    private func verify(_ body: VerifyBody, context: SandboxContext) throws -> HTTPResponse {
        let now = context.time.now
        let outcome: Result<Ticket, ErrorBody> = lock.withLock {
            guard var ticket = tickets[body.ticket] else { return .failure(.init(error: "unknown_ticket")) }
            if ticket.used { return .failure(.init(error: "code_used")) }
            if now >= ticket.expiresAt { return .failure(.init(error: "code_expired")) }
            if ticket.attempts == 0 { return .failure(.init(error: "too_many_attempts")) }
            guard body.code == ticket.code else {
                ticket.attempts -= 1
                tickets[body.ticket] = ticket
                return .failure(ticket.attempts == 0 ? .init(error: "too_many_attempts") : .init(error: "wrong_code", attempts_left: ticket.attempts))
            }
            ticket.used = true
            tickets[body.ticket] = ticket
            return .success(ticket)
        }
        switch outcome {
        case .success(let ticket):
            let user = "usr_" + String(ticket.email.utf8.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 }, radix: 16)
            return try .json(200, GrantBody(user_id: user, email: ticket.email, access_token: "at_" + context.random.hex(bytes: 16)))
        case .failure(let failure):
            let status = ["unknown_ticket": 404, "code_used": 409, "code_expired": 410, "too_many_attempts": 423][failure.error] ?? 401
            return try .json(status, failure)
        }
    }

    private static func failure(_ status: Int, _ error: String) throws -> HTTPResponse {
        try .json(status, ErrorBody(error: error))
    }
}
