import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthOTPless
import MultiAuthSandbox
import MultiAuthSandboxKit

/// The contract fixtures' endpoint names, for a `ScriptedTransport` scripted per fixture.
enum ContractEndpoint {
    /// The fixture name of the endpoint `request` calls.
    @Sendable static func name(of request: HTTPRequest) -> String {
        let path = request.url.path
        let body = request.body.flatMap { try? JSONDecoder().decode(JSONValue.self, from: $0) }
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        switch true {
        case path == "/v2/state": return "state"
        case path.hasPrefix("/v2/lp/merchant/config/"): return "merchant-config"
        case path.hasPrefix("/v3/lp/user/transaction/intent/"):
            if body?["type"]?.stringValue == "BUTTON" { return "intent-oauth" }
            return body?["identifierType"]?.stringValue == "EMAIL" ? "intent-email" : "intent-phone"
        case path.hasPrefix("/v3/lp/user/transaction/otp/"):
            return body?["email"] != nil ? "verify-otp-email" : "verify-otp-phone"
        case path.hasPrefix("/v3/lp/user/transaction/code/"): return "code-exchange"
        case path.hasPrefix("/v3/lp/user/transaction/status/"): return "status-poll"
        case path.hasPrefix("/v3/lp/user/transaction/silent-auth-status/"):
            return query.contains { $0.name == "lapseMeta" } ? "sna-lapse" : "sna-status"
        case path == "/auth/v1/validate/token": return "validate-token"
        case path == "/v4/session/refresh": return "refresh"
        case path.hasPrefix("/v4/session/") && request.method == .delete: return "logout"
        case path == "/.well-known/openid-configuration": return "openid-configuration"
        case path.hasSuffix("jwks.json"): return "jwks"
        default: return "unknown"
        }
    }
}

/// One adapter run against scripted fixture responses: the production configuration
/// (`SANDBOXAPP`, bundle id `com.multiauth.sandbox`), a manual clock at Unix time 1 700 000 000
/// (the fixtures' `iat`), events collected. Requests are named by their fixture
/// (``ContractEndpoint``), those on the cellular bearer `carrier`; a request nothing is
/// scripted for gets a `599` (as no real server answers).
struct AdapterRun {
    static let phone = try! PhoneNumber("+919876543210")
    static let email = try! EmailAddress("user.name+otp@example.com")

    let transport = ScriptedTransport(naming: ContractEndpoint.name(of:), cellularEndpoint: "carrier")
    let clock = ManualClock()
    let events = RecordingSubscriber()
    let provider: OTPlessProvider

    init(
        configuration: OTPlessConfiguration = .production(appID: "SANDBOXAPP", packageName: "com.multiauth.sandbox")
    ) throws {
        provider = try OTPlessProvider(configuration: configuration)
        transport.setHandler { request in
            HTTPResponse(status: 599, body: Data("no script for \(ContractEndpoint.name(of: request))".utf8))
        }
        transport.setDefault("state", try OTPlessContracts.fixture("state").response("ok").http)
        transport.setDefault("merchant-config", try OTPlessContracts.fixture("merchant-config").response("ok").http)
    }

    var context: AuthContext {
        AuthContext(transport: transport, time: clock.timeSource, flowID: FlowID.random(), events: events.sink())
    }

    var now: Date { clock.wallNow }

    /// `start` with the outcome captured.
    func start(_ request: SignInRequest) async -> Result<SignInStep, any Error> {
        do { return .success(try await provider.start(request, context: context)) } catch { return .failure(error) }
    }

    /// Runs `body`, capturing its outcome.
    func outcome(_ body: () async throws -> SignInStep) async -> Result<SignInStep, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }
}

/// Checks an outcome against a fixture response's `expect` (see the README's "expect" keys).
enum Expectation {
    static func mismatches(_ outcome: Result<SignInStep, any Error>, _ expect: JSONValue, now: Date) -> [String] {
        if let code = expect["error"]?.stringValue {
            guard case .failure(let error) = outcome, let auth = error as? AuthError else {
                return ["expected AuthError \(code), got \(outcome)"]
            }
            var problems: [String] = []
            if auth.code.rawValue != code { problems.append("code: expected \(code), got \(auth.code)") }
            if let raw = expect["providerCode"]?.stringValue, auth.providerCode != raw {
                problems.append("providerCode: expected \(raw), got \(auth.providerCode ?? "nil")")
            }
            return problems
        }
        guard case .success(let step) = outcome else { return ["expected success, got \(outcome)"] }
        if let kind = expect["challenge"]?.stringValue {
            guard case .challenge(let challenge) = step else { return ["expected a challenge, got \(step)"] }
            var problems: [String] = []
            switch (kind, challenge.kind) {
            case ("oneTimeCode", .oneTimeCode(let length, let channel, let link)):
                if let want = expect["length"]?.doubleValue, Int(want) != length { problems.append("length \(length)") }
                if let want = expect["channel"]?.stringValue, want != channel.rawValue {
                    problems.append("channel \(channel)")
                }
                if let want = expect["linkAlsoSent"]?.boolValue, want != link {
                    problems.append("linkAlsoSent \(link)")
                }
            case ("silentNetworkAuth", .silentNetworkAuth): break
            case ("magicLink", .magicLink(let channel)):
                if let want = expect["channel"]?.stringValue, want != channel.rawValue {
                    problems.append("channel \(channel)")
                }
            case ("oauthRedirect", .oauthRedirect(let url)):
                if let want = expect["url"]?.stringValue, want != url.absoluteString { problems.append("url \(url)") }
            default:
                problems.append("kind: expected \(kind), got \(challenge.kind)")
            }
            if let from = expect["fallbackFrom"]?.stringValue,
                challenge.providerState.values["otpless"]?.reveal().contains("\"fallbackFrom\":\"\(from)\"") != true
            {
                problems.append("fallbackFrom \(from) not recorded")
            }
            return problems
        }
        if case .object(let want)? = expect["session"] {
            guard case .signedIn(let session) = step else { return ["expected a session, got \(step)"] }
            return sessionMismatches(session, want, now: now)
        }
        return ["the expectation \(expect) is not understood"]
    }

    static func sessionMismatches(_ session: AuthSession, _ want: [String: JSONValue], now: Date) -> [String] {
        var problems: [String] = []
        let credentials = session.credentials
        let pairs: [(String, String?)] = [
            ("accessToken", credentials.accessToken?.reveal()), ("idToken", credentials.idToken?.reveal()),
            ("userId", session.user.id),
            ("phone", session.user.phone?.e164), ("email", session.user.email?.identityKey),
            ("sessionToken", credentials.extra[revealing: "sessionToken"]),
            ("refreshToken", credentials.refreshToken?.reveal()),
            ("sessionTokenJWT", credentials.extra[revealing: "sessionTokenJWT"]),
        ]
        for (key, actual) in pairs {
            if let expected = want[key]?.stringValue, expected != actual {
                problems.append("\(key): expected \(expected), got \(actual ?? "nil")")
            }
        }
        if let seconds = want["expiresInSeconds"]?.doubleValue, credentials.expiresAt != now.addingTimeInterval(seconds)
        {
            problems.append("expiresAt: expected now + \(seconds) s, got \(String(describing: credentials.expiresAt))")
        }
        return problems
    }
}
