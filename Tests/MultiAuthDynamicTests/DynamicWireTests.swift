import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

@testable import MultiAuthDynamic

/// Request shapes and error mapping against a scripted transport (Docs/Providers/Dynamic.md).
@Suite(.timeLimit(.minutes(10)))
struct DynamicWireTests {
    let provider = DynamicProvider(environmentID: "env-123", baseURL: URL(string: "https://dyn.test/api/v0")!)

    func context(_ transport: ScriptedTransport) -> AuthContext {
        AuthContext(
            transport: transport,
            time: TimeSource(clock: ContinuousClock(), now: { Date(timeIntervalSince1970: 1_700_000_000) }))
    }

    func json(_ request: HTTPRequest) throws -> [String: String] {
        try JSONDecoder().decode([String: String].self, from: request.body ?? Data())
    }

    @Test func emailCreateSendsTheIdentityKeyAndKeepsTheUUID() async throws {
        let stub = ScriptedTransport([
            ScriptedTransport.json(201, #"{"verificationUUID":"v-1","email":"user.name+otp@example.com"}"#)
        ])
        let step = try await provider.start(try .email("  User.Name+OTP@Example.COM "), context: context(stub))
        let request = try #require(stub.requests.first)
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "https://dyn.test/api/v0/sdk/env-123/emailVerifications/create")
        #expect(try json(request) == ["email": "user.name+otp@example.com"])
        let challenge = try #require(step.challenge)
        #expect(challenge.providerState[revealing: "verificationUUID"] == "v-1")
        #expect(challenge.kind == .oneTimeCode(length: 6, channel: .email, linkAlsoSent: false))
        #expect(challenge.attemptsRemaining == 3)
        #expect(challenge.expiresAt == Date(timeIntervalSince1970: 1_700_000_600))
    }

    @Test(arguments: [
        ("+1 415 555 0100", "+1", "4155550100", "US"),
        ("+44 (0) 20 7946 0958", "+44", "2079460958", "GB"),
        ("+39 06 5555 0100", "+39", "0655550100", "IT"),
        ("+91 98765 43210", "+91", "9876543210", "IN"),
    ])
    func smsCreateDerivesTheWireFieldsFromPhoneNumber(input: String, code: String, national: String, iso: String)
        async throws
    {
        let stub = ScriptedTransport([
            ScriptedTransport.json(
                201, #"{"verificationUUID":"v-2","phoneNumber":"x","phoneCountryCode":"x","isoCountryCode":"x"}"#)
        ])
        let step = try await provider.start(try .phone(input), context: context(stub))
        let request = try #require(stub.requests.first)
        #expect(request.url.path == "/api/v0/sdk/env-123/smsVerifications/create")
        #expect(try json(request) == ["phoneCountryCode": code, "phoneNumber": national, "isoCountryCode": iso])
        #expect(step.challenge?.kind == .oneTimeCode(length: 6, channel: .sms, linkAlsoSent: false))
    }

    /// `sessionPublicKey` (embedded-wallet environments) goes where the SDK's request types
    /// carry it: the code sign-in body, trimmed, and nowhere else; without one nothing is sent;
    /// a blank one is refused before any request (Docs/Providers/Dynamic.md, "Flow").
    @Test func theSessionPublicKeyIsSentOnSignInOnly() async throws {
        let key = "02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5"
        let signedIn = ScriptedTransport.json(
            200, #"{"jwt":"a.b.c","minifiedJwt":"a.b.c","expiresAt":1700007200,"user":{"id":"u-1"}}"#)
        for configured in [key, "  \(key)\n", nil] {
            let configuration = DynamicConfiguration(
                environmentID: "env-123", baseURL: URL(string: "https://dyn.test/api/v0")!, sessionPublicKey: configured
            )
            let provider = DynamicProvider(configuration: configuration)
            let stub = ScriptedTransport([
                ScriptedTransport.json(201, #"{"verificationUUID":"v-1","email":"a@example.com"}"#), signedIn,
            ])
            let challenge = try #require(
                try await provider.start(try .email("a@example.com"), context: context(stub)).challenge)
            _ = try await provider.respond(to: challenge, with: ChallengeAnswer(code: "123456"), context: context(stub))
            #expect(try json(stub.requests[0]) == ["email": "a@example.com"])
            var expected = ["verificationUUID": "v-1", "verificationToken": "123456"]
            if configured != nil { expected["sessionPublicKey"] = key }
            #expect(try json(stub.requests[1]) == expected, "\(String(describing: configured))")
        }
        for blank in ["", "  \n"] {
            let provider = DynamicProvider(
                configuration: DynamicConfiguration(
                    environmentID: "env-123", baseURL: URL(string: "https://dyn.test/api/v0")!, sessionPublicKey: blank)
            )
            let stub = ScriptedTransport([])
            let error = await #expect(throws: AuthError.self) {
                _ = try await provider.start(try .email("a@example.com"), context: context(stub))
            }
            #expect(error?.code == .configuration)
            #expect(stub.requests.isEmpty)
        }
        #expect(throws: AuthError.self) {
            try DynamicConfiguration.production(environmentID: "env", sessionPublicKey: " ")
        }
    }

    @Test func unsupportedRequestsMakeNoCall() async throws {
        let stub = ScriptedTransport([])
        for request in [
            SignInRequest.oauth(.google), try .email("a@b.co", channel: .sms),
            try .phone("+14155550100", channel: .whatsapp),
        ] {
            await #expect(throws: AuthError.self) { try await provider.start(request, context: context(stub)) }
        }
        // A non-geographic number has no ISO country code.
        let error = await #expect(throws: AuthError.self) {
            try await provider.start(try .phone("+800 1234 5678"), context: context(stub))
        }
        #expect(error?.code == .invalidInput)
        #expect(stub.requests.isEmpty)
    }

    @Test(arguments: [
        (
            422, #"{"error":"Wrong code","code":"wrong_email_verification_token"}"#, "invalidCode",
            "wrong_email_verification_token"
        ),
        (
            422, #"{"error":"Wrong code","code":"wrong_sms_verification_token"}"#, "invalidCode",
            "wrong_sms_verification_token"
        ),
        (422, #"{"error":"Expired","code":"email_verification_expired"}"#, "expired", "email_verification_expired"),
        (422, #"{"error":"x","code":"invalid_email_verification"}"#, "expired", "invalid_email_verification"),
        (
            422, #"{"error":"x","code":"too_many_email_verification_attempts"}"#, "attemptsExhausted",
            "too_many_email_verification_attempts"
        ),
        (422, #"{"error":"x","code":"no_enabled_sms_provider"}"#, "configuration", "no_enabled_sms_provider"),
        (422, #"{"error":"x","code":"brand_new_code_2031","payload":{"a":1}}"#, "generic", "brand_new_code_2031"),
        (429, #"{"error":"Too many requests"}"#, "rateLimited", "429"),
        (403, #"{"error":{"code":"blocked_user","message":"no"},"payload":{}}"#, "unauthorized", "blocked_user"),
        (401, #"{"error":"Unauthorized"}"#, "unauthorized", "401"),
        (503, "<html>down</html>", "providerUnavailable", "503"),
        (418, "", "generic", "418"),
    ])
    func errorMapping(status: Int, body: String, code: String, raw: String) {
        let error = provider.mapError(ScriptedTransport.json(status, body), channel: .email)
        #expect(error.code == AuthError.Code(code))
        #expect(error.providerCode == raw)
        #expect(error.provider == .dynamic)
    }

    @Test func rateLimitUsesRetryAfterOrTheWindow() {
        let withHeader = provider.mapError(
            ScriptedTransport.json(429, #"{"error":"x"}"#, headers: ["Retry-After": "42"]), channel: .email)
        #expect(withHeader.retryAfter == .seconds(42))
        let without = provider.mapError(ScriptedTransport.json(429, #"{"error":"x"}"#), channel: .email)
        #expect(without.retryAfter == .seconds(600))
    }

    @Test func signInWithTheCodeAndMapTheUser() async throws {
        let body = #"""
            {"jwt":"a.b.c","minifiedJwt":"d.e.f","expiresAt":1700007200,
             "user":{"id":"user-1","projectEnvironmentId":"env-123","email":"me@example.com","sessionId":"s-1",
                     "verifiedCredentials":[{"id":"vc-1","format":"email","email":"me@example.com","signInEnabled":true},
                                            {"id":"vc-2","format":"phoneNumber","phoneNumber":"4155550100","phoneCountryCode":"+1","isoCountryCode":"US","signInEnabled":true}],
                     "someFutureField":{"x":[1,2]}}}
            """#
        let stub = ScriptedTransport([ScriptedTransport.json(200, body)])
        var state = ProviderState()
        state["verificationUUID"] = "v-1"
        let challenge = Challenge(
            flowID: .random(), provider: .dynamic, kind: .oneTimeCode(length: 6, channel: .email, linkAlsoSent: false),
            issuedAt: Date(timeIntervalSince1970: 1_700_000_000), providerState: state)
        let step = try await provider.respond(
            to: challenge, with: ChallengeAnswer(code: " 005 924\n"), context: context(stub))
        #expect(
            try json(try #require(stub.requests.first)) == ["verificationUUID": "v-1", "verificationToken": "005924"])
        let session = try #require(step.session)
        #expect(session.credentials.accessToken == "d.e.f")
        #expect(session.credentials.idToken == "a.b.c")
        #expect(session.credentials.expiresAt == Date(timeIntervalSince1970: 1_700_007_200))
        #expect(session.user.id == "user-1")
        #expect(session.user.email?.identityKey == "me@example.com")
        #expect(session.user.phone?.e164 == "+14155550100")
        #expect(
            session.user.identities == [
                AuthUser.Identity(kind: "email", value: "vc-1", verified: true),
                AuthUser.Identity(kind: "phone", value: "vc-2", verified: true),
            ])
    }
}
