import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthHTTP
import MultiAuthSandbox
import Testing

/// The reference backend speaks its documented wire protocol (`ReferenceProtocol`).
@Suite(.timeLimit(.minutes(10)))
struct ReferenceBackendTests {
    let sandbox: Sandbox
    let base = "https://\(ReferenceProtocol.defaultHost)"

    init() {
        sandbox = Sandbox(seed: 3)
        sandbox.register(ReferenceBackend(), host: ReferenceProtocol.defaultHost)
    }

    func post<Body: Encodable>(_ path: String, _ body: Body, transport: (any HTTPTransport)? = nil) async throws
        -> HTTPResponse
    {
        try await (transport ?? sandbox.transport).send(try .json(.post, URL(string: base + path)!, body: body))
    }

    func start(_ identity: String, channel: String, fallback: Bool = false) async throws -> HTTPResponse {
        try await post(
            "/otp/start",
            ReferenceProtocol.StartRequest(
                identity: Secret(identity), channel: channel, allowFallback: fallback, state: "s1"))
    }

    @Test func startDeliversACodeAndALink() async throws {
        let response = try await start("a@b.co", channel: "email")
        #expect(response.status == 200)
        let challenge = try response.decodeJSON(ReferenceProtocol.ChallengeResponse.self)
        #expect(
            challenge.length == 6 && challenge.expiresIn == 300 && challenge.resendAfter == 30
                && challenge.attempts == 3)
        #expect(challenge.expiresAt == sandbox.clock.wallNow.addingTimeInterval(300))
        let message = try #require(sandbox.inbox.latest(for: "a@b.co", channel: .email))
        #expect(message.code?.count == 6)
        let link = try #require(message.link.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) })
        #expect(link.scheme == "multiauth-ref" && link.host == "callback")
        #expect(link.queryItems?.first { $0.name == "state" }?.value == "s1")
        #expect(link.queryItems?.first { $0.name == "code" }?.value == message.code)
    }

    @Test(arguments: [
        ("not-an-email", "email", "invalid_identity"), ("a@b.co", "sms", "unsupported_channel"),
        ("+15555550100", "email", "unsupported_channel"),
    ])
    func startRefusesBadInput(identity: String, channel: String, code: String) async throws {
        let response = try await start(identity, channel: channel)
        #expect(response.status == 400)
        #expect(try response.decodeJSON(ReferenceProtocol.ErrorResponse.self).code == code)
    }

    @Test func whatsappFailureFallsBackToSMSOnlyWhenAllowed() async throws {
        sandbox.faults.failDelivery(on: .whatsapp)
        let explicit = try await start("+15555550100", channel: "whatsapp")
        #expect(explicit.status == 422)
        #expect(try explicit.decodeJSON(ReferenceProtocol.ErrorResponse.self).code == "channel_unavailable")
        let automatic = try await start("+15555550100", channel: "whatsapp", fallback: true)
        let challenge = try automatic.decodeJSON(ReferenceProtocol.ChallengeResponse.self)
        #expect(challenge.channel == "sms" && challenge.fallbackFrom == "whatsapp")
        #expect(
            sandbox.inbox.messages(for: "+15555550100").map { "\($0.channel) \($0.status)" } == [
                "whatsapp failed", "whatsapp failed", "sms delivered",
            ])
    }

    @Test func verifyCountsAttemptsAndIssuesRotatingTokens() async throws {
        let challenge = try await start("a@b.co", channel: "email").decodeJSON(ReferenceProtocol.ChallengeResponse.self)
        let code = try #require(sandbox.inbox.latest(for: "a@b.co")?.code)
        let wrong = String(code.dropLast()) + (code.hasSuffix("0") ? "1" : "0")
        let rejected = try await post(
            "/otp/verify", ReferenceProtocol.VerifyRequest(flowId: challenge.flowId, code: Secret(wrong)))
        #expect(rejected.status == 401)
        #expect(try rejected.decodeJSON(ReferenceProtocol.ErrorResponse.self).attemptsRemaining == 2)
        let tokens = try await post(
            "/otp/verify", ReferenceProtocol.VerifyRequest(flowId: challenge.flowId, code: Secret(code))
        )
        .decodeJSON(ReferenceProtocol.TokenResponse.self)
        #expect(tokens.user == ReferenceProtocol.User(id: "u1", email: try EmailAddress("a@b.co"), phone: nil))
        let again = try await post(
            "/otp/verify", ReferenceProtocol.VerifyRequest(flowId: challenge.flowId, code: Secret(code)))
        #expect(again.status == 409)
        let refreshed = try await post(
            "/token/refresh", ReferenceProtocol.RefreshRequest(refreshToken: tokens.refreshToken))
        #expect(refreshed.status == 200)
        let newRefresh = try refreshed.decodeJSON(ReferenceProtocol.TokenResponse.self).refreshToken
        // Within the reuse interval the rotated token gets the same new tokens again…
        let reused = try await post(
            "/token/refresh", ReferenceProtocol.RefreshRequest(refreshToken: tokens.refreshToken))
        #expect(reused.status == 200)
        #expect(try reused.decodeJSON(ReferenceProtocol.TokenResponse.self).refreshToken == newRefresh)
        // …after it, never.
        sandbox.clock.advance(by: .seconds(ReferenceProtocol.refreshReuseInterval))
        let late = try await post("/token/refresh", ReferenceProtocol.RefreshRequest(refreshToken: tokens.refreshToken))
        #expect(late.status == 401)
        #expect(try await post("/logout", ReferenceProtocol.LogoutRequest(refreshToken: newRefresh)).status == 204)
        #expect(try await post("/logout", ReferenceProtocol.LogoutRequest(refreshToken: newRefresh)).status == 401)
    }

    @Test func wireBodiesShowNoSecretAndNoPersonalData() async throws {
        let challenge = try await start("kim.planted@b.co", channel: "email")
            .decodeJSON(ReferenceProtocol.ChallengeResponse.self)
        let code = try #require(sandbox.inbox.latest(for: "kim.planted@b.co")?.code)
        let verify = ReferenceProtocol.VerifyRequest(flowId: challenge.flowId, code: Secret(code))
        let tokens = try await post("/otp/verify", verify).decodeJSON(ReferenceProtocol.TokenResponse.self)
        let secrets = [
            challenge.flowId.reveal(), code, tokens.accessToken.reveal(), tokens.refreshToken.reveal(), "kim.planted",
        ]
        let origin = try #require(
            (sandbox.backend(forHost: ReferenceProtocol.defaultHost) as? ReferenceBackend)?
                .origin(ofRefreshToken: tokens.refreshToken.reveal()))
        for value: Any in [challenge, verify, tokens, tokens.user, origin] {
            #expect(SecretRenderings.firstLeak(of: value, secrets: secrets) == nil, "\(type(of: value))")
        }
        #expect(tokens.user.email?.identityKey == "kim.planted@b.co")
    }

    @Test func expiryAndResendFollowTheServerClock() async throws {
        let challenge = try await start("a@b.co", channel: "email").decodeJSON(ReferenceProtocol.ChallengeResponse.self)
        let first = try #require(sandbox.inbox.latest(for: "a@b.co")?.code)
        let early = try await post(
            "/otp/resend", ReferenceProtocol.ResendRequest(flowId: challenge.flowId, channel: nil))
        #expect(early.status == 429 && early.retryAfter == .seconds(30))
        sandbox.clock.advance(by: .seconds(30))
        #expect(
            try await post("/otp/resend", ReferenceProtocol.ResendRequest(flowId: challenge.flowId, channel: nil))
                .status == 200)
        let second = try #require(sandbox.inbox.latest(for: "a@b.co")?.code)
        #expect(second != first)
        let old = try await post(
            "/otp/verify", ReferenceProtocol.VerifyRequest(flowId: challenge.flowId, code: Secret(first)))
        #expect(old.status == 401)
        sandbox.clock.advance(by: .seconds(300))
        let expired = try await post(
            "/otp/verify", ReferenceProtocol.VerifyRequest(flowId: challenge.flowId, code: Secret(second)))
        #expect(expired.status == 410)
    }

    @Test func sameSeedSameCodes() async throws {
        func codes(seed: UInt64) async throws -> [String] {
            let sandbox = Sandbox(seed: seed)
            sandbox.register(ReferenceBackend(), host: ReferenceProtocol.defaultHost)
            for index in 0..<3 {
                let body = ReferenceProtocol.StartRequest(
                    identity: Secret("u\(index)@b.co"), channel: "email", allowFallback: false, state: "s")
                _ = try await sandbox.transport.send(try .json(.post, URL(string: base + "/otp/start")!, body: body))
            }
            return sandbox.inbox.allMessages.compactMap(\.code)
        }
        let first = try await codes(seed: 11)
        #expect(try await codes(seed: 11) == first)
        #expect(try await codes(seed: 12) != first)
    }

    @Test func servesTheRealURLSessionTransport() async throws {
        let host = "ref-\(UUID().uuidString.lowercased()).sandbox.test"
        let sandbox = Sandbox(seed: 5)
        sandbox.register(ReferenceBackend(), host: host)
        // a hang guard only
        let transport = URLSessionTransport(session: sandbox.makeURLSession(), defaultTimeout: .seconds(600))
        let body = ReferenceProtocol.StartRequest(
            identity: "a@b.co", channel: "email", allowFallback: false, state: "s")
        let response = try await transport.send(try .json(.post, URL(string: "https://\(host)/otp/start")!, body: body))
        #expect(response.status == 200)
        let challenge = try response.decodeJSON(ReferenceProtocol.ChallengeResponse.self)
        let code = try #require(sandbox.inbox.latest(for: "a@b.co")?.code)
        let verify = try await transport.send(
            try .json(
                .post, URL(string: "https://\(host)/otp/verify")!,
                body: ReferenceProtocol.VerifyRequest(flowId: challenge.flowId, code: Secret(code))))
        #expect(verify.status == 200)
        #expect(sandbox.requestLog.map(\.path) == ["/otp/start", "/otp/verify"])
    }
}
