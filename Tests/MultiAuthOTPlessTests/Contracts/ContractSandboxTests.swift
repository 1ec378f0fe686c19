import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthOTPless
import MultiAuthSandbox
import MultiAuthSandboxKit
import MultiAuthTestKeys
import Testing

/// The sandbox against the contract fixtures: a journey sends the fixture requests (their
/// placeholders filled from earlier answers and the inbox) to `OTPlessBackend` in a `Sandbox`
/// and records every answer under the fixture response it must look like.
struct SandboxJourney {
    static let phone = "+919876543210"
    static let email = "user.name+otp@example.com"
    /// The sandbox host of each production host.
    static let hosts = [
        "user-auth.otpless.app": OTPlessBackend.clientHost, "api.otpless.com": OTPlessBackend.sessionHost,
        "otpless.com": OTPlessBackend.issuerHost,
    ]

    /// Fixture responses the sandbox cannot produce (5xx, injected by faults in real life),
    /// compared by body shape with an error answer it does produce.
    static let standIns = [
        "state/server-error": "verify-otp-phone/incorrect-otp",
        "intent-phone/server-error": "verify-otp-phone/incorrect-otp",
        "logout/server-error": "verify-otp-phone/incorrect-otp", "refresh/rate-limited": "refresh/refused",
        "refresh/server-error": "refresh/refused",
    ]

    let sandbox: Sandbox
    let backend: OTPlessBackend
    var answers: [String: HTTPResponse] = [:]
    var values: [String: String] = [:]

    init(_ merchant: OTPlessMerchant = OTPlessMerchant()) {
        sandbox = Sandbox(seed: 7)
        backend = OTPlessBackend(merchant: merchant, signingKey: TestKeys.otpless)
        backend.install(in: sandbox)
    }

    /// The fixture request `name` with placeholders filled from ``values``, `set` keys
    /// replaced, `remove` keys dropped; sent to the sandbox (over the cellular bearer when
    /// `cellular`) and recorded as `record` when given.
    @discardableResult
    mutating func send(
        _ name: String, record: String? = nil, set: [String: JSONValue] = [:], remove: [String] = [],
        headers: [String: String] = [:],
        url: URL? = nil, cellular: Bool = false
    ) async throws -> HTTPResponse {
        let fixture = try OTPlessContracts.fixture(name)
        let known = values
        let fill = { (text: String) -> String in
            var result = text
            for (key, value) in known { result = result.replacingOccurrences(of: "{\(key)}", with: value) }
            return result
        }
        var target: URL
        if let url {
            target = url
        } else {
            var components = URLComponents()
            components.scheme = "https"
            components.host = Self.hosts[fixture.host]
            components.path = fill(fixture.path)
            if var query = fixture.query?.compactMapValues(\.stringValue) {
                for key in remove { query[key] = nil }
                for (key, value) in set { query[key] = value.stringValue }
                components.queryItems = query.keys.sorted().map { URLQueryItem(name: $0, value: fill(query[$0]!)) }
            }
            target = try #require(components.url)
        }
        var request = HTTPRequest(method: HTTPMethod(rawValue: fixture.method), url: target)
        for (name, value) in fixture.headers { request.headers[name] = fill(value.stringValue ?? "") }
        for (name, value) in headers { request.headers[name] = value }
        if case .object(var body)? = fixture.body {
            for key in remove { body[key] = nil }
            for (key, value) in set { body[key] = value }
            body = body.mapValues { value in if case .string(let text) = value { .string(fill(text)) } else { value } }
            request.body = try JSONEncoder().encode(JSONValue.object(body))
        }
        let response =
            cellular ? try await sandbox.cellularTransport.sendOverCellular(request) : try await sandbox.serve(request)
        if let record { answers[record] = response }
        return response
    }

    /// Reads `keys` of a JSON answer into ``values`` (`quantumLeap.asId` → `asId`, …).
    mutating func remember(_ response: HTTPResponse, _ paths: [String: String]) throws {
        let json = try JSONDecoder().decode(JSONValue.self, from: response.body)
        for (name, path) in paths {
            var node: JSONValue? = json
            for key in path.split(separator: ".") { node = node?[String(key)] }
            values[name] = try #require(node?.stringValue, "no \(path) in the answer")
        }
    }

    /// The latest code (or link code) the inbox holds for `destination`.
    func code(_ destination: String, link: Bool = false) throws -> String {
        let message = try #require(sandbox.inbox.latest(for: destination))
        if link {
            let url = try #require(message.link)
            return try #require(
                URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value)
        }
        return try #require(message.code)
    }

    /// Every fixture response the sandbox produces, by `fixture/response`.
    static func run() async throws -> [String: HTTPResponse] {
        var all: [String: HTTPResponse] = [:]
        // The default merchant: WhatsApp then SMS, e-mail OTP, Google and WhatsApp login.
        var journey = SandboxJourney()
        try journey.remember(try await journey.send("state", record: "state/ok"), ["state": "state"])
        try await journey.send("merchant-config", record: "merchant-config/ok")
        let intent = try await journey.send("intent-phone", record: "intent-phone/otp-whatsapp")
        try journey.remember(intent, ["asId": "quantumLeap.asId", "token": "quantumLeap.channelAuthToken"])
        try await journey.send("status-poll", record: "status-poll/delivered")
        let code = try journey.code(phone)
        journey.values["otp"] = code == "000000" ? "111111" : "000000"
        try await journey.send("verify-otp-phone", record: "verify-otp-phone/incorrect-otp")
        journey.values["otp"] = code
        let success = try await journey.send("verify-otp-phone", record: "verify-otp-phone/success")
        try journey.remember(
            success,
            [
                "appToken": "oneTap.token", "sessionToken": "oneTap.sessionInfo.sessionToken",
                "refreshToken": "oneTap.sessionInfo.refreshToken",
            ])
        try await journey.send("verify-otp-phone", record: "verify-otp-phone/already-verified")
        try await journey.send("refresh", record: "refresh/ok")
        try await journey.send("validate-token", record: "validate-token/ok")
        try await journey.send(
            "validate-token", record: "validate-token/bad-credentials", headers: ["clientSecret": "wrong"])
        try await journey.send(
            "validate-token", record: "validate-token/unknown-token", set: ["token": .string("unknown")])
        let discovery = try await journey.send("openid-configuration", record: "openid-configuration/ok")
        let jwksText = try JSONDecoder().decode(JSONValue.self, from: discovery.body)["jwks_uri"]?.stringValue ?? ""
        let jwksURI = try #require(URL(string: jwksText))
        try await journey.send("jwks", record: "jwks/ok", url: jwksURI)
        try await journey.send("logout", record: "logout/ok")
        try await journey.send("logout", record: "logout/unknown-session")
        try await journey.send("refresh", record: "refresh/refused")
        try await journey.send(
            "intent-phone", record: "intent-phone/rate-limited", set: ["asId": .string(journey.values["asId"]!)])
        try await journey.send("intent-phone", record: "intent-phone/invalid-phone", set: ["value": .string("12345")])
        let emailIntent = try await journey.send("intent-email", record: "intent-email/otp-email")
        try journey.remember(emailIntent, ["asId": "quantumLeap.asId", "token": "quantumLeap.channelAuthToken"])
        journey.values["otp"] = try journey.code(email)
        try await journey.send("verify-otp-email", record: "verify-otp-email/success")
        try await journey.send(
            "intent-email", record: "intent-email/invalid-email",
            set: ["email": .string("not-an-address"), "value": .string("not-an-address")])
        try await journey.send("intent-oauth", record: "intent-oauth/oauth")
        let expiring = try await journey.send(
            "intent-phone", set: ["mobile": .string("919876543211"), "value": .string("9876543211")])
        try journey.remember(expiring, ["asId": "quantumLeap.asId", "token": "quantumLeap.channelAuthToken"])
        journey.values["otp"] = try journey.code("+919876543211")
        journey.sandbox.clock.advance(by: .seconds(300))
        try await journey.send(
            "verify-otp-phone", record: "verify-otp-phone/expired",
            set: ["mobile": .string("9876543211"), "value": .string("919876543211")])
        journey.sandbox.faults.failDelivery(on: .whatsapp)
        let fallback = try await journey.send(
            "intent-phone", set: ["mobile": .string("919876543212"), "value": .string("9876543212")],
            remove: ["deliveryMethod", "expiry", "otpLength"])
        try journey.remember(fallback, ["asId": "quantumLeap.asId", "token": "quantumLeap.channelAuthToken"])
        try await journey.send(
            "status-poll", record: "status-poll/fallback-to-sms",
            set: ["mobile": .string("9876543212"), "value": .string("919876543212")])
        all.merge(journey.answers) { $1 }

        // OTP + link on SMS; voice.
        var link = SandboxJourney(OTPlessMerchant(phoneChannels: [.sms, .voice], phoneAuthType: .otpLink))
        try link.remember(try await link.send("state"), ["state": "state"])
        try await link.send(
            "intent-phone", record: "intent-phone/otp-link-sms", set: ["deliveryMethod": .string("SMS")])
        try await link.send(
            "intent-phone", record: "intent-phone/voice",
            set: [
                "deliveryMethod": .string("VOICE_CALL"), "mobile": .string("919876543213"),
                "value": .string("9876543213"),
            ])
        all.merge(link.answers) { $1 }

        // Magic links by e-mail.
        var magic = SandboxJourney(OTPlessMerchant(emailAuthType: .magicLink))
        try magic.remember(try await magic.send("state"), ["state": "state"])
        let magicIntent = try await magic.send(
            "intent-email", record: "intent-email/magic-link", remove: ["deliveryMethod"])
        try magic.remember(magicIntent, ["asId": "quantumLeap.asId", "token": "quantumLeap.channelAuthToken"])
        magic.values["code"] = try magic.code(email, link: true)
        try await magic.send("code-exchange", record: "code-exchange/success")
        let later = try await magic.send("intent-email", remove: ["deliveryMethod"])
        try magic.remember(later, ["asId": "quantumLeap.asId", "token": "quantumLeap.channelAuthToken"])
        magic.values["code"] = try magic.code(email, link: true)
        magic.sandbox.clock.advance(by: .seconds(300))
        try await magic.send("code-exchange", record: "code-exchange/expired")
        all.merge(magic.answers) { $1 }

        // Silent network auth, then its failure with a fallback to SMS.
        var sna = SandboxJourney(OTPlessMerchant(phoneChannels: [.sms], silentAuthEnabled: true))
        try sna.remember(try await sna.send("state"), ["state": "state"])
        let custom = ["deliveryMethod", "expiry", "otpLength"]
        let silent = try await sna.send(
            "intent-phone", record: "intent-phone/silent-auth", set: ["silentAuthEnabled": .bool(true)], remove: custom)
        try sna.remember(
            silent,
            ["asId": "quantumLeap.asId", "token": "quantumLeap.channelAuthToken", "carrier": "quantumLeap.intent"])
        try await sna.send("sna-status", record: "sna-status/pending")
        try await sna.send("carrier", record: "carrier/ok", url: URL(string: sna.values["carrier"]!), cellular: true)
        try await sna.send("sna-status", record: "sna-status/success")
        sna.backend.failSilentAuth(for: "+919876543214")
        let failing = try await sna.send(
            "intent-phone",
            set: ["silentAuthEnabled": .bool(true), "mobile": .string("919876543214"), "value": .string("9876543214")],
            remove: custom)
        try sna.remember(
            failing,
            ["asId": "quantumLeap.asId", "token": "quantumLeap.channelAuthToken", "carrier": "quantumLeap.intent"])
        try await sna.send(
            "carrier", record: "carrier/failed", url: URL(string: sna.values["carrier"]!), cellular: true)
        try await sna.send("sna-lapse", record: "sna-lapse/fallback")
        all.merge(sna.answers) { $1 }

        // An SNA-only merchant.
        var only = SandboxJourney(OTPlessMerchant(phoneChannels: [], silentAuthEnabled: true))
        try only.remember(try await only.send("state"), ["state": "state"])
        try await only.send("intent-phone", record: "intent-phone/sna-only-without-cellular", remove: custom)
        only.backend.failSilentAuth(for: phone)
        let onlyIntent = try await only.send("intent-phone", set: ["silentAuthEnabled": .bool(true)], remove: custom)
        try only.remember(
            onlyIntent,
            ["asId": "quantumLeap.asId", "token": "quantumLeap.channelAuthToken", "carrier": "quantumLeap.intent"])
        try await only.send("carrier", url: URL(string: only.values["carrier"]!), cellular: true)
        try await only.send("sna-lapse", record: "sna-lapse/no-fallback")
        all.merge(only.answers) { $1 }

        // A merchant with no phone channel at all.
        var none = SandboxJourney(OTPlessMerchant(phoneChannels: []))
        try none.remember(try await none.send("state"), ["state": "state"])
        try await none.send("intent-phone", record: "intent-phone/channel-not-enabled", remove: custom)
        all.merge(none.answers) { $1 }
        return all
    }
}

@Suite(.timeLimit(.minutes(10)))
struct ContractSandboxTests {
    /// Every fixture response has a sandbox answer of the same shape (and, when the sandbox
    /// produces that answer itself, the same status): the sandbox accepted the fixture requests
    /// and answers as the real server does.
    @Test func theSandboxAnswersTheFixtureRequestsWithTheFixtureShapes() async throws {
        let answers = try await SandboxJourney.run()
        for name in OTPlessContracts.names {
            let fixture = try OTPlessContracts.fixture(name)
            for response in fixture.responses {
                let key = "\(name)/\(response.name)"
                let direct = answers[key]
                let answer = try #require(
                    direct ?? SandboxJourney.standIns[key].flatMap { answers[$0] }, "the journey never produced \(key)")
                let mismatches = Contract.responseMismatches(fixture, response, answer, checkStatus: direct != nil)
                #expect(mismatches.isEmpty, "\(key): \(mismatches) in \(String(decoding: answer.body, as: UTF8.self))")
            }
        }
    }

    /// The SNA carrier verifies only a hit that arrived on the (emulated) cellular bearer.
    @Test func theCarrierRefusesAHitThatDidNotArriveOverCellular() async throws {
        var sna = SandboxJourney(OTPlessMerchant(phoneChannels: [.sms], silentAuthEnabled: true))
        try sna.remember(try await sna.send("state"), ["state": "state"])
        let intent = try await sna.send(
            "intent-phone", set: ["silentAuthEnabled": .bool(true)], remove: ["deliveryMethod", "expiry", "otpLength"])
        try sna.remember(intent, ["carrier": "quantumLeap.intent"])
        let overWiFi = try await sna.send("carrier", url: URL(string: sna.values["carrier"]!), cellular: false)
        #expect(try JSONDecoder().decode(JSONValue.self, from: overWiFi.body)["error"] == .string("not_cellular"))
    }
}
