import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthOTPless
import MultiAuthSandbox
import MultiAuthTestKeys
import Testing

/// Session refresh through OTPLESS's session API (`POST v4/session/refresh`, as the SDK's
/// `OtplessSessionManager` does) and what a revoked session looks like
/// (Docs/Providers/OTPless.md, "Sessions").
@Suite(.timeLimit(.minutes(10)))
struct OTPlessRefreshTests {
    func signIn(_ world: OTPlessWorld, _ provider: OTPlessProvider) async throws -> AuthSession {
        let context = world.context()
        let challenge = try #require(try await provider.start(.email(email), context: context).challenge)
        let code = try #require(world.latest(email.identityKey)?.code)
        let session = try #require(
            try await provider.respond(to: challenge, with: ChallengeAnswer(code: code), context: context).session)
        provider.stopAllPolling()
        return session
    }

    @Test func refreshRenewsTheSessionJWTWithTheSDKRequest() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let session = try await signIn(world, provider)
        world.clock.advance(by: .seconds(3600))
        let refreshed = try await provider.refresh(session, context: world.context())
        #expect(refreshed.id == session.id)
        #expect(refreshed.credentials.expiresAt == world.clock.wallNow.addingTimeInterval(86_400))
        #expect(
            refreshed.credentials.extra[revealing: "sessionTokenJWT"]
                != session.credentials.extra[revealing: "sessionTokenJWT"])
        #expect(refreshed.credentials.refreshToken == session.credentials.refreshToken)
        #expect(
            refreshed.credentials.extra[revealing: "sessionToken"]
                == session.credentials.extra[revealing: "sessionToken"])
        let request = try #require(world.requests.last)
        #expect(request.method == .post)
        #expect(request.url.host == OTPlessBackend.sessionHost)
        #expect(request.url.path == "/v4/session/refresh")
        #expect(request.header("appId") == "SANDBOXAPP")
        #expect(request.header("state") == session.credentials.extra[revealing: "state"])
        let body = try request.decodeJSON([String: String].self)
        #expect(
            body == [
                "appId": "SANDBOXAPP", "origin": "https://otpless.com",
                "loginUri": "https://otpless.com/rc5/appid/SANDBOXAPP",
                "refreshToken": session.credentials.refreshToken!.reveal(),
            ])
    }

    @Test func aSessionLoggedOutOrRevokedOnTheServerRefreshesToSessionExpired() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let first = try await signIn(world, provider)
        try await provider.signOut(first, context: world.context())
        let loggedOut = await #expect(throws: AuthError.self) {
            _ = try await provider.refresh(first, context: world.context())
        }
        #expect(loggedOut?.code == .sessionExpired)
        #expect(loggedOut?.providerCode == "401")
        let second = try await signIn(world, provider)
        world.backend.revokeSessions(of: email.identityKey)
        let revoked = await #expect(throws: AuthError.self) {
            _ = try await provider.refresh(second, context: world.context())
        }
        #expect(revoked?.code == .sessionExpired)
    }

    @Test(arguments: [
        (503, AuthError.Code.providerUnavailable, "503"), (429, .rateLimited, "429"), (404, .sessionExpired, "404"),
        (400, .sessionExpired, "7101"),
    ])
    func refreshFailuresMapToTransientOrEnded(_ status: Int, _ expected: AuthError.Code, _ raw: String) async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let session = try await signIn(world, provider)
        let body =
            status == 400
            ? #"{"errorCode":"7101","message":"Invalid Request","description":"Request error"}"# : #"{"message":"x"}"#
        world.inject(
            OTPlessPath.refresh, HTTPResponse(status: status, headers: ["Retry-After": "9"], body: Data(body.utf8)))
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.refresh(session, context: world.context())
        }
        #expect(error?.code == expected)
        #expect(error?.providerCode == raw)
        if expected == .rateLimited { #expect(error?.retryAfter == .seconds(9)) }
    }

    @Test func anInactiveOrMillisecondJWTFromRefreshIsNotASession() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let session = try await signIn(world, provider)
        let now = Int(world.clock.wallNow.timeIntervalSince1970)
        // Expired by the client's clock (no usable iat), or for another app: the SDK's "inactive".
        for payload in [
            #"{"aud":"SANDBOXAPP","exp":\#(now - 10)}"#, #"{"aud":"OTHERAPP","iat":\#(now),"exp":\#(now + 3600)}"#,
        ] {
            let token = OTPlessSessionMappingTests.jwt(payload)
            world.inject(
                OTPlessPath.refresh,
                try .json(200, ["sessionToken": "s", "refreshToken": "r", "sessionTokenJWT": token]))
            let inactive = await #expect(throws: AuthError.self) {
                _ = try await provider.refresh(session, context: world.context())
            }
            #expect(inactive?.code == .sessionExpired)
        }
        let milliseconds = OTPlessSessionMappingTests.jwt(#"{"aud":"SANDBOXAPP","exp":\#(now + 3600)000}"#)
        world.inject(
            OTPlessPath.refresh,
            try .json(200, ["sessionToken": "s", "refreshToken": "r", "sessionTokenJWT": milliseconds]))
        let reported = await #expect(throws: AuthError.self) {
            _ = try await provider.refresh(session, context: world.context())
        }
        #expect(reported?.code == .malformedResponse)
    }

    @Test func aSessionWithoutSessionManagementCannotBeRefreshed() async throws {
        let world = try OTPlessWorld()
        var session = try await signIn(world, try world.provider())
        session.credentials.refreshToken = nil
        let before = world.requestCount
        let error = await #expect(throws: AuthError.self) {
            _ = try await world.provider().refresh(session, context: world.context())
        }
        #expect(error?.code == .unsupported)
        #expect(world.requestCount == before)
    }

    /// C18 on the session host: five concurrent refreshes through `AuthClient` make one request.
    @Test func concurrentRefreshesThroughTheClientMakeOneRequest() async throws {
        let sandbox = Sandbox(seed: 11)
        OTPlessBackend(merchant: OTPlessMerchant(), signingKey: TestKeys.otpless).install(in: sandbox)
        let provider = try OTPlessProvider(configuration: .sandbox())
        let store = FailingSessionStore(wrapping: InMemorySessionStore())
        let client = try sandbox.makeClient(providers: [provider], store: store)
        let challenge = try #require(try await client.signIn(with: .otpless, .email(email)).challenge)
        let code = try #require(sandbox.inbox.latest(for: email.identityKey)?.code)
        _ = try await client.submit(ChallengeAnswer(code: code), for: challenge)
        provider.stopAllPolling()
        let latency = Duration.seconds(5)
        sandbox.faults.add(.latency(latency), host: OTPlessBackend.sessionHost)
        let before = sandbox.requestCount(host: OTPlessBackend.sessionHost, pathPrefix: "/v4/session/refresh")
        let loadsBefore = await store.callCounts[.load, default: 0]
        let results = await withTaskGroup(of: AuthSession?.self) { group in
            for _ in 0..<5 { group.addTask { try? await client.refresh(.otpless) } }
            // Every caller has loaded the session (its next step joins the refresh in flight),
            // and the one refresh is held on the clock.
            await settle(maximumYields: 100_000) { await store.callCounts[.load, default: 0] >= loadsBefore + 5 }
            await sandbox.clock.waitForSleepers(count: 1)
            for _ in 0..<3 { _ = await client.pendingChallenge(for: .otpless) }
            sandbox.clock.advance(by: latency)
            return await group.reduce(into: [AuthSession?]()) { $0.append($1) }
        }
        #expect(results.count == 5)
        #expect(Set(results.compactMap { $0?.credentials.extra[revealing: "sessionTokenJWT"] }).count == 1)
        #expect(sandbox.requestCount(host: OTPlessBackend.sessionHost, pathPrefix: "/v4/session/refresh") - before == 1)
    }
}
