import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthOTPless
import MultiAuthSandbox
import MultiAuthSandboxKit
import Testing

/// The adapter against the contract fixtures (`Tests/Fixtures/Contracts/OTPless`): for every
/// fixture response, the adapter is driven to the endpoint, answered with that response, and
/// must reach the fixture's expected step or error; every request it sent on the way must match
/// its fixture field for field (method, production host, path, header names, body or query keys,
/// types and fixed values).
@Suite(.timeLimit(.minutes(10)))
struct ContractAdapterTests {
    /// Every (fixture, response name) pair.
    static let cases: [String] = OTPlessContracts.names.flatMap { name in
        ((try? OTPlessContracts.fixture(name))?.responses ?? []).map { "\(name)/\($0.name)" }
    }

    @Test func everyFixtureLoadsAndNamesItsSource() throws {
        #expect(OTPlessContracts.names.count == 17)
        let readme = try String(contentsOf: OTPlessContracts.directory.appending(path: "README.md"), encoding: .utf8)
        for name in OTPlessContracts.names {
            let fixture = try OTPlessContracts.fixture(name)
            #expect(fixture.endpoint == name)
            #expect(readme.contains("`\(name).json`"), "README names no source for \(name)")
        }
    }

    @Test(arguments: cases)
    func theAdapterDecodesTheResponseAndSendsTheContractRequests(_ key: String) async throws {
        let parts = key.split(separator: "/").map(String.init)
        let run = try AdapterRun()
        let problems = try await Self.drive(endpoint: parts[0], response: parts[1], run: run)
        #expect(problems.isEmpty, "\(key): \(problems)")
        #expect(!run.transport.exchanges.isEmpty)
        for (endpoint, request) in run.transport.exchanges.map({ ($0.endpoint, $0.request) }) {
            let fixture = try #require(
                try? OTPlessContracts.fixture(endpoint), "no fixture for a request to \(request.url.path)")
            let mismatches = Contract.requestMismatches(fixture, request)
            #expect(mismatches.isEmpty, "\(key): the \(endpoint) request does not match its fixture: \(mismatches)")
        }
        run.provider.stopAllPolling()
    }

    /// Options and a chosen channel put the optional intent keys on the wire, with their types.
    @Test func theOptionalIntentKeysMatchTheFixture() async throws {
        let run = try AdapterRun()
        let fixture = try OTPlessContracts.fixture("intent-phone")
        try run.transport.script("intent-phone", fixture.response("otp-whatsapp").http)
        _ = try await run.provider.start(
            .phone(AdapterRun.phone, channel: .whatsapp, options: ["otpLength": "6", "expiry": "300"]),
            context: run.context)
        let request = try #require(run.transport.requests("intent-phone").first)
        #expect(Contract.requestMismatches(fixture, request) == [])
        let body = try JSONDecoder().decode(JSONValue.self, from: try #require(request.body))
        #expect(body["deliveryMethod"] == .string("WHATSAPP"))
        #expect(body["otpLength"] == .string("6"))
        #expect(body["expiry"] == .string("300"))
        run.provider.stopAllPolling()
    }

    /// The real SDK sends no channel order (Docs/Providers/OTPless.md, "Channels"): a production
    /// configuration with `preferredChannels` sends `clientMetaData` without `channels`; only a
    /// sandbox configuration sends it, for the sandbox.
    @Test func aProductionIntentCarriesNoChannelOrder() async throws {
        func clientMetaData(_ configuration: OTPlessConfiguration) async throws -> JSONValue? {
            let run = try AdapterRun(configuration: configuration)
            run.transport.script(
                "intent-phone", try OTPlessContracts.fixture("intent-phone").response("otp-whatsapp").http)
            _ = try await run.provider.start(.phone(AdapterRun.phone), context: run.context)
            run.provider.stopAllPolling()
            let request = try #require(run.transport.requests("intent-phone").first)
            let body = try JSONDecoder().decode(JSONValue.self, from: try #require(request.body))
            return Contract.parse(try #require(body["clientMetaData"]?.stringValue))
        }
        let production = try await clientMetaData(
            .production(
                appID: "SANDBOXAPP", packageName: "com.multiauth.sandbox", preferredChannels: [.whatsapp]))
        #expect(production == .object([:]))
        let sandbox = OTPlessConfiguration.sandbox(preferredChannels: [.whatsapp])
        #expect(try await clientMetaData(sandbox) == .object(["channels": .array([.string("WHATSAPP")])]))
    }

    /// An expiry outside the guessed 30…900 s is sent precisely, as the decimal the app gave.
    @Test func anExpiryOutsideTheGuessedRangeIsSentToTheServer() async throws {
        let run = try AdapterRun()
        run.transport.script("intent-phone", try OTPlessContracts.fixture("intent-phone").response("otp-whatsapp").http)
        let challenge = try #require(
            try await run.provider.start(.phone(AdapterRun.phone, options: ["expiry": " 1200 "]), context: run.context)
                .challenge)
        run.provider.stopAllPolling()
        let request = try #require(run.transport.requests("intent-phone").first)
        let body = try JSONDecoder().decode(JSONValue.self, from: try #require(request.body))
        #expect(body["expiry"] == .string("1200"))
        #expect(challenge.expiresAt == run.now.addingTimeInterval(1200))
    }

    /// Drives the adapter to `endpoint` and answers it with the fixture response `response`;
    /// returns the mismatches with the response's `expect`.
    static func drive(endpoint: String, response name: String, run: AdapterRun) async throws -> [String] {
        let fixture = try OTPlessContracts.fixture(endpoint)
        let response = try fixture.response(name)
        let expect = response.expect
        switch endpoint {
        case "state", "merchant-config":
            if name != "ok" { run.transport.script(endpoint, response.http, response.http) }
            run.transport.script(
                "intent-phone", try OTPlessContracts.fixture("intent-phone").response("otp-whatsapp").http)
            let outcome = await run.start(.phone(AdapterRun.phone))
            if expect["ready"] != nil {
                return (try? outcome.get().challenge) != nil ? [] : ["the device did not get ready: \(outcome)"]
            }
            return Expectation.mismatches(outcome, expect, now: run.now)
        case "intent-phone", "intent-email", "intent-oauth":
            run.transport.script(endpoint, response.http)
            let request: SignInRequest =
                switch endpoint {
                case "intent-phone": .phone(AdapterRun.phone)
                case "intent-email": .email(AdapterRun.email)
                default: .oauth(.google)
                }
            return Expectation.mismatches(await run.start(request), expect, now: run.now)
        case "verify-otp-phone", "verify-otp-email":
            let phone = endpoint == "verify-otp-phone"
            let intent = try OTPlessContracts.fixture(phone ? "intent-phone" : "intent-email")
            try run.transport.script(intent.name, intent.response(phone ? "otp-whatsapp" : "otp-email").http)
            let challenge = try #require(
                try await run.provider.start(
                    phone ? .phone(AdapterRun.phone) : .email(AdapterRun.email), context: run.context
                ).challenge)
            run.transport.script(endpoint, response.http)
            let outcome = await run.outcome {
                try await run.provider.respond(
                    to: challenge, with: ChallengeAnswer(code: "123456"), context: run.context)
            }
            return Expectation.mismatches(outcome, expect, now: run.now)
        case "code-exchange":
            let intent = try OTPlessContracts.fixture("intent-email")
            try run.transport.script("intent-email", intent.response("magic-link").http)
            let challenge = try #require(
                try await run.provider.start(.email(AdapterRun.email), context: run.context).challenge)
            run.transport.script(endpoint, response.http)
            let link = try #require(URL(string: "otpless.sandboxapp://otpless?code=fixture-code-1"))
            let outcome = await run.outcome {
                try await run.provider.handleRedirect(link, pending: challenge, context: run.context)
            }
            return Expectation.mismatches(outcome, expect, now: run.now)
        case "status-poll":
            run.transport.script(
                "intent-phone", try OTPlessContracts.fixture("intent-phone").response("otp-whatsapp").http)
            _ = try await run.provider.start(.phone(AdapterRun.phone), context: run.context)
            run.transport.script(endpoint, response.http)
            await run.clock.waitForSleepers(count: 1)
            run.clock.advance(by: .seconds(3))
            await settle { eventMismatches(run.events.events.map(\.kind), expect).isEmpty }
            run.provider.stopAllPolling()
            return eventMismatches(run.events.events.map(\.kind), expect)
        case "sna-status", "sna-lapse", "carrier":
            return try await driveSilentNetworkAuth(endpoint: endpoint, response: response, run: run)
        case "logout", "refresh":
            let session = try await signedInSession(run)
            run.transport.script(endpoint, response.http)
            if endpoint == "logout" {
                do {
                    try await run.provider.signOut(session, context: run.context)
                    return expect["signedOut"] != nil ? [] : ["expected an error, sign-out succeeded"]
                } catch { return Expectation.mismatches(.failure(error), expect, now: run.now) }
            }
            run.clock.advance(by: .seconds(3600))
            do {
                let refreshed = try await run.provider.refresh(session, context: run.context)
                guard let seconds = expect["expiresInSeconds"]?.doubleValue else {
                    return ["expected an error, refresh succeeded"]
                }
                var problems: [String] = []
                if refreshed.credentials.expiresAt != run.now.addingTimeInterval(seconds) {
                    problems.append("expiresAt")
                }
                if refreshed.id != session.id { problems.append("the refreshed session has another id") }
                if refreshed.credentials.extra[revealing: "sessionTokenJWT"]
                    == session.credentials.extra[revealing: "sessionTokenJWT"]
                {
                    problems.append("the session JWT was not replaced")
                }
                return problems
            } catch { return Expectation.mismatches(.failure(error), expect, now: run.now) }
        case "validate-token":
            run.transport.script(endpoint, response.http)
            let verifier = OTPlessTokenVerifier(
                clientID: "sandbox-client", clientSecret: "sandbox-secret", transport: run.transport,
                time: run.clock.timeSource)
            do {
                let user = try await verifier.validate(token: "apptoken-7c1e")
                guard case .object(let want)? = expect["user"] else { return ["expected an error, got \(user)"] }
                var problems: [String] = []
                if want["id"]?.stringValue != user.id { problems.append("id \(user.id)") }
                if want["phone"]?.stringValue != user.phone?.e164 {
                    problems.append("phone \(String(describing: user.phone))")
                }
                return problems
            } catch { return Expectation.mismatches(.failure(error), expect, now: run.now) }
        case "openid-configuration", "jwks":
            run.transport.script(
                "openid-configuration", try OTPlessContracts.fixture("openid-configuration").response("ok").http)
            run.transport.script("jwks", try OTPlessContracts.fixture("jwks").response("ok").http)
            let verifier = OTPlessTokenVerifier(
                clientID: "fixture-client", clientSecret: "unused", transport: run.transport, time: run.clock.timeSource
            )
            let idToken = try #require(
                try OTPlessContracts.fixture("verify-otp-phone").response("success").expect["session"]?["idToken"]?
                    .stringValue)
            // The fixture token's signature is made up: a readable discovery document and key
            // set lead to `signatureInvalid`, an unreadable one to `providerUnavailable`.
            do {
                _ = try await verifier.verifyIDToken(idToken)
                return ["a made-up signature verified"]
            } catch let error as AuthError {
                var problems: [String] = []
                if error.code != .signatureInvalid { problems.append("expected signatureInvalid, got \(error.code)") }
                if run.transport.requests("jwks").first?.url.absoluteString
                    != "https://otpless.com/.well-known/jwks.json"
                {
                    problems.append("the JWKS was not fetched from the discovery document's jwks_uri")
                }
                return problems
            }
        default:
            return ["no scenario for \(endpoint)"]
        }
    }

    /// SNA: the silent-auth intent, then the carrier hit, the SNA status polls and the lapse.
    static func driveSilentNetworkAuth(endpoint: String, response: ContractResponse, run: AdapterRun)
        async throws -> [String]
    {
        let carrier = try OTPlessContracts.fixture("carrier")
        let status = try OTPlessContracts.fixture("sna-status")
        run.transport.script("intent-phone", try OTPlessContracts.fixture("intent-phone").response("silent-auth").http)
        let challenge = try #require(
            try await run.provider.start(.phone(AdapterRun.phone), context: run.context).challenge)
        switch (endpoint, response.name) {
        case ("carrier", "ok"), ("sna-status", "success"):
            try run.transport.script("carrier", carrier.response("ok").http)
            try run.transport.script("sna-status", status.response("success").http)
        case ("sna-status", "pending"):
            try run.transport.script("carrier", carrier.response("ok").http)
            try run.transport.script("sna-status", response.http, status.response("success").http)
        case ("carrier", "failed"):
            run.transport.script("carrier", response.http)
            run.transport.script("sna-lapse", try OTPlessContracts.fixture("sna-lapse").response("fallback").http)
        default:  // sna-lapse responses
            try run.transport.script("carrier", carrier.response("failed").http)
            run.transport.script("sna-lapse", response.http)
        }
        let context = run.context
        let provider = run.provider
        // Owned by this scenario, which awaits its value below; it ends when `respond` returns
        // (the clock is advanced for the PENDING case so its SNA poll sleep ends).
        let task = Task { () -> Result<SignInStep, any Error> in
            do {
                return .success(
                    try await provider.respond(to: challenge, with: ChallengeAnswer(code: ""), context: context))
            } catch {
                return .failure(error)
            }
        }
        if response.name == "pending" {
            await run.clock.waitForSleepers(count: 1)
            run.clock.advance(by: .milliseconds(200))
        }
        let outcome = await task.value
        switch (endpoint, response.name) {
        case ("carrier", "ok"):
            return (try? outcome.get().session) != nil
                ? [] : ["the carrier's ok did not lead to the session: \(outcome)"]
        case ("carrier", "failed"):
            let lapse = try #require(run.transport.requests("sna-lapse").first)
            let meta = URLComponents(url: lapse.url, resolvingAgainstBaseURL: false)?.queryItems?.first {
                $0.name == "lapseMeta"
            }?.value
            let parsed = Contract.parse(meta ?? "")
            var problems: [String] = []
            if parsed?["cause"]?.stringValue != response.expect["cause"]?.stringValue {
                problems.append("lapseMeta cause \(meta ?? "nil")")
            }
            if parsed?["brief"]?.stringValue != response.expect["brief"]?.stringValue {
                problems.append("lapseMeta brief \(meta ?? "nil")")
            }
            return problems
        case ("sna-status", "pending"):
            var problems = try Expectation.mismatches(outcome, status.response("success").expect, now: run.now)
            if run.transport.requests("sna-status").count != 2 {
                problems.append("expected a second poll after PENDING")
            }
            return problems
        default:
            return Expectation.mismatches(outcome, response.expect, now: run.now)
        }
    }

    /// A session from the verify fixture's success (with its session token and the state).
    static func signedInSession(_ run: AdapterRun) async throws -> AuthSession {
        run.transport.script("intent-phone", try OTPlessContracts.fixture("intent-phone").response("otp-whatsapp").http)
        let challenge = try #require(
            try await run.provider.start(.phone(AdapterRun.phone), context: run.context).challenge)
        run.transport.script(
            "verify-otp-phone", try OTPlessContracts.fixture("verify-otp-phone").response("success").http)
        let step = try await run.provider.respond(
            to: challenge, with: ChallengeAnswer(code: "123456"), context: run.context)
        return try #require(step.session)
    }

    static func eventMismatches(_ events: [AuthEvent.Kind], _ expect: JSONValue) -> [String] {
        switch expect["event"]?.stringValue {
        case "deliveryStatus":
            let delivered = events.contains {
                if case .deliveryStatus(let channel, .delivered) = $0 {
                    channel.rawValue == expect["channel"]?.stringValue
                } else {
                    false
                }
            }
            return delivered
                ? [] : ["no deliveryStatus(delivered) on \(expect["channel"] ?? .null): \(events.map(\.name))"]
        case "fallbackTriggered":
            let fellBack = events.contains {
                if case .fallbackTriggered(let from, let to) = $0 {
                    from.rawValue == expect["from"]?.stringValue && to.rawValue == expect["to"]?.stringValue
                } else {
                    false
                }
            }
            return fellBack ? [] : ["no fallbackTriggered \(expect): \(events.map(\.name))"]
        default:
            return ["unknown event expectation \(expect)"]
        }
    }
}
