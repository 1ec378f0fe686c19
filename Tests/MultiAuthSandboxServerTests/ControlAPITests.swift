import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthOTPless
import MultiAuthSandbox
import MultiAuthSandboxRuntime
import MultiAuthSandboxServer
import MultiAuthTruecaller
import Testing

/// The control API: scenarios, faults, fixed codes, the long-poll, reset, the OpenAPI document.
@Suite(.timeLimit(.minutes(10)))
struct ControlAPITests {
    func client(_ provider: any AuthProvider, _ running: RunningServer) throws -> AuthClient {
        try AuthClient(
            providers: [provider], store: InMemorySessionStore(), transport: running.transport,
            time: ManualClock().timeSource, autoRefresh: .disabled)
    }

    @Test func whatsappFailsThenSMSDeliversTheCodeBySMS() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        let (status, _) = try await running.control(
            .put, "scenarios/+919876500002", .object(["scenario": .string("whatsappFails")]))
        #expect(status == 200)
        let client = try client(try OTPlessProvider(configuration: .sandbox(baseURL: running.url)), running)
        _ = try await client.signIn(with: .otpless, .phone(try PhoneNumber("+91 98765 00002")))
        let (_, inbox) = try await running.control(.get, "inbox/+919876500002")
        let messages = inbox["messages"]?.arrayValue ?? []
        #expect(
            messages.map { "\($0["channel"]?.stringValue ?? "")/\($0["status"]?.stringValue ?? "")" } == [
                "whatsapp/failed", "sms/delivered",
            ])
    }

    @Test func blockedAndRateLimitedRefuseTheStartInTheProvidersShape() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        try await running.control(.put, "scenarios/blocked@example.com", .object(["scenario": .string("blocked")]))
        try await running.control(.put, "scenarios/busy@example.com", .object(["scenario": .string("rateLimited")]))
        let client = try client(DynamicProvider(configuration: try .sandbox(baseURL: running.url)), running)
        let blocked = await #expect(throws: AuthError.self) {
            try await client.signIn(with: .dynamic, .email("blocked@example.com"))
        }
        #expect(blocked?.code == .unauthorized)
        #expect(blocked?.providerCode == "user_blocked")
        let busy = await #expect(throws: AuthError.self) {
            try await client.signIn(with: .dynamic, .email("busy@example.com"))
        }
        #expect(busy?.code == .rateLimited)
        #expect(busy?.retryAfter == .seconds(600))
        let (_, unknown) = try await running.control(
            .put, "scenarios/x@example.com", .object(["scenario": .string("nope")]))
        #expect(unknown["error"]?.stringValue?.contains("verifiedBefore") == true)
        // Cleared, the address signs in again.
        try await running.control(.delete, "scenarios/blocked@example.com")
        #expect(try await client.signIn(with: .dynamic, .email("blocked@example.com")).challenge != nil)
    }

    @Test func verifiedBeforeSignsATruecallerNumberInWithoutACode() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        try await running.control(
            .put, "scenarios/+919876543211",
            .object([
                "scenario": .string("verifiedBefore"), "deviceID": .string("ui-device"), "firstName": .string("Ada"),
            ]))
        let client = try client(
            TruecallerProvider(configuration: try .sandbox(baseURL: running.url, deviceID: "ui-device")), running)
        let step = try await client.signIn(with: .truecaller, .phone(try PhoneNumber("+91 98765 43211")))
        #expect(step.session != nil)
        let (_, inbox) = try await running.control(.get, "inbox/+919876543211")
        #expect(inbox["messages"]?.arrayValue?.isEmpty == true)
    }

    @Test func aFixedCodeIsTheCodeSent() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        let (refused, _) = try await running.control(
            .put, "codes/fixed@example.com", .object(["code": .string("12ab")]))
        #expect(refused == 400)
        try await running.control(.put, "codes/fixed@example.com", .object(["code": .string("424242")]))
        let client = try client(DynamicProvider(configuration: try .sandbox(baseURL: running.url)), running)
        let challenge = try #require(try await client.signIn(with: .dynamic, .email("Fixed@Example.com")).challenge)
        #expect(try await client.submit(ChallengeAnswer(code: "424242"), for: challenge).session != nil)
    }

    /// The long-poll returns the message delivered after it started (and 204 when none comes).
    @Test func theLongPollReturnsTheNextCode() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        let (status, _) = try await running.control(.get, "inbox/poll@example.com/next?timeout=0")
        #expect(status == 204)
        async let next = running.control(.get, "inbox/poll@example.com/next?after=0&timeout=60")
        // The poll may or may not be waiting yet: either way it returns the code delivered now.
        let client = try client(DynamicProvider(configuration: try .sandbox(baseURL: running.url)), running)
        _ = try await client.signIn(with: .dynamic, .email("poll@example.com"))
        let (found, message) = try await next
        #expect(found == 200)
        #expect(
            message["code"]?.stringValue == running.server.world.sandbox.inbox.latest(for: "poll@example.com")?.code)
    }

    @Test func faultsAreInstalledListedAndRemoved() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        let (created, answer) = try await running.control(
            .post, "faults",
            .object([
                "type": .string("status"), "status": .number(503), "host": .string("app.dynamic.test"),
                "repeat": .string("once"), "body": .object(["error": .string("maintenance")]),
            ]))
        #expect(created == 201)
        let id = try #require(answer["id"]?.stringValue)
        let client = try client(DynamicProvider(configuration: try .sandbox(baseURL: running.url)), running)
        let error = await #expect(throws: AuthError.self) {
            try await client.signIn(with: .dynamic, .email("fault@example.com"))
        }
        #expect(error?.code == .providerUnavailable)
        #expect(try await client.signIn(with: .dynamic, .email("fault@example.com")).challenge != nil)
        let (_, kept) = try await running.control(
            .post, "faults", .object(["type": .string("failDelivery"), "channel": .string("email")]))
        #expect(kept["faults"]?.arrayValue?.count == 1)
        try await running.control(.delete, "faults/\(id)")
        try await running.control(.delete, "faults")
        let (_, empty) = try await running.control(.get, "faults")
        #expect(empty["faults"]?.arrayValue?.isEmpty == true)
        let (bad, refusal) = try await running.control(.post, "faults", .object(["type": .string("explode")]))
        #expect(bad == 400)
        #expect(refusal["error"]?.stringValue?.contains("latency") == true)
    }

    @Test func resetStartsAnEmptyWorldWithTheGivenSeed() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        let client = try client(DynamicProvider(configuration: try .sandbox(baseURL: running.url)), running)
        _ = try await client.signIn(with: .dynamic, .email("before@example.com"))
        try await running.control(.post, "clock/advance", .object(["seconds": .number(30)]))
        let (status, answer) = try await running.control(.post, "reset", .object(["seed": .number(7)]))
        #expect(status == 200)
        #expect(answer["seed"]?.stringValue == "7")
        let (_, state) = try await running.control(.get, "state")
        #expect(state["inbox"]?.arrayValue?.isEmpty == true)
        #expect(state["requestCount"]?.int64Value == 0)
        #expect(state["clock"]?["unix"]?.doubleValue == 1_700_000_000)
        #expect(running.server.world.settings.seed == 7)
        let (backwards, _) = try await running.control(.put, "clock", .object(["now": .number(1_600_000_000)]))
        #expect(backwards == 409)
    }

    /// Every path of the OpenAPI document is a route (no 404 "no control route"), and the
    /// document is what the server serves.
    @Test func everyRouteOfTheOpenAPIDocumentAnswers() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        let (status, document) = try await running.control(.get, "openapi.json")
        #expect(status == 200)
        #expect(document["openapi"]?.stringValue == "3.1.0")
        let paths = try #require(document["paths"]?.objectValue)
        #expect(paths.count >= 18)
        for (template, operations) in paths.sorted(by: { $0.key < $1.key }) {
            let path = template.replacingOccurrences(of: "{destination}", with: "someone@example.com")
                .replacingOccurrences(of: "{id}", with: "999").replacingOccurrences(
                    of: "{email}", with: "x@example.com")
            for method in (operations.objectValue ?? [:]).keys where method != "post" || !template.hasSuffix("reset") {
                let target = URL(
                    string: running.url.absoluteString + path + (path.hasSuffix("/next") ? "?timeout=0" : ""))!
                let response = try await running.transport.send(
                    HTTPRequest(
                        method: HTTPMethod(rawValue: method), url: target,
                        headers: ["Content-Type": "application/json"],
                        body: method == "get" || method == "delete" ? nil : Data("{}".utf8)))
                #expect(
                    !String(decoding: response.body, as: UTF8.self).contains("no control route"),
                    "\(method) \(template) is not routed")
                #expect(response.status != 405, "\(method) \(template) answers 405")
            }
        }
    }

    /// Sandbox keys are marked in every JWKS a backend serves.
    @Test func everyJWKSMarksItsKeysAsSandboxKeys() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        for path in [
            "/app.dynamic.test/api/v0/sdk/\(DynamicBackend.defaultEnvironmentID)/.well-known/jwks",
            "/api.otpless.test/.well-known/jwks.json",
        ] {
            let response = try await running.transport.send(
                HTTPRequest(method: .get, url: URL(string: running.url.absoluteString + path)!))
            let set = try JWKSet(jsonData: response.body)
            #expect(!set.keys.isEmpty)
            for key in set.keys {
                #expect(key.kid?.hasPrefix("multiauth-sandbox-") == true, "\(path): \(key.kid ?? "-")")
            }
        }
    }
}
