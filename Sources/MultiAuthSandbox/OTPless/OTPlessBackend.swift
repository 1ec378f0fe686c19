import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking
import MultiAuthSandboxRuntime

/// An emulated OTPLESS server (Docs/Providers/OTPless.md, "Sandbox") with real JSON bytes in
/// the shapes of the contract fixtures (`Tests/Fixtures/Contracts/OTPless`): the headless
/// client API, SmartAuth fallback, silent network auth through an emulated carrier, magic
/// links, `ONETAP` payloads (with the sibling `sessionInfo`) carrying an RS256 id token signed
/// by a sandbox key served at a JWKS path, the validate-token API, and the session API
/// (refresh, logout).
///
/// It answers two reserved `.test` hosts (``hosts``), the ones
/// `OTPlessConfiguration.sandbox()` points at:
/// - ``clientHost`` `user-auth.otpless.test`: `/v2/state`, `/v2/lp/merchant/config/{state}`,
///   `/v3/lp/user/transaction/{intent,otp,code,status,silent-auth-status}/{state}`,
///   `/auth/v1/validate/token`;
/// - ``sessionHost`` `api.otpless.test`: `POST /v4/session/refresh`,
///   `DELETE /v4/session/{sessionToken}`, the OIDC discovery document and ``jwksPath``
///   (issuer ``issuer``), and the emulated carrier `GET /sandbox/sna/{token}`, which verifies
///   only requests that arrived on the cellular bearer (``/MultiAuthSandboxRuntime/SandboxCellularTransport``).
///
/// Behaviour: codes and links go to the inbox through the environment's `deliver`; a channel
/// whose delivery fails falls back at once to the next SmartAuth channel when the system chose
/// the channel, and after ``OTPlessMerchant/fallbackDelay`` when the code is not verified;
/// a forced channel (`deliveryMethod`) that fails answers `400 7103`. The SmartAuth order is
/// the merchant's (``OTPlessMerchant/phoneChannels``, the dashboard's), unless the intent's
/// `clientMetaData` carries `channels`: a key of this sandbox only (the real SDK never sends
/// one), which sandbox configurations fill from `preferredChannels`. Errors are
/// `{errorCode, message, description}`. Every POST must carry the SDK's common parameters
/// (`uid` included, `""` when unknown) or gets `400 7101`. Guesses (Docs/Providers/OTPless.md,
/// "Verified against"): OTP expiry 300 s (allowed 30–900 s, else `400 7113`; the adapter never
/// checks this range, it sends any whole number of seconds), resend refused with `429 7022`
/// within 30 s, five wrong codes burn the transaction (`7118`, then `7303` for the right code),
/// replays refused with `7115`, an SNA-only merchant asked without SNA answers `400 7160`, a
/// refused refresh token answers `401`.
///
/// Concurrency: thread-safe (the tables are in one `Locked` state; never held across a suspension).
public final class OTPlessBackend: Sendable {
    /// What the backend needs from its host per request: the server time, random values and
    /// the delivery of codes and links.
    public struct Environment: Sendable {
        /// The server's current time.
        public var now: Date
        /// `count` random decimal digits.
        public var digits: @Sendable (_ count: Int) -> String
        /// `bytes` random bytes as lower-case hex.
        public var hex: @Sendable (_ bytes: Int) -> String
        /// Delivers a code and/or link to a destination on a channel; returns whether it was delivered.
        public var deliver:
            @Sendable (_ code: String?, _ link: URL?, _ destination: String, _ channel: DeliveryChannel) -> Bool
        /// A one-time code of `count` digits for a destination (a fixed test code, or random).
        public var code: @Sendable (_ count: Int, _ destination: String) -> String

        /// Creates an environment.
        /// - Parameters:
        ///   - now: The server's current time.
        ///   - digits: `count` random decimal digits.
        ///   - hex: `bytes` random bytes as lower-case hex.
        ///   - deliver: Delivers a code and/or link; returns whether it was delivered.
        ///   - code: A one-time code for a destination; `nil` uses `digits`.
        public init(
            now: Date, digits: @escaping @Sendable (Int) -> String, hex: @escaping @Sendable (Int) -> String,
            deliver: @escaping @Sendable (String?, URL?, String, DeliveryChannel) -> Bool,
            code: (@Sendable (_ count: Int, _ destination: String) -> String)? = nil
        ) {
            self.now = now
            self.digits = digits
            self.hex = hex
            self.deliver = deliver
            self.code = code ?? { count, _ in digits(count) }
        }
    }

    /// `user-auth.otpless.test`, the headless client API host.
    public static let clientHost = "user-auth.otpless.test"
    /// `api.otpless.test`, the session API host (also issuer and emulated carrier).
    public static let sessionHost = "api.otpless.test"
    /// The OIDC issuer host (``sessionHost``).
    public static let issuerHost = sessionHost
    /// The emulated SNA carrier host (``sessionHost``, path `/sandbox/sna/{token}`).
    public static let carrierHost = sessionHost
    /// Every host this backend answers: ``clientHost`` and ``sessionHost``.
    public static let hosts = [clientHost, sessionHost]
    /// The JWKS path on ``issuerHost`` (published in the discovery document).
    public static let jwksPath = "/.well-known/jwks.json"
    /// The id-token issuer, `https://api.otpless.test` (production: `https://otpless.com`).
    public static let issuer = "https://\(issuerHost)"
    /// The emulated carrier's path prefix on ``carrierHost``.
    public static let carrierPath = "/sandbox/sna/"
    /// A guess: OTP expiry default, seconds (the sandbox allows 30–900 s, also a guess).
    public static let defaultExpiry = 300
    /// A guess: resend cooldown, seconds.
    public static let resendCooldown: TimeInterval = 30
    /// A guess: wrong codes before the transaction is burned.
    public static let maximumWrongAttempts = 5
    /// The keys every POST to the client API carries (the SDK's `ApiManager.getBody`).
    public static let commonPostKeys = [
        "origin", "version", "tsId", "inId", "deviceInfo", "loginUri", "appId", "isHeadless", "packageName", "package",
        "platform", "uid", "metadata",
    ]

    /// The merchant set-up.
    public let merchant: OTPlessMerchant
    /// The `kid` of the signing key.
    public let keyID: String
    /// The signing key, in a `Locked` box so that no rendering of the backend opens it.
    private let signingKeyBox: Locked<PrivateKey>
    /// The signing key.
    var signingKey: PrivateKey { signingKeyBox.withLock { $0 } }
    /// The backend's tables, only touched inside `state.withLock`.
    struct State {
        var transactions: [String: OTPlessTransaction] = [:]
        var linkCodes: [String: String] = [:]
        var asIds: [String: String] = [:]
        var issuedTokens: [String: OTPlessIssuedToken] = [:]
        var sessions: [String: OTPlessSessionRecord] = [:]
        var userIDs: [String: String] = [:]
        var snaFailing: Set<String> = []
    }

    let state = Locked(State())

    /// Creates a backend that signs with the process's shared 2048-bit sandbox RSA key
    /// (generated once per process on first use; `SandboxSigningKeys`).
    /// - Throws: `CryptoError` when the shared key cannot be generated.
    public convenience init(
        merchant: OTPlessMerchant = OTPlessMerchant(), keyID: String = "multiauth-sandbox-otpless-1"
    ) throws {
        self.init(merchant: merchant, keyID: keyID, signingKey: try SandboxSigningKeys.rsa())
    }

    /// Creates a backend that signs with `signingKey` (RSA; share one key across backends in
    /// tests instead of generating one each time).
    public init(merchant: OTPlessMerchant, keyID: String = "multiauth-sandbox-otpless-1", signingKey: PrivateKey) {
        self.merchant = merchant
        self.keyID = keyID
        self.signingKeyBox = Locked(signingKey)
    }

    /// Ends every session of the user signed in with `destination` (an E.164 number or e-mail
    /// identity key) on the server side, as a revocation would: their refresh is refused.
    public func revokeSessions(of destination: String) {
        state.withLock { state in
            let userID = state.userIDs[destination]
            state.sessions = state.sessions.filter { $0.value.userID != userID }
        }
    }

    /// Makes the emulated carrier fail SNA for `e164` (e.g. `"+919876543210"`).
    public func failSilentAuth(for e164: String) {
        state.withLock { _ = $0.snaFailing.insert(e164) }
    }

    /// Lets the emulated carrier verify `e164` again after ``failSilentAuth(for:)``.
    public func restoreSilentAuth(for e164: String) {
        state.withLock { _ = $0.snaFailing.remove(e164) }
    }

    /// The JWKS document the backend serves (one RSA key, `alg` RS256, `kid` ``keyID``).
    /// - Throws: `CryptoError` when the key cannot be exported.
    public func jwks() throws -> JWKSet {
        JWKSet(keys: [try signingKey.publicKey.jwk(keyID: keyID, algorithm: .rs256)])
    }

    /// Signs claims with the sandbox key (RS256, ``keyID``), e.g. to build test tokens.
    /// - Throws: `CryptoError`.
    public func sign(claims: [String: JSONValue], keyID: String? = nil) throws -> String {
        try JWT.sign(claims: claims, with: signingKey, algorithm: .rs256, keyID: keyID ?? self.keyID)
    }

    /// Answers one request.
    /// - Returns: The response; every error is a status with an OTPLESS error body.
    public func handle(_ request: HTTPRequest, environment: Environment) -> HTTPResponse {
        let host = (request.url.host ?? "").lowercased()
        let path = request.url.path
        if host == Self.sessionHost {
            if path.hasPrefix(Self.carrierPath) { return carrier(request, path: path) }
            if path.hasPrefix("/.well-known/") { return issuerDocument(path: path) }
            return session(request, path: path, environment: environment)
        }
        guard host == Self.clientHost else { return Self.error(404, "404", "Not Found", "unknown host") }
        let parts = path.split(separator: "/").map(String.init)
        if request.method == .post, let missing = Self.missingCommonKeys(request), !missing.isEmpty,
            !(parts.first == "auth")
        {
            return Self.error(
                400, "7101", "Invalid Request", "missing common parameter(s) " + missing.joined(separator: ", "))
        }
        switch (request.method, parts.count >= 2 ? Array(parts.prefix(parts.count - 1)) : parts) {
        case (.get, ["v2"]) where parts == ["v2", "state"]:
            return Self.json(200, ["state": .string(environment.hex(16))])
        case (.get, ["v2", "lp", "merchant", "config"]):
            return Self.json(200, merchantConfig())
        case (.post, ["v3", "lp", "user", "transaction", "intent"]):
            return intent(request, environment: environment)
        case (.post, ["v3", "lp", "user", "transaction", "otp"]):
            return verifyOTP(request, environment: environment)
        case (.post, ["v3", "lp", "user", "transaction", "code"]):
            return exchangeCode(request, environment: environment)
        case (.get, ["v3", "lp", "user", "transaction", "status"]):
            return status(request, environment: environment)
        case (.get, ["v3", "lp", "user", "transaction", "silent-auth-status"]):
            return silentAuthStatus(request, environment: environment)
        case (.post, ["auth", "v1", "validate"]) where parts.last == "token":
            return validateToken(request, environment: environment)
        default:
            return Self.error(404, "404", "Not Found", "no such endpoint")
        }
    }

    /// The common POST keys missing from `request`'s JSON body (`nil`: no JSON object body).
    /// `uid` must be a string (possibly empty); the others non-empty where the SDK always
    /// has a value.
    static func missingCommonKeys(_ request: HTTPRequest) -> [String]? {
        guard let body = body(request) else { return nil }
        return commonPostKeys.filter { key in
            switch body[key] {
            case .string(let text)?: return text.isEmpty && key != "uid"
            case .bool?: return key != "isHeadless"
            case nil, .null?: return true
            default: return true
            }
        }
    }

    // MARK: Helpers

    static func json(_ status: Int, _ value: [String: JSONValue]) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(JSONValue.object(value))) ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// `{errorCode, message, description}` (the error body the SDK reads).
    static func error(
        _ status: Int, _ code: String, _ message: String, _ description: String, headers: [String: String] = [:]
    ) -> HTTPResponse {
        var response = json(
            status,
            [
                "errorCode": .string(code), "message": .string(message),
                "description": .string("Request error: " + description),
            ])
        for (key, value) in headers { response.headers[key] = value }
        return response
    }

    static func query(_ request: HTTPRequest) -> [String: String] {
        var result: [String: String] = [:]
        for item in URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            result[item.name] = item.value ?? ""
        }
        return result
    }

    static func body(_ request: HTTPRequest) -> [String: JSONValue]? {
        guard let data = request.body,
            case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return nil }
        return members
    }
}
