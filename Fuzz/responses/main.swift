// libFuzzer target: every endpoint of every built-in adapter, answered by a hostile server.
//
// The input picks one contract fixture of one provider (Tests/Fixtures/Contracts/<Provider>/,
// start, verify, resend, refresh, sign-out, polling, profile, key set …), one of its responses
// and a mutation program: numbers become ±1e300, 1e19, -9.3e18, 1e999, "NaN", "inf"; strings
// become huge, invalid UTF-8 or HTML; fields are dropped, duplicated or retyped; the status
// may change; or the whole body is replaced by raw bytes. Every flow of that provider then runs
// through `AuthClient` (sign-in, resend, submit or redirect, refresh, sign-out; the server-side
// verifiers directly) against a transport that answers the chosen endpoint with the mutated
// response and every other endpoint with its fixture's success.
//
// Properties (Docs/Security.md, "Response fuzzing"): every call returns a valid step or throws
// an `AuthError`; every challenge and session encodes and decodes to an equal value and has a
// finite expiry at most 10 years ahead; no token, code or grant of the fixtures appears in any
// rendering of a step, session, challenge or error (its causes and `userInfo` included); each
// input finishes (libFuzzer's -timeout, with a clock that never sleeps for real).
import Dispatch
import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthOTPless
import MultiAuthPortal
import MultiAuthTruecaller

// MARK: Fixtures

struct FixtureResponse: Sendable {
    let name: String
    let status: Int
    let body: JSONValue?
}

struct EndpointFixture: Sendable {
    let provider: String
    let name: String
    let method: String
    let path: String
    let responses: [FixtureResponse]
}

/// Every contract fixture, sorted by provider and name (the input's first byte indexes it).
let fixtures: [EndpointFixture] = {
    let root = URL(fileURLWithPath: ProcessInfo.processInfo.environment["FUZZ_CONTRACTS"] ?? "Tests/Fixtures/Contracts")
    var all: [EndpointFixture] = []
    for provider in ["Dynamic", "OTPless", "Portal", "Truecaller"] {
        let directory = root.appending(path: provider)
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        for file in files.filter({ $0.pathExtension == "json" }).sorted(by: {
            $0.lastPathComponent < $1.lastPathComponent
        }) {
            guard let data = try? Data(contentsOf: file), let document = try? JSONValue(parsing: Array(data)) else {
                fatalError("fixture \(file.path) is not readable JSON")
            }
            let request = document["request"]
            let responses = (document["responses"]?.arrayValue ?? []).map {
                FixtureResponse(
                    name: $0["name"]?.stringValue ?? "", status: Int($0["status"]?.int64Value ?? 200), body: $0["body"])
            }
            all.append(
                EndpointFixture(
                    provider: provider, name: file.deletingPathExtension().lastPathComponent,
                    method: document["method"]?.stringValue ?? request?["method"]?.stringValue ?? "",
                    path: document["path"]?.stringValue ?? request?["path"]?.stringValue ?? "", responses: responses))
        }
    }
    guard all.count >= 39 else { fatalError("only \(all.count) contract fixtures under \(root.path)") }
    return all
}()

/// The values the fixtures' `{{placeholders}}` stand for in responses.
let bindings: [String: String] = [
    "userJwt": [
        #"{"alg":"HS256","typ":"JWT"}"#, #"{"endUserId":"eu_5d1c9a7b3e2f4a60","iat":1700000000,"exp":1700000600}"#,
    ]
    .map { Base64URL.encode(Array($0.utf8)) }.joined(separator: ".") + ".c2ln",
    "grant": "grant-4d2b", "code": "123456", "accessToken": "4e6a8c0b-2d1f-4a3e-9c5b-7d9e1f3a5c7e",
]

/// Keys whose string values are credentials: none of them may show in a rendering.
let secretKeys: Set<String> = [
    "jwt", "minifiedJwt", "mfaToken", "accessToken", "refreshToken", "sessionToken", "sessionTokenJWT", "idToken",
    "verificationToken", "channelAuthToken", "clientSessionToken", "userJwt", "token", "id_token", "access_token",
    "refresh_token", "otp", "secret",
]

func secrets(in value: JSONValue?, key: String? = nil, into found: inout Set<String>) {
    switch value {
    case .string(let text)?:
        if let key, secretKeys.contains(key), text.count >= 8 { found.insert(substituted(text)) }
    case .array(let items)?: for item in items { secrets(in: item, key: key, into: &found) }
    case .object(let members)?: for (name, member) in members { secrets(in: member, key: name, into: &found) }
    default: break
    }
}

/// Per provider: every credential its fixtures' responses carry, plus the code and grant.
let providerSecrets: [String: [String]] = {
    var table: [String: Set<String>] = [:]
    for fixture in fixtures {
        for response in fixture.responses { secrets(in: response.body, into: &table[fixture.provider, default: []]) }
    }
    return table.mapValues { Array($0) + ["123456", "grant-4d2b", bindings["userJwt"]!] }
}()

func substituted(_ text: String) -> String {
    guard text.contains("{{") else { return text }
    var out = text
    for (name, value) in bindings { out = out.replacingOccurrences(of: "{{\(name)}}", with: value) }
    out = out.replacingOccurrences(of: "{{traceId:uuid}}", with: "0b7c2f7e-1111-4222-8333-444455556666")
    return out
}

// MARK: Wire values the mutations can produce (beyond what JSONValue holds)

/// A JSON text under construction: raw number text (`1e999`), string bytes that may be invalid
/// UTF-8, objects that may repeat a key.
indirect enum Wire {
    case raw(String)
    case string([UInt8])
    case array([Wire])
    case object([(String, Wire)])

    init(_ value: JSONValue) {
        switch value {
        case .null: self = .raw("null")
        case .bool(let flag): self = .raw(flag ? "true" : "false")
        case .number(let number):
            self = .raw(number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : "\(number)")
        case .string(let text): self = .string(Array(substituted(text).utf8))
        case .array(let items): self = .array(items.map(Wire.init))
        case .object(let members): self = .object(members.keys.sorted().map { ($0, Wire(members[$0]!)) })
        }
    }

    var isNumber: Bool {
        if case .raw(let text) = self { text != "null" && text != "true" && text != "false" } else { false }
    }

    func serialized(into out: inout [UInt8]) {
        switch self {
        case .raw(let text): out += Array(text.utf8)
        case .string(let bytes):
            out.append(UInt8(ascii: "\""))
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
                case 0..<0x20: out += Array(String(format: "\\u%04x", byte).utf8)
                default: out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.serialized(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Wire.string(Array(member.0.utf8)).serialized(into: &out)
                out.append(UInt8(ascii: ":"))
                member.1.serialized(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}

/// Reads the input's bytes; zeros once they run out.
struct ByteReader {
    var bytes: ArraySlice<UInt8>
    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }
    mutating func word() -> Int { Int(byte()) << 8 | Int(byte()) }
    var isEmpty: Bool { bytes.isEmpty }
}

/// The hostile replacements a mutation chooses from.
let hostileNumbers = [
    "1e300", "-1e300", "1e19", "-9.3e18", "1e999", "-1", "0", "4102444800000", "1.5", "9007199254740993",
]
let hostileStrings: [[UInt8]] = [
    Array("NaN".utf8), Array("inf".utf8), Array("-Infinity".utf8), Array("1e999".utf8), Array("1e300".utf8),
    [0xFF, 0xFE, 0xC0, 0x80], Array("<html><body>502 Bad Gateway</body></html>".utf8), [],
    Array(repeating: UInt8(ascii: "A"), count: 70_000), Array(repeating: UInt8(ascii: "9"), count: 5_000),
    Array("\u{200B}\u{FEFF}".utf8), Array(String(repeating: "\u{0301}", count: 2_000).utf8),
]

/// Applies mutation `action` to the node at DFS position `target` (counting from 0).
func mutate(_ wire: Wire, target: inout Int, action: UInt8, argument: UInt8) -> Wire? {
    if target == 0 {
        target = -1
        switch action % 12 {
        case 0, 1: return .raw(hostileNumbers[Int(argument) % hostileNumbers.count])
        case 2, 3: return .string(hostileStrings[Int(argument) % hostileStrings.count])
        case 4: return nil  // dropped (from its object or array)
        case 5: return .raw("null")
        case 6: return .array([wire])
        case 7: return .object([("value", wire)])
        case 8:  // a number as a string, a string as a number
            if case .raw(let text) = wire, wire.isNumber { return .string(Array(text.utf8)) }
            return .raw(hostileNumbers[Int(argument) % hostileNumbers.count])
        case 9: return .raw(argument % 2 == 0 ? "true" : "false")
        case 10:  // an object with every key duplicated, an array doubled
            if case .object(let members) = wire { return .object(members + members) }
            if case .array(let items) = wire { return .array(items + items) }
            return .array([])
        default: return .array(Array(repeating: wire, count: Int(argument % 8) + 2))
        }
    }
    target -= 1
    switch wire {
    case .array(let items):
        var out: [Wire] = []
        for item in items {
            if target < 0 {
                out.append(item)
            } else if let kept = mutate(item, target: &target, action: action, argument: argument) {
                out.append(kept)
            }
        }
        return .array(out)
    case .object(let members):
        var out: [(String, Wire)] = []
        for (key, value) in members {
            if target < 0 {
                out.append((key, value))
            } else if let kept = mutate(value, target: &target, action: action, argument: argument) {
                out.append((key, kept))
            }
        }
        return .object(out)
    default:
        return wire
    }
}

func nodeCount(_ wire: Wire) -> Int {
    switch wire {
    case .array(let items): 1 + items.reduce(0) { $0 + nodeCount($1) }
    case .object(let members): 1 + members.reduce(0) { $0 + nodeCount($1.1) }
    default: 1
    }
}

let statuses = [200, 201, 204, 400, 401, 403, 404, 409, 422, 429, 500, 502, 503, 599]

/// The input as (fixture, mutated response).
func decode(_ input: [UInt8]) -> (EndpointFixture, HTTPResponse) {
    var reader = ByteReader(bytes: input[...])
    let fixture = fixtures[Int(reader.byte()) % fixtures.count]
    let base = fixture.responses[Int(reader.byte()) % max(1, fixture.responses.count)]
    let statusByte = reader.byte()
    let status = statusByte < 160 ? base.status : statuses[Int(statusByte) % statuses.count]
    var headers = ["Content-Type": "application/json"]
    let mode = reader.byte()
    if mode & 0x40 != 0 {
        headers["Retry-After"] = ["1", "-5", "99999999999999999999", "1e300", "NaN", "Wed, 21 Oct 2015"][Int(mode) % 6]
    }
    if mode >= 0xE0 {
        // The rest of the input is the body, as it is.
        return (fixture, HTTPResponse(status: status, headers: headers, body: Data(reader.bytes)))
    }
    var wire = base.body.map(Wire.init) ?? .raw("null")
    for _ in 0..<(Int(mode & 0x07)) where !reader.isEmpty {
        var target = reader.word() % nodeCount(wire)
        wire = mutate(wire, target: &target, action: reader.byte(), argument: reader.byte()) ?? .raw("")
    }
    var body: [UInt8] = []
    if base.body != nil || mode & 0x08 != 0 { wire.serialized(into: &body) }
    return (fixture, HTTPResponse(status: status, headers: headers, body: Data(body)))
}

// MARK: The transport and the clock

/// Every fixture response as served unmutated, serialized once.
let cannedResponses: [String: [HTTPResponse]] = Dictionary(
    uniqueKeysWithValues: fixtures.map { fixture in
        (
            "\(fixture.provider)/\(fixture.name)",
            fixture.responses.map { response in
                var body: [UInt8] = []
                if let value = response.body { Wire(value).serialized(into: &body) }
                return HTTPResponse(
                    status: response.status, headers: ["Content-Type": "application/json"], body: Data(body))
            }
        )
    })

/// Answers each request with the fixture it matches: the chosen one with the mutated response,
/// every other one with its success. Cellular-capable, for OTPLESS silent network auth.
final class RoutingTransport: CellularHTTPTransport, @unchecked Sendable {
    let provider: String
    let target: EndpointFixture
    let mutated: HTTPResponse
    let canned: [String: String]
    private let lock = NSLock()
    private var seen: [String: Int] = [:]

    init(provider: String, target: EndpointFixture, mutated: HTTPResponse, canned: [String: String]) {
        self.provider = provider
        self.target = target
        self.mutated = mutated
        self.canned = canned
    }

    func count(_ name: String) -> Int { lock.withLock { seen[name, default: 0] } }

    var isCellularAvailable: Bool { true }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse { answer(request, cellular: false) }

    func sendOverCellular(_ request: HTTPRequest) async throws -> HTTPResponse { answer(request, cellular: true) }

    func answer(_ request: HTTPRequest, cellular: Bool) -> HTTPResponse {
        let candidates = fixtures.filter { $0.provider == provider && matches($0, request, cellular: cellular) }
        guard let fixture = candidates.first(where: { $0.name == target.name }) ?? candidates.first else {
            return HTTPResponse(status: 404, headers: [:], body: Data())
        }
        lock.withLock { seen[fixture.name, default: 0] += 1 }
        if fixture.name == target.name { return mutated }
        let wanted = canned[fixture.name]
        let index =
            fixture.responses.firstIndex { $0.name == wanted }
            ?? fixture.responses.firstIndex { (200..<300).contains($0.status) } ?? 0
        return cannedResponses["\(fixture.provider)/\(fixture.name)"]![index]
    }

    func matches(_ fixture: EndpointFixture, _ request: HTTPRequest, cellular: Bool) -> Bool {
        if fixture.name == "carrier" { return cellular }
        if cellular { return false }
        if fixture.path == "*" { return fixture.name == "jwks" && request.url.path.hasSuffix("jwks.json") }
        guard fixture.method.isEmpty || fixture.method == request.method.rawValue else { return false }
        let want = fixture.path.split(separator: "/", omittingEmptySubsequences: false)
        let have = request.url.path.split(separator: "/", omittingEmptySubsequences: false)
        guard want.count == have.count else { return false }
        return zip(want, have).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
    }
}

/// A clock that never sleeps for real: a sleep moves its time to the deadline at once (so
/// polling and back-off run through their whole budget without waiting).
final class LeapingClock: Clock, @unchecked Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    var now: Instant { lock.withLock { current } }
    var minimumResolution: Duration { .nanoseconds(1) }
    var wallNow: Date { start.addingTimeInterval(Double(now.offset.components.seconds)) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        lock.withLock { if deadline > current { current = deadline } }
        await Task.yield()
        try Task.checkCancellation()
    }

    var timeSource: TimeSource {
        TimeSource(clock: self, now: { [self] in wallNow })
    }
}

// MARK: Properties

func renderings(_ value: Any) -> [String] {
    var dumped = ""
    dump(value, to: &dumped)
    var texts = [String(describing: value), String(reflecting: value), dumped]
    if let error = value as? any Error {
        var cause: (any Error)? = error
        var depth = 0
        while let current = cause, depth < 8 {
            if let auth = current as? AuthError {
                texts += [auth.message, auth.providerCode ?? ""]
                cause = auth.underlying
            } else {
                cause = nil
            }
            if depth > 0 {
                var nested = ""
                dump(current, to: &nested)
                texts += [String(describing: current), String(reflecting: current), nested]
            }
            texts += (current as NSError).userInfo.map { "\($0.key)=\($0.value)" }
            depth += 1
        }
    }
    return texts
}

let trace = ProcessInfo.processInfo.environment["FUZZ_TRACE"] != nil

final class Checker: @unchecked Sendable {
    let secrets: [String]
    let now: Date
    init(provider: String, now: Date) {
        secrets = providerSecrets[provider] ?? []
        self.now = now
    }

    func noSecret(_ label: String, _ value: Any) {
        for text in renderings(value) {
            if let secret = secrets.first(where: { text.contains($0) }) {
                fatalError(
                    "fuzz property violated: \(label) renders the fixture secret \(secret.prefix(12))…: \(text.prefix(300))"
                )
            }
        }
    }

    func validExpiry(_ label: String, _ date: Date?) {
        guard let date else { return }
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, seconds >= 0, seconds <= now.timeIntervalSince1970 + 20 * 365.25 * 86_400 else {
            fatalError("fuzz property violated: \(label) has the expiry \(seconds)")
        }
    }

    func roundTrips<T: Codable & Equatable>(_ label: String, _ value: T) {
        do {
            let data = try JSONEncoder().encode(value)
            let decoded = try JSONDecoder().decode(T.self, from: data)
            if decoded != value { fatalError("fuzz property violated: \(label) does not decode to itself") }
        } catch {
            fatalError("fuzz property violated: \(label) does not encode and decode: \(error)")
        }
    }

    func step(_ label: String, _ step: SignInStep) {
        noSecret(label, step)
        switch step {
        case .challenge(let challenge):
            validExpiry("\(label) challenge", challenge.expiresAt)
            validExpiry("\(label) challenge resend", challenge.resendAvailableAt)
            roundTrips("\(label) challenge", challenge)
        case .signedIn(let session):
            self.session(label, session)
        }
    }

    func session(_ label: String, _ session: AuthSession) {
        noSecret("\(label) session", session)
        validExpiry("\(label) session", session.credentials.expiresAt)
        roundTrips("\(label) session", session)
    }

    /// Runs `body`: a value, or an `AuthError` (checked for secrets); anything else is a finding.
    func run<T: Sendable>(_ label: String, _ body: () async throws -> T) async -> T? {
        let started = ContinuousClock.now
        defer { if trace { print("TRACE \(label) \(ContinuousClock.now - started)") } }
        do {
            return try await body()
        } catch let error as AuthError {
            noSecret("\(label) error", error)
            return nil
        } catch {
            fatalError("fuzz property violated: \(label) threw a non-AuthError: \(type(of: error)): \(error)")
        }
    }
}

// MARK: The flows, per provider, through AuthClient

/// Signs in with `request`, then answers whatever challenge comes (code, redirect, SNA),
/// resends once, refreshes and signs out.
func signInFlow(
    _ client: AuthClient, _ id: AuthProviderID, _ request: SignInRequest, redirect: URL?, name: PersonName? = nil,
    checker: Checker, beforeAnswer: () async -> Void = {}, redirectFor: ((Challenge) -> URL?)? = nil
) async {
    guard var step = await checker.run("signIn", { try await client.signIn(with: id, request) }) else { return }
    checker.step("signIn", step)
    for round in 0..<3 {
        guard case .challenge(let challenge) = step else { break }
        await beforeAnswer()
        if round == 0, let resent = await checker.run("resend", { try await client.resend(challenge) }) {
            checker.step("resend", .challenge(resent))
        }
        let next: SignInStep?
        switch challenge.kind {
        case .magicLink, .oauthRedirect:
            guard let redirect = redirectFor?(challenge) ?? redirect else { return }
            next = await checker.run("handleRedirect", { try await client.handleRedirect(redirect) }) ?? nil
        case .silentNetworkAuth:
            next = await checker.run(
                "submit (SNA)", { try await client.submit(ChallengeAnswer(code: ""), for: challenge) })
        default:
            next = await checker.run("submit") {
                try await client.submit(ChallengeAnswer(code: "123456", name: name), for: challenge)
            }
        }
        guard let next else { break }
        checker.step("answer", next)
        step = next
    }
    await client.cancelFlow(for: id)
    guard case .signedIn = step else { return }
    if let refreshed = await checker.run("refresh", { try await client.refresh(id) }) {
        checker.session("refresh", refreshed)
    }
    if let outcome = await checker.run("signOut", { try await client.signOut(id) }) {
        checker.noSecret("signOut", outcome)
    }
}

func makeClient(_ provider: any AuthProvider, _ transport: RoutingTransport, _ clock: LeapingClock) -> AuthClient {
    try! AuthClient(providers: [provider], transport: transport, time: clock.timeSource, autoRefresh: .disabled)
}

let phone = try! PhoneNumber("+91 98765 43210")
let email = try! EmailAddress("ada@example.com")

func runDynamic(_ target: EndpointFixture, _ response: HTTPResponse) async {
    let clock = LeapingClock()
    let checker = Checker(provider: "Dynamic", now: clock.wallNow)
    // The MFA endpoint is reached only after a sign-in that owes the step.
    let canned =
        target.name == "mfa-totp" ? ["email-signin": "MFA required", "social-sign-in": "MFA required"] : [:]
    let transport = RoutingTransport(provider: "Dynamic", target: target, mutated: response, canned: canned)
    let deepLink = "myapp://auth/callback"
    let provider = DynamicProvider(
        configuration: try! .production(
            environmentID: "6b1c2d3e-0000-4000-8000-00000000d7a1", socialRedirectURL: URL(string: deepLink)!))
    let captcha = target.name.hasSuffix("captcha") ? [DynamicProvider.captchaTokenOption: "captcha-token-1"] : [:]
    // Social login: the return carries the state of the challenge's authorization URL.
    let socialReturn: (Challenge) -> URL? = { challenge in
        guard case .oauthRedirect(let url) = challenge.kind,
            let state = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: {
                $0.name == "state"
            })?.value,
            var components = URLComponents(string: deepLink)
        else { return nil }
        components.queryItems = [
            URLQueryItem(name: "dynamicOauthCode", value: "fixture-code-1"),
            URLQueryItem(name: "dynamicOauthState", value: state),
        ]
        return components.url
    }
    for request: SignInRequest in [.email(email, options: captcha), .phone(phone), .oauth(.google)] {
        await signInFlow(
            makeClient(provider, transport, clock), .dynamic, request, redirect: nil, checker: checker,
            redirectFor: socialReturn)
    }
}

func runOTPless(_ target: EndpointFixture, _ response: HTTPResponse) async {
    let clock = LeapingClock()
    let checker = Checker(provider: "OTPless", now: clock.wallNow)
    let sna = ["sna-status", "sna-lapse", "carrier"].contains(target.name)
    let transport = RoutingTransport(
        provider: "OTPless", target: target, mutated: response,
        canned: [
            "intent-phone": sna ? "silent-auth" : "otp-whatsapp",
            "intent-email": target.name == "verify-otp-email" ? "otp-email" : "magic-link",
            "carrier": "ok", "sna-status": "success",
        ])
    let provider = try! OTPlessProvider(
        configuration: .production(appID: "SANDBOXAPP", packageName: "com.multiauth.sandbox"))
    let link = URL(string: "otpless.sandboxapp://otpless?code=fixture-code-1")!
    let flows: [SignInRequest] =
        switch target.name {
        case "intent-email", "verify-otp-email", "code-exchange": [.email(email)]
        case "intent-oauth": [.oauth(.google)]
        case "validate-token", "openid-configuration", "jwks": []
        default: [.phone(phone)]
        }
    for request in flows {
        await signInFlow(makeClient(provider, transport, clock), .otpless, request, redirect: link, checker: checker) {
            // Let the status poller reach the server before the code is answered.
            if target.name == "status-poll" {
                for _ in 0..<200 where transport.count("status-poll") == 0 { await Task.yield() }
            }
        }
    }
    // Every poller ends with its flow: none may outlive the input.
    provider.stopAllPolling()
    for _ in 0..<100_000 where provider.activePollerCount > 0 { await Task.yield() }
    fuzzCheck(provider.activePollerCount == 0, "an OTPLESS status poller outlived its stopped flow")
    if target.name == "validate-token" {
        let verifier = OTPlessTokenVerifier(
            clientID: "fixture-client", clientSecret: "fixture-secret", transport: transport, time: clock.timeSource)
        if let user = await checker.run("validate", { try await verifier.validate(token: "apptoken-7c1e") }) {
            checker.noSecret("validated user", user)
        }
    }
    if target.name == "openid-configuration" || target.name == "jwks" {
        let verifier = OTPlessTokenVerifier(
            clientID: "fixture-client", clientSecret: "unused", transport: transport, time: clock.timeSource)
        let token =
            [#"{"alg":"RS256","kid":"k1"}"#, #"{"sub":"u","aud":"fixture-client","iat":1700000000,"exp":1700003600}"#]
            .map { Base64URL.encode(Array($0.utf8)) }.joined(separator: ".") + ".c2ln"
        _ = await checker.run("verifyIDToken", { try await verifier.verifyIDToken(token) })
    }
}

func runPortal(_ target: EndpointFixture, _ response: HTTPResponse) async {
    let clock = LeapingClock()
    let checker = Checker(provider: "Portal", now: clock.wallNow)
    let transport = RoutingTransport(
        provider: "Portal", target: target, mutated: response, canned: ["magic-link-validation": "TOTP required"])
    let redirect = "myapp://auth/callback"
    let configuration = try! PortalConfiguration.production(
        authEnvironmentID: "env-7f3a", redirectURL: URL(string: redirect)!, fromEmail: "signin@example.org",
        templateID: "magic-link-template-2",
        isAccountAbstracted: target.name.hasSuffix("account-abstraction") ? true : nil)
    let provider = PortalProvider(configuration: configuration)
    let oauth = ["oauth-urls", "oauth-tokens"].contains(target.name)
    await signInFlow(
        makeClient(provider, transport, clock), .portal, oauth ? .oauth(.google) : .email(email),
        redirect: URL(
            string: oauth
                ? "\(redirect)?token=grant-4d2b&login_type=GOOGLE"
                : "\(redirect)?token=grant-4d2b&authMethod=EMAIL_MAGIC_LINK"),
        checker: checker)
}

func runTruecaller(_ target: EndpointFixture, _ response: HTTPResponse) async {
    let clock = LeapingClock()
    let checker = Checker(provider: "Truecaller", now: clock.wallNow)
    let transport = RoutingTransport(provider: "Truecaller", target: target, mutated: response, canned: [:])
    let configuration = try! TruecallerConfiguration.production(
        appKey: "partner-key", appLink: URL(string: "https://app.example.com/truecaller")!, deviceID: "device-1")
    switch target.name {
    case "key":
        if let keys = await checker.run(
            "key refetch",
            {
                try await TruecallerKeyStore(endpoint: configuration.keyEndpoint).refetch(transport: transport)
            })
        {
            checker.noSecret("keys", keys)
        }
    case "phone-number-detail":
        let verifier = TruecallerTokenVerifier(credential: .appKey("partner-key"), transport: transport)
        if let detail = await checker.run(
            "phone number detail",
            {
                try await verifier.verify(accessToken: bindings["accessToken"]!)
            })
        {
            checker.noSecret("phone number detail", detail)
        }
    default:
        await signInFlow(
            makeClient(TruecallerProvider(configuration: configuration), transport, clock), .truecaller, .phone(phone),
            redirect: nil, name: try! PersonName(firstName: "Asha", lastName: "Rao"), checker: checker)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponses(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let (fixture, response) = decode(Array(UnsafeBufferPointer(start: data, count: size)))
    runBlocking {
        switch fixture.provider {
        case "Dynamic": await runDynamic(fixture, response)
        case "OTPless": await runOTPless(fixture, response)
        case "Portal": await runPortal(fixture, response)
        default: await runTruecaller(fixture, response)
        }
    }
    return 0
}
