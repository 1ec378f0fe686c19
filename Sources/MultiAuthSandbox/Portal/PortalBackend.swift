import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking
import MultiAuthSandboxRuntime

/// An emulated Portal Client Auth backend (Docs/Providers/Portal.md): e-mail magic links,
/// Google/Apple OAuth with a single-use `state`, grant exchange, TOTP enrollment and
/// verification, and a CST check. It answers on ``defaultHost`` (`api.portal.test`, what
/// `PortalConfiguration.sandbox()` points at).
///
/// | request (base `/api/v3/auth`) | success `{"data": …}` | errors `{"error": …}` |
/// |---|---|---|
/// | `POST /magic-links` `{email, redirectUrl, fromEmail, templateId, isAccountAbstracted?}` | `{sent: true}`; the link goes to the inbox (channel `email`) | 400 `fromEmail`/`templateId` missing or blank (the real backend requires both), 400 e-mail not lower case, 400 account abstraction requested but not available, 401 environment / redirect not allow-listed, 429 (1 send per address per 60 s, [ASSUMPTION]) |
/// | `POST /magic-links/validations` `{token}` | grant result | 401 unknown, used or expired grant (15 min, [ASSUMPTION]) |
/// | `GET /oauth/urls?redirectUrl=…` | `{google, apple}` sharing one single-use `state` | 401 environment / redirect |
/// | `POST /oauth/tokens` `{token}` | grant result | 401 |
/// | `POST /totps/validations` `{code}` + `Authorization: Bearer <userJwt>` | `{clientId, clientSessionToken}` | 401 `{"error":"Unauthorized"}` for a wrong code (the JWT stays usable) and for a bad, expired or used JWT alike (the real server's body is unknown and its SDK drops 401 bodies, so nothing may depend on it); 409 `{"error":"TOTP code already used"}` for a code whose time step was already accepted ([ASSUMPTION]) |
/// | `GET /sandbox/oauth/{google,apple}?state=…[&login_hint=<email>]` | `302`, `Location: redirectUrl?token=…&login_type=…` | `302` to `redirectUrl?error=oauth_failed` for a foreign, used or stale (10 min) state |
/// | `GET /api/v3/clients/me` + `Authorization: Bearer <CST>` | `{id}` (slides the 24 h expiry, 7 days max) | 401 ([ASSUMPTION]) |
///
/// Request bodies are checked field for field against PortalSwift's request types: a key
/// those types do not have is a `400`.
///
/// The `/sandbox/oauth/…` endpoint stands in for the identity provider's consent page: a test
/// or demo "opens" an authorize URL by sending a GET through the sandbox transport and reads
/// the redirect from the `Location` header (see ``redirectLocation(_:)``).
///
/// Grant results: with ``totpRequired`` every sign-in stops at `{userJwt, endUserId}`, plus
/// `totpLink` (an `otpauth://` URI with a fresh random 20-byte secret) until the user's first
/// correct code. The `userJwt` is HS256 with a random sandbox secret ([ASSUMPTION]),
/// claims `endUserId`, `environmentId`, `iat`, `exp` = `iat` + ``userJwtLifetime``, `aud`,
/// `iss`, `jti`; it is retired when a code is accepted. Codes are checked with RFC 6238 at
/// ±1 step, each time step accepted once per user (`TOTPReplayGuard`, RFC 6238 §5.2, Docs/Cases.md, B08).
///
/// Tokens and grants come from the sandbox's seeded random source; time is the server clock.
/// Thread-safe: the tables are in one `Locked` state.
public final class PortalBackend: SandboxBackend, Sendable {
    /// The default host, `api.portal.test` (a reserved `.test` name;
    /// `PortalConfiguration.sandboxAPIHost`).
    public static let defaultHost = "api.portal.test"
    /// The auth environment id accepted by default.
    public static let defaultEnvironmentID = "sandbox-auth-environment"
    /// The redirect URL allow-listed by default.
    public static let defaultRedirectURL = "multiauth-portal://auth/callback"
    /// The TOTP issuer written into enrollment links.
    public static let issuer = "Portal Sandbox"

    /// The accepted `x-portal-auth-environment-id`.
    public let environmentID: String
    /// Allow-listed redirect URLs, compared byte for byte (as the real backend does).
    public let allowedRedirectURLs: Set<String>
    /// Whether the organisation offers account abstraction; when `false`, a magic link or OAuth
    /// request with `isAccountAbstracted=true` gets `400 {error}` (the SDK's
    /// `accountAbstractionUnavailable`).
    public let accountAbstractionAvailable: Bool
    /// Whether sign-ins stop at the TOTP step.
    public let totpRequired: Bool
    /// Minimum time between magic links to one address: 60 s ([ASSUMPTION]).
    public let magicLinkInterval: Duration
    /// Magic-link grant lifetime: 15 min ([ASSUMPTION]).
    public let magicLinkLifetime: Duration
    /// `userJwt` lifetime: 600 s (the SDK's test fixture; [ASSUMPTION]).
    public let userJwtLifetime: Duration
    /// OAuth `state` lifetime: 10 min (sandbox choice).
    public let oauthStateLifetime: Duration
    /// CST idle lifetime (24 h) and maximum lifetime (7 days), Portal's authentication docs.
    public let sessionIdleLifetime: Duration = .seconds(24 * 3600)
    /// CST maximum lifetime, 7 days.
    public let sessionMaximumLifetime: Duration = .seconds(7 * 24 * 3600)

    private struct Grant {
        let email: String
        let method: String
        let expiresAt: Date
        var used = false
    }
    private struct OAuthState {
        let redirectURL: String
        let expiresAt: Date
        var used = false
    }
    private struct User {
        let endUserID: String
        let secret: [UInt8]
        var enrolled = false
        let replayGuard = TOTPReplayGuard()
    }
    private struct Session {
        let endUserID: String
        let maximumEnd: Date
        var idleEnd: Date
    }

    /// The backend's tables, only touched inside `state.withLock`.
    private struct State {
        var grants: [String: Grant] = [:]
        var states: [String: OAuthState] = [:]
        var users: [String: User] = [:]
        var lastSend: [String: Date] = [:]
        var usedJWTs: Set<String> = []
        var sessions: [String: Session] = [:]
    }

    private let state = Locked(State())
    /// The HS256 key of the `userJwt`, in a `Locked` box so that no rendering of the backend
    /// opens it.
    private let jwtSecretBox: Locked<[UInt8]>
    /// The HS256 key of the `userJwt`.
    private var jwtSecret: [UInt8] { jwtSecretBox.withLock { $0 } }

    /// Creates a backend.
    /// - Parameters:
    ///   - environmentID: The accepted auth environment id.
    ///   - allowedRedirectURLs: Redirect URLs accepted byte for byte.
    ///   - totpRequired: Whether sign-ins need the TOTP step (default `true`).
    ///   - magicLinkInterval: Minimum time between magic links to one address (default 60 s).
    ///   - magicLinkLifetime: Grant lifetime (default 15 min).
    ///   - userJwtLifetime: `userJwt` lifetime (default 600 s).
    ///   - oauthStateLifetime: OAuth `state` lifetime (default 10 min).
    ///   - accountAbstractionAvailable: Whether `isAccountAbstracted=true` is accepted (default `true`).
    ///   - jwtSecret: The HS256 key of the `userJwt` (at least 32 bytes); `nil` (the default)
    ///     draws 32 bytes from the system's random source, so no two backends share one. The
    ///     emulator server passes one derived from its seed, so its answers repeat under a seed.
    /// - Throws: `CryptoError` when the system random generator fails (JWT secret), or
    ///   `.invalidKey` for a `jwtSecret` shorter than 32 bytes.
    public init(
        environmentID: String = PortalBackend.defaultEnvironmentID,
        allowedRedirectURLs: Set<String> = [PortalBackend.defaultRedirectURL], totpRequired: Bool = true,
        magicLinkInterval: Duration = .seconds(60), magicLinkLifetime: Duration = .seconds(900),
        userJwtLifetime: Duration = .seconds(600), oauthStateLifetime: Duration = .seconds(600),
        accountAbstractionAvailable: Bool = true, jwtSecret: [UInt8]? = nil
    ) throws {
        if let jwtSecret, jwtSecret.count < 32 { throw CryptoError.invalidKey }
        self.environmentID = environmentID
        self.allowedRedirectURLs = allowedRedirectURLs
        self.accountAbstractionAvailable = accountAbstractionAvailable
        self.totpRequired = totpRequired
        self.magicLinkInterval = magicLinkInterval
        self.magicLinkLifetime = magicLinkLifetime
        self.userJwtLifetime = userJwtLifetime
        self.oauthStateLifetime = oauthStateLifetime
        self.jwtSecretBox = Locked(try jwtSecret ?? SecureRandom.bytes(count: 32))
    }

    /// The TOTP secret enrolled (or being enrolled) for `email`, as test and demo code reads it
    /// to compute a code with `TOTP`; `nil` before the user's first sign-in.
    public func totpSecret(for email: String) -> [UInt8]? {
        state.withLock { $0.users[email]?.secret }
    }

    /// Whether `email` completed TOTP enrollment (one correct code).
    public func isEnrolled(_ email: String) -> Bool {
        state.withLock { $0.users[email]?.enrolled ?? false }
    }

    /// The magic-link grants not used yet and the sessions open (Docs/Emulator.md,
    /// "Inspector"). Test support.
    package func activity() -> SandboxActivity {
        state.withLock { state in
            let emailOfUser = Dictionary(
                state.users.map { ($0.value.endUserID, $0.key) }, uniquingKeysWith: { first, _ in first })
            return SandboxActivity(
                flows: state.grants.values.filter { !$0.used }.map {
                    .init(
                        provider: "portal", destination: $0.email, kind: "magic link", expiresAt: $0.expiresAt,
                        wrongAttempts: 0)
                },
                sessions: state.sessions.values.map {
                    .init(
                        provider: "portal", userID: $0.endUserID, destination: emailOfUser[$0.endUserID],
                        revoked: false)
                })
        }
    }

    /// Every user's TOTP secret by e-mail identity key (enrolled or being enrolled): what an
    /// authenticator app on the user's phone would hold. Test support.
    package func totpSecrets() -> [String: [UInt8]] {
        state.withLock { $0.users.mapValues(\.secret) }
    }

    /// The redirect URL in the `Location` header of a `/sandbox/oauth/…` response, or `nil`.
    public static func redirectLocation(_ response: HTTPResponse) -> URL? {
        response.header("Location").flatMap(URL.init(string:))
    }

    /// Serves one request (table above). Never throws.
    public func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse {
        let now = context.time.now
        let path = request.url.path
        let auth = "/api/v3/auth"
        if request.method == .get, path.hasPrefix("/sandbox/oauth/") {
            return consent(request, provider: request.url.lastPathComponent, now: now, context: context)
        }
        if request.method == .get, path == "/api/v3/clients/me" {
            return clientsMe(request, now: now)
        }
        guard path.hasPrefix(auth) else { return Self.error(404, "Not found") }
        guard request.header("x-portal-auth-environment-id") == environmentID else {
            return Self.error(401, "Unauthorized")
        }
        switch (request.method, String(path.dropFirst(auth.count))) {
        case (.post, "/magic-links"): return sendMagicLink(request, now: now, context: context)
        case (.post, "/magic-links/validations"):
            return exchange(request, methods: ["EMAIL_MAGIC_LINK"], now: now, context: context)
        case (.get, "/oauth/urls"): return oauthURLs(request, now: now, context: context)
        case (.post, "/oauth/tokens"):
            return exchange(request, methods: ["GOOGLE", "APPLE"], now: now, context: context)
        case (.post, "/totps/validations"): return validateTOTP(request, now: now, context: context)
        default: return Self.error(404, "Not found")
        }
    }

    // MARK: Endpoints

    private struct MagicLinkBody: Decodable {
        let email: String
        let redirectUrl: String
        let fromEmail: String?
        let templateId: String?
        let isAccountAbstracted: Bool?
    }

    private func sendMagicLink(_ request: HTTPRequest, now: Date, context: SandboxContext) -> HTTPResponse {
        if let refusal = Self.unexpectedKeys(
            request, allowed: ["email", "redirectUrl", "fromEmail", "templateId", "isAccountAbstracted"])
        {
            return refusal
        }
        guard let body = try? request.decodeJSON(MagicLinkBody.self) else { return Self.error(400, "Invalid request") }
        guard let from = body.fromEmail?.trimmingCharacters(in: .whitespaces), !from.isEmpty,
            let template = body.templateId?.trimmingCharacters(in: .whitespaces), !template.isEmpty
        else { return Self.error(400, "fromEmail and templateId are required") }
        guard allowedRedirectURLs.contains(body.redirectUrl) else { return Self.error(401, "Unauthorized") }
        if body.isAccountAbstracted == true, !accountAbstractionAvailable {
            return Self.error(400, "Account abstraction is not enabled for this organization")
        }
        guard body.email == body.email.lowercased(), (try? EmailAddress(body.email))?.identityKey == body.email else {
            return Self.error(400, "Invalid email")
        }
        let token = context.random.hex(bytes: 24)
        let allowed: Bool = state.withLock { state in
            if let last = state.lastSend[body.email], now < last.addingTimeInterval(magicLinkInterval.timeInterval) {
                return false
            }
            state.lastSend[body.email] = now
            state.grants[token] = Grant(
                email: body.email, method: "EMAIL_MAGIC_LINK",
                expiresAt: now.addingTimeInterval(magicLinkLifetime.timeInterval))
            return true
        }
        guard allowed else { return Self.error(429, "Too many requests") }
        let link = Self.append(["token": token, "authMethod": "EMAIL_MAGIC_LINK"], to: body.redirectUrl)
        context.deliver(code: nil, link: link, to: body.email, channel: .email)
        return Self.data(["sent": .bool(true)])
    }

    private func oauthURLs(_ request: HTTPRequest, now: Date, context: SandboxContext) -> HTTPResponse {
        let redirect = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?
            .last { $0.name == "redirectUrl" }?.value
        guard let redirect, allowedRedirectURLs.contains(redirect) else { return Self.error(401, "Unauthorized") }
        let abstracted = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?
            .last { $0.name == "isAccountAbstracted" }?.value
        if abstracted == "true", !accountAbstractionAvailable {
            return Self.error(400, "Account abstraction is not enabled for this organization")
        }
        let state = context.random.hex(bytes: 16)
        self.state.withLock { tables in
            tables.states[state] = OAuthState(
                redirectURL: redirect, expiresAt: now.addingTimeInterval(oauthStateLifetime.timeInterval))
        }
        func url(_ provider: String) -> JSONValue {
            .string("https://\(context.host)/sandbox/oauth/\(provider)?state=\(state)&response_type=code")
        }
        return Self.data(["google": url("google"), "apple": url("apple")])
    }

    /// The identity provider's consent page: a valid, unused, fresh `state` redirects with a
    /// grant; anything else with `error=oauth_failed`.
    private func consent(_ request: HTTPRequest, provider: String, now: Date, context: SandboxContext) -> HTTPResponse {
        let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let state = items.last { $0.name == "state" }?.value ?? ""
        let method = provider == "apple" ? "APPLE" : provider == "google" ? "GOOGLE" : ""
        let email = items.last { $0.name == "login_hint" }?.value?.lowercased() ?? "\(provider)-user@example.com"
        let token = context.random.hex(bytes: 24)
        let redirect: String? = self.state.withLock { tables in
            guard var entry = tables.states[state] else { return nil }
            defer { tables.states[state] = entry }
            guard !entry.used, now < entry.expiresAt, !method.isEmpty else {
                entry.used = true
                return entry.redirectURL + "#failed"
            }
            entry.used = true
            tables.grants[token] = Grant(
                email: email, method: method, expiresAt: now.addingTimeInterval(magicLinkLifetime.timeInterval))
            return entry.redirectURL
        }
        guard let redirect else {
            // A foreign state: no redirect URL is known; answer like a provider error page.
            return Self.error(400, "Unknown OAuth state")
        }
        let location: URL
        if redirect.hasSuffix("#failed") {
            location = Self.append(["error": "oauth_failed"], to: String(redirect.dropLast(7)))
        } else {
            location = Self.append(["token": token, "login_type": method], to: redirect)
        }
        return HTTPResponse(status: 302, headers: ["Location": location.absoluteString], body: Data())
    }

    private struct GrantBody: Decodable {
        let token: String
    }

    private func exchange(_ request: HTTPRequest, methods: Set<String>, now: Date, context: SandboxContext)
        -> HTTPResponse
    {
        if let refusal = Self.unexpectedKeys(request, allowed: ["token"]) { return refusal }
        guard let body = try? request.decodeJSON(GrantBody.self) else { return Self.error(400, "Invalid request") }
        let newSecret = (0..<20).map { _ in UInt8(context.random.int(in: 0...255)) }
        let userID = "eu_" + context.random.hex(bytes: 8)
        let jti = context.random.hex(bytes: 16)
        let cst = context.random.hex(bytes: 32)
        let clientID = "cl_" + context.random.hex(bytes: 8)
        let outcome: (User, String)? = state.withLock { state in
            guard var grant = state.grants[body.token], !grant.used, now < grant.expiresAt,
                methods.contains(grant.method)
            else { return nil }
            grant.used = true
            state.grants[body.token] = grant
            let user = state.users[grant.email] ?? User(endUserID: userID, secret: newSecret)
            state.users[grant.email] = user
            return (user, grant.email)
        }
        guard let (user, email) = outcome else { return Self.error(401, "Unauthorized") }
        guard totpRequired else {
            openSession(cst, endUserID: user.endUserID, now: now)
            return Self.data([
                "endUserId": .string(user.endUserID), "clientId": .string(clientID), "clientSessionToken": .string(cst),
            ])
        }
        var data: [String: JSONValue] = [
            "endUserId": .string(user.endUserID), "userJwt": .string(makeUserJWT(user.endUserID, jti: jti, now: now)),
        ]
        if !user.enrolled, let uri = try? OTPAuthURI(issuer: Self.issuer, account: email, secret: user.secret) {
            data["totpLink"] = .string(uri.uriString)
        }
        return Self.data(data)
    }

    private struct TOTPBody: Decodable {
        let code: String
    }

    private func validateTOTP(_ request: HTTPRequest, now: Date, context: SandboxContext) -> HTTPResponse {
        guard let bearer = request.header("Authorization"), bearer.hasPrefix("Bearer "),
            let claims = verifyUserJWT(String(bearer.dropFirst(7)), now: now)
        else { return Self.error(401, "Unauthorized") }
        if let refusal = Self.unexpectedKeys(request, allowed: ["code"]) { return refusal }
        guard let body = try? request.decodeJSON(TOTPBody.self) else { return Self.error(400, "Invalid request") }
        let cst = context.random.hex(bytes: 32)
        let clientID = "cl_" + context.random.hex(bytes: 8)
        enum Outcome { case accepted, wrongCode, replayed, unauthorized }
        let outcome: Outcome = state.withLock { state in
            guard !state.usedJWTs.contains(claims.jti),
                let (email, user) = state.users.first(where: { $0.value.endUserID == claims.endUserID }).map({
                    ($0.key, $0.value)
                }),
                let totp = try? TOTP(secret: user.secret)
            else { return .unauthorized }
            do {
                _ = try totp.verify(body.code, at: now, window: 1, replayGuard: user.replayGuard)
            } catch CryptoError.codeAlreadyUsed {
                return .replayed
            } catch {
                return .wrongCode
            }
            // Retire the JWT before answering (PortalSwift: a second call with it gets 401).
            state.usedJWTs.insert(claims.jti)
            state.users[email]?.enrolled = true
            return .accepted
        }
        switch outcome {
        // The same answer for a wrong code and a spent JWT: the real wire cannot tell them apart.
        case .unauthorized, .wrongCode: return Self.error(401, "Unauthorized")
        case .replayed: return Self.error(409, "TOTP code already used")
        case .accepted:
            openSession(cst, endUserID: claims.endUserID, now: now)
            return Self.data(["clientId": .string(clientID), "clientSessionToken": .string(cst)])
        }
    }

    private func clientsMe(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        guard let bearer = request.header("Authorization"), bearer.hasPrefix("Bearer ") else {
            return Self.error(401, "Unauthorized")
        }
        let token = String(bearer.dropFirst(7))
        let user: String? = state.withLock { state in
            guard var session = state.sessions[token], now < session.idleEnd, now < session.maximumEnd else {
                return nil
            }
            session.idleEnd = min(now.addingTimeInterval(sessionIdleLifetime.timeInterval), session.maximumEnd)
            state.sessions[token] = session
            return session.endUserID
        }
        guard let user else { return Self.error(401, "Unauthorized") }
        return (try? HTTPResponse.json(200, ["id": user])) ?? Self.error(500, "Internal")
    }

    private func openSession(_ cst: String, endUserID: String, now: Date) {
        state.withLock { state in
            state.sessions[cst] = Session(
                endUserID: endUserID, maximumEnd: now.addingTimeInterval(sessionMaximumLifetime.timeInterval),
                idleEnd: now.addingTimeInterval(sessionIdleLifetime.timeInterval))
        }
    }

    // MARK: userJwt (HS256, [ASSUMPTION])

    private func makeUserJWT(_ endUserID: String, jti: String, now: Date) -> String {
        let iat = now.timeIntervalSince1970.rounded(.down)
        let claims: [String: JSONValue] = [
            "endUserId": .string(endUserID), "environmentId": .string(environmentID), "iat": .number(iat),
            "exp": .number(iat + userJwtLifetime.timeInterval), "aud": .string("portal-client-auth"),
            "iss": .string("https://api.portalhq.io"), "jti": .string(jti),
        ]
        let input = Self.segment(["alg": .string("HS256"), "typ": .string("JWT")]) + "." + Self.segment(claims)
        return input + "."
            + Base64URL.encode(HMAC.authenticationCode(for: Array(input.utf8), key: jwtSecret, algorithm: .sha256))
    }

    private func verifyUserJWT(_ token: String, now: Date) -> (endUserID: String, jti: String)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let mac = try? Base64URL.decode(parts[2]),
            HMAC.isValidAuthenticationCode(
                mac, for: Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count)), key: jwtSecret,
                algorithm: .sha256),
            let jwt = try? JWT(parsing: token), jwt.algorithm == "HS256",
            (try? jwt.claims.validate(at: now, leeway: 0, audience: "portal-client-auth")) != nil,
            let user = jwt.claims["endUserId"]?.stringValue, let jti = jwt.claims.jwtID
        else { return nil }
        return (user, jti)
    }

    private static func segment(_ object: [String: JSONValue]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Base64URL.encode((try? encoder.encode(object)) ?? Data("{}".utf8))
    }

    // MARK: Helpers

    private static func append(_ items: KeyValuePairs<String, String>, to base: String) -> URL {
        var text = base + (base.contains("?") ? "&" : "?")
        let unreserved = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        text += items.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")" }
            .joined(separator: "&")
        return URL(string: text)!
    }

    /// `400 {error}` when the JSON body has a key outside `allowed` (the SDK's request fields).
    private static func unexpectedKeys(_ request: HTTPRequest, allowed: Set<String>) -> HTTPResponse? {
        guard let body = request.body, let object = try? JSONDecoder().decode(JSONValue.self, from: body).objectValue
        else {
            return error(400, "Invalid request")
        }
        return object.keys.allSatisfy(allowed.contains) ? nil : error(400, "Invalid request: unexpected field")
    }

    private static func data(_ payload: [String: JSONValue]) -> HTTPResponse {
        (try? HTTPResponse.json(200, ["data": JSONValue.object(payload)])) ?? error(500, "Internal")
    }

    private static func error(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: ["Content-Type": "application/json"], body: Data(#"{"error":"\#(message)"}"#.utf8))
    }
}
