import Foundation
import MultiAuth
import MultiAuthSandbox

/// A tiny in-test provider whose "server" is an actor: it counts calls, issues codes, can be
/// told to sleep on the manual clock, and rotates refresh tokens (Docs/Cases.md, B17).
actor FakeServer {
    var calls: [String: Int] = [:]
    var codes: [String: String] = [:]  // flow -> code
    var attempts: [String: Int] = [:]
    var refreshTokens: Set<String> = ["R1"]
    var refreshCounter = 1
    var refreshRequests: [String] = []
    var startDelay: Duration?
    var respondDelay: Duration?
    var refreshDelay: Duration?
    var refreshFailures: [AuthError] = []
    var redirectDelay: Duration?
    var nextCode = 123_456
    let clock: ManualClock

    init(clock: ManualClock) { self.clock = clock }

    func count(_ name: String) -> Int { calls[name, default: 0] }
    var totalCalls: Int { calls.values.reduce(0, +) }

    func setStartDelay(_ delay: Duration?) { startDelay = delay }
    func setRespondDelay(_ delay: Duration?) { respondDelay = delay }
    func setRefreshDelay(_ delay: Duration?) { refreshDelay = delay }
    func failNextRefresh() { refreshFailures.append(AuthError(.network, "dropped")) }
    func failNextRefresh(with error: AuthError) { refreshFailures.append(error) }
    func setRedirectDelay(_ delay: Duration?) { redirectDelay = delay }

    func start(flow: String) async throws -> String {
        calls["start", default: 0] += 1
        if let startDelay { try await clock.sleep(for: startDelay) }
        let code = String(format: "%06d", nextCode)
        nextCode += 1
        codes[flow] = code
        attempts[flow] = 3
        return code
    }

    /// Returns nil on success, or the attempts remaining after a wrong code.
    func verify(flow: String, code: String) async throws -> Int? {
        calls["verify", default: 0] += 1
        if let respondDelay { try await clock.sleep(for: respondDelay) }
        guard let expected = codes[flow] else { throw AuthError(.challengeNotPending, providerCode: "unknown_flow") }
        if code == expected {
            codes[flow] = nil
            return nil
        }
        attempts[flow, default: 0] -= 1
        if attempts[flow]! <= 0 { throw AuthError(.attemptsExhausted, providerCode: "attempts_exhausted") }
        return attempts[flow]!
    }

    func refresh(token: String) async throws -> (access: String, refresh: String) {
        calls["refresh", default: 0] += 1
        refreshRequests.append(token)
        if let refreshDelay { try await clock.sleep(for: refreshDelay) }
        if !refreshFailures.isEmpty { throw refreshFailures.removeFirst() }
        guard refreshTokens.remove(token) != nil else {
            throw AuthError(.unauthorized, "refresh token reused", providerCode: "invalid_grant")
        }
        refreshCounter += 1
        let next = "R\(refreshCounter)"
        refreshTokens.insert(next)
        return ("A\(refreshCounter)", next)
    }

    func addRefreshToken(_ token: String) { refreshTokens.insert(token) }
    func revokeRefreshToken(_ token: String) { refreshTokens.remove(token) }

    func signOut() { calls["signOut", default: 0] += 1 }

    func redirect() async throws {
        calls["redirect", default: 0] += 1
        if let redirectDelay { try await clock.sleep(for: redirectDelay) }
    }
}

/// The transport is never used by the fake (the server is an actor); it fails loudly if a
/// provider reached for the network.
struct NoNetworkTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw AuthError(.network, "tests use no network")
    }
}

/// Flow ids `AuthClient` reported as ended (`AuthProvider.flowEnded`).
final class EndedFlows: @unchecked Sendable {
    private let lock = NSLock()
    private var ids: [FlowID] = []
    func append(_ id: FlowID) { lock.withLock { ids.append(id) } }
    var all: [FlowID] { lock.withLock { ids } }
}

struct FakeProvider: AuthProvider, RefreshableProvider, RedirectHandlingProvider, ResendableProvider {
    let id: AuthProviderID
    let server: FakeServer
    let ended = EndedFlows()
    var codeLength = 6

    init(id: AuthProviderID = "fake", server: FakeServer) {
        self.id = id
        self.server = server
    }

    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        let flowID = context.flowID ?? .random()
        guard case .email(let email) = request.identity else {
            throw AuthError(.unsupported, "email only", provider: id)
        }
        _ = try await server.start(flow: flowID.rawValue)
        context.emit(.deliveryStatus(channel: .email, status: .sent))
        var state = ProviderState()
        state[revealing: "flow"] = flowID.rawValue
        return .challenge(
            Challenge(
                flowID: flowID, provider: id,
                kind: .oneTimeCode(length: codeLength, channel: .email, linkAlsoSent: false),
                destination: email.masked, issuedAt: context.now, expiresAt: context.now.addingTimeInterval(300),
                resendAvailableAt: context.now.addingTimeInterval(30), attemptsRemaining: 3, providerState: state))
    }

    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws -> SignInStep
    {
        guard let flow = challenge.providerState[revealing: "flow"] else { throw AuthError(.malformedResponse) }
        if let remaining = try await server.verify(flow: flow, code: answer.rawCode.reveal()) {
            throw AuthError(
                .invalidCode, "wrong code", provider: id, providerCode: "invalid_code", attemptsRemaining: remaining)
        }
        return .signedIn(Self.session(provider: id, access: "A1", refresh: "R1", at: context.now))
    }

    static func session(
        provider: AuthProviderID, access: String, refresh: String, at now: Date, lifetime: TimeInterval = 3600
    ) -> AuthSession {
        AuthSession(
            id: "session-1", provider: provider,
            user: AuthUser(id: "user-1", email: try! EmailAddress("user@example.com")),
            credentials: Credentials(
                accessToken: Secret(access), refreshToken: Secret(refresh), expiresAt: now.addingTimeInterval(lifetime)),
            createdAt: now)
    }

    func signOut(_ session: AuthSession, context: AuthContext) async throws {
        await server.signOut()
    }

    func flowEnded(_ flowID: FlowID) { ended.append(flowID) }

    func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession {
        let (access, refresh) = try await server.refresh(token: session.credentials.refreshToken?.reveal() ?? "")
        var updated = session
        updated.credentials = Credentials(
            accessToken: Secret(access), refreshToken: Secret(refresh), expiresAt: context.now.addingTimeInterval(3600))
        return updated
    }

    func canHandle(_ url: URL) -> Bool { url.scheme == "fake" && url.host == id.rawValue }

    func handleRedirect(_ url: URL, pending: Challenge?, context: AuthContext) async throws -> SignInStep {
        try await server.redirect()
        guard let pending else { throw AuthError(.challengeNotPending, "no flow is pending", provider: id) }
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        guard items.first(where: { $0.name == "state" })?.value == pending.flowID.rawValue else {
            throw AuthError(.challengeNotPending, "state does not match", provider: id)
        }
        return .signedIn(Self.session(provider: id, access: "A-link", refresh: "R-link", at: context.now))
    }

    func resend(_ challenge: Challenge, channel: DeliveryChannel?, context: AuthContext) async throws -> Challenge {
        guard let flow = challenge.providerState[revealing: "flow"] else { throw AuthError(.malformedResponse) }
        _ = try await server.start(flow: flow)
        var updated = challenge
        updated.issuedAt = context.now
        updated.resendAvailableAt = context.now.addingTimeInterval(30)
        return updated
    }
}

/// A client wired to a fake provider, a manual clock and an in-memory store that fails on
/// command (`FailingSessionStore`).
struct ClientWorld {
    let clock = ManualClock()
    let server: FakeServer
    let store: FailingSessionStore
    let client: AuthClient
    let provider: FakeProvider

    /// Background refresh is off unless a test asks for it: these tests drive every refresh.
    init(sessions: [AuthSession] = [], extraProviders: [any AuthProvider] = [], autoRefresh: AutoRefresh = .disabled) {
        server = FakeServer(clock: clock)
        store = FailingSessionStore(wrapping: InMemorySessionStore(sessions: sessions))
        provider = FakeProvider(server: server)
        client = try! AuthClient(
            providers: [provider] + extraProviders, store: store, transport: NoNetworkTransport(),
            time: clock.timeSource,
            autoRefresh: autoRefresh)
    }

    func code(for challenge: Challenge) async -> String {
        await server.codes[challenge.providerState[revealing: "flow"]!]!
    }
}
