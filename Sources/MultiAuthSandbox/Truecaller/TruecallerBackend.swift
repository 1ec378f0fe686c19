import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking
import MultiAuthSandboxRuntime

/// The emulated Truecaller backend (Docs/Providers/Truecaller.md): the OTP flow's create /
/// verify / profile endpoints, the public key endpoint, the server-side `phoneNumberDetail`
/// token check, and signed one-tap profiles from a sandbox RSA key (unless one is given, the
/// process's shared key from `SandboxSigningKeys`, generated once per process).
///
/// ``install(in:)`` registers it on the production layout's reserved `.test` twins (what
/// `TruecallerConfiguration.sandbox()` points at): ``otpHost`` (`api4.truecaller.test`: OTP and
/// key endpoints), ``profileHostEU`` and ``profileHostNonEU`` (`outline-eu` / `outline-noneu`:
/// `/v1/profile` only) and ``verificationHost`` (`sdk-otp-verification-noneu`: the token
/// check only). A profile host refuses other paths, and serves `/v1/profile` only for numbers
/// of its region group, so an adapter that routes a profile call to the wrong host fails
/// here as it would in production. ``otpHost`` (= ``defaultHost``) also serves every path,
/// for a configuration that points all calls at one host.
///
/// Request bodies are checked field for field against TrueSDK 0.1.8's requests: a key the SDK
/// never sends is `{code: 14}` (bad request).
///
/// | Method | Path | Answer |
/// |---|---|---|
/// | POST | `/v1/otp/installation/create` | `{status: 2, method: "sms", verificationToken, tokenTtl}` and a code to the inbox, or `{status: 1, accessToken}` for a number verified on the same `deviceId` |
/// | POST | `/v1/otp/installation/verify` | `{status: 1, accessToken}`; `{code: 4001, attemptsRemaining}`; `{code: 4002}`; `{code: 4290, retryAfter}` |
/// | POST | `/v1/profile` (Bearer) | `204` (no body; TrueSDK never reads it) after storing `{firstName, lastName}`; `{code: 18}` for a blank first name |
/// | GET | `/v1/profile` (Bearer) | the profile JSON (`TCTrueProfile` keys) |
/// | GET | `/v1/key` | `[{key: base64 DER SPKI, keyType: "RSA"}]` |
/// | GET | `/v1/otp/installation/phoneNumberDetail/{token}` (`appKey`) and `/v1/otp/client/installation/phoneNumberDetail/{token}` (`clientId`) | `{phoneNumber: 91…, countryCode: "IN"}`; `{code: 404}`; `{code: 1404}` |
///
/// Every error body has a `code` key (the SDK ignores HTTP statuses). Values the real service
/// does not publish are **[ASSUMPTION]**s: `tokenTtl` 300 s, 6-digit codes, the 5th wrong code
/// answers `{code: 4290}`, the number is then locked for ``lockout`` (300 s), and the codes
/// 4001/4002/4290/4291 are invented (Docs/Providers/Truecaller.md, "Verified against").
///
/// Thread-safe (its tables are in one `Locked` state; no suspension while holding it).
public final class TruecallerBackend: SandboxBackend, Sendable {
    /// The OTP host, `api4.truecaller.test` (twin of `api4.truecaller.com`); it also serves every
    /// other path, for single-host configurations.
    public static let otpHost = "api4.truecaller.test"
    /// The EU profile host, `outline-eu.truecaller.test`.
    public static let profileHostEU = "outline-eu.truecaller.test"
    /// The non-EU profile host, `outline-noneu.truecaller.test`.
    public static let profileHostNonEU = "outline-noneu.truecaller.test"
    /// The server-side token check host, `sdk-otp-verification-noneu.truecaller.test`.
    public static let verificationHost = "sdk-otp-verification-noneu.truecaller.test"
    /// Every host ``install(in:)`` registers.
    public static let hosts = [otpHost, profileHostEU, profileHostNonEU, verificationHost]
    /// The host for a single-host registration: ``otpHost``.
    public static let defaultHost = otpHost
    /// Regions (upper-case codes) served by ``profileHostEU``: TrueSDK's 44 codes, the list
    /// the adapter's default reads too (Docs/Providers/Truecaller.md, "Configuration").
    static let euRegions: Set<String> = TruecallerProfileRegions.europe
    /// The only signature algorithm the backend signs with.
    public static let signatureAlgorithm = "SHA512withRSA"

    /// The code length in digits. [ASSUMPTION] 6.
    public let otpLength: Int
    /// `tokenTtl` in seconds. [ASSUMPTION] 300.
    public let tokenTtl: Int
    /// Wrong codes allowed per verification token; the last one answers 4290. [ASSUMPTION] 5.
    public let maximumAttempts: Int
    /// How long a number stays locked after the attempt limit. [ASSUMPTION] 300 s.
    public let lockout: Duration
    /// App keys (and OAuth client ids) accepted; `nil` accepts any non-empty key. They are
    /// secrets, kept in the backend's `Locked` state, so no rendering of the backend shows them.
    public var acceptedAppKeys: Set<String>? { state.withLock { $0.acceptedAppKeys } }
    /// The emulated Truecaller app of the one-tap hand-off, signing with this backend's key
    /// (Docs/Providers/Truecaller.md, "One-tap hand-off").
    public let app: TruecallerAppEmulator

    struct Environment {
        var now: Date
        var digits: (Int) -> String
        var code: (_ count: Int, _ destination: String) -> String
        var token: () -> String
        var deliver: (_ code: String, _ destination: String) -> Void
    }

    private struct Pending: Sendable {
        let e164: String
        let countryCodeName: String
        let nationalNumber: String
        let deviceID: String
        let code: String
        let expiresAt: Date
        var wrongAttempts = 0
    }

    private struct Person: Sendable {
        var firstName = ""
        var lastName = ""
        let e164: String
        let countryCodeName: String
    }

    /// The backend's tables, only touched inside `state.withLock`.
    private struct State {
        var pending: [String: Pending] = [:]
        var verifiedInstallations: Set<String> = []
        var people: [String: Person] = [:]
        var accessTokens: [String: String] = [:]  // token → e164
        var lockedUntil: [String: Date] = [:]
        var signingKey: PrivateKey
        var publishedKeys: [PublicKey]
        let acceptedAppKeys: Set<String>?
        var rotations = 0

        /// Seconds left on a lock of `e164`, or nil (an expired lock is removed).
        mutating func lockRemaining(_ e164: String, now: Date) -> Int? {
            guard let until = lockedUntil[e164] else { return nil }
            guard now < until else {
                lockedUntil[e164] = nil
                return nil
            }
            return Int(until.timeIntervalSince(now).rounded(.up))
        }
    }

    private let state: Locked<State>

    /// Creates a backend that signs with the process's shared sandbox RSA key of `keyBits` bits
    /// (generated once per process on first use).
    /// - Parameters:
    ///   - otpLength: Code length in digits (4...10).
    ///   - tokenTtl: `tokenTtl` in seconds.
    ///   - maximumAttempts: Wrong codes allowed per token.
    ///   - lockout: Lock duration after the attempt limit.
    ///   - acceptedAppKeys: Accepted app keys; `nil` accepts any non-empty key.
    ///   - keyBits: RSA modulus size (2048 to 8192).
    /// - Throws: `CryptoError` when key generation fails.
    public convenience init(
        otpLength: Int = 6, tokenTtl: Int = 300, maximumAttempts: Int = 5, lockout: Duration = .seconds(300),
        acceptedAppKeys: Set<String>? = nil, keyBits: Int = 2048
    ) throws {
        self.init(
            signingKey: try SandboxSigningKeys.rsa(bits: keyBits), otpLength: otpLength, tokenTtl: tokenTtl,
            maximumAttempts: maximumAttempts, lockout: lockout, acceptedAppKeys: acceptedAppKeys)
    }

    /// Creates a backend that signs one-tap profiles with `signingKey` (e.g. one key shared by
    /// many test backends, to skip RSA key generation).
    /// - Parameters:
    ///   - signingKey: An RSA private key (2048 bits or more).
    ///   - otpLength: Code length in digits (4...10).
    ///   - tokenTtl: `tokenTtl` in seconds.
    ///   - maximumAttempts: Wrong codes allowed per token.
    ///   - lockout: Lock duration after the attempt limit.
    ///   - acceptedAppKeys: Accepted app keys; `nil` accepts any non-empty key.
    public init(
        signingKey: PrivateKey, otpLength: Int = 6, tokenTtl: Int = 300, maximumAttempts: Int = 5,
        lockout: Duration = .seconds(300), acceptedAppKeys: Set<String>? = nil
    ) {
        precondition((4...10).contains(otpLength) && tokenTtl > 0 && maximumAttempts > 0)
        self.otpLength = otpLength
        self.tokenTtl = tokenTtl
        self.maximumAttempts = maximumAttempts
        self.lockout = lockout
        self.state = Locked(
            State(signingKey: signingKey, publishedKeys: [signingKey.publicKey], acceptedAppKeys: acceptedAppKeys))
        self.app = TruecallerAppEmulator()
        app.attach(self)
    }

    /// Registers this backend on every host of the production layout's `.test` twins (``hosts``).
    public func install(in sandbox: Sandbox) {
        for host in Self.hosts { sandbox.register(self, host: host) }
    }

    // MARK: Test and demo controls

    /// Replaces the signing key with the next shared sandbox key (a different one per rotation
    /// of this backend, generated once per process); the key endpoint serves only the new key
    /// (unless `keepOldKeyPublished`), so cached keys stop verifying new profiles.
    /// - Throws: `CryptoError` when key generation fails.
    public func rotateSigningKey(keepOldKeyPublished: Bool = false) throws {
        try state.withLock { state in
            state.rotations += 1
            let key = try SandboxSigningKeys.rsa(slot: state.rotations)
            state.signingKey = key
            state.publishedKeys = keepOldKeyPublished ? state.publishedKeys + [key.publicKey] : [key.publicKey]
        }
    }

    /// The public keys the key endpoint serves.
    public var currentPublicKeys: [PublicKey] {
        state.withLock { $0.publishedKeys }
    }

    /// Marks `e164` as verified on installation `deviceID`, with a name, as if an earlier OTP
    /// flow had finished: the next create answers `verifiedBefore`.
    public func registerVerifiedNumber(
        _ e164: String, countryCodeName: String, deviceID: String, firstName: String, lastName: String = ""
    ) {
        state.withLock { state in
            state.verifiedInstallations.insert(deviceID + "|" + e164)
            state.people[e164] = Person(
                firstName: firstName, lastName: lastName, e164: e164, countryCodeName: countryCodeName)
        }
    }

    /// What the Truecaller app hands back for a one-tap request: a profile signed with the
    /// current sandbox key.
    /// - Parameters:
    ///   - e164: The user's number, E.164 with `+`.
    ///   - countryCode: ISO 3166-1 alpha-2 (sent lower-case, as Truecaller does).
    ///   - firstName: The first name.
    ///   - lastName: The last name.
    ///   - requestNonce: The nonce of the app's request (copied into the payload and the envelope).
    ///   - requestTime: The payload's `requestTime` (the sandbox clock's now, usually).
    /// - Throws: `CryptoError` when signing fails.
    public func oneTapResponse(
        e164: String, countryCode: String, firstName: String, lastName: String = "", requestNonce: String,
        requestTime: Date
    ) throws -> TruecallerSignedProfile {
        let object: [String: JSONValue] = [
            "firstName": .string(firstName), "lastName": .string(lastName), "phoneNumber": .string(e164),
            "countryCode": .string(countryCode.lowercased()), "gender": .string("N"), "isTrueName": .bool(true),
            "isAmbassador": .bool(false), "requestNonce": .string(requestNonce),
            "requestTime": .number(requestTime.timeIntervalSince1970.rounded(.down)),
        ]
        let payload = Base64.encode(try JSONEncoder.multiAuth.encode(object))
        let key = state.withLock { $0.signingKey }
        let signature = try key.signature(for: Array(payload.utf8), algorithm: .rs512)
        return TruecallerSignedProfile(
            payload: Secret(payload), signature: Secret(Base64.encode(signature)),
            signatureAlgorithm: Self.signatureAlgorithm, requestNonce: Secret(requestNonce))
    }

    /// The OTP verifications pending and the access tokens issued (Docs/Emulator.md,
    /// "Inspector"). Test support.
    package func activity() -> SandboxActivity {
        state.withLock { state in
            SandboxActivity(
                flows: state.pending.values.map {
                    .init(
                        provider: "truecaller", destination: $0.e164, kind: "sms code", expiresAt: $0.expiresAt,
                        wrongAttempts: $0.wrongAttempts)
                },
                sessions: state.accessTokens.values.map {
                    .init(provider: "truecaller", userID: $0, destination: $0, revoked: false)
                })
        }
    }

    // MARK: Routing

    /// Serves one request (table above). Codes go to the sandbox inbox on channel `.sms`
    /// addressed to the E.164 number; codes and tokens come from the sandbox's seeded random
    /// source; time is the server clock (fault-plan offset applied).
    /// - Returns: The response; every error is a JSON body with a `code` key. Never throws.
    public func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse {
        let environment = Environment(
            now: context.time.now, digits: { context.random.digits($0) },
            code: { context.oneTimeCode(digits: $0, for: $1) },
            token: { Self.uuid(context.random.hex(bytes: 16)) },
            deliver: { code, destination in context.deliver(code: code, to: destination, channel: .sms) })
        if let refusal = wrongHost(context.host, request: request) { return refusal }
        return respond(to: request, environment: environment)
    }

    /// `{code: 14}` (404) when `host` is a role host that does not serve this path, or a profile
    /// host asked for a number of the other region group; `nil` otherwise.
    private func wrongHost(_ host: String, request: HTTPRequest) -> HTTPResponse? {
        let path = request.url.path
        switch host {
        case Self.profileHostEU, Self.profileHostNonEU:
            guard path == "/v1/profile" else { return Self.error(404, 14, "Not found") }
            let header = request.header("Authorization") ?? ""
            let token = header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : ""
            let region: String? = state.withLock { state in
                state.accessTokens[token].flatMap { state.people[$0]?.countryCodeName }
            }
            if let region, Self.euRegions.contains(region) != (host == Self.profileHostEU) {
                return Self.error(404, 14, "Not found: this number's profile lives on the other region's host")
            }
            return nil
        case Self.verificationHost:
            return path.contains("/phoneNumberDetail/") ? nil : Self.error(404, 14, "Not found")
        default:
            return nil
        }
    }

    /// Formats 32 hex digits as a UUID (access tokens look like UUIDs, Docs/Providers/Truecaller.md).
    private static func uuid(_ hex: String) -> String {
        let h = Array(hex)
        return [String(h[0..<8]), String(h[8..<12]), String(h[12..<16]), String(h[16..<20]), String(h[20..<32])].joined(
            separator: "-")
    }

    func respond(to request: HTTPRequest, environment env: Environment) -> HTTPResponse {
        let path = request.url.path
        switch (request.method, path) {
        case (.get, "/v1/key"): return keyList()
        case (.post, "/v1/otp/installation/create"):
            guard authorized(request.header("appKey")) else {
                return Self.error(404, 404, "Invalid partner credentials.")
            }
            return create(request, env)
        case (.post, "/v1/otp/installation/verify"):
            guard authorized(request.header("appKey")) else {
                return Self.error(404, 404, "Invalid partner credentials.")
            }
            return verify(request, env)
        case (.post, "/v1/profile"), (.get, "/v1/profile"):
            return profile(request)
        case (.get, _) where path.hasPrefix("/v1/otp/installation/phoneNumberDetail/"):
            return phoneNumberDetail(token: request.url.lastPathComponent, credential: request.header("appKey"))
        case (.get, _) where path.hasPrefix("/v1/otp/client/installation/phoneNumberDetail/"):
            return phoneNumberDetail(token: request.url.lastPathComponent, credential: request.header("clientId"))
        default:
            return Self.error(404, 14, "Not found")
        }
    }

    private func authorized(_ key: String?) -> Bool {
        guard let key, !key.isEmpty else { return false }
        return acceptedAppKeys?.contains(key) ?? true
    }

    private struct CreateBody: Decodable {
        let countryCodeName: String
        let phoneNumber: String
        let deviceId: String
    }

    private struct VerifyBody: Decodable {
        let countryCodeName: String
        let phoneNumber: String
        let secretToken: String
        let verificationToken: String
    }

    private struct NameBody: Decodable {
        let firstName: String?
        let lastName: String?
    }

    /// `{code: 14}` when the JSON body has a key outside `allowed` (TrueSDK's request fields).
    private static func unexpectedKeys(_ request: HTTPRequest, allowed: Set<String>) -> HTTPResponse? {
        guard let body = request.body, let object = try? JSONDecoder().decode(JSONValue.self, from: body).objectValue
        else {
            return error(400, 14, "Bad request")
        }
        return object.keys.allSatisfy(allowed.contains) ? nil : error(400, 14, "Bad request: unexpected field")
    }

    private func create(_ request: HTTPRequest, _ env: Environment) -> HTTPResponse {
        let fields: Set<String> = [
            "countryCodeName", "phoneNumber", "clientId", "phonePermission", "os", "version", "sequence", "deviceId",
            "simSerial",
        ]
        if let refusal = Self.unexpectedKeys(request, allowed: fields) { return refusal }
        guard let body = try? request.decodeJSON(CreateBody.self), !body.deviceId.isEmpty,
            let callingCode = PhoneNumber.callingCode(forRegion: body.countryCodeName.uppercased()),
            let phone = try? PhoneNumber("+\(callingCode)\(body.phoneNumber)")
        else { return Self.error(400, 14, "Bad request") }
        let region = body.countryCodeName.uppercased()
        enum Created {
            case refused(HTTPResponse)
            case pending(code: String, verificationToken: String)
        }
        let created = state.withLock { state -> Created in
            if let retry = state.lockRemaining(phone.e164, now: env.now) {
                return .refused(Self.error(429, 4290, "Too many attempts", retryAfter: retry))
            }
            if state.verifiedInstallations.contains(body.deviceId + "|" + phone.e164) {
                let token = env.token()
                state.accessTokens[token] = phone.e164
                return .refused(
                    Self.json(
                        200,
                        [
                            "status": .number(1), "message": .string("Number already verified"),
                            "accessToken": .string(token),
                        ]))
            }
            let code = env.code(otpLength, phone.e164)
            let verificationToken = env.token()
            state.pending[verificationToken] = Pending(
                e164: phone.e164, countryCodeName: region, nationalNumber: phone.nationalNumber,
                deviceID: body.deviceId, code: code, expiresAt: env.now.addingTimeInterval(TimeInterval(tokenTtl)))
            return .pending(code: code, verificationToken: verificationToken)
        }
        let code: String
        let verificationToken: String
        switch created {
        case .refused(let response): return response
        case .pending(let createdCode, let token): (code, verificationToken) = (createdCode, token)
        }
        env.deliver(code, phone.e164)
        return Self.json(
            200,
            [
                "status": .number(2), "message": .string("OTP sent"), "method": .string("sms"),
                "verificationToken": .string(verificationToken), "tokenTtl": .number(Double(tokenTtl)),
            ])
    }

    private func verify(_ request: HTTPRequest, _ env: Environment) -> HTTPResponse {
        if let refusal = Self.unexpectedKeys(
            request, allowed: ["countryCodeName", "phoneNumber", "secretToken", "verificationToken"])
        {
            return refusal
        }
        guard let body = try? request.decodeJSON(VerifyBody.self) else { return Self.error(400, 14, "Bad request") }
        return state.withLock { state in
            guard var flow = state.pending[body.verificationToken] else {
                return Self.error(400, 4002, "Verification token expired or unknown")
            }
            guard flow.countryCodeName == body.countryCodeName.uppercased(), flow.nationalNumber == body.phoneNumber
            else {
                return Self.error(400, 14, "Bad request")
            }
            if let retry = state.lockRemaining(flow.e164, now: env.now) {
                return Self.error(429, 4290, "Too many attempts", retryAfter: retry)
            }
            guard env.now < flow.expiresAt else {
                state.pending[body.verificationToken] = nil
                return Self.error(400, 4002, "Verification token expired")
            }
            guard ConstantTime.equals(Array(body.secretToken.utf8), Array(flow.code.utf8)) else {
                flow.wrongAttempts += 1
                if flow.wrongAttempts >= maximumAttempts {
                    state.pending[body.verificationToken] = nil
                    state.lockedUntil[flow.e164] = env.now.addingTimeInterval(lockout.timeInterval)
                    return Self.error(
                        429, 4290, "Too many attempts", retryAfter: Int(lockout.timeInterval.rounded(.up)))
                }
                state.pending[body.verificationToken] = flow
                return Self.error(400, 4001, "Invalid OTP", attemptsRemaining: maximumAttempts - flow.wrongAttempts)
            }
            state.pending[body.verificationToken] = nil
            state.verifiedInstallations.insert(flow.deviceID + "|" + flow.e164)
            if state.people[flow.e164] == nil {
                state.people[flow.e164] = Person(e164: flow.e164, countryCodeName: flow.countryCodeName)
            }
            let token = env.token()
            state.accessTokens[token] = flow.e164
            return Self.json(
                200, ["status": .number(1), "message": .string("Verified"), "accessToken": .string(token)])
        }
    }

    private func profile(_ request: HTTPRequest) -> HTTPResponse {
        let header = request.header("Authorization") ?? ""
        let token = header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : ""
        return state.withLock { state in
            guard let e164 = state.accessTokens[token], var person = state.people[e164] else {
                return Self.error(401, 1404, "Invalid access token.")
            }
            if request.method == .post {
                if let refusal = Self.unexpectedKeys(request, allowed: ["firstName", "lastName"]) { return refusal }
                guard let body = try? request.decodeJSON(NameBody.self) else {
                    return Self.error(400, 14, "Bad request")
                }
                let first = (body.firstName ?? "").trimmingCharacters(in: .whitespaces)
                let last = (body.lastName ?? "").trimmingCharacters(in: .whitespaces)
                guard !first.isEmpty, first.count < 128, last.count < 128, first.contains(where: \.isLetter) else {
                    return Self.error(400, 18, "Invalid name")
                }
                person.firstName = first
                person.lastName = last
                state.people[e164] = person
                return HTTPResponse(status: 204)
            }
            return Self.json(
                200,
                [
                    "firstName": .string(person.firstName), "lastName": .string(person.lastName),
                    "phoneNumber": .string(e164),
                    "countryCode": .string(person.countryCodeName.lowercased()), "gender": .string("N"),
                    "isTrueName": .bool(false), "isAmbassador": .bool(false),
                ])
        }
    }

    private func phoneNumberDetail(token: String, credential: String?) -> HTTPResponse {
        guard authorized(credential) else { return Self.error(404, 404, "Invalid partner credentials.") }
        return state.withLock { state in
            guard let e164 = state.accessTokens[token], let person = state.people[e164] else {
                return Self.error(404, 1404, "Invalid access token.")
            }
            return Self.json(
                200,
                [
                    "phoneNumber": .number(Double(e164.dropFirst()) ?? 0),
                    "countryCode": .string(person.countryCodeName),
                ])
        }
    }

    private func keyList() -> HTTPResponse {
        let keys = currentPublicKeys.compactMap { try? $0.derRepresentation() }
        let list = JSONValue.array(
            keys.map { .object(["key": .string(Base64.encode($0)), "keyType": .string("RSA")]) })
        return Self.response(200, list)
    }

    private static func error(
        _ status: Int, _ code: Int, _ message: String, retryAfter: Int? = nil, attemptsRemaining: Int? = nil
    ) -> HTTPResponse {
        var object: [String: JSONValue] = ["code": .number(Double(code)), "message": .string(message)]
        var headers: [String: String] = [:]
        if let retryAfter {
            object["retryAfter"] = .number(Double(retryAfter))
            headers["Retry-After"] = String(retryAfter)
        }
        if let attemptsRemaining { object["attemptsRemaining"] = .number(Double(attemptsRemaining)) }
        return response(status, .object(object), headers: headers)
    }

    private static func json(_ status: Int, _ object: [String: JSONValue]) -> HTTPResponse {
        response(status, .object(object))
    }

    private static func response(_ status: Int, _ value: JSONValue, headers: [String: String] = [:]) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "application/json"
        let body = (try? JSONEncoder.multiAuth.encode(value)) ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: headers, body: body)
    }
}
