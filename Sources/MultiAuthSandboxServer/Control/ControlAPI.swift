import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandbox

/// The control API under `/_multiauth/` (JSON in and out; the routes, bodies and answers are
/// in ``OpenAPIDocument`` and Docs/Emulator.md, "Control API").
///
/// Everything a request brings is checked before it changes anything: bodies are parsed with
/// the bounded JSON parser, numbers are finite and in range, unknown scenario or fault names
/// are `400` naming the accepted ones.
struct ControlAPI: Sendable {
    let server: SandboxServer
    let world: EmulatorWorld

    /// A refusal: the status and a sentence.
    struct Refusal: Error {
        let status: Int
        let reason: String
        init(_ status: Int, _ reason: String) {
            self.status = status
            self.reason = reason
        }
    }

    func handle(_ request: ServerRequest) async -> ServerResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).dropFirst().map {
            String($0).removingPercentEncoding ?? String($0)
        }
        do {
            return try await route(request.method, segments, request)
        } catch let refusal as Refusal {
            return .error(refusal.status, refusal.reason)
        } catch let error as AuthError {
            return .error(400, error.message.isEmpty ? error.code.rawValue : error.message)
        } catch {
            return .error(500, "the control API failed: \(error)")
        }
    }

    private func route(_ method: String, _ segments: [String], _ request: ServerRequest) async throws
        -> ServerResponse
    {
        func require(_ allowed: String...) throws {
            guard allowed.contains(method) || (method == "HEAD" && allowed.contains("GET")) else {
                throw Refusal(405, "\(request.path) answers \(allowed.joined(separator: ", ")), not \(method)")
            }
        }
        switch segments.first {
        case nil:
            try require("GET")
            return json(index())
        case "openapi.json":
            try require("GET")
            return ServerResponse(
                status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                body: Data(OpenAPIDocument.json.utf8))
        case "state":
            try require("GET")
            return json(state())
        case "hosts":
            try require("GET")
            return json(["hosts": hosts()])
        case "inbox":
            return try await inbox(method, Array(segments.dropFirst()), request)
        case "clock":
            return try clock(method, Array(segments.dropFirst()), request)
        case "faults":
            return try faults(method, Array(segments.dropFirst()), request)
        case "scenarios":
            return try scenarios(method, Array(segments.dropFirst()), request)
        case "codes":
            return try codes(method, Array(segments.dropFirst()), request)
        case "requests":
            try require("GET")
            let after = try integer(request.queryItems["after"], name: "after", in: 0...Int.max) ?? 0
            return json(["requests": world.sandbox.requestLog.filter { $0.index > after }.map(Self.logEntry)])
        case "reset":
            try require("POST")
            let settings = try resetSettings(body(request, optional: true))
            let fresh = try server.reset(settings)
            return json(["reset": true, "seed": String(fresh.settings.seed), "clock": Self.clockJSON(fresh)])
        case "sessions":
            try require("POST")
            return try await issueSession(body(request))
        case "totp":
            try require("GET")
            return try totp(Array(segments.dropFirst()))
        default:
            throw Refusal(404, "no control route \(request.path); see GET /_multiauth/openapi.json")
        }
    }

    // MARK: Index and state

    private func index() -> [String: Any] {
        [
            "name": "MultiAuth sandbox server", "version": SemanticVersion.multiAuth.description,
            "openapi": "/_multiauth/openapi.json", "inspector": "/", "hosts": hosts(),
            "seed": String(world.settings.seed), "clock": Self.clockJSON(world),
            "sandboxKeys":
                "every signing key of this server is a sandbox key: its JWKS kid names the sandbox and tokens are issued by .test hosts",
        ]
    }

    private func hosts() -> [[String: Any]] {
        let base = server.baseURL?.absoluteString ?? ""
        return EmulatorWorld.families.flatMap { family in
            family.hosts.map { host in
                ["provider": family.provider, "name": family.name, "host": host, "baseURL": base + "/" + host]
            }
        }
    }

    private func state() -> [String: Any] {
        let messages = world.sandbox.inbox.allMessages
        let log = world.sandbox.requestLog
        return [
            "seed": String(world.settings.seed), "clock": Self.clockJSON(world), "hosts": hosts(),
            "inbox": messages.suffix(200).reversed().map(Self.message),
            "flows": WorldInspection.pendingFlows(world).map(\.json),
            "sessions": WorldInspection.issuedSessions(world).map(\.json),
            "requests": log.suffix(100).reversed().map(Self.logEntry), "requestCount": log.count,
            "faults": faultList(), "scenarios": scenarioList(), "codes": world.sandbox.fixedCodes.all,
            "connections": server.openConnections,
        ]
    }

    // MARK: Inbox

    private func inbox(_ method: String, _ rest: [String], _ request: ServerRequest) async throws -> ServerResponse {
        guard method == "GET" || method == "HEAD" else { throw Refusal(405, "the inbox answers GET") }
        let items = request.queryItems
        let channel = items["channel"].map { DeliveryChannel(rawValue: $0.lowercased()) }
        let after = try integer(items["after"], name: "after", in: 0...Int.max) ?? 0
        switch rest.count {
        case 0:
            let messages = world.sandbox.inbox.allMessages.filter {
                $0.id > after && (channel == nil || $0.channel == channel)
            }
            return json(["messages": messages.map(Self.message)])
        case 1:
            let destination = Self.destinationKey(rest[0])
            let messages = world.sandbox.inbox.messages(for: destination).filter {
                $0.id > after && (channel == nil || $0.channel == channel)
            }
            return json([
                "destination": destination, "messages": messages.map(Self.message),
                "latest": world.sandbox.inbox.latest(for: destination, channel: channel).map(Self.message) ?? NSNull(),
            ])
        case 2 where rest[1] == "next":
            let destination = Self.destinationKey(rest[0])
            let limit = server.configuration.limits.maximumLongPoll
            let seconds =
                try number(items["timeout"], name: "timeout", in: 0...limit.timeInterval) ?? min(30, limit.timeInterval)
            let inbox = world.sandbox.inbox
            let found = await server.inboxWaiters.wait(timeout: .interval(seconds)) {
                inbox.messages(for: destination).first {
                    $0.id > after && $0.status == .delivered && (channel == nil || $0.channel == channel)
                }
            }
            guard let found else {
                return ServerResponse(status: 204, headers: [("Cache-Control", "no-store")])
            }
            return json(Self.message(found))
        default:
            throw Refusal(404, "inbox routes: /_multiauth/inbox, /_multiauth/inbox/{destination}, …/next")
        }
    }

    /// An inbox key from a path segment: an e-mail address is case-folded (its identity key);
    /// a phone number is kept as written (E.164, `+` included).
    static func destinationKey(_ text: String) -> String {
        if text.contains("@"), let email = try? EmailAddress(text) { return email.identityKey }
        if !text.hasPrefix("+"), text.allSatisfy(\.isNumber), let phone = try? PhoneNumber("+" + text) {
            return phone.e164
        }
        return text
    }

    static func message(_ message: InboxMessage) -> [String: Any] {
        [
            "id": message.id, "host": message.host, "destination": message.destination,
            "channel": message.channel.rawValue, "code": message.code ?? NSNull(),
            "link": message.link?.absoluteString ?? NSNull(), "status": message.status.rawValue,
            "sentAt": iso(message.sentAt), "statusChangedAt": iso(message.statusChangedAt),
            "sentAtUnix": message.sentAt.timeIntervalSince1970,
        ]
    }

    // MARK: Clock

    static func clockJSON(_ world: EmulatorWorld) -> [String: Any] {
        let now = world.sandbox.time.now
        var object: [String: Any] = [
            "now": iso(now), "unix": now.timeIntervalSince1970,
        ]
        switch world.settings.clock {
        case .realTime:
            object["mode"] = "realTime"
        case .manual:
            let elapsed = world.sandbox.clock.now.offset.components
            object["mode"] = "manual"
            object["elapsed"] = ["seconds": elapsed.seconds, "attoseconds": elapsed.attoseconds]
            object["sleepers"] = world.sandbox.clock.sleeperCount
        }
        return object
    }

    private func clock(_ method: String, _ rest: [String], _ request: ServerRequest) throws -> ServerResponse {
        let manual: Bool
        if case .manual = world.settings.clock { manual = true } else { manual = false }
        switch (method, rest) {
        case ("GET", []), ("HEAD", []):
            return json(Self.clockJSON(world))
        case ("POST", ["advance"]):
            guard manual else { throw Refusal(409, "the server runs in real time; its clock cannot be advanced") }
            let object = try body(request)
            let seconds = try number(object["seconds"], name: "seconds", in: 0...(10 * 365 * 86_400)) ?? 0
            world.sandbox.clock.advance(by: .interval(seconds))
            return json(Self.clockJSON(world))
        case ("PUT", []):
            guard manual else { throw Refusal(409, "the server runs in real time; its clock cannot be set") }
            let object = try body(request)
            let clock = world.sandbox.clock
            let target: ManualClock.Instant
            if let elapsed = object["elapsed"] {
                target = ManualClock.Instant(offset: try duration(elapsed, name: "elapsed"))
            } else if let now = object["now"] {
                let date: Date
                if let text = now.stringValue {
                    guard let parsed = ISO8601DateFormatter().date(from: text) else {
                        throw Refusal(400, "now must be an ISO 8601 time such as 2024-01-01T00:00:00Z or Unix seconds")
                    }
                    date = parsed
                } else {
                    let unix = try number(now, name: "now", in: 0...253_402_300_799)!
                    date = Date(timeIntervalSince1970: unix)
                }
                target = clock.now.advanced(by: .interval(date.timeIntervalSince(clock.wallNow)))
            } else {
                throw Refusal(
                    400, "set the clock with {\"now\": …} or {\"elapsed\": {\"seconds\": …, \"attoseconds\": …}}")
            }
            guard target >= clock.now else {
                throw Refusal(409, "the clock never goes backwards; reset the server to start over")
            }
            clock.advance(to: target)
            return json(Self.clockJSON(world))
        default:
            throw Refusal(
                405, "clock routes: GET /_multiauth/clock, PUT /_multiauth/clock, POST /_multiauth/clock/advance")
        }
    }

    // MARK: Faults

    private func faultList() -> [[String: Any]] {
        var list: [[String: Any]] = world.sandbox.faults.activeRules.map { rule in
            [
                "id": String(rule.id.number), "type": rule.kind, "detail": rule.detail, "host": rule.host ?? NSNull(),
                "pathPrefix": rule.pathPrefix, "destination": rule.destination ?? NSNull(),
                "remaining": rule.remaining ?? NSNull(), "probability": rule.probability, "fired": rule.fired,
            ]
        }
        let offsets = world.sandbox.faults.clockOffsets
        if offsets.default != .zero {
            list.append(["type": "clockOffset", "host": NSNull(), "seconds": offsets.default.timeInterval])
        }
        for (host, offset) in offsets.byHost.sorted(by: { $0.key < $1.key }) {
            list.append(["type": "clockOffset", "host": host, "seconds": offset.timeInterval])
        }
        return list
    }

    private func faults(_ method: String, _ rest: [String], _ request: ServerRequest) throws -> ServerResponse {
        let plan = world.sandbox.faults
        switch (method, rest) {
        case ("GET", []), ("HEAD", []):
            return json(["faults": faultList()])
        case ("DELETE", []):
            plan.removeAll()
            return json(["faults": faultList()])
        case ("DELETE", let path) where path.count == 1:
            guard let number = UInt64(path[0]), number > 0 else { throw Refusal(400, "a fault id is a number") }
            plan.remove(FaultRuleID(number: number))
            return json(["faults": faultList()])
        case ("PUT", ["clock-offset"]):
            let object = try body(request)
            let offset: Duration
            if let exact = object["offset"] {
                offset = try duration(exact, name: "offset", allowNegative: true)
            } else {
                offset = .interval(try number(object["seconds"], name: "seconds", in: -31_536_000...31_536_000) ?? 0)
            }
            let host = try optionalString(object["host"], name: "host")?.lowercased()
            if let host, !world.hosts.contains(host) { throw Refusal(400, "no backend is served on host '\(host)'") }
            plan.setServerClockOffset(offset, host: host)
            return json(["faults": faultList()])
        case ("POST", []):
            let object = try body(request)
            let id = try addFault(object, to: plan)
            return ServerResponse.json(
                201, Self.encode(["id": String(id.number), "faults": faultList()] as [String: Any]))
        default:
            throw Refusal(
                405,
                "fault routes: GET/POST/DELETE /_multiauth/faults, DELETE /_multiauth/faults/{id}, PUT /_multiauth/faults/clock-offset"
            )
        }
    }

    private func addFault(_ object: [String: JSONValue], to plan: FaultPlan) throws -> FaultRuleID {
        let type = try optionalString(object["type"], name: "type") ?? ""
        let host = try optionalString(object["host"], name: "host")?.lowercased()
        if let host, !world.hosts.contains(host) { throw Refusal(400, "no backend is served on host '\(host)'") }
        let pathPrefix = try optionalString(object["pathPrefix"], name: "pathPrefix") ?? ""
        let probability = try number(object["probability"], name: "probability", in: 0...1) ?? 1
        let repeatValue: FaultRepeat
        switch object["repeat"] {
        case nil, .string("always")?: repeatValue = .always
        case .string("once")?: repeatValue = .once
        case let value?:
            guard let count = try integer(value, name: "repeat", in: 1...1_000_000) else {
                repeatValue = .always
                break
            }
            repeatValue = .times(count)
        }
        switch type {
        case "latency":
            let seconds = try number(object["seconds"], name: "seconds", in: 0...86_400) ?? 0
            return plan.add(
                .latency(.interval(seconds)), host: host, pathPrefix: pathPrefix, repeat: repeatValue,
                probability: probability)
        case "responseLatency":
            let seconds = try number(object["seconds"], name: "seconds", in: 0...86_400) ?? 0
            return plan.add(
                .responseLatency(.interval(seconds)), host: host, pathPrefix: pathPrefix, repeat: repeatValue,
                probability: probability)
        case "status":
            let status = try integer(object["status"], name: "status", in: 100...599) ?? 503
            var headers: [String: String] = [:]
            if let fields = object["headers"]?.objectValue {
                for (name, value) in fields {
                    guard let text = value.stringValue, !name.isEmpty,
                        !(name + text).contains(where: { $0 == "\r" || $0 == "\n" })
                    else { throw Refusal(400, "fault headers are names and string values without line breaks") }
                    headers[name] = text
                }
            }
            let data: Data
            if let bodyValue = object["body"] {
                if let text = bodyValue.stringValue {
                    data = Data(text.utf8)
                } else {
                    data = try JSONEncoder.multiAuth.encode(bodyValue)
                    if headers.keys.allSatisfy({ $0.lowercased() != "content-type" }) {
                        headers["Content-Type"] = "application/json"
                    }
                }
            } else {
                data = Data()
            }
            return plan.add(
                .status(status, headers: headers, body: data), host: host, pathPrefix: pathPrefix,
                repeat: repeatValue, probability: probability)
        case "dropConnection":
            return plan.add(
                .dropConnection, host: host, pathPrefix: pathPrefix, repeat: repeatValue, probability: probability)
        case "rateLimit":
            let limit = try integer(object["limit"], name: "limit", in: 0...1_000_000) ?? 1
            let window = try number(object["windowSeconds"], name: "windowSeconds", in: 0.001...86_400) ?? 60
            return plan.add(
                .rateLimit(limit: limit, window: .interval(window)), host: host, pathPrefix: pathPrefix,
                repeat: repeatValue, probability: probability)
        case "failDelivery":
            guard let channel = try optionalString(object["channel"], name: "channel"), !channel.isEmpty else {
                throw Refusal(400, "failDelivery needs a channel: sms, whatsapp, email or voice")
            }
            let destination = try optionalString(object["destination"], name: "destination").map(
                Self.destinationKey)
            return plan.failDelivery(
                on: DeliveryChannel(rawValue: channel.lowercased()), destination: destination, repeat: repeatValue)
        default:
            throw Refusal(
                400, "unknown fault type '\(type)'; types: latency, status, dropConnection, rateLimit, failDelivery")
        }
    }

    // MARK: Scenarios and fixed codes

    private func scenarioList() -> [[String: Any]] {
        world.scenarios.all.sorted { $0.key < $1.key }.flatMap { destination, entries in
            entries.map { entry in
                [
                    "destination": destination, "scenario": entry.kind.rawValue, "deviceID": entry.deviceID ?? NSNull(),
                    "firstName": entry.firstName ?? NSNull(), "lastName": entry.lastName ?? NSNull(),
                ]
            }
        }
    }

    private func scenarios(_ method: String, _ rest: [String], _ request: ServerRequest) throws -> ServerResponse {
        switch (method, rest.count) {
        case ("GET", 0), ("HEAD", 0):
            return json([
                "scenarios": scenarioList(), "available": Scenarios.Kind.allCases.map(\.rawValue),
            ])
        case ("PUT", 1), ("POST", 1):
            let destination = Self.destinationKey(rest[0])
            let object = try body(request)
            let name = try optionalString(object["scenario"], name: "scenario") ?? ""
            guard let kind = Scenarios.Kind(rawValue: name) else {
                throw Refusal(
                    400,
                    "unknown scenario '\(name)'; scenarios: \(Scenarios.Kind.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            try world.scenarios.set(
                Scenarios.Entry(
                    kind: kind, deviceID: try optionalString(object["deviceID"], name: "deviceID"),
                    firstName: try optionalString(object["firstName"], name: "firstName"),
                    lastName: try optionalString(object["lastName"], name: "lastName")), for: destination)
            return json(["scenarios": scenarioList()])
        case ("DELETE", 1):
            world.scenarios.clear(Self.destinationKey(rest[0]))
            return json(["scenarios": scenarioList()])
        default:
            throw Refusal(
                405, "scenario routes: GET /_multiauth/scenarios, PUT/DELETE /_multiauth/scenarios/{destination}")
        }
    }

    private func codes(_ method: String, _ rest: [String], _ request: ServerRequest) throws -> ServerResponse {
        let table = world.sandbox.fixedCodes
        switch (method, rest.count) {
        case ("GET", 0), ("HEAD", 0):
            return json(["codes": table.all])
        case ("PUT", 1), ("POST", 1):
            let code = try optionalString(try body(request)["code"], name: "code") ?? ""
            guard table.set(code, for: Self.destinationKey(rest[0])) else {
                throw Refusal(400, "a fixed code is 4 to 10 ASCII digits")
            }
            return json(["codes": table.all])
        case ("DELETE", 1):
            table.remove(for: Self.destinationKey(rest[0]))
            return json(["codes": table.all])
        default:
            throw Refusal(405, "code routes: GET /_multiauth/codes, PUT/DELETE /_multiauth/codes/{destination}")
        }
    }

    // MARK: Reset and sessions

    private func resetSettings(_ object: [String: JSONValue]) throws -> EmulatorWorld.Settings {
        var settings = server.configuration.settings
        settings.seed = world.settings.seed
        settings.clock = world.settings.clock
        if case .manual = settings.clock {
            settings.clock = .manual(start: Date(timeIntervalSince1970: 1_700_000_000))
        }
        if let seed = object["seed"] {
            if let text = seed.stringValue, let value = UInt64(text) {
                settings.seed = value
            } else if let value = try integer(seed, name: "seed", in: 0...Int.max) {
                settings.seed = UInt64(value)
            }
        }
        switch object["clock"] {
        case nil: break
        case .string("realTime")?: settings.clock = .realTime
        case .object(let clock)?:
            let start = try number(clock["start"], name: "clock.start", in: 0...253_402_300_799) ?? 1_700_000_000
            settings.clock = .manual(start: Date(timeIntervalSince1970: start))
        default: throw Refusal(400, "clock is \"realTime\" or {\"start\": <Unix seconds>}")
        }
        if let otpless = object["otpless"] {
            guard let fields = otpless.objectValue else { throw Refusal(400, "otpless is an object") }
            var merchant = settings.otplessMerchant
            if let type = try optionalString(fields["phoneAuthType"], name: "otpless.phoneAuthType") {
                guard let value = OTPlessMerchant.AuthType(rawValue: type) else {
                    throw Refusal(400, "otpless.phoneAuthType is OTP, MAGICLINK or OTP_LINK")
                }
                merchant.phoneAuthType = value
            }
            if let type = try optionalString(fields["emailAuthType"], name: "otpless.emailAuthType") {
                guard let value = OTPlessMerchant.AuthType(rawValue: type) else {
                    throw Refusal(400, "otpless.emailAuthType is OTP, MAGICLINK or OTP_LINK")
                }
                merchant.emailAuthType = value
            }
            if let seconds = try number(
                fields["fallbackDelaySeconds"], name: "otpless.fallbackDelaySeconds", in: 0...86_400)
            {
                merchant.fallbackDelay = .interval(seconds)
            }
            if let channels = fields["phoneChannels"] {
                guard let list = channels.arrayValue?.compactMap(\.stringValue),
                    list.count == channels.arrayValue?.count
                else { throw Refusal(400, "otpless.phoneChannels is a list of channel names") }
                merchant.phoneChannels = list.map { DeliveryChannel(rawValue: $0.lowercased()) }
            }
            if let value = fields["silentAuthEnabled"] {
                guard let flag = value.boolValue else {
                    throw Refusal(400, "otpless.silentAuthEnabled is true or false")
                }
                merchant.silentAuthEnabled = flag
            }
            if let value = fields["emailEnabled"] {
                guard let flag = value.boolValue else { throw Refusal(400, "otpless.emailEnabled is true or false") }
                merchant.emailEnabled = flag
            }
            settings.otplessMerchant = merchant
        }
        return settings
    }

    private func issueSession(_ object: [String: JSONValue]) async throws -> ServerResponse {
        guard let issuer = server.configuration.sessionIssuer else {
            throw Refusal(501, "this server was started without a session issuer")
        }
        guard let provider = try optionalString(object["provider"], name: "provider"),
            ["dynamic", "truecaller", "portal", "otpless"].contains(provider)
        else { throw Refusal(400, "provider is one of dynamic, truecaller, portal, otpless") }
        guard let identity = try optionalString(object["identity"], name: "identity"), !identity.isEmpty else {
            throw Refusal(400, "identity is the user's E.164 number or e-mail address")
        }
        let request = SandboxServer.SessionRequest(
            provider: provider, identity: identity,
            firstName: try optionalString(object["firstName"], name: "firstName"),
            lastName: try optionalString(object["lastName"], name: "lastName"))
        let session = try await issuer(request, world)
        return .json(201, session)
    }

    // MARK: TOTP

    /// The Portal users' TOTP secrets (base32) and their current codes at the server's time:
    /// what an authenticator app on the user's phone shows.
    private func totp(_ rest: [String]) throws -> ServerResponse {
        let secrets = world.portalBackend.totpSecrets()
        let now = world.sandbox.time.now
        func entry(_ secret: [UInt8]) -> [String: Any] {
            [
                "secret": Base32.encode(secret), "digits": 6, "period": 30,
                "code": (try? TOTP(secret: secret).code(at: now)) ?? NSNull(),
            ]
        }
        switch rest.count {
        case 0:
            return json(["totp": secrets.mapValues(entry)])
        case 1:
            let email = Self.destinationKey(rest[0])
            guard let secret = secrets[email] else {
                throw Refusal(
                    404, "no TOTP secret is enrolled for \(email): it is made at the user's first Portal sign-in")
            }
            return json(entry(secret).merging(["email": email]) { first, _ in first })
        default:
            throw Refusal(404, "TOTP routes: /_multiauth/totp, /_multiauth/totp/{email}")
        }
    }

    // MARK: Helpers

    static func logEntry(_ entry: SandboxLogEntry) -> [String: Any] {
        let outcome: String
        switch entry.outcome {
        case .pending: outcome = "pending"
        case .response(let status): outcome = String(status)
        case .dropped: outcome = "dropped"
        case .cancelled: outcome = "cancelled"
        }
        return [
            "index": entry.index, "host": entry.host, "method": entry.method, "path": entry.redactedPath,
            "status": entry.status ?? NSNull(), "outcome": outcome, "receivedAt": iso(entry.receivedAt),
        ]
    }

    private func body(_ request: ServerRequest, optional: Bool = false) throws -> [String: JSONValue] {
        if request.body.isEmpty {
            if optional { return [:] }
            throw Refusal(400, "this route needs a JSON object body")
        }
        guard let value = try? JSONValue(parsing: request.body, limits: .jwt), let object = value.objectValue else {
            throw Refusal(400, "the body is not a JSON object (at most 64 KiB, 32 levels)")
        }
        return object
    }

    private func number(_ value: JSONValue?, name: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let value else { return nil }
        guard let number = value.doubleValue ?? value.stringValue.flatMap(Double.init), number.isFinite,
            range.contains(number)
        else { throw Refusal(400, "\(name) must be a number from \(range.lowerBound) to \(range.upperBound)") }
        return number
    }

    private func number(_ text: String?, name: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let text else { return nil }
        return try number(JSONValue.string(text), name: name, in: range)
    }

    private func integer(_ value: JSONValue?, name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let value else { return nil }
        guard let number = value.int64Value.flatMap({ Int(exactly: $0) }) ?? value.stringValue.flatMap({ Int($0) }),
            range.contains(number)
        else { throw Refusal(400, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)") }
        return number
    }

    private func integer(_ text: String?, name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text else { return nil }
        return try integer(JSONValue.string(text), name: name, in: range)
    }

    private func optionalString(_ value: JSONValue?, name: String) throws -> String? {
        guard let value, value != .null else { return nil }
        guard let text = value.stringValue, text.utf8.count <= 4096 else {
            throw Refusal(400, "\(name) must be a string of at most 4096 bytes")
        }
        return text
    }

    /// An exact duration `{"seconds": Int64, "attoseconds": Int64}` (what `Duration.components` gives).
    private func duration(_ value: JSONValue, name: String, allowNegative: Bool = false) throws -> Duration {
        let refusal = Refusal(400, "\(name) is {\"seconds\": <whole number>, \"attoseconds\": <whole number>}")
        guard let object = value.objectValue, let seconds = object["seconds"]?.int64Value else { throw refusal }
        let attoseconds: Int64
        if let field = object["attoseconds"] {
            guard let value = field.int64Value else { throw refusal }
            attoseconds = value
        } else {
            attoseconds = 0
        }
        guard abs(seconds) <= 315_360_000_000, abs(attoseconds) < 1_000_000_000_000_000_000,
            allowNegative || (seconds >= 0 && attoseconds >= 0)
        else { throw refusal }
        return Duration(secondsComponent: seconds, attosecondsComponent: attoseconds)
    }

    private func json(_ object: [String: Any]) -> ServerResponse {
        .json(200, Self.encode(object))
    }

    static func encode(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
    }

    /// `date` as RFC 3339 UTC with milliseconds, e.g. `2023-11-14T22:13:20.000Z` (formatted by
    /// hand: a date formatter per message made a 200-message inbox answer take a third of a
    /// second).
    static func iso(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard milliseconds.isFinite, abs(milliseconds) < 253_402_300_800_000 else { return "" }
        let total = Int64(milliseconds)
        var seconds = total >= 0 ? total / 1000 : (total - 999) / 1000
        let fraction = total - seconds * 1000
        var days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        seconds -= days * 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(seconds / 3600, 2)):\(pad(seconds % 3600 / 60, 2)):"
            + "\(pad(seconds % 60, 2)).\(pad(fraction, 3))Z"
    }
}
