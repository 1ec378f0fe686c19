import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthSandbox
import MultiAuthSandboxKit
import Testing

/// The contract fixtures in `Tests/Fixtures/Contracts/Dynamic` (the requests and
/// responses of the real Dynamic SDK API, sources in the README there) hold in both
/// directions — `DynamicProvider` sends each request field for field and maps each response,
/// and `DynamicBackend` accepts each request and answers with the same shapes — and renaming
/// any fixture field breaks a check.
@Suite(.timeLimit(.minutes(10)))
struct DynamicContractTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Contracts/Dynamic")
    static let suite = ContractSuite(
        directory: directory,
        endpoints: [
            "email-create", "email-create-captcha", "sms-create", "email-retry", "sms-retry", "email-signin",
            "email-signin-captcha", "email-signin-session-key",
            "sms-signin", "refresh", "revoke", "social-init-auth", "social-login-url", "social-sign-in", "mfa-totp",
        ], minimumRenamings: 100, adapter: adapterDirection, sandbox: sandboxDirection)
    static var fixtures: [ContractFixture] { suite.fixtures }
    static let environment = DynamicBackend.defaultEnvironmentID
    static let code = "123456"
    static let token = "token-1"
    /// The production deep link of the social fixtures (the SDK guide's example shape).
    static let deepLink = "myapp://auth/callback"
    /// The MFA-pending JWT of `email-signin`'s "MFA required" answer: the bearer of `mfa-totp`.
    static var mfaToken: String {
        (try? ContractFixture.named("email-signin", in: fixtures).response("MFA required"))?.body?["minifiedJwt"]?
            .stringValue ?? ""
    }

    /// The social return for `challenge`: the deep link with `dynamicOauthCode` and the state of
    /// the challenge's authorization URL.
    static func socialReturn(_ challenge: Challenge, code: String) throws -> URL {
        guard case .oauthRedirect(let url) = challenge.kind,
            let state = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: {
                $0.name == "state"
            })?.value
        else { throw ContractError("not a social challenge") }
        var components = URLComponents(string: deepLink)!
        components.queryItems = [
            URLQueryItem(name: "dynamicOauthCode", value: code), URLQueryItem(name: "dynamicOauthState", value: state),
        ]
        return components.url!
    }

    /// The fixtures' embedded-wallet session public key (a compressed P-256 point, ours).
    static let sessionPublicKey = "02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5"

    @Test func everyEndpointTheAdapterCallsHasAFixture() {
        let failures = Self.suite.endpointFailures()
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test(arguments: suite.fixtures)
    func fixtureHoldsInBothDirections(fixture: ContractFixture) async {
        let failures = await Self.suite.failures(of: fixture)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// Renaming any field of any fixture (in memory) makes a check fail; the `unread` fields
    /// (responses the backend cannot produce) do not change the adapter's result.
    @Test func renamingAnyFixtureFieldBreaksACheck() async {
        let failures = await Self.suite.biteFailures()
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    // MARK: Adapter direction: the request it sends, what it makes of the response

    /// A fixture's response as the scripted server's answer to an earlier step.
    static func success(_ name: String, _ response: String) -> HTTPResponse {
        (try? ContractFixture.named(name, in: fixtures).response(response).httpResponse()) ?? HTTPResponse(status: 599)
    }

    /// Runs the adapter (production configuration) against a scripted transport that answers
    /// the earlier steps with their fixtures' successes and the last step with `response`.
    static func adapterDirection(_ fixture: ContractFixture, _ response: ContractResponse) async -> [String] {
        do {
            let provider = DynamicProvider(
                configuration: try .production(
                    environmentID: environment,
                    sessionPublicKey: fixture.name.hasSuffix("session-key") ? sessionPublicKey : nil,
                    socialRedirectURL: URL(string: deepLink)!))
            let isSMS = fixture.name.hasPrefix("sms")
            let createName =
                isSMS ? "sms-create" : fixture.name.hasSuffix("captcha") ? "email-create-captcha" : "email-create"
            let created = try ContractFixture.named(createName, in: fixtures).response("created")
            let uuid = created.body?.objectValue?["verificationUUID"]?.stringValue ?? ""
            var bindings: ContractMatch.Bindings = [
                "env": environment, "verificationUUID": uuid, "code": code, "token": token,
            ]
            let request: SignInRequest =
                isSMS
                ? .phone(try PhoneNumber("+91 98765 43210"))
                : try .email(
                    "Ada@Example.com",
                    options: fixture.name.hasSuffix("captcha")
                        ? [DynamicProvider.captchaTokenOption: "captcha-token-1"] : [:])
            let session = AuthSession(
                provider: .dynamic, user: AuthUser(id: "u"),
                credentials: Credentials(accessToken: Secret(token), tokenType: "Bearer"),
                createdAt: Date(timeIntervalSince1970: 1_700_000_000))
            let last = response.httpResponse()
            let outcome: Result<String, AuthError>
            let transport: ScriptedTransport
            let context: (ScriptedTransport) -> AuthContext = {
                AuthContext(transport: $0, time: ManualClock().timeSource, flowID: .random())
            }
            func run(_ body: () async throws -> String) async -> Result<String, AuthError> {
                do { return .success(try await body()) } catch let error as AuthError { return .failure(error) } catch {
                    return .failure(AuthError(.generic, "\(error)"))
                }
            }
            switch fixture.name {
            case "email-create", "email-create-captcha", "sms-create":
                transport = ScriptedTransport([last])
                outcome = await run {
                    try await provider.start(request, context: context(transport)).challenge != nil
                        ? "challenge" : "session"
                }
            case "email-retry", "sms-retry":
                transport = ScriptedTransport([created.httpResponse(), last])
                outcome = await run {
                    let challenge = try await provider.start(request, context: context(transport)).challenge!
                    _ = try await provider.resend(challenge, channel: nil, context: context(transport))
                    return "challenge"
                }
            case "email-signin", "email-signin-captcha", "email-signin-session-key", "sms-signin":
                transport = ScriptedTransport([created.httpResponse(), last])
                outcome = await run {
                    let challenge = try await provider.start(request, context: context(transport)).challenge!
                    let step = try await provider.respond(
                        to: challenge, with: ChallengeAnswer(code: code), context: context(transport))
                    return step.session != nil ? "session" : "challenge"
                }
            case "social-init-auth":
                transport = ScriptedTransport([last, success("social-login-url", "login URL")])
                outcome = await run {
                    try await provider.start(.oauth(.google), context: context(transport)).challenge != nil
                        ? "challenge" : "session"
                }
            case "social-login-url":
                transport = ScriptedTransport([success("social-init-auth", "initialized"), last])
                outcome = await run {
                    try await provider.start(.oauth(.google), context: context(transport)).challenge != nil
                        ? "challenge" : "session"
                }
            case "social-sign-in":
                transport = ScriptedTransport([
                    success("social-init-auth", "initialized"), success("social-login-url", "login URL"), last,
                ])
                outcome = await run {
                    let challenge = try await provider.start(.oauth(.google), context: context(transport)).challenge!
                    let link = try socialReturn(challenge, code: code)
                    let step = try await provider.handleRedirect(link, pending: challenge, context: context(transport))
                    return step.session != nil ? "session" : "challenge"
                }
            case "mfa-totp":
                transport = ScriptedTransport([
                    created.httpResponse(), success("email-signin", "MFA required"), last,
                ])
                bindings["token"] = mfaToken
                outcome = await run {
                    let challenge = try await provider.start(request, context: context(transport)).challenge!
                    guard
                        let mfa = try await provider.respond(
                            to: challenge, with: ChallengeAnswer(code: code), context: context(transport)
                        ).challenge
                    else { return "no MFA step" }
                    let step = try await provider.respond(
                        to: mfa, with: ChallengeAnswer(code: code), context: context(transport))
                    return step.session != nil ? "session" : "challenge"
                }
            case "refresh":
                transport = ScriptedTransport([last])
                outcome = await run {
                    _ = try await provider.refresh(session, context: context(transport))
                    return "session"
                }
            case "revoke":
                transport = ScriptedTransport([last])
                outcome = await run {
                    try await provider.signOut(session, context: context(transport))
                    return "success"
                }
            default:
                return ["no adapter driver for \(fixture.name)"]
            }
            var failures: [String] = []
            // initAuth is the first call of a social start; every other fixture is the last call.
            if let sent = fixture.name == "social-init-auth" ? transport.requests.first : transport.requests.last {
                failures += ContractMatch.request(sent, matches: fixture, host: fixture.host, bindings: &bindings)
            } else {
                failures.append("no request was sent")
            }
            failures += ContractMatch.expectation(outcome, response)
            return failures
        } catch {
            return ["set-up failed: \(error)"]
        }
    }

    // MARK: Sandbox direction: the backend accepts the request and answers in the same shape

    static let base = URL(string: "https://\(DynamicBackend.defaultHost)")!

    static func sandboxDirection(_ fixture: ContractFixture, _ response: ContractResponse) async -> [String] {
        do {
            let sandbox = Sandbox(seed: 11)
            let backend = DynamicBackend(signingKey: BuiltInConformance.sandboxSigningKey)
            sandbox.register(backend, host: DynamicBackend.defaultHost)
            let recipe = response.sandboxRecipe ?? ""
            let captcha = ["captcha-required", "captcha-missing"].contains(recipe)
            if captcha { backend.requireCaptcha() }
            var bindings: ContractMatch.Bindings = ["env": environment]
            let isSMS = fixture.name.hasPrefix("sms")
            let createName = isSMS ? "sms-create" : "email-create"
            let destination = isSMS ? "+919876543210" : "ada@example.com"

            // The steps before this endpoint, through the backend with the fixtures' own requests.
            func create() async throws {
                let fixture = try ContractFixture.named(createName, in: fixtures)
                var body = fixture.body?.objectValue ?? [:]
                if captcha { body["captchaToken"] = .string("captcha-token-1") }
                let answer = try await sandbox.transport.send(
                    ContractMatch.httpRequest(fixture, base: base, bindings: bindings, body: .object(body)))
                let object = try JSONDecoder().decode(JSONValue.self, from: answer.body).objectValue
                guard answer.status == 201, let uuid = object?["verificationUUID"]?.stringValue else {
                    throw ContractError("create answered \(answer.status)")
                }
                bindings["verificationUUID"] = uuid
                bindings["code"] = sandbox.inbox.latest(for: destination)?.code
            }
            func signIn() async throws {
                try await create()
                let fixture = try ContractFixture.named(isSMS ? "sms-signin" : "email-signin", in: fixtures)
                let answer = try await sandbox.transport.send(
                    ContractMatch.httpRequest(fixture, base: base, bindings: bindings))
                guard
                    let token = (try JSONDecoder().decode(JSONValue.self, from: answer.body)).objectValue?[
                        "minifiedJwt"]?.stringValue
                else {
                    throw ContractError("sign-in answered \(answer.status)")
                }
                bindings["token"] = token
            }
            // Social: the emulated provider's consent gives the code of a state `initAuth` registered.
            func socialCode() async throws {
                for name in ["social-init-auth", "social-login-url"] {
                    let step = try ContractFixture.named(name, in: fixtures)
                    let answer = try await sandbox.transport.send(
                        ContractMatch.httpRequest(step, base: base, bindings: bindings))
                    guard answer.isSuccess else { throw ContractError("\(name) answered \(answer.status)") }
                    if name == "social-login-url" {
                        let object = try JSONDecoder().decode(JSONValue.self, from: answer.body)
                        guard var page = URLComponents(string: object["url"]?.stringValue ?? "") else {
                            throw ContractError("loginUrl is not a URL")
                        }
                        let items = page.queryItems ?? []
                        page.queryItems = items + [URLQueryItem(name: "state", value: bindings["state"])]
                        let link = try backend.approveSocialLogin(
                            page.url!, email: destination, now: sandbox.clock.wallNow)
                        bindings["code"] =
                            URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first {
                                $0.name == "dynamicOauthCode"
                            }?.value
                    }
                }
            }
            if fixture.name.hasPrefix("social") {
                bindings["provider"] = "google"
                bindings["state"] = "state-fixture-1"
            }
            switch fixture.name {
            case "email-retry", "sms-retry", "email-signin", "email-signin-captcha", "email-signin-session-key",
                "sms-signin":
                try await create()
            case "refresh", "revoke": try await signIn()
            case "social-sign-in": try await socialCode()
            case "mfa-totp":
                backend.requireMFA(for: destination)
                try await signIn()
                let secret = backend.totpSecret(for: destination) ?? []
                bindings["code"] = try TOTP(secret: secret).code(
                    at: Int64(sandbox.clock.wallNow.timeIntervalSince1970.rounded(.down)))
            default: break
            }

            var body = fixture.body
            var repeats = 0
            switch recipe {
            case "as-is", "captcha-required": break
            case "invalid-identity":
                var object = body?.objectValue ?? [:]
                if isSMS {
                    object["isoCountryCode"] = .string("US")
                } else {
                    object["email"] = .string("not-an-address")
                }
                body = .object(object)
            case "send-limit": repeats = DynamicBackend.sendLimit
            case "unexpected-field":
                var object = body?.objectValue ?? [:]
                object["unexpected"] = .string("x")
                body = .object(object)
            case "captcha-missing":
                var object = body?.objectValue ?? [:]
                object["captchaToken"] = nil
                body = .object(object)
            case "unknown-verification": bindings["verificationUUID"] = "00000000-0000-4000-8000-000000000000"
            case "wrong-code", "attempts-exhausted":
                bindings["code"] = bindings["code"] == "000000" ? "111111" : "000000"
                if recipe == "attempts-exhausted" { repeats = DynamicBackend.maximumAttempts - 1 }
            case "expired": sandbox.clock.advance(by: DynamicBackend.codeLifetime + .seconds(1))
            case "mfa": backend.requireMFA(for: destination)
            case "provider-disabled": backend.setSocialProvider("google", enabled: false)
            case "deep-link-not-whitelisted": backend.whitelistDeepLinks(["other-app://callback"])
            case "spent-code": repeats = 1
            case "cookie": backend.useCookieAuthentication()
            case "short-code": bindings["code"] = "12345"
            case "revoked": backend.revokeAllSessions()
            default: return ["unknown recipe \(recipe)"]
            }
            let request = ContractMatch.httpRequest(fixture, base: base, bindings: bindings, body: body)
            for _ in 0..<repeats { _ = try await sandbox.transport.send(request) }
            let answer = try await sandbox.transport.send(request)
            var failures: [String] = []
            if answer.status != response.status {
                failures.append("status \(answer.status), expected \(response.status)")
            }
            for name in response.headers.keys where answer.header(name) == nil {
                failures.append("header \(name) is missing")
            }
            let actual = answer.body.isEmpty ? nil : try? JSONDecoder().decode(JSONValue.self, from: answer.body)
            failures += ContractMatch.shape(actual, matches: response.body, optional: response.optional)
            return failures
        } catch {
            return ["set-up failed: \(error)"]
        }
    }
}
