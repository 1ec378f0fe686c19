import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking
import MultiAuthSandbox

/// What happens to sign-ins of one phone number or e-mail address, set through the control API
/// (`PUT /_multiauth/scenarios/{destination}`) or in-process (Docs/Emulator.md, "Scenarios").
///
/// Each scenario is built from what the sandbox already does: delivery failures are fault-plan
/// rules for that destination (the OTPLESS backend's SmartAuth then falls back to the next
/// channel), "verified before" is `TruecallerBackend.registerVerifiedNumber`, an SNA failure
/// is `OTPlessBackend.failSilentAuth(for:)`; "blocked" and "rate limited" refuse the start of a
/// flow (a code send) in the provider's own error shape (the server's scenario gate in front of
/// each backend).
public final class Scenarios: Sendable {
    /// One scenario.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// Codes are delivered on the channel asked for (the default; setting it clears the others).
        case delivered
        /// WhatsApp delivery fails; a provider with a fallback (OTPLESS SmartAuth) sends an SMS.
        case whatsappFails
        /// No channel delivers (SMS, WhatsApp, e-mail, voice): the inbox shows failed messages.
        case neverDelivered
        /// The provider refuses to send a code to this destination (Dynamic `403 user_blocked`;
        /// the others a `403` in their error shape, a sandbox choice).
        case blocked
        /// The provider answers `429` with `Retry-After` to every code send for it.
        case rateLimited
        /// Truecaller: the number counts as verified on the installation before, so a create
        /// answers `verifiedBefore` (status 1) with an access token and no code.
        case verifiedBefore
        /// OTPLESS: the emulated carrier fails silent network auth for the number, so the flow
        /// falls back to a code.
        case silentAuthFails
    }

    /// A scenario as set for one destination, with its options.
    public struct Entry: Sendable, Hashable {
        /// The scenario.
        public var kind: Kind
        /// For ``Kind/verifiedBefore``: the installation id (the app's `deviceID`).
        public var deviceID: String?
        /// For ``Kind/verifiedBefore``: the first name on record.
        public var firstName: String?
        /// For ``Kind/verifiedBefore``: the last name on record.
        public var lastName: String?

        /// Creates an entry.
        public init(kind: Kind, deviceID: String? = nil, firstName: String? = nil, lastName: String? = nil) {
            self.kind = kind
            self.deviceID = deviceID
            self.firstName = firstName
            self.lastName = lastName
        }
    }

    /// The scenarios' mutable fields, only touched inside `state.withLock`.
    private struct State {
        var entries: [String: [Entry]] = [:]
        var faultRules: [String: [FaultRuleID]] = [:]
        weak var world: EmulatorWorld?
    }

    private let state = Locked(State())

    init() {}

    func attach(_ world: EmulatorWorld) { state.withLock { $0.world = world } }

    /// Every destination's scenarios.
    public var all: [String: [Entry]] { state.withLock { $0.entries } }

    /// The scenarios of `destination` (empty: every code is delivered).
    public func entries(for destination: String) -> [Entry] {
        state.withLock { $0.entries[destination] ?? [] }
    }

    /// Whether `destination` has scenario `kind`.
    public func has(_ kind: Kind, for destination: String) -> Bool {
        entries(for: destination).contains { $0.kind == kind }
    }

    /// Adds `entry` for `destination` (``Kind/delivered`` clears every scenario of it instead).
    /// - Parameters:
    ///   - entry: The scenario and its options.
    ///   - destination: An E.164 number (`+919876543210`) or an e-mail identity key.
    /// - Throws: `AuthError` `.invalidInput` for ``Kind/verifiedBefore`` on something that is not
    ///   an E.164 number.
    public func set(_ entry: Entry, for destination: String) throws {
        guard entry.kind != .delivered else {
            clear(destination)
            return
        }
        guard let world = state.withLock({ $0.world }) else { return }
        var rules: [FaultRuleID] = []
        switch entry.kind {
        case .delivered, .blocked, .rateLimited:
            break
        case .whatsappFails:
            rules.append(world.sandbox.faults.failDelivery(on: .whatsapp, destination: destination))
        case .neverDelivered:
            for channel in [DeliveryChannel.sms, .whatsapp, .email, .voice] {
                rules.append(world.sandbox.faults.failDelivery(on: channel, destination: destination))
            }
        case .verifiedBefore:
            guard let phone = try? PhoneNumber(destination), phone.e164 == destination else {
                throw AuthError(.invalidInput, "verifiedBefore needs an E.164 number such as +919876543210")
            }
            world.truecallerBackend.registerVerifiedNumber(
                phone.e164, countryCodeName: phone.regionCode ?? "IN", deviceID: entry.deviceID ?? "sandbox-device",
                firstName: entry.firstName ?? "Test", lastName: entry.lastName ?? "User")
        case .silentAuthFails:
            world.otplessBackend.failSilentAuth(for: destination)
        }
        state.withLock { state in
            state.entries[destination, default: []].removeAll { $0.kind == entry.kind }
            state.entries[destination, default: []].append(entry)
            state.faultRules[destination, default: []] += rules
        }
    }

    /// Removes every scenario of `destination` (a Truecaller "verified before" registration
    /// stays until the next reset: the backend has no way to forget it).
    public func clear(_ destination: String) {
        let (rules, kinds) = state.withLock { state in
            let rules = state.faultRules.removeValue(forKey: destination) ?? []
            let kinds = (state.entries.removeValue(forKey: destination) ?? []).map(\.kind)
            return (rules, kinds)
        }
        let world = state.withLock { $0.world }
        for rule in rules { world?.sandbox.faults.remove(rule) }
        if kinds.contains(.silentAuthFails) { world?.otplessBackend.restoreSilentAuth(for: destination) }
    }
}

/// Puts the ``Scenarios`` in front of one emulated backend: a start of a flow (a code send) for
/// a destination with ``Scenarios/Kind/blocked`` or ``Scenarios/Kind/rateLimited`` is answered
/// in the provider's error shape; everything else goes to the backend unchanged.
///
/// The gate also puts the world's backends in one line: one request at a time is handled (the
/// backends never suspend, so this costs no concurrency), and each answer carries its place in
/// that line in ``orderField``. The seeded values the backends draw follow that order, so an
/// equivalence run can replay a server's exchanges in it and get the same answers
/// (Docs/Emulator.md, "Proving the server equivalent").
struct ScenarioGate: SandboxBackend {
    /// The header field with the answer's place in the world's handling order (1 first).
    static let orderField = "X-MultiAuth-Order"

    let backend: any SandboxBackend
    let scenarios: Scenarios
    let line: HandlingLine

    func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse {
        var (order, response) = try await line.run {
            if let (family, destination) = Self.start(of: request, host: context.host) {
                if scenarios.has(.blocked, for: destination) { return Self.blocked(family) }
                if scenarios.has(.rateLimited, for: destination) { return Self.rateLimited(family) }
            }
            return try await backend.handle(request, context: context)
        }
        response.headers[Self.orderField] = String(order)
        return response
    }

    /// The backend family and the destination of a request that sends a code, or `nil`.
    static func start(of request: HTTPRequest, host: String) -> (String, String)? {
        guard request.method == .post, let body = request.body,
            let object = try? JSONValue(parsing: body, limits: .jwt).objectValue
        else { return nil }
        let path = request.url.path
        func email(_ key: String) -> String? {
            object[key]?.stringValue.flatMap { try? EmailAddress($0) }?.identityKey
        }
        switch host {
        case DynamicBackend.defaultHost:
            if path.hasSuffix("/emailVerifications/create") { return email("email").map { ("dynamic", $0) } }
            if path.hasSuffix("/smsVerifications/create"),
                let code = object["phoneCountryCode"]?.stringValue, let number = object["phoneNumber"]?.stringValue,
                let phone = try? PhoneNumber((code.hasPrefix("+") ? code : "+" + code) + number)
            {
                return ("dynamic", phone.e164)
            }
        case let host where TruecallerBackend.hosts.contains(host):
            if path == "/v1/otp/installation/create", let number = object["phoneNumber"]?.stringValue,
                let phone = try? PhoneNumber(number, defaultRegion: object["countryCodeName"]?.stringValue)
            {
                return ("truecaller", phone.e164)
            }
        case OTPlessBackend.clientHost:
            guard path.hasPrefix("/v3/lp/user/transaction/intent/") else { return nil }
            if let mobile = object["mobile"]?.stringValue, !mobile.isEmpty,
                let phone = try? PhoneNumber(mobile.hasPrefix("+") ? mobile : "+" + mobile)
            {
                return ("otpless", phone.e164)
            }
            return email("email").map { ("otpless", $0) }
        case PortalBackend.defaultHost:
            if path.hasSuffix("/magic-links") { return email("email").map { ("portal", $0) } }
        default:
            break
        }
        return nil
    }

    static func blocked(_ family: String) -> HTTPResponse {
        switch family {
        case "dynamic":
            json(
                403,
                #"{"error":{"code":"user_blocked","message":"This user is blocked (sandbox scenario)"},"payload":{}}"#)
        case "truecaller": json(403, #"{"code":403,"message":"Forbidden (sandbox scenario)"}"#)
        case "otpless":
            json(403, #"{"errorCode":"403","message":"Forbidden","description":"blocked (sandbox scenario)"}"#)
        default: json(403, #"{"error":"Forbidden (sandbox scenario)"}"#)
        }
    }

    static func rateLimited(_ family: String) -> HTTPResponse {
        switch family {
        case "dynamic": json(429, #"{"error":"Too many requests"}"#, retryAfter: 600)
        case "truecaller": json(429, #"{"code":4291,"message":"Too many requests","retryAfter":300}"#, retryAfter: 300)
        case "otpless":
            json(
                429,
                #"{"errorCode":"7022","message":"Too many requests","description":"rate limited (sandbox scenario)"}"#,
                retryAfter: 30)
        default: json(429, #"{"error":"Too many requests"}"#, retryAfter: 60)
        }
    }

    private static func json(_ status: Int, _ body: String, retryAfter: Int? = nil) -> HTTPResponse {
        var headers = ["Content-Type": "application/json"]
        if let retryAfter { headers["Retry-After"] = String(retryAfter) }
        return HTTPResponse(status: status, headers: headers, body: Data(body.utf8))
    }
}

/// A first-in, first-out line for async work: ``run(_:)`` runs one body at a time, in the order
/// the calls arrived, and numbers them.
final class HandlingLine: Sendable {
    /// The line's mutable fields, only touched inside `state.withLock`.
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
        var count = 0
    }

    private let state = Locked(State())

    /// Runs `body` when every earlier call has finished; returns its number (1 first) and result.
    func run<T: Sendable>(_ body: () async throws -> T) async rethrows -> (Int, T) {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.busy {
                    state.waiting.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if resumeNow { continuation.resume() }
        }
        let number = state.withLock { state in
            state.count += 1
            return state.count
        }
        defer {
            let next: CheckedContinuation<Void, Never>? = state.withLock { state in
                if state.waiting.isEmpty {
                    state.busy = false
                    return nil
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
        return (number, try await body())
    }
}
