import Foundation
import MultiAuth
import MultiAuthSandbox
import MultiAuthSandboxKit
import Testing

@testable import MultiAuthTruecaller

/// The Truecaller mismatches against the real server — the name update's answer,
/// undocumented error codes, and the production host layout in the sandbox.
@Suite(.timeLimit(.minutes(10)))
struct TruecallerRealServerTests {
    /// The stub server of the OTP flow with the name update answering `profileAnswer`.
    static func server(profileAnswer: HTTPResponse) -> ScriptedTransport {
        ScriptedTransport { request in
            switch (request.method, request.url.path) {
            case (.post, "/v1/otp/installation/create"):
                return Stub.json(
                    200,
                    ["status": 2, "message": "sent", "method": "sms", "verificationToken": "vt-1", "tokenTtl": 300])
            case (.post, "/v1/otp/installation/verify"): return Stub.json(200, ["status": 1, "accessToken": "at-1"])
            case (.post, "/v1/profile"): return profileAnswer
            case (.get, "/v1/profile"): return Stub.json(200, Stub.profile)
            default: return Stub.json(404, ["code": 14, "message": "no route"])
            }
        }
    }

    static let anySuccess: [HTTPResponse] = [
        HTTPResponse(status: 204), HTTPResponse(status: 200), HTTPResponse(status: 200, body: Data("true".utf8)),
        HTTPResponse(status: 200, body: Data("[]".utf8)), HTTPResponse(status: 202, body: Data("{}".utf8)),
        HTTPResponse(status: 200, body: Data("<html>ok</html>".utf8)),
    ]

    /// TrueSDK never reads the answer to `POST /v1/profile`: any 2xx (204, empty, a non-object)
    /// finishes the sign-in. The adapter used to demand a JSON object and fail every sign-in
    /// after a correct code.
    @Test(arguments: anySuccess)
    func nameUpdateAcceptsAny2xx(answer: HTTPResponse) async throws {
        let provider = TruecallerProvider(configuration: TruecallerWorld.configuration)
        let transport = Self.server(profileAnswer: answer)
        let context = TruecallerWorld.context(transport)
        let challenge = try #require(
            try await provider.start(.phone(TruecallerWorld.phone), context: context).challenge)
        let step = try await provider.respond(
            to: challenge, with: ChallengeAnswer(code: "123456", name: try PersonName(firstName: "Asha")),
            context: context)
        #expect(step.session?.credentials.accessToken == "at-1")
        #expect(
            transport.endpoints == [
                "POST /v1/otp/installation/create", "POST /v1/otp/installation/verify", "POST /v1/profile",
                "GET /v1/profile",
            ])
    }

    @Test func nameUpdateFailureIsStillMapped() async throws {
        let provider = TruecallerProvider(configuration: TruecallerWorld.configuration)
        let transport = Self.server(profileAnswer: HTTPResponse(status: 503))
        let context = TruecallerWorld.context(transport)
        let challenge = try #require(
            try await provider.start(.phone(TruecallerWorld.phone), context: context).challenge)
        let error = await #expect(throws: AuthError.self) {
            try await provider.respond(
                to: challenge, with: ChallengeAnswer(code: "123456", name: try PersonName(firstName: "Asha")),
                context: context)
        }
        #expect(error?.code == .providerUnavailable)
    }

    nonisolated(unsafe) static let unknownCodes: [(Int, [String: Any], AuthError.Code, String)] = [
        // Messages Truecaller documents (TrueException table) map by their meaning.
        (400, ["code": 2, "message": "Phone number limit reached"], .rateLimited, "2"),
        (400, ["code": 2, "message": "Request id limit reached."], .rateLimited, "2"),
        (400, ["code": 2, "message": "Invalid phone number"], .invalidInput, "2"),
        (
            500, ["code": 2, "message": "Something went wrong: Failed to create installation."], .providerUnavailable,
            "2"
        ),
        (401, ["code": 9001, "message": "Invalid partner credentials."], .configuration, "9001"),
        // Anything else keeps its raw code and is generic (or follows the status), never a crash.
        (400, ["code": 40101, "message": "OTP mismatch"], .generic, "40101"),
        (400, ["code": "E_OTP", "message": "?"], .generic, "E_OTP"),
        (400, ["code": 12.0, "message": "?"], .configuration, "12"),
        (429, ["code": 77, "message": "?"], .rateLimited, "77"),
        (502, ["code": "x", "message": 5], .providerUnavailable, "x"),
        (400, ["code": NSNull()], .generic, "400"),
    ]

    /// Undocumented wrong-code / expiry / lockout codes: lenient (documented messages map by
    /// meaning; otherwise the raw code is kept and the error is `.generic`), never a crash.
    @Test(arguments: 0..<unknownCodes.count)
    func undocumentedCodesAreLenient(index: Int) async throws {
        let (status, body, expected, raw) = Self.unknownCodes[index]
        let answer = Stub.json(status, body)
        let transport = ScriptedTransport { _ in answer }
        let error = await #expect(throws: AuthError.self) {
            _ = try await TruecallerProvider(configuration: TruecallerWorld.configuration).start(
                .phone(TruecallerWorld.phone), context: TruecallerWorld.context(transport))
        }
        #expect(error?.code == expected, "\(body)")
        #expect(error?.providerCode == raw, "\(body)")
    }

    /// TrueSDK's EU list (Docs/Providers/Truecaller.md, "Configuration"), written out here as the
    /// SDK has it: 44 codes.
    static let trueSDKEuropeanCodes: Set<String> = [
        "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV", "LT", "LU",
        "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE", "UK", "GB", "IS", "LI", "NO", "CH", "AD", "FO", "GI",
        "GG", "IM", "JE", "MC", "SM", "SJ", "VA", "AX",
    ]

    /// The adapter routes every one of TrueSDK's 44 codes to the EU profile host, and the
    /// sandbox serves a Swiss and a British number's profile there (and refuses it on the
    /// non-EU host): one list, read by both.
    @Test func everyTrueSDKEuropeanRegionUsesTheEUProfileHostInAdapterAndSandbox() async throws {
        #expect(Self.trueSDKEuropeanCodes.count == 44)
        let production = try TruecallerConfiguration.production(
            appKey: "k", appLink: URL(string: "https://a.example/tc")!, deviceID: "d")
        #expect(TruecallerConfiguration.defaultEURegions == Self.trueSDKEuropeanCodes)
        for code in Self.trueSDKEuropeanCodes {
            #expect(production.profileBaseURL(forRegion: code).host == "outline-eu.truecaller.com", "\(code)")
        }
        #expect(production.profileBaseURL(forRegion: "IN").host == "outline-noneu.truecaller.com")
        #expect(production.profileBaseURL(forRegion: "US").host == "outline-noneu.truecaller.com")

        let world = Sandbox(seed: 6)
        TruecallerBackend(signingKey: BuiltInConformance.sandboxSigningKey).install(in: world)
        let client = try AuthClient(
            providers: [TruecallerProvider(configuration: try .sandbox(otpRegions: nil))], transport: world.transport,
            time: world.time)
        for number in ["+41 78 123 45 67", "+44 7911 123456"] {
            let phone = try PhoneNumber(number)
            let challenge = try #require(try await client.signIn(with: .truecaller, .phone(phone)).challenge)
            let code = try #require(world.inbox.latest(for: phone.e164)?.code)
            let session = try await client.submit(
                ChallengeAnswer(code: code, name: try PersonName(firstName: "Lea")), for: challenge
            ).session
            #expect(session != nil, "\(number)")
            try await client.signOut(.truecaller)
        }
        #expect(world.requestCount(host: "outline-eu.truecaller.test", pathPrefix: "/v1/profile") == 4)
        #expect(world.requestCount(host: "outline-noneu.truecaller.test") == 0)
    }

    /// The sandbox configuration keeps the production layout on `.test` names; the backend
    /// serves each path only on its host, and an EU number's profile only on the EU host.
    @Test func sandboxKeepsTheProductionHostLayout() async throws {
        let production = try TruecallerConfiguration.production(
            appKey: "k", appLink: URL(string: "https://a.example/tc")!, deviceID: "d")
        let sandbox = try TruecallerConfiguration.sandbox()
        #expect(
            production.otpBaseURL.host == "api4.truecaller.com" && sandbox.otpBaseURL.host == "api4.truecaller.test")
        #expect(
            production.profileBaseURLEU.host == "outline-eu.truecaller.com"
                && sandbox.profileBaseURLEU.host == "outline-eu.truecaller.test")
        #expect(sandbox.profileBaseURLNonEU.host == "outline-noneu.truecaller.test")
        #expect(sandbox.keyEndpoint.absoluteString == "https://api4.truecaller.test/v1/key")
        #expect(TruecallerTokenVerifier.sandboxBaseURL.host == TruecallerBackend.verificationHost)
        #expect(throws: AuthError.self) {
            try TruecallerConfiguration.production(
                appKey: " ", appLink: URL(string: "https://a.example")!, deviceID: "d")
        }

        let world = Sandbox(seed: 5)
        TruecallerBackend(signingKey: BuiltInConformance.sandboxSigningKey).install(in: world)
        // A German number (any region allowed) signs in through the EU profile host.
        let provider = TruecallerProvider(configuration: try .sandbox(otpRegions: nil))
        let client = try AuthClient(providers: [provider], transport: world.transport, time: world.time)
        let phone = try PhoneNumber("+49 1512 3456789")
        let challenge = try #require(try await client.signIn(with: .truecaller, .phone(phone)).challenge)
        let code = try #require(world.inbox.latest(for: phone.e164)?.code)
        #expect(
            try await client.submit(
                ChallengeAnswer(code: code, name: try PersonName(firstName: "Jonas")), for: challenge
            ).session != nil)
        #expect(world.requestCount(host: "outline-eu.truecaller.test", pathPrefix: "/v1/profile") == 2)
        #expect(world.requestCount(host: "outline-noneu.truecaller.test") == 0)

        // The wrong region's profile host and a wrong path on a profile host are refused.
        var misrouted = try TruecallerConfiguration.sandbox(otpRegions: nil)
        misrouted.profileBaseURLEU = TruecallerConfiguration.sandboxProfileBaseURLNonEU
        let wrong = try AuthClient(
            providers: [TruecallerProvider(configuration: misrouted)], transport: world.transport, time: world.time)
        world.clock.advance(by: .seconds(1))
        let other = try PhoneNumber("+49 1512 3456780")
        let second = try #require(try await wrong.signIn(with: .truecaller, .phone(other)).challenge)
        let otp = try #require(world.inbox.latest(for: other.e164)?.code)
        let refused = await #expect(throws: AuthError.self) {
            try await wrong.submit(ChallengeAnswer(code: otp, name: try PersonName(firstName: "Jonas")), for: second)
        }
        #expect(refused?.providerCode == "14")
        let key = try await world.transport.send(
            HTTPRequest(method: .get, url: URL(string: "https://outline-eu.truecaller.test/v1/key")!))
        #expect(key.status == 404)
    }
}
