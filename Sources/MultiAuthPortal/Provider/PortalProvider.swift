import Foundation
import MultiAuth
import MultiAuthCrypto

/// A Portal-style provider (PortalSwift "Client Auth"): an e-mail magic link or a Google /
/// Apple OAuth redirect yields a Client Session Token (CST), possibly after a TOTP second step
/// (Docs/Providers/Portal.md).
///
/// Flow (Docs/Providers/Portal.md, "State machine"):
/// 1. ``start(_:context:)`` with `.email(…)` sends a magic link (`POST /magic-links`) and
///    returns a `.magicLink(channel: .email)` challenge; with `.oauth(.google)` or
///    `.oauth(.apple)` it fetches fresh authorize URLs (`GET /oauth/urls`, one single-use
///    `state` shared by both) and returns `.oauthRedirect(url:)`. A `429` is
///    `AuthError(.rateLimited)` and is never retried automatically.
/// 2. The app passes the redirect to `AuthClient.handleRedirect(_:)`;
///    ``handleRedirect(_:pending:context:)`` exchanges the single-use grant
///    (`POST /magic-links/validations` or `POST /oauth/tokens`) for a session, or for a
///    `.totp(digits:enrollment:)` challenge carrying the `userJwt` (and, on first sign-in, the
///    `totpLink` enrollment; see ``/MultiAuth/TOTPEnrollment`` `totpSecret`, `otpauthURI()`,
///    `qrCode()`).
/// 3. `AuthClient.submit(_:for:)` → ``respond(to:with:context:)`` reads `endUserId` from the
///    `userJwt` **before** any network call, then posts the code to `POST /totps/validations`
///    with `Authorization: Bearer <userJwt>`. Any `401` is a wrong code (`.invalidCode`, the
///    same challenge stays usable): PortalSwift's own tests model a rejected code as a bare
///    `401` and its transport drops 401 bodies, so no body can be relied on. A `409` is a
///    code already used in its time step (`.codeAlreadyUsed`, **[ASSUMPTION]**). The TOTP
///    challenge expires with the `userJwt` (its `exp − iat`, counted on the client's clock),
///    so a stale step is refused locally as `.expired`.
///
/// Sessions: the CST is ``/MultiAuth/Credentials/accessToken`` (`Bearer`); it expires after
/// 24 h of inactivity (``/MultiAuth/Credentials/expiresAt`` = sign-in + 24 h) and at most 7 days
/// after sign-in (``/MultiAuth/AuthSession/maximumLifetimeEndsAt``). There is no refresh (the
/// CST slides on use) and no server revocation: ``signOut(_:context:)`` is local only.
///
/// Stateless and `Sendable`: everything a flow needs lives in the challenge's provider state,
/// so a saved challenge can be completed by a fresh instance after the process died.
public struct PortalProvider: RedirectHandlingProvider {
    /// The provider id; `AuthProviderID.portal` by default.
    public let id: AuthProviderID
    /// The environment, redirect URL and API host.
    public let configuration: PortalConfiguration

    /// CST inactivity lifetime: 24 h (Portal's authentication docs).
    public static let sessionIdleLifetime: Duration = .seconds(24 * 3600)
    /// CST maximum lifetime: 7 days (Portal's authentication docs).
    public static let sessionMaximumLifetime: Duration = .seconds(7 * 24 * 3600)
    /// How long a magic link is assumed valid: 15 minutes ([ASSUMPTION]; unpublished).
    public static let magicLinkLifetime: Duration = .seconds(15 * 60)
    /// TOTP digits when the enrollment link does not say: 6 ([ASSUMPTION], RFC 6238 default).
    public static let defaultTOTPDigits = 6
    /// The longest `userJwt` lifetime taken from its claims for the TOTP challenge's expiry: 1 h
    /// (a longer or missing one leaves the challenge without expiry; the backend decides).
    public static let maximumTOTPStepLifetime: Duration = .seconds(3600)

    /// Creates a provider.
    /// - Parameters:
    ///   - configuration: The environment, redirect URL and API host.
    ///   - id: The provider id (keys the session store); `portal` by default.
    public init(configuration: PortalConfiguration, id: AuthProviderID = .portal) {
        self.configuration = configuration
        self.id = id
    }

    // MARK: Provider state keys

    enum StateKey {
        static let method = "method"
        static let email = "email"
        static let oauthState = "oauthState"
        static let userJwt = "userJwt"
        static let grant = "grant"
        static let endUserID = "endUserId"
    }

    /// `AuthMethod` wire values (PortalSwift `AuthMethod`).
    enum Method {
        static let magicLink = "EMAIL_MAGIC_LINK"
        static let google = "GOOGLE"
        static let apple = "APPLE"
    }

    // MARK: AuthProvider

    /// Starts a magic-link or OAuth sign-in.
    /// - Parameters:
    ///   - request: `.email(_:)` (channel `nil` or `.email`) or `.oauth(.google)` /
    ///     `.oauth(.apple)`.
    ///   - context: Transport, time and events.
    /// - Returns: A `.magicLink(channel: .email)` challenge (expires after
    ///   ``magicLinkLifetime``), or an `.oauthRedirect(url:)` challenge whose URL carries the
    ///   single-use `state`.
    /// - Throws: `AuthError` `.unsupported` (phone, other OAuth providers, other channels; no
    ///   network call), `.configuration` with provider code `"magicLinkNotConfigured"` (an
    ///   e-mail sign-in without ``PortalConfiguration/fromEmail`` and
    ///   ``PortalConfiguration/templateID``; no network call), `.rateLimited` (429, never
    ///   retried), `.configuration` (`401`; a `400`: `accountAbstractionUnavailable` when
    ///   account abstraction was requested, else `badRequest`; method not offered), `.network`,
    ///   `.providerUnavailable`, `.malformedResponse`, or `CancellationError`.
    public func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        let flowID = context.flowID ?? .random()
        switch request.identity {
        case .email(let email):
            guard request.channel == nil || request.channel == .email else {
                throw AuthError(.unsupported, "Portal sends magic links by e-mail only", provider: id)
            }
            guard let fromEmail = configuration.fromEmail, let templateID = configuration.templateID else {
                throw AuthError(
                    .configuration,
                    "magic links are not configured: set fromEmail and templateID on PortalConfiguration (Portal's backend requires both)",
                    provider: id, providerCode: PortalConfiguration.magicLinkNotConfiguredCode)
            }
            let body = PortalWire.MagicLinkRequest(
                email: email.identityKey, redirectUrl: configuration.redirectURL.absoluteString,
                fromEmail: fromEmail, templateId: templateID, isAccountAbstracted: configuration.isAccountAbstracted)
            let response = try await send(.post, "magic-links", body: body, context: context)
            guard response.isSuccess else { throw failure(response, operation: "sending the magic link") }
            context.emit(.deliveryStatus(channel: .email, status: .sent))
            var state = ProviderState()
            state[revealing: StateKey.method] = Method.magicLink
            state[revealing: StateKey.email] = email.identityKey
            return .challenge(
                Challenge(
                    flowID: flowID, provider: id, kind: .magicLink(channel: .email), destination: email.masked,
                    issuedAt: context.now,
                    expiresAt: context.now.addingTimeInterval(Self.magicLinkLifetime.timeInterval),
                    providerState: state))
        case .oauth(let name):
            let method: String
            switch name {
            case .google: method = Method.google
            case .apple: method = Method.apple
            default: throw AuthError(.unsupported, "Portal offers Google and Apple OAuth only", provider: id)
            }
            var query = "redirectUrl=" + Self.formEncode(configuration.redirectURL.absoluteString)
            if let abstracted = configuration.isAccountAbstracted { query += "&isAccountAbstracted=\(abstracted)" }
            let response = try await send(.get, "oauth/urls", query: query, context: context)
            guard response.isSuccess else { throw failure(response, operation: "fetching the OAuth URLs") }
            let urls: PortalWire.OAuthURLs = try decodeData(response, path: "/oauth/urls")
            guard let text = method == Method.google ? urls.google : urls.apple, let url = URL(string: text) else {
                throw AuthError(
                    .configuration, "the environment does not offer \(name) sign-in", provider: id,
                    providerCode: "authMethodUnavailable")
            }
            var state = ProviderState()
            state[revealing: StateKey.method] = method
            state[revealing: StateKey.oauthState] =
                URLComponents(url: url, resolvingAgainstBaseURL: false)?
                .queryItems?.last { $0.name == "state" }?.value
            return .challenge(
                Challenge(
                    flowID: flowID, provider: id, kind: .oauthRedirect(url: url), issuedAt: context.now,
                    expiresAt: nil, providerState: state))
        case .phone, .passkey:
            throw AuthError(.unsupported, "Portal signs in by e-mail magic link or Google/Apple OAuth", provider: id)
        }
    }

    /// Answers the TOTP step.
    ///
    /// Reads `endUserId` from the challenge's `userJwt` claims (without verifying the
    /// signature) before any network call, then posts `{code}` with
    /// `Authorization: Bearer <userJwt>`.
    ///
    /// Any `401` is `.invalidCode` whatever its body: the real server's wrong-code answer is a
    /// `401` (PortalSwift's tests) whose body its SDK never reads, and a `401` for a spent or
    /// expired `userJwt` cannot be told apart on the wire. The challenge's expiry (from the
    /// `userJwt`) ends a stale step locally instead. A `400` is not a wrong code.
    /// - Returns: The signed-in session (`AuthClient` persists it before returning it).
    /// - Throws: `AuthError` `.invalidInput` with reason `.invalidToken` (blank, malformed,
    ///   not base64url, unreadable, no `endUserId`; zero network calls), `.invalidInput` with
    ///   `.answerMismatch` (not a TOTP challenge), `.invalidCode` (`401` only: the same
    ///   challenge stays usable), `.generic` (`400`: a bad request, never a wrong code),
    ///   `.codeAlreadyUsed` (`409`: the code's time step was already used, RFC 6238 §5.2; wait
    ///   for the next code), `.rateLimited`, `.network`, `.providerUnavailable`,
    ///   `.malformedResponse` (no, or a blank, `clientSessionToken`), or `CancellationError`.
    public func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        guard case .totp = challenge.kind else {
            throw AuthError(
                .invalidInput, "only the TOTP step is answered with a code; complete links with handleRedirect",
                provider: id, reason: .answerMismatch)
        }
        let token = challenge.providerState[revealing: StateKey.userJwt] ?? ""
        let user = try PortalUserJWT(token, provider: id)
        let response = try await send(
            .post, "totps/validations", body: PortalWire.TOTPRequest(code: answer.rawCode),
            headers: ["Authorization": "Bearer \(token)"], context: context)
        if !response.isSuccess {
            switch response.status {
            case 401:
                throw AuthError(
                    .invalidCode,
                    "the authenticator code was not accepted; enter the current code (if this repeats, start the sign-in again)",
                    provider: id, providerCode: "401")
            case 400:
                // PortalSwift reads only a `401` as a refused code; a bad request is not one,
                // and another code would not fix it (Docs/Providers/Portal.md, "Errors").
                throw AuthError(
                    .generic,
                    "Portal refused the authenticator step as a bad request (HTTP 400), not as a wrong code; start the sign-in again",
                    provider: id, providerCode: "400")
            case 409:
                // [ASSUMPTION] (Docs/Providers/Portal.md): the real answer to a replayed code is unpublished.
                throw AuthError(
                    .codeAlreadyUsed, "this authenticator code was already used; wait for the next code", provider: id,
                    providerCode: "409")
            default:
                throw failure(response, operation: "verifying the TOTP code")
            }
        }
        let result: PortalWire.TOTPResult = try decodeData(response, path: "/totps/validations")
        guard let cst = result.clientSessionToken, !Self.isBlank(cst.reveal()) else {
            throw AuthError(
                .malformedResponse, "/totps/validations: data.clientSessionToken is missing or blank", provider: id,
                providerCode: "malformedResponse")
        }
        return .signedIn(
            makeSession(
                endUserID: user.endUserID, cst: cst, clientID: result.clientId,
                accountAbstracted: result.isAccountAbstracted,
                state: challenge.providerState, now: context.now))
    }

    /// Local only: Portal has no revocation endpoint (PortalSwift `clearPersistedSession`); the
    /// client removes the stored session. Never throws, never calls the network.
    public func signOut(_ session: AuthSession, context: AuthContext) async throws {}

    // MARK: RedirectHandlingProvider

    /// Whether `url` is this provider's redirect URL: compared without query and fragment,
    /// trimmed of whitespace and trailing slashes, scheme and authority case-insensitive, the
    /// path case-sensitive; links over 8192 UTF-16 units are never claimed (PortalSwift `RedirectUrl`).
    /// A grant without a method marker (neither `authMethod=EMAIL_MAGIC_LINK` nor
    /// `login_type=GOOGLE|APPLE`) is not claimed either: the SDK ignores such a link, so
    /// `AuthClient.handleRedirect(_:)` answers `nil` and nothing is exchanged.
    public func canHandle(_ url: URL) -> Bool {
        guard PortalRedirect.matches(url, redirectURL: configuration.redirectURL) else { return false }
        if case .unmarked = PortalRedirect(url).outcome { return false }
        return true
    }

    /// Completes a magic-link or OAuth flow from its redirect.
    ///
    /// The grant is exchanged once (`POST /magic-links/validations` or `POST /oauth/tokens`).
    /// A redirect re-delivered after it led to a TOTP step returns that same pending TOTP
    /// challenge without a network call; one re-delivered after sign-in is replayed by
    /// `AuthClient`.
    /// - Parameters:
    ///   - url: The redirect, `…?token=<grant>&authMethod=EMAIL_MAGIC_LINK`,
    ///     `…?token=<grant>&login_type=GOOGLE|APPLE` or `…?error=oauth_failed`.
    ///   - pending: The pending magic-link / OAuth challenge this provider issued (or the TOTP
    ///     challenge the same grant produced).
    ///   - context: Transport, time and events.
    /// - Returns: A session, or a `.totp(digits:enrollment:)` challenge.
    /// - Throws: `AuthError` `.cancelledByProvider` (`?error=`, raw value in `providerCode`),
    ///   `.invalidInput` (no token and no error: `CALLBACK_INCOMPLETE`),
    ///   `.challengeNotPending` (no pending flow, the link's method does not match it, or the
    ///   link names no method; ``canHandle(_:)`` does not claim such a link),
    ///   `.unauthorized` (grant rejected or already used), `.malformedResponse`
    ///   (`invalidGrantResponse`; a blank `endUserId` beside a session token), `.network`,
    ///   `.providerUnavailable`, or `CancellationError`.
    public func handleRedirect(_ url: URL, pending: Challenge?, context: AuthContext) async throws -> SignInStep {
        let token: String
        let method: String
        switch PortalRedirect(url).outcome {
        case .failure(let value):
            throw AuthError(
                .cancelledByProvider, "the sign-in failed at the identity provider (authenticationFailed); start again",
                provider: id, providerCode: AuthError.plausibleProviderCode(value))
        case .incomplete:
            throw AuthError(
                .invalidInput, "the redirect carries neither a grant nor an error", provider: id,
                providerCode: "CALLBACK_INCOMPLETE")
        case .grant(let grant, let name):
            token = grant
            method = name
        case .unmarked:
            // Never claimed by `canHandle`; a direct call is refused without a request.
            throw AuthError(
                .challengeNotPending, "the link names no sign-in method Portal uses (authMethod or login_type)",
                provider: id)
        }
        guard let pending else {
            throw AuthError(.challengeNotPending, "no Portal sign-in is pending; start one first", provider: id)
        }
        let grantDigest = Self.digest(token)
        if case .totp = pending.kind {
            if pending.providerState[revealing: StateKey.grant] == grantDigest { return .challenge(pending) }
            throw AuthError(.challengeNotPending, "a TOTP step is pending; answer it or start again", provider: id)
        }
        let path: String
        switch pending.kind {
        case .magicLink:
            guard method == Method.magicLink else {
                throw AuthError(
                    .challengeNotPending, "the link is not for the pending magic-link sign-in", provider: id)
            }
            path = "magic-links/validations"
        case .oauthRedirect:
            guard method == pending.providerState[revealing: StateKey.method] else {
                throw AuthError(.challengeNotPending, "the link is not for the pending OAuth sign-in", provider: id)
            }
            path = "oauth/tokens"
        default:
            throw AuthError(.challengeNotPending, "no Portal magic-link or OAuth sign-in is pending", provider: id)
        }
        let response = try await send(
            .post, path, body: PortalWire.GrantRequest(token: Secret(token)), context: context)
        guard response.isSuccess else {
            if response.status == 401 {
                throw AuthError(
                    .unauthorized, "the sign-in link was rejected or already used; start the sign-in again",
                    provider: id, providerCode: "401")
            }
            throw failure(response, operation: "exchanging the grant")
        }
        let result: PortalWire.GrantResult = try decodeData(response, path: "/" + path)
        return try step(for: result, path: path, pending: pending, grantDigest: grantDigest, context: context)
    }

    // MARK: Helpers

    /// The step a completed grant exchange of ``handleRedirect(_:pending:context:)`` leads to: a
    /// session when the grant carried a session token, else the TOTP step its `userJwt` opens.
    private func step(
        for result: PortalWire.GrantResult, path: String, pending: Challenge, grantDigest: String,
        context: AuthContext
    ) throws -> SignInStep {
        var state = pending.providerState
        state[revealing: StateKey.grant] = grantDigest
        // A blank (empty or whitespace-only) session token counts as absent and a completed
        // grant needs a non-blank end user, as PortalSwift decides: a blank one is refused here,
        // before it is stored or ever sent as a bearer (Docs/Providers/Portal.md, "Errors").
        if let cst = result.clientSessionToken, !Self.isBlank(cst.reveal()) {
            guard let endUser = result.endUserId, !Self.isBlank(endUser) else {
                throw AuthError(
                    .malformedResponse, "/\(path): data.endUserId is missing or blank", provider: id,
                    providerCode: "malformedResponse")
            }
            return .signedIn(
                makeSession(
                    endUserID: endUser, cst: cst, clientID: result.clientId,
                    accountAbstracted: result.isAccountAbstracted,
                    state: state, now: context.now))
        }
        guard let userJwt = result.userJwt, !userJwt.isEmpty else {
            throw AuthError(
                .malformedResponse, "/\(path): neither clientSessionToken nor userJwt", provider: id,
                providerCode: "invalidGrantResponse")
        }
        state[StateKey.userJwt] = userJwt
        state[revealing: StateKey.oauthState] = nil
        let enrollment = result.totpLink.map { link in
            let parsed = try? OTPAuthURI(parsing: link)
            return TOTPEnrollment(otpauthURI: Secret(link), issuer: parsed?.issuer, account: parsed?.account)
        }
        let digits = result.totpLink.flatMap { try? OTPAuthURI(parsing: $0) }?.digits ?? Self.defaultTOTPDigits
        // The step lives as long as the userJwt: its `exp − iat`, counted from now on the client's
        // clock (absolute times from the server are not trusted; a skewed server clock does not
        // shorten it). Without both claims, or beyond an hour, there is no local expiry.
        let lifetime = (try? PortalUserJWT(userJwt.reveal(), provider: id))?.lifetime
            .flatMap { $0 <= Self.maximumTOTPStepLifetime.timeInterval ? $0 : nil }
        return .challenge(
            Challenge(
                flowID: pending.flowID, provider: id, kind: .totp(digits: digits, enrollment: enrollment),
                destination: pending.destination, issuedAt: context.now,
                expiresAt: lifetime.map { context.now.addingTimeInterval($0) },
                providerState: state))
    }

    /// Empty or whitespace-only: unusable as a bearer or a user id (PortalSwift's rule).
    static func isBlank(_ value: String) -> Bool {
        value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    private func makeSession(
        endUserID: String, cst: Secret, clientID: String?, accountAbstracted: Bool?, state: ProviderState, now: Date
    ) -> AuthSession {
        var extra = ProviderState()
        extra[revealing: "clientId"] = clientID
        extra[revealing: "isAccountAbstracted"] = accountAbstracted.map { $0 ? "true" : "false" }
        let method = state[revealing: StateKey.method]
        let email = state[revealing: StateKey.email].flatMap { try? EmailAddress($0) }
        var identities: [AuthUser.Identity] = []
        // The value is the end user's id, never the address: identities are dumped in clear, the
        // address stays in the masked `email` (C14).
        if email != nil { identities.append(AuthUser.Identity(kind: "email", value: endUserID, verified: true)) }
        var attributes: [String: String] = [:]
        if let method { attributes["authMethod"] = method }
        return AuthSession(
            provider: id, user: AuthUser(id: endUserID, email: email, identities: identities, attributes: attributes),
            credentials: Credentials(
                accessToken: cst, tokenType: "Bearer",
                expiresAt: now.addingTimeInterval(Self.sessionIdleLifetime.timeInterval),
                extra: extra),
            createdAt: now, maximumLifetimeEndsAt: now.addingTimeInterval(Self.sessionMaximumLifetime.timeInterval))
    }

    private func send(
        _ method: HTTPMethod, _ path: String, query: String? = nil, headers extra: [String: String] = [:],
        context: AuthContext
    ) async throws -> HTTPResponse {
        try await context.transport.send(
            HTTPRequest(method: method, url: url(path, query: query), headers: headers(extra)))
    }

    private func send<Body: Encodable>(
        _ method: HTTPMethod, _ path: String, body: Body, headers extra: [String: String] = [:], context: AuthContext
    ) async throws -> HTTPResponse {
        try await context.transport.send(
            try HTTPRequest.json(method, url(path, query: nil), body: body, headers: headers(extra)))
    }

    private func url(_ path: String, query: String?) -> URL {
        let base = configuration.authBaseURL.absoluteString + "/" + path
        return URL(string: query.map { base + "?" + $0 } ?? base)!
    }

    /// The headers of every call (PortalSwift `PortalAuthApi.makeRequest`, `PortalAPIRequest`).
    private func headers(_ extra: [String: String]) -> [String: String] {
        var headers = extra
        headers["x-portal-auth-environment-id"] = configuration.authEnvironmentID
        headers["Accept"] = "application/json"
        headers["Content-Type"] = "application/json"
        headers["X-Portal-Trace-Id"] = UUID().uuidString.lowercased()
        return headers
    }

    private func decodeData<Payload: Decodable>(_ response: HTTPResponse, path: String) throws -> Payload {
        let envelope = try response.decodeJSON(PortalWire.Envelope<Payload>.self, provider: id)
        guard let data = envelope.data else {
            throw AuthError(
                .malformedResponse, "\(path): data is missing", provider: id, providerCode: "malformedResponse")
        }
        return data
    }

    /// Form-encodes a query value as the SDK does: only `A–Z a–z 0–9 - _ . *` pass, every
    /// other UTF-8 byte becomes upper-case `%XX` (PortalSwift `PortalAuthApi.formUrlEncode`).
    static func formEncode(_ value: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "*"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A SHA-256 digest of the grant, kept instead of the grant itself to recognise a
    /// re-delivered redirect.
    static func digest(_ grant: String) -> String {
        Base64URL.encode(MessageDigest.sha256(Array(grant.utf8)))
    }
}
