import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthHTTP
import MultiAuthOTPless
import MultiAuthPortal
import MultiAuthSandbox
import MultiAuthSandboxRuntime
import MultiAuthSandboxServer
import MultiAuthTruecaller
import Testing

/// Sign-ins over real HTTP (URLSessionTransport, loopback) against an in-process server, with
/// each provider's `.sandbox(baseURL:)` configuration and the codes read through the control
/// API, as a UI test in another process would.
@Suite(.timeLimit(.minutes(10)))
struct ServerSignInTests {
    /// A client on `transport` whose clock starts where the server's manual clock does.
    func client(_ provider: any AuthProvider, _ running: RunningServer) throws -> AuthClient {
        try AuthClient(
            providers: [provider], store: InMemorySessionStore(), transport: running.transport,
            time: ManualClock().timeSource, autoRefresh: .disabled)
    }

    func latestCode(_ running: RunningServer, _ destination: String) async throws -> String {
        let (status, json) = try await running.control(.get, "inbox/\(destination)")
        #expect(status == 200)
        return try #require(json["latest"]?["code"]?.stringValue, "no code for \(destination): \(json)")
    }

    /// Done when: a code a sign-in started over HTTP caused is read through the control API;
    /// advancing the server's clock through the control API expires that challenge.
    @Test func aCodeReadOverTheControlAPISignsInAndAdvancingTheClockExpiresIt() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        let client = try client(DynamicProvider(configuration: try .sandbox(baseURL: running.url)), running)

        let expiring = try #require(try await client.signIn(with: .dynamic, .email("late@example.com")).challenge)
        let lateCode = try await latestCode(running, "late@example.com")
        let (status, clock) = try await running.control(.post, "clock/advance", .object(["seconds": .number(601)]))
        #expect(status == 200)
        #expect(clock["unix"]?.doubleValue == 1_700_000_601)
        let error = await #expect(throws: AuthError.self) {
            try await client.submit(ChallengeAnswer(code: lateCode), for: expiring)
        }
        #expect(error?.code == .expired)
        #expect(error?.providerCode == "email_verification_expired")

        let challenge = try #require(try await client.signIn(with: .dynamic, .email("ada@example.com")).challenge)
        let code = try await latestCode(running, "ada@example.com")
        let session = try #require(try await client.submit(ChallengeAnswer(code: code), for: challenge).session)
        #expect(session.user.email?.identityKey == "ada@example.com")
        // The server's request log saw the exchanges, redacted.
        let (_, log) = try await running.control(.get, "requests")
        let paths = log["requests"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
        #expect(paths.contains { $0.hasSuffix("/emailVerifications/signin") })
        #expect(!"\(log)".contains(code))
    }

    @Test func truecallerSignsInOverHTTP() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        let client = try client(
            TruecallerProvider(configuration: try .sandbox(baseURL: running.url, deviceID: "ui-test-device")), running)
        let request = SignInRequest.phone(
            try PhoneNumber("+91 98765 43210"),
            options: [TruecallerProvider.firstNameOption: "Ada", TruecallerProvider.lastNameOption: "Lovelace"])
        let challenge = try #require(try await client.signIn(with: .truecaller, request).challenge)
        let code = try await latestCode(running, "+919876543210")
        let session = try #require(try await client.submit(ChallengeAnswer(code: code), for: challenge).session)
        #expect(session.user.phone?.e164 == "+919876543210")
    }

    @Test func portalSignsInOverHTTPWithTheMagicLinkAndTheTOTPStep() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        let client = try client(PortalProvider(configuration: try .sandbox(baseURL: running.url)), running)
        let challenge = try #require(try await client.signIn(with: .portal, .email("grace@example.com")).challenge)
        let (_, inbox) = try await running.control(.get, "inbox/grace@example.com")
        let link = try #require(inbox["latest"]?["link"]?.stringValue.flatMap(URL.init(string:)))
        let totpStep = try #require(try await client.handleRedirect(link, resuming: challenge)?.challenge)
        let (status, totp) = try await running.control(.get, "totp/grace@example.com")
        #expect(status == 200)
        let code = try #require(totp["code"]?.stringValue)
        let session = try #require(try await client.submit(ChallengeAnswer(code: code), for: totpStep).session)
        #expect(session.provider == .portal)
    }

    @Test func otplessSignsInOverHTTP() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        let client = try client(try OTPlessProvider(configuration: .sandbox(baseURL: running.url)), running)
        let challenge = try #require(
            try await client.signIn(with: .otpless, .phone(try PhoneNumber("+91 98765 00001"))).challenge)
        let code = try await latestCode(running, "+919876500001")
        let session = try #require(try await client.submit(ChallengeAnswer(code: code), for: challenge).session)
        #expect(session.provider == .otpless)
    }

    /// The same backend by `Host` header (a client that cannot add a path prefix) answers as by
    /// path prefix.
    @Test func aBackendIsReachedByHostHeaderToo() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        let body = try JSONEncoder().encode(["email": "host@example.com"])
        let path = "/api/v0/sdk/\(DynamicBackend.defaultEnvironmentID)/emailVerifications/create"
        let byPath = try await running.transport.send(
            HTTPRequest(
                method: .post, url: URL(string: running.url.absoluteString + "/app.dynamic.test" + path)!,
                headers: ["Content-Type": "application/json"], body: body))
        let byHost = try await onThread {
            let client = try RawClient(port: running.url.port.map(UInt16.init) ?? 0)
            client.send(
                "POST \(path) HTTP/1.1\r\nHost: app.dynamic.test\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
            )
            client.send(Array(body))
            return client.readResponse()
        }
        #expect(byPath.status == 201)
        #expect(byHost?.status == 201)
        #expect(byHost?.body.contains("verificationUUID") == true)
    }

    /// A session issued through the control API is a real one: the backend refreshes it.
    @Test func anIssuedSessionRefreshesAgainstTheServer() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        let (status, json) = try await running.control(
            .post, "sessions", .object(["provider": .string("dynamic"), "identity": .string("signed-in@example.com")]))
        #expect(status == 201)
        let data = try JSONEncoder.multiAuth.encode(json)
        let session = try JSONDecoder.multiAuth.decode(AuthSession.self, from: data)
        #expect(session.user.email?.identityKey == "signed-in@example.com")
        let provider = DynamicProvider(configuration: try .sandbox(baseURL: running.url))
        let refreshed = try await provider.refresh(
            session, context: AuthContext(transport: running.transport, time: ManualClock().timeSource))
        #expect(refreshed.credentials.accessToken != nil)
    }
}
