import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandbox
import MultiAuthSandboxKit
import Testing

@testable import MultiAuthPortal

/// The contract fixtures in `Tests/Fixtures/Contracts/Portal` (PortalSwift's Client
/// Auth wire types and its own API tests; sources in the README there) hold in both
/// directions — `PortalProvider` sends each request field for field and maps each response,
/// `PortalBackend` accepts each request and answers in the same shape — and renaming any
/// fixture field breaks a check.
@Suite(.timeLimit(.minutes(10)))
struct PortalContractTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Contracts/Portal")
    static let suite = ContractSuite(
        directory: directory,
        endpoints: [
            "magic-links", "magic-links-account-abstraction", "oauth-urls", "magic-link-validation", "oauth-tokens",
            "totp-validation",
        ], minimumRenamings: 40, adapter: adapterDirection, sandbox: sandboxDirection)
    static var fixtures: [ContractFixture] { suite.fixtures }
    static let environment = "env-7f3a"
    static let redirect = "myapp://auth/callback"
    static let fromEmail = "signin@example.org"
    static let templateID = "magic-link-template-2"
    static let grant = "grant-4d2b"
    static let code = "123456"
    /// A `userJwt` shaped like the backend's (claims `endUserId`, `iat`, `exp`); never verified.
    static let userJwt =
        [#"{"alg":"HS256","typ":"JWT"}"#, #"{"endUserId":"eu_5d1c9a7b3e2f4a60","iat":1700000000,"exp":1700000600}"#]
        .map { Base64URL.encode(Array($0.utf8)) }.joined(separator: ".") + ".c2ln"

    @Test func everyEndpointTheAdapterCallsHasAFixture() {
        let failures = Self.suite.endpointFailures()
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test(arguments: suite.fixtures)
    func fixtureHoldsInBothDirections(fixture: ContractFixture) async {
        let failures = await Self.suite.failures(of: fixture)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test func renamingAnyFixtureFieldBreaksACheck() async {
        let failures = await Self.suite.biteFailures()
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    // MARK: Adapter direction

    static func adapterDirection(_ fixture: ContractFixture, _ response: ContractResponse) async -> [String] {
        do {
            let configuration = try PortalConfiguration.production(
                authEnvironmentID: environment, redirectURL: URL(string: redirect)!, fromEmail: fromEmail,
                templateID: templateID,
                isAccountAbstracted: fixture.name.hasSuffix("account-abstraction") ? true : nil)
            let provider = PortalProvider(configuration: configuration)
            var bindings: ContractMatch.Bindings = [
                "environment": environment, "redirectUrl": redirect, "fromEmail": fromEmail, "templateId": templateID,
                // PortalSwift's own test vector for this redirect: `myapp%3A%2F%2Fauth%2Fcallback`.
                "encodedRedirectUrl": "myapp%3A%2F%2Fauth%2Fcallback", "grant": grant, "userJwt": userJwt, "code": code,
            ]
            let answer = response.httpResponse(bindings: bindings)
            let transport = ScriptedTransport { request in
                if request.url.path == fixture.path { return answer }
                if request.url.path.hasSuffix("/oauth/urls") {
                    return
                        (try? ContractFixture.named("oauth-urls", in: fixtures).response("authorize URLs")
                        .httpResponse()) ?? HTTPResponse(status: 599)
                }
                return HTTPResponse(status: 200, body: Data(#"{"data":{"sent":true}}"#.utf8))
            }
            let context = AuthContext(transport: transport, time: ManualClock().timeSource, flowID: .random())
            var outcome: Result<String, AuthError>
            do {
                let step: SignInStep?
                switch fixture.name {
                case "magic-links", "magic-links-account-abstraction":
                    step = try await provider.start(.email("Ada@Example.com"), context: context)
                case "oauth-urls":
                    step = try await provider.start(.oauth(.google), context: context)
                case "magic-link-validation":
                    let pending = try await provider.start(.email("ada@example.com"), context: context).challenge
                    step = try await provider.handleRedirect(
                        URL(string: "\(redirect)?token=\(grant)&authMethod=EMAIL_MAGIC_LINK")!, pending: pending,
                        context: context)
                case "oauth-tokens":
                    let pending = try await provider.start(.oauth(.google), context: context).challenge
                    step = try await provider.handleRedirect(
                        URL(string: "\(redirect)?token=\(grant)&login_type=GOOGLE")!, pending: pending, context: context
                    )
                case "totp-validation":
                    var state = ProviderState()
                    state[revealing: "userJwt"] = userJwt
                    let challenge = Challenge(
                        flowID: .random(), provider: .portal, kind: .totp(digits: 6, enrollment: nil),
                        issuedAt: Date(timeIntervalSince1970: 0),
                        providerState: state)
                    step = try await provider.respond(
                        to: challenge, with: ChallengeAnswer(code: code), context: context)
                default:
                    return ["no adapter driver for \(fixture.name)"]
                }
                outcome = .success(step?.session != nil ? "session" : step?.challenge != nil ? "challenge" : "none")
            } catch let error as AuthError {
                outcome = .failure(error)
            }
            var failures: [String] = []
            if let sent = transport.requests.last(where: { $0.url.path == fixture.path }) {
                failures += ContractMatch.request(sent, matches: fixture, host: fixture.host, bindings: &bindings)
            } else {
                failures.append("the adapter sent no \(fixture.method) \(fixture.path)")
            }
            failures += ContractMatch.expectation(outcome, response)
            return failures
        } catch {
            return ["set-up failed: \(error)"]
        }
    }

    // MARK: Sandbox direction

    static let base = URL(string: "https://\(PortalBackend.defaultHost)")!

    static func sandboxDirection(_ fixture: ContractFixture, _ response: ContractResponse) async -> [String] {
        do {
            let recipe = response.sandboxRecipe ?? ""
            let sandbox = Sandbox(seed: 17)
            let backend = try PortalBackend(
                totpRequired: recipe != "no-totp", accountAbstractionAvailable: recipe != "no-account-abstraction")
            sandbox.register(backend, host: PortalBackend.defaultHost)
            let configuration = try PortalConfiguration.sandbox()
            var bindings: ContractMatch.Bindings = [
                "environment": configuration.authEnvironmentID, "redirectUrl": configuration.redirectURL.absoluteString,
                "fromEmail": configuration.fromEmail!, "templateId": configuration.templateID!,
                "encodedRedirectUrl": PortalProvider.formEncode(configuration.redirectURL.absoluteString),
                "traceId": UUID().uuidString.lowercased(),
            ]
            func send(_ name: String) async throws -> HTTPResponse {
                try await sandbox.transport.send(
                    ContractMatch.httpRequest(
                        try ContractFixture.named(name, in: fixtures), base: base, bindings: bindings))
            }
            func data(_ response: HTTPResponse) -> [String: JSONValue] {
                (try? JSONDecoder().decode(JSONValue.self, from: response.body))?.objectValue?["data"]?.objectValue
                    ?? [:]
            }
            func query(_ url: URL, _ name: String) -> String? {
                URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.last { $0.name == name }?.value
            }
            func magicLinkGrant() async throws {
                _ = try await send("magic-links")
                guard let link = sandbox.inbox.latest(for: "ada@example.com")?.link else {
                    throw ContractError("no magic link")
                }
                bindings["grant"] = query(link, "token")
            }
            func oauthGrant() async throws {
                guard let google = data(try await send("oauth-urls"))["google"]?.stringValue else {
                    throw ContractError("no OAuth URL")
                }
                let consent = try await sandbox.transport.send(
                    HTTPRequest(method: .get, url: URL(string: google + "&login_hint=ada@example.com")!))
                guard let location = PortalBackend.redirectLocation(consent) else {
                    throw ContractError("no consent redirect")
                }
                bindings["grant"] = query(location, "token")
            }
            func totpCode(offset: Int = 0) throws -> String {
                guard let secret = backend.totpSecret(for: "ada@example.com") else {
                    throw ContractError("no TOTP secret")
                }
                return try TOTP(secret: secret).code(
                    at: sandbox.clock.wallNow.addingTimeInterval(TimeInterval(30 * offset)))
            }
            switch fixture.name {
            case "magic-link-validation": try await magicLinkGrant()
            case "oauth-tokens": try await oauthGrant()
            case "totp-validation":
                try await magicLinkGrant()
                bindings["userJwt"] = data(try await send("magic-link-validation"))["userJwt"]?.stringValue
                bindings["code"] = try totpCode()
            default: break
            }
            var body = fixture.body
            var headers: [String: String] = [:]
            var repeats = 0
            switch recipe {
            case "as-is", "no-totp", "no-account-abstraction": break
            case "no-sender":
                var object = body?.objectValue ?? [:]
                object["fromEmail"] = nil
                object["templateId"] = nil
                body = .object(object)
            case "wrong-environment": headers["x-portal-auth-environment-id"] = "another-environment"
            case "send-twice": repeats = 1
            case "forged-grant": bindings["grant"] = "forged-grant"
            case "wrong-code": bindings["code"] = try totpCode(offset: 5)
            case "replay":
                _ = try await send("totp-validation")
                try await oauthGrant()
                bindings["userJwt"] = data(try await send("oauth-tokens"))["userJwt"]?.stringValue
            default: return ["unknown recipe \(recipe)"]
            }
            let request = ContractMatch.httpRequest(
                fixture, base: base, bindings: bindings, body: body, headers: headers)
            for _ in 0..<repeats { _ = try await sandbox.transport.send(request) }
            let answer = try await sandbox.transport.send(request)
            var failures: [String] = []
            if answer.status != response.status {
                failures.append("status \(answer.status), expected \(response.status)")
            }
            let actual = answer.body.isEmpty ? nil : try? JSONDecoder().decode(JSONValue.self, from: answer.body)
            failures += ContractMatch.shape(actual, matches: response.body, optional: response.optional)
            return failures
        } catch {
            return ["set-up failed: \(error)"]
        }
    }
}
