import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandbox
import MultiAuthSandboxKit
import Testing

@testable import MultiAuthTruecaller

/// The contract fixtures in `Tests/Fixtures/Contracts/Truecaller` (TrueSDK 0.1.8's
/// requests and models, Truecaller's server-side validation docs; sources in the README there)
/// hold in both directions — the adapter sends each request field for field and maps each
/// response, `TruecallerBackend` accepts each request and answers in the same shape — and
/// renaming any fixture field breaks a check.
@Suite(.timeLimit(.minutes(10)))
struct TruecallerContractTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Contracts/Truecaller")
    static let suite = ContractSuite(
        directory: directory,
        endpoints: [
            "create", "verify", "profile-update", "profile-get", "key", "phone-number-detail",
        ], minimumRenamings: 60, adapter: adapterDirection, sandbox: sandboxDirection)
    static var fixtures: [ContractFixture] { suite.fixtures }
    static let code = "123456"
    static let appKey = "partner-key"
    static let appLink = "https://app.example.com/truecaller"
    static let deviceID = "device-1"

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

    /// The successes the scripted server answers the other steps with.
    static func success(_ name: String, _ response: String) -> HTTPResponse {
        (try? ContractFixture.named(name, in: fixtures).response(response).httpResponse()) ?? HTTPResponse(status: 599)
    }

    static func adapterDirection(_ fixture: ContractFixture, _ response: ContractResponse) async -> [String] {
        do {
            let configuration = try TruecallerConfiguration.production(
                appKey: appKey, appLink: URL(string: appLink)!, deviceID: deviceID)
            var bindings: ContractMatch.Bindings = [
                "appKey": appKey, "appLink": appLink, "deviceId": deviceID, "version": configuration.appVersion,
                "code": code,
            ]
            let answer = response.httpResponse()
            let endpoint = "\(fixture.method) \(fixture.path)"
            let transport = ScriptedTransport { request in
                let key = "\(request.method.rawValue) \(request.url.path)"
                if key == endpoint
                    || (fixture.name == "phone-number-detail" && request.url.path.contains("phoneNumberDetail"))
                {
                    return answer
                }
                switch key {
                case "POST /v1/otp/installation/create": return success("create", "otp sent")
                case "POST /v1/otp/installation/verify": return success("verify", "verified")
                case "POST /v1/profile": return success("profile-update", "stored")
                case "GET /v1/profile": return success("profile-get", "profile")
                default: return HTTPResponse(status: 404)
                }
            }
            let context = TruecallerWorld.context(transport)
            let provider = TruecallerProvider(configuration: configuration)
            var outcome: Result<String, AuthError>
            do {
                switch fixture.name {
                case "create":
                    let step = try await provider.start(.phone(TruecallerWorld.phone), context: context)
                    outcome = .success(step.session != nil ? "session" : "challenge")
                case "verify", "profile-update", "profile-get":
                    guard
                        let challenge = try await provider.start(.phone(TruecallerWorld.phone), context: context)
                            .challenge
                    else {
                        throw ContractError("create gave no challenge")
                    }
                    bindings["verificationToken"] = challenge.providerState[revealing: "verificationToken"]
                    bindings["accessToken"] = success("verify", "verified").bodyString("accessToken")
                    let name = try PersonName(firstName: "Asha", lastName: "Rao")
                    let step = try await provider.respond(
                        to: challenge, with: ChallengeAnswer(code: code, name: name), context: context)
                    outcome = .success(step.session != nil ? "session" : "challenge")
                case "key":
                    let keys = try await TruecallerKeyStore(endpoint: configuration.keyEndpoint).refetch(
                        transport: transport)
                    outcome = .success(keys.isEmpty ? "none" : "success")
                case "phone-number-detail":
                    bindings["accessToken"] = "4e6a8c0b-2d1f-4a3e-9c5b-7d9e1f3a5c7e"
                    let verifier = TruecallerTokenVerifier(credential: .appKey(Secret(appKey)), transport: transport)
                    let detail = try await verifier.verify(accessToken: bindings["accessToken"]!)
                    outcome = .success(detail.e164.isEmpty ? "none" : "success")
                default:
                    return ["no adapter driver for \(fixture.name)"]
                }
            } catch let error as AuthError {
                outcome = .failure(error)
            }
            var failures: [String] = []
            let key = "\(fixture.method) \(fixture.path)"
            if let sent = transport.requests.last(where: {
                "\($0.method.rawValue) \($0.url.path)" == key
                    || $0.url.path.contains("phoneNumberDetail") && fixture.name == "phone-number-detail"
            }) {
                failures += ContractMatch.request(sent, matches: fixture, host: fixture.host, bindings: &bindings)
            } else {
                failures.append("the adapter sent no \(key)")
            }
            failures += ContractMatch.expectation(outcome, response)
            return failures
        } catch {
            return ["set-up failed: \(error)"]
        }
    }

    // MARK: Sandbox direction

    static let sandboxAppKey = TruecallerConfiguration.sandboxAppKey

    static func sandboxDirection(_ fixture: ContractFixture, _ response: ContractResponse) async -> [String] {
        do {
            let sandbox = Sandbox(seed: 13)
            let backend = TruecallerBackend(
                signingKey: BuiltInConformance.sandboxSigningKey, acceptedAppKeys: [sandboxAppKey])
            backend.install(in: sandbox)
            let recipe = response.sandboxRecipe ?? ""
            var bindings: ContractMatch.Bindings = [
                "appKey": sandboxAppKey, "appLink": TruecallerConfiguration.sandboxAppLink.absoluteString,
                "deviceId": "sandbox-device",
                "version": "1",
            ]
            let hosts = [
                "api4.truecaller.com": TruecallerBackend.otpHost,
                "outline-noneu.truecaller.com": TruecallerBackend.profileHostNonEU,
                "sdk-otp-verification-noneu.truecaller.com": TruecallerBackend.verificationHost,
            ]
            func base(_ fixture: ContractFixture) -> URL {
                URL(string: "https://\(hosts[fixture.host] ?? fixture.host)")!
            }
            func send(_ name: String, body: JSONValue? = nil) async throws -> HTTPResponse {
                let fixture = try ContractFixture.named(name, in: fixtures)
                return try await sandbox.transport.send(
                    ContractMatch.httpRequest(fixture, base: base(fixture), bindings: bindings, body: body))
            }
            func object(_ response: HTTPResponse) -> [String: JSONValue] {
                (try? JSONDecoder().decode(JSONValue.self, from: response.body))?.objectValue ?? [:]
            }
            func created() async throws {
                let answer = try await send("create")
                bindings["verificationToken"] = object(answer)["verificationToken"]?.stringValue
                bindings["code"] = sandbox.inbox.latest(for: "+919876543210")?.code
            }
            func verified() async throws {
                try await created()
                bindings["accessToken"] = object(try await send("verify"))["accessToken"]?.stringValue
                _ = try await send("profile-update")
            }
            switch fixture.name {
            case "verify": try await created()
            case "profile-update":
                try await created()
                bindings["accessToken"] = object(try await send("verify"))["accessToken"]?.stringValue
            case "profile-get", "phone-number-detail": try await verified()
            default: break
            }
            var body = fixture.body
            var repeats = 0
            switch recipe {
            case "as-is": break
            case "verified-before":
                backend.registerVerifiedNumber(
                    "+919876543210", countryCodeName: "IN", deviceID: "sandbox-device", firstName: "Asha")
            case "wrong-app-key": bindings["appKey"] = "not-the-partner-key"
            case "unexpected-field":
                var object = body?.objectValue ?? [:]
                object["unexpected"] = .string("x")
                body = .object(object)
            case "lockout":
                try await created()
                bindings["code"] = bindings["code"] == "000000" ? "111111" : "000000"
                for _ in 0..<backend.maximumAttempts { _ = try await send("verify") }
            case "wrong-code", "attempts":
                bindings["code"] = bindings["code"] == "000000" ? "111111" : "000000"
                if recipe == "attempts" { repeats = backend.maximumAttempts - 1 }
            case "expired": sandbox.clock.advance(by: .seconds(backend.tokenTtl + 1))
            case "blank-name":
                body = .object(["firstName": .string(""), "lastName": .string("Rao")])
            case "bad-token": bindings["accessToken"] = "00000000-0000-4000-8000-000000000000"
            default: return ["unknown recipe \(recipe)"]
            }
            let request = ContractMatch.httpRequest(fixture, base: base(fixture), bindings: bindings, body: body)
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

extension HTTPResponse {
    /// The string value of a top-level JSON key of the body, or `nil`.
    func bodyString(_ key: String) -> String? {
        (try? JSONDecoder().decode(JSONValue.self, from: body))?.objectValue?[key]?.stringValue
    }
}
