import Foundation
import MultiAuth
import MultiAuthCrypto

/// An emulated OTPLESS server (providers.md §1.2–§1.11) with real JSON bytes: the headless
/// client API, SmartAuth fallback, silent network auth through an emulated carrier, magic links,
/// `ONETAP` payloads with an RS256 id token signed by a sandbox key served at a JWKS path, the
/// validate-token API and session logout.
///
/// Hosts it answers (register it under each one you use; see ``hosts``):
/// - ``clientHost`` `user-auth.otpless.app`: `/v2/state`, `/v2/lp/merchant/config/{state}`,
///   `/v3/lp/user/transaction/{intent,otp,code,status,silent-auth-status}/{state}`,
///   `/auth/v1/validate/token`;
/// - ``sessionHost`` `api.otpless.com`: `DELETE /v4/session/{sessionToken}`;
/// - ``issuerHost`` `otpless.com`: `/.well-known/openid-configuration`, ``jwksPath``;
/// - ``carrierHost`` `80.in.safr.sekuramobile.com`: the SNA carrier hit `/sna/{token}`.
///
/// Behaviour: codes and links go to the inbox through the environment's `deliver`; a channel
/// whose delivery fails falls back at once to the next SmartAuth channel when the system chose
/// the channel, and after ``OTPlessMerchant/fallbackDelay`` when the code is not verified;
/// a forced channel (`deliveryMethod`) that fails answers `400 7103`. Errors are
/// `{errorCode, message, description}`. [ASSUMPTION]s of providers.md §1.10: OTP expiry 300 s
/// (allowed 30–900 s), resend refused with `429 7022` within 30 s, five wrong codes burn the
/// transaction (`7118`, then `7303` for the right code); replays are refused with `7115`.
///
/// Concurrency: thread-safe (one lock around the tables; never held across a suspension).
public final class OTPlessBackend: @unchecked Sendable {
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
        public var deliver: @Sendable (_ code: String?, _ link: URL?, _ destination: String, _ channel: DeliveryChannel) -> Bool

        /// Creates an environment.
        public init(
            now: Date, digits: @escaping @Sendable (Int) -> String, hex: @escaping @Sendable (Int) -> String,
            deliver: @escaping @Sendable (String?, URL?, String, DeliveryChannel) -> Bool
        ) {
            self.now = now
            self.digits = digits
            self.hex = hex
            self.deliver = deliver
        }
    }

    /// `user-auth.otpless.app`, the headless client API host.
    public static let clientHost = "user-auth.otpless.app"
    /// `api.otpless.com`, the session API host.
    public static let sessionHost = "api.otpless.com"
    /// `otpless.com`, the OIDC issuer host.
    public static let issuerHost = "otpless.com"
    /// `80.in.safr.sekuramobile.com`, the emulated SNA carrier host.
    public static let carrierHost = "80.in.safr.sekuramobile.com"
    /// Every host this backend answers.
    public static let hosts = [clientHost, sessionHost, issuerHost, carrierHost]
    /// The JWKS path on ``issuerHost`` (published in the discovery document).
    public static let jwksPath = "/.well-known/jwks.json"
    /// The id-token issuer, `https://otpless.com`.
    public static let issuer = "https://otpless.com"
    /// [ASSUMPTION] providers.md §1.10: OTP expiry default and range, seconds.
    public static let defaultExpiry = 300
    /// [ASSUMPTION] providers.md §1.10: resend cooldown.
    public static let resendCooldown: TimeInterval = 30
    /// [ASSUMPTION] providers.md §1.10: wrong codes before the transaction is burned.
    public static let maximumWrongAttempts = 5

    /// The merchant set-up.
    public let merchant: OTPlessMerchant
    /// The `kid` of the signing key.
    public let keyID: String
    let signingKey: PrivateKey
    let lock = NSLock()
    var transactions: [String: OTPlessTransaction] = [:]
    var linkCodes: [String: String] = [:]
    var asIds: [String: String] = [:]
    var issuedTokens: [String: OTPlessIssuedToken] = [:]
    var sessionTokens: Set<String> = []
    var userIDs: [String: String] = [:]
    var snaFailing: Set<String> = []

    /// Creates a backend that signs with the process's shared 2048-bit sandbox RSA key
    /// (generated once per process on first use).
    /// - Throws: `CryptoError` when the shared key cannot be generated.
    public init(merchant: OTPlessMerchant = OTPlessMerchant(), keyID: String = "sandbox-otpless-1") throws {
        self.merchant = merchant
        self.keyID = keyID
        self.signingKey = try SandboxSigningKeys.rsa()
    }

    /// Makes the emulated carrier fail SNA for `e164` (e.g. `"+919876543210"`).
    public func failSilentAuth(for e164: String) {
        lock.lock()
        snaFailing.insert(e164)
        lock.unlock()
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
        let host = request.url.host ?? ""
        let path = request.url.path
        switch host {
        case Self.sessionHost: return session(request, path: path)
        case Self.issuerHost: return issuerDocument(path: path)
        case Self.carrierHost: return carrier(path: path)
        default: break
        }
        let parts = path.split(separator: "/").map(String.init)
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

    // MARK: Helpers

    static func json(_ status: Int, _ value: [String: JSONValue]) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(JSONValue.object(value))) ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// `{errorCode, message, description}` (providers.md §1.2 "Error bodies").
    static func error(_ status: Int, _ code: String, _ message: String, _ description: String, headers: [String: String] = [:]) -> HTTPResponse {
        var response = json(status, ["errorCode": .string(code), "message": .string(message), "description": .string("Request error: " + description)])
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
        guard let data = request.body, case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
        return members
    }
}
