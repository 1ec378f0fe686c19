import Foundation
import MultiAuth
import MultiAuthDynamic
import MultiAuthSandbox
import Testing

/// The Dynamic mismatches against the real server — captcha environments, cookie-auth
/// environments, revocation vs transient refresh failures — each against the sandbox (which
/// now behaves like such an environment) and against scripted answers.
@Suite(.timeLimit(.minutes(10)))
struct DynamicRealServerTests {
    func body(_ request: HTTPRequest) throws -> [String: String] {
        try JSONDecoder().decode([String: String].self, from: request.body ?? Data())
    }

    /// A captcha environment refuses a start without a token (the adapter used to never send
    /// one); with the `captchaToken` option the token goes on create, signin and retry.
    @Test func captchaTokenIsSentOnCreateSigninAndRetry() async throws {
        let f = try DynamicWorld()
        f.backend.requireCaptcha()
        let refused = await #expect(throws: AuthError.self) {
            try await f.client.signIn(with: .dynamic, try .email("cap@example.com"))
        }
        #expect(refused?.code == .configuration)
        #expect(refused?.providerCode == "invalid_captcha")
        #expect(refused?.message.contains(DynamicProvider.captchaTokenOption) == true)

        let recorder = ScriptedTransport(forwardingTo: f.sandbox.transport)
        let client = try AuthClient(providers: [f.provider], transport: recorder, time: f.sandbox.time)
        let request = try SignInRequest.email("cap@example.com", options: [DynamicProvider.captchaTokenOption: "tok-1"])
        let challenge = try #require(try await client.signIn(with: .dynamic, request).challenge)
        let resent = try await client.resend(challenge)
        let code = try #require(f.sandbox.inbox.latest(for: "cap@example.com")?.code)
        #expect(try await client.submit(ChallengeAnswer(code: code), for: resent).session != nil)
        let paths = recorder.requests.map(\.url.lastPathComponent)
        #expect(paths == ["create", "retry", "signin"])
        for request in recorder.requests { #expect(try body(request)["captchaToken"] == "tok-1", "\(request)") }
        #expect(!String(describing: challenge).contains("tok-1"))
    }

    @Test func blankCaptchaTokenIsRefusedLocally() async throws {
        let f = try DynamicWorld()
        let error = await #expect(throws: AuthError.self) {
            try await f.client.signIn(
                with: .dynamic, try .email("cap@example.com", options: [DynamicProvider.captchaTokenOption: "  "]))
        }
        #expect(error?.code == .invalidInput)
        #expect(f.sandbox.requestCount == 0)
    }

    /// Without a captcha token the body has no `captchaToken` key at all (omitted, not null).
    @Test func noCaptchaTokenMeansNoKey() async throws {
        let f = try DynamicWorld()
        let recorder = ScriptedTransport(forwardingTo: f.sandbox.transport)
        let client = try AuthClient(providers: [f.provider], transport: recorder, time: f.sandbox.time)
        _ = try await client.signIn(with: .dynamic, try .email("plain@example.com"))
        #expect(try body(recorder.requests[0]) == ["email": "plain@example.com"])
    }

    /// A cookie-authentication environment answers a correct code without `jwt`/`minifiedJwt`:
    /// that is `configuration` ("enable header-based auth"), not `malformedResponse`.
    @Test func cookieAuthEnvironmentIsAConfigurationError() async throws {
        let f = try DynamicWorld()
        f.backend.useCookieAuthentication()
        let challenge = try #require(
            try await f.client.signIn(with: .dynamic, try .email("cookie@example.com")).challenge)
        let code = try #require(f.sandbox.inbox.latest(for: "cookie@example.com")?.code)
        let error = await #expect(throws: AuthError.self) {
            try await f.client.submit(ChallengeAnswer(code: code), for: challenge)
        }
        #expect(error?.code == .configuration)
        #expect(error?.providerCode == DynamicProvider.cookieAuthenticationCode)
        #expect(error?.message.contains("header-based") == true)
        #expect(try await f.store.load(for: .dynamic) == nil)
    }

    /// Revocation on the server side (not the app's sign-out) makes the next refresh
    /// `sessionExpired` with the raw status.
    @Test func serverSideRevocationIsSessionExpired() async throws {
        let f = try DynamicWorld()
        let session = try await f.signIn(email: "revoked@example.com")
        f.backend.revokeSessions(of: "revoked@example.com")
        let error = await #expect(throws: AuthError.self) {
            try await f.provider.refresh(session, context: f.sandbox.authContext())
        }
        #expect(error?.code == .sessionExpired)
        #expect(error?.providerCode == "401")
        #expect(f.backend.liveSessionCount == 0)
    }

    static let refreshCases: [(Int, String, [String: String], AuthError.Code, String?)] = [
        (401, #"{"error":"Unauthorized"}"#, [:], .sessionExpired, "401"),
        (
            403, #"{"error":{"code":"session_revoked","message":"revoked"},"payload":{}}"#, [:], .sessionExpired,
            "session_revoked"
        ),
        (400, #"{"error":"Invalid session token"}"#, [:], .sessionExpired, "400"),
        (400, #"{"error":"jwt expired"}"#, [:], .sessionExpired, "400"),
        (400, #"{"error":"Bad request"}"#, [:], .generic, "400"),
        (429, #"{"error":"Too many requests"}"#, ["Retry-After": "30"], .rateLimited, "429"),
        (503, "<html>down</html>", [:], .providerUnavailable, "503"),
        (500, #"{"error":"Internal"}"#, [:], .providerUnavailable, "500"),
        (404, #"{"error":"Not found"}"#, [:], .configuration, "404"),
        (422, #"{"error":"x","code":"something_new"}"#, [:], .generic, "something_new"),
        (200, #"{"mfaToken":"m","expiresAt":1,"user":{"id":"u"}}"#, [:], .sessionExpired, "mfa_required"),
        (
            200, #"{"expiresAt":1,"user":{"id":"u","verifiedCredentials":[]}}"#, [:], .configuration,
            "cookie_authentication"
        ),
    ]

    /// Revoked or invalid refresh credentials end the session (`sessionExpired`, raw code kept);
    /// transient failures never do (`rateLimited` with `retryAfter`, `providerUnavailable`).
    @Test(arguments: refreshCases)
    func refreshFailuresAreClassified(
        status: Int, body: String, headers: [String: String], expected: AuthError.Code, raw: String?
    ) async throws {
        let provider = DynamicProvider(configuration: try .sandbox())
        let session = AuthSession(
            provider: .dynamic, user: AuthUser(id: "u"),
            credentials: Credentials(accessToken: "a.b.c", tokenType: "Bearer"),
            createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        let transport = ScriptedTransport([ScriptedTransport.json(status, body, headers: headers)])
        let error = await #expect(throws: AuthError.self) {
            try await provider.refresh(
                session, context: AuthContext(transport: transport, time: ManualClock().timeSource))
        }
        #expect(error?.code == expected)
        #expect(error?.providerCode == raw)
        if status == 429 { #expect(error?.retryAfter == .seconds(30)) }
        #expect(transport.requests.first?.header("Authorization") == "Bearer a.b.c")
    }

    @Test func droppedRefreshIsNetworkAndKeepsTheSession() async throws {
        let f = try DynamicWorld()
        let session = try await f.signIn()
        f.sandbox.faults.add(.dropConnection, host: DynamicBackend.defaultHost, pathPrefix: f.path("refresh"))
        let error = await #expect(throws: AuthError.self) { try await f.client.refresh(.dynamic) }
        #expect(error?.code == .network)
        #expect(try await f.store.load(for: .dynamic) == session)
    }

    /// One switch: `.production` points at the real host, `.sandbox` at the emulated one, both
    /// validated; an unregistered host in the sandbox is a configuration error.
    @Test func productionAndSandboxConfigurations() async throws {
        #expect(
            try DynamicConfiguration.production(environmentID: "env").baseURL.absoluteString
                == "https://app.dynamicauth.com/api/v0")
        let sandbox = try DynamicConfiguration.sandbox()
        #expect(sandbox.baseURL == DynamicBackend.baseURL())
        #expect(sandbox.environmentID == DynamicBackend.defaultEnvironmentID)
        #expect(DynamicBackend.defaultHost == DynamicConfiguration.sandboxHost)
        #expect(throws: AuthError.self) { try DynamicConfiguration.production(environmentID: " ") }
        let f = try DynamicWorld()
        let production = DynamicProvider(
            configuration: try .production(environmentID: DynamicBackend.defaultEnvironmentID))
        let client = try f.sandbox.makeClient(providers: [production])
        let error = await #expect(throws: AuthError.self) {
            try await client.signIn(with: .dynamic, try .email("a@example.com"))
        }
        #expect(error?.code == .configuration)
        #expect(error?.message.contains("app.dynamicauth.com") == true)
    }
}
