import Foundation
import MultiAuth

/// The Dynamic-style adapter: e-mail OTP and SMS OTP keyed by a `verificationUUID`, social
/// login through the app's deep link, the MFA TOTP step, a JWT session from `{jwt,
/// minifiedJwt, expiresAt, user}`, refresh with the bearer token, and revoke on sign-out
/// (Docs/Providers/Dynamic.md).
///
/// ## Flow (Docs/Providers/Dynamic.md, "Flow")
/// 1. ``start(_:context:)``: `POST /sdk/{env}/emailVerifications/create` `{email, captchaToken?}` or
///    `POST /sdk/{env}/smsVerifications/create` `{phoneCountryCode, phoneNumber, isoCountryCode, captchaToken?}`
///    → `201 {verificationUUID, …}`. The challenge is a 6-digit ``/MultiAuth/Challenge/Kind/oneTimeCode(length:channel:linkAlsoSent:)``
///    whose ``/MultiAuth/Challenge/providerState`` keeps the `verificationUUID` (so it survives a
///    process restart) and the wire identity (for ``resend(_:channel:context:)``); the channel
///    is the challenge kind's.
/// 2. ``respond(to:with:context:)``: `POST …/signin` `{verificationUUID, verificationToken, captchaToken?, sessionPublicKey?}`
///    → `200 VerifyResponse`. With a `jwt`/`minifiedJwt` the result is a session, unless the
///    token's scope holds `requiresAdditionalAuth` (MFA pending; or an `mfaToken` without a
///    JWT): then it is a further `.totp` challenge, answered through
///    `POST /sdk/{env}/users/mfa/auth/totp` with the pending token as bearer (never a silent
///    success); with neither (a cookie-authentication environment) it is `.configuration`.
///
/// Social login (``socialProviders``; Docs/Providers/Dynamic.md, "Social login"): `start(.oauth(name))`
/// posts `initAuth {state, redirectUrl}`, reads `loginUrl` and answers with an
/// `.oauthRedirect(url:)` challenge (the provider's authorization page with the `state`); the
/// deep link the return comes back on (``DynamicConfiguration/socialRedirectURL``, carrying
/// `dynamicOauthCode` and `dynamicOauthState`) completes it through `AuthClient.handleRedirect(_:)`
/// (``handleRedirect(_:pending:context:)``: `POST …/providers/{name}/signIn {code, state}`).
///
/// Captcha: an environment with captcha enabled needs a token from its captcha widget; pass
/// it as the request option ``captchaTokenOption``. It is sent on `create`, kept in the
/// challenge state and sent again on `signin` and `retry`.
/// 3. ``refresh(_:context:)``: `POST /sdk/{env}/refresh` with `Authorization: Bearer`.
/// 4. ``signOut(_:context:)``: `POST /sdk/{env}/revoke` with `Authorization: Bearer` → `204`.
///
/// Identities: an e-mail (channel `nil` or `email`), sent as its ``/MultiAuth/EmailAddress/identityKey``
/// (Docs/Cases.md, B33); a phone number (channel `nil` or `sms`) whose ``/MultiAuth/PhoneNumber/regionCode`` is
/// known, sent as `phoneCountryCode` `"+<calling code>"`, `phoneNumber` the national
/// significant number, `isoCountryCode` the region. Anything else throws before any network call.
///
/// Sessions: ``/MultiAuth/Credentials/accessToken`` is the `minifiedJwt` (the backend-verified
/// access token; the `jwt` when no minified one came), ``/MultiAuth/Credentials/idToken``
/// the `jwt`, ``/MultiAuth/Credentials/scopes`` the token's `scope` claim (read, not verified: the
/// client trusts its TLS peer; servers use ``DynamicTokenVerifier``). There is no refresh
/// token: the bearer JWT itself is refreshed.
///
/// Error mapping: Docs/Providers/Dynamic.md, "Errors".
///
/// Concurrency: a `Sendable` value; every flow's state lives in its challenge, and the only
/// shared state is the set of social `state`s already exchanged (a return link is exchanged
/// once). It never retries a request on its own (a resent `create` burns the send budget).
public struct DynamicProvider: RefreshableProvider, ResendableProvider, RedirectHandlingProvider {
    /// The provider id, `AuthProviderID.dynamic` by default.
    public let id: AuthProviderID
    /// The environment, base URL and unpublished defaults.
    public let configuration: DynamicConfiguration

    /// The number of digits of a Dynamic code: 6 (schema `sixDigitsVerificationToken`,
    /// Docs/Providers/Dynamic.md).
    public static let codeLength = 6

    /// The `SignInRequest.options` key of a captcha token, for environments with captcha
    /// enabled: `"captchaToken"`. The value is sent as `captchaToken` on create, signin and
    /// retry; it must not be blank.
    public static let captchaTokenOption = "captchaToken"

    /// ``/MultiAuth/Challenge/providerState`` keys this provider writes.
    enum StateKey {
        static let verificationUUID = "verificationUUID"
        static let email = "email"
        static let sms = "sms"
        static let mfaToken = "mfaToken"
        static let mfaBearer = "mfaBearer"
        static let captchaToken = "captchaToken"
        static let socialState = "socialState"
        static let socialProvider = "socialProvider"
    }

    /// The social `state`s this provider (and its copies) already exchanged.
    let usedStates = UsedStates()

    /// Creates a provider.
    /// - Parameters:
    ///   - configuration: The environment to talk to.
    ///   - id: The provider id (default `"dynamic"`).
    public init(configuration: DynamicConfiguration, id: AuthProviderID = .dynamic) {
        self.configuration = configuration
        self.id = id
    }

    /// Creates a provider for `environmentID` at `baseURL` with the default assumptions
    /// (prefer ``init(configuration:id:)`` with ``DynamicConfiguration/production(environmentID:sessionPublicKey:socialRedirectURL:)``
    /// or ``DynamicConfiguration/sandbox(environmentID:sessionPublicKey:socialRedirectURL:)``).
    /// - Parameters:
    ///   - environmentID: The Dynamic environment id.
    ///   - baseURL: The API base URL (default `https://app.dynamicauth.com/api/v0`).
    public init(environmentID: String, baseURL: URL = DynamicConfiguration.productionBaseURL) {
        self.init(configuration: DynamicConfiguration(environmentID: environmentID, baseURL: baseURL))
    }

    // MARK: Sign-in

    /// Creates an e-mail or SMS verification and returns its 6-digit code challenge.
    ///
    /// Publishes `deliveryStatus(.sent)` on the verification's channel. Makes exactly one
    /// request and never retries it.
    /// - Returns: `.challenge` with `attemptsRemaining` = ``DynamicConfiguration/maximumAttempts``
    ///   and `expiresAt` = now + ``DynamicConfiguration/codeLifetime`` ([ASSUMPTION]).
    /// An `.oauth(name)` request starts a social login instead (``socialProviders``;
    /// Docs/Providers/Dynamic.md, "Social login"): `initAuth`, then `loginUrl`, then an
    /// `.oauthRedirect(url:)` challenge expiring after ``DynamicConfiguration/socialLoginLifetime``.
    /// - Throws: `AuthError` `.unsupported` (an OAuth provider outside ``socialProviders`` or
    ///   with a channel, phone + non-SMS channel, e-mail + non-email channel; no request made),
    ///   `.configuration` (social login without ``DynamicConfiguration/socialRedirectURL``; a deep
    ///   link Dynamic has not whitelisted, `unauthorized_mobile_deeplink_url`; a provider not
    ///   enabled, `provider_not_available`), `.invalidInput` with `.invalidCountryCode` (a number with no
    ///   ISO region; no request made) or a blank ``captchaTokenOption`` (no request made),
    ///   `.configuration` (also: the environment requires a captcha token),
    ///   `.rateLimited` with `retryAfter` (the 3-per-10-minutes send limit), `.network`,
    ///   `.providerUnavailable`, `.malformedResponse`, or `CancellationError`.
    public func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        try configuration.validate(provider: id)
        if case .oauth(let name) = request.identity { return try await startSocial(name, request, context: context) }
        var state = ProviderState()
        let captcha = try Self.captchaToken(in: request, provider: id)
        state[StateKey.captchaToken] = captcha
        let channel: DeliveryChannel
        let destination: String
        let httpRequest: HTTPRequest
        switch (request.identity, request.channel) {
        case (.email(let email), nil), (.email(let email), .some(.email)):
            channel = .email
            destination = email.masked
            state[StateKey.email] = Secret(email.identityKey)
            httpRequest = try .json(
                .post, configuration.endpoint("emailVerifications/create"),
                body: DynamicWire.EmailCreate(email: email.identityKey, captchaToken: captcha))
        case (.phone(let phone), nil), (.phone(let phone), .some(.sms)):
            channel = .sms
            destination = phone.masked
            let wire = try Self.smsIdentity(phone, provider: id)
            try state.encode(wire, forKey: StateKey.sms)
            httpRequest = try .json(
                .post, configuration.endpoint("smsVerifications/create"),
                body: DynamicWire.SMSCreateRequest(wire, captchaToken: captcha))
        default:
            throw AuthError(
                .unsupported, "Dynamic supports e-mail codes by e-mail and phone codes by SMS only", provider: id)
        }
        let created: DynamicWire.VerificationCreated = try await send(httpRequest, channel: channel, context: context)
        state[StateKey.verificationUUID] = Secret(created.verificationUUID)
        context.emit(.deliveryStatus(channel: channel, status: .sent))
        return .challenge(
            codeChallenge(
                flowID: context.flowID ?? .random(), channel: channel, destination: destination, state: state,
                now: context.now))
    }

    /// The captcha token of `request` (option ``captchaTokenOption``), trimmed; `nil` when absent.
    /// - Throws: `AuthError` `.invalidInput` when the option is present but blank.
    static func captchaToken(in request: SignInRequest, provider: AuthProviderID) throws -> Secret? {
        guard let raw = request.options[captchaTokenOption] else { return nil }
        let token = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else {
            throw AuthError(
                .invalidInput, "the captcha token option is blank; pass the token the captcha widget returned",
                provider: provider)
        }
        return Secret(token)
    }

    /// The wire identity of an SMS verification, from a parsed number:
    /// `phoneCountryCode` `"+44"`, `phoneNumber` `"2079460958"`, `isoCountryCode` `"GB"`.
    /// - Throws: `AuthError` `.invalidInput` with `.invalidCountryCode` when the number has no
    ///   ISO 3166-1 region (non-geographic calling codes).
    static func smsIdentity(_ phone: PhoneNumber, provider: AuthProviderID) throws -> DynamicWire.SMSCreate {
        guard let region = phone.regionCode else {
            throw AuthError(
                .invalidInput, "Dynamic needs an ISO country code; this number belongs to no region",
                provider: provider,
                reason: .invalidCountryCode)
        }
        return DynamicWire.SMSCreate(
            phoneCountryCode: "+\(phone.countryCallingCode)", phoneNumber: phone.nationalNumber, isoCountryCode: region)
    }

    private func codeChallenge(
        flowID: FlowID, channel: DeliveryChannel, destination: String?, state: ProviderState, now: Date
    ) -> Challenge {
        Challenge(
            flowID: flowID, provider: id,
            kind: .oneTimeCode(length: Self.codeLength, channel: channel, linkAlsoSent: false),
            destination: destination, issuedAt: now,
            expiresAt: now.addingTimeInterval(configuration.codeLifetime.timeInterval),
            resendAvailableAt: now, attemptsRemaining: configuration.maximumAttempts, providerState: state)
    }

    /// Signs in with the code: `POST …/{email|sms}Verifications/signin`.
    ///
    /// A wrong code leaves the challenge usable: the error carries `attemptsRemaining`, one less
    /// than the challenge's.
    /// The MFA step (a challenge this provider issued with a pending token) is answered with
    /// the authenticator's 6-digit code instead: `POST …/users/mfa/auth/totp {code}` with the
    /// pending token as bearer ("Upgrade JWT scope with valid MFA session").
    /// - Returns: `.signedIn` when the response has a JWT that needs no further step;
    ///   `.challenge` (an MFA step, kind `.totp(digits: 6, enrollment: nil)`) when the token's
    ///   scope holds `requiresAdditionalAuth` or only an `mfaToken` came.
    /// - Throws: `AuthError` `.invalidInput` (`.invalidCodeFormat`: not 6 digits; no request
    ///   made), `.challengeNotPending` (no `verificationUUID` in the state), `.invalidCode`
    ///   with `attemptsRemaining` (`wrong_*_verification_token`; `mfa_invalid_code` in the MFA
    ///   step, the step staying usable), `.expired`
    ///   (`email_verification_expired`, `invalid_*_verification`), `.attemptsExhausted`
    ///   (`too_many_*_verification_attempts`), `.unauthorized` (the MFA step's token expired or
    ///   was refused; or the upgrade still asks for a factor, `mfa_required`), `.configuration` (a cookie-authentication
    ///   environment: the code was accepted but no JWT came back; or a captcha is required),
    ///   `.rateLimited`, `.unauthorized` (403), `.network`, `.providerUnavailable`,
    ///   `.malformedResponse`, or `CancellationError`.
    public func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        try configuration.validate(provider: id)
        if Self.isMFAStep(challenge) { return try await respondToMFA(challenge, answer: answer, context: context) }
        let code = try answer.normalizedCode(length: Self.codeLength)
        guard let uuid = challenge.providerState[StateKey.verificationUUID],
            let channel = Self.channel(of: challenge)
        else {
            throw AuthError(.challengeNotPending, "the challenge carries no Dynamic verification", provider: id)
        }
        let path = channel == .sms ? "smsVerifications/signin" : "emailVerifications/signin"
        let request = try HTTPRequest.json(
            .post, configuration.endpoint(path),
            body: DynamicWire.SignIn(
                verificationUUID: uuid.reveal(), verificationToken: Secret(code),
                captchaToken: challenge.providerState[StateKey.captchaToken],
                sessionPublicKey: configuration.wireSessionPublicKey))
        let verified: DynamicWire.VerifyResponse
        do {
            verified = try await send(request, channel: channel, context: context)
        } catch var error as AuthError where error.code == .invalidCode {
            error.attemptsRemaining = max(0, (challenge.attemptsRemaining ?? configuration.maximumAttempts) - 1)
            throw error
        }
        return try finish(
            verified, flowID: challenge.flowID, destination: challenge.destination, state: challenge.providerState,
            context: context)
    }

    /// Revokes the session: `POST /sdk/{env}/revoke` with the bearer token → `204`.
    ///
    /// Idempotent: a session without a token makes no request, and `401` (already revoked or
    /// expired) counts as signed out. `AuthClient.signOut` removes the local session even when
    /// this throws, and reports the error in its outcome.
    /// - Throws: `AuthError` `.network`, `.providerUnavailable`, `.unauthorized` (403),
    ///   `.generic`, or `CancellationError`.
    public func signOut(_ session: AuthSession, context: AuthContext) async throws {
        guard let token = (session.credentials.accessToken ?? session.credentials.idToken)?.reveal() else { return }
        try configuration.validate(provider: id)
        let request = HTTPRequest(
            method: .post, url: configuration.endpoint("revoke"),
            headers: ["Authorization": "Bearer \(token)", "Accept": "application/json"])
        let response = try await context.transport.send(request)
        if response.isSuccess || response.status == 401 { return }
        throw mapError(response, channel: nil)
    }

    // MARK: Abilities

    /// Refreshes the session: `POST /sdk/{env}/refresh` with the current bearer JWT → a new
    /// `VerifyResponse` (same ``/MultiAuth/AuthSession/id`` and `createdAt`).
    ///
    /// Revocation and transient failures are told apart (Docs/Providers/Dynamic.md,
    /// "Refresh"): a rejected bearer (`401`, `403`, a `400` whose text names the session,
    /// token or JWT, an MFA demand) ends the session; `429`, `5xx` and a dropped connection
    /// never do. `AuthClient` coalesces concurrent refreshes of one token into one call.
    /// - Throws: `AuthError` `.sessionExpired` with the raw `providerCode` (the body's code,
    ///   else the HTTP status; `"mfa_required"`; none when the session holds no token: sign in
    ///   again), `.rateLimited` with `retryAfter` (`429`), `.providerUnavailable` (`5xx`, with
    ///   `retryAfter` when sent), `.network`, `.configuration` (unknown environment; a
    ///   cookie-authentication environment), `.generic` (any other refusal, the session is
    ///   kept), `.malformedResponse`, or `CancellationError`.
    public func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession {
        guard let token = (session.credentials.accessToken ?? session.credentials.idToken)?.reveal() else {
            throw AuthError(.sessionExpired, "the session has no Dynamic token to refresh; sign in again", provider: id)
        }
        try configuration.validate(provider: id)
        let request = HTTPRequest(
            method: .post, url: configuration.endpoint("refresh"),
            headers: ["Authorization": "Bearer \(token)", "Accept": "application/json"])
        let response = try await context.transport.send(request)
        guard response.isSuccess else { throw refreshError(response) }
        let verified = try response.decodeJSON(DynamicWire.VerifyResponse.self, provider: id)
        if Self.mfaPendingToken(verified) != nil {
            throw AuthError(
                .sessionExpired, "the refresh asked for an MFA step; sign in again", provider: id,
                providerCode: "mfa_required")
        }
        return try makeSession(
            verified, sessionID: session.id, createdAt: session.createdAt, now: context.now, previous: session)
    }

    /// Sends a new code for the challenge: `POST …/{email|sms}Verifications/retry` → `201`
    /// with a `verificationUUID` (the returned one is kept; it may be new).
    ///
    /// Each retry counts against the send limit (3 per 10 minutes per address).
    /// - Parameters:
    ///   - challenge: The pending code challenge.
    ///   - channel: `nil` or the challenge's own channel; Dynamic cannot switch channels.
    ///   - context: Transport, time and event sink for this call.
    /// - Returns: The challenge with a fresh expiry and attempt count.
    /// - Throws: `AuthError` `.unsupported` (another channel, or the MFA step), `.challengeNotPending`,
    ///   `.rateLimited` with `retryAfter`, `.expired`, `.network`, `.providerUnavailable`, or
    ///   `CancellationError`.
    public func resend(_ challenge: Challenge, channel: DeliveryChannel?, context: AuthContext) async throws
        -> Challenge
    {
        try configuration.validate(provider: id)
        guard let uuid = challenge.providerState[StateKey.verificationUUID],
            let own = Self.channel(of: challenge),
            !Self.isMFAStep(challenge)
        else {
            throw AuthError(
                .challengeNotPending, "the challenge carries no Dynamic verification to resend", provider: id)
        }
        guard channel == nil || channel == own else {
            throw AuthError(.unsupported, "Dynamic resends on the verification's own channel only", provider: id)
        }
        let request: HTTPRequest
        if own == .sms {
            guard let sms = try challenge.providerState.decode(DynamicWire.SMSCreate.self, forKey: StateKey.sms) else {
                throw AuthError(.challengeNotPending, "the challenge carries no phone number", provider: id)
            }
            request = try .json(
                .post, configuration.endpoint("smsVerifications/retry"),
                body: DynamicWire.SMSRetry(
                    verificationUUID: uuid.reveal(), phoneCountryCode: sms.phoneCountryCode,
                    phoneNumber: sms.phoneNumber,
                    isoCountryCode: sms.isoCountryCode, captchaToken: challenge.providerState[StateKey.captchaToken]))
        } else {
            guard let email = challenge.providerState[StateKey.email] else {
                throw AuthError(.challengeNotPending, "the challenge carries no e-mail address", provider: id)
            }
            request = try .json(
                .post, configuration.endpoint("emailVerifications/retry"),
                body: DynamicWire.EmailRetry(
                    verificationUUID: uuid.reveal(), email: email.reveal(),
                    captchaToken: challenge.providerState[StateKey.captchaToken]))
        }
        let created: DynamicWire.VerificationCreated = try await send(request, channel: own, context: context)
        var state = challenge.providerState
        state[StateKey.verificationUUID] = Secret(created.verificationUUID)
        context.emit(.deliveryStatus(channel: own, status: .sent))
        return codeChallenge(
            flowID: challenge.flowID, channel: own, destination: challenge.destination, state: state, now: context.now)
    }

    /// The verification's channel, read from the challenge kind (`email` or `sms`).
    static func channel(of challenge: Challenge) -> DeliveryChannel? {
        guard case .oneTimeCode(_, let channel, _) = challenge.kind, channel == .email || channel == .sms else {
            return nil
        }
        return channel
    }

    // MARK: Wire

    /// Sends `request`; a 2xx body decodes as `Result`, anything else goes through `mapError(_:channel:)`.
    func send<Result: Decodable>(_ request: HTTPRequest, channel: DeliveryChannel?, context: AuthContext)
        async throws -> Result
    {
        let response = try await context.transport.send(request)
        guard response.isSuccess else { throw mapError(response, channel: channel) }
        return try response.decodeJSON(Result.self, provider: id)
    }
}
