import Foundation
import MultiAuth
import MultiAuthCrypto

/// A Truecaller-style phone verification provider (Docs/Providers/Truecaller.md): the SMS OTP
/// flow for non-Truecaller users, and the check of signed one-tap profiles.
///
/// There is no refresh: Truecaller's OTP flow issues an access token a server checks once
/// (``TruecallerTokenVerifier``), and has no refresh or revoke API.
///
/// ## OTP flow
/// - ``start(_:context:)`` takes `.phone(number)` (channel `nil` or `.sms`), POSTs
///   `/v1/otp/installation/create` and returns either a `.oneTimeCode` challenge
///   (state `otpInitiated`; `expiresAt` = now + `tokenTtl` seconds on the injected clock;
///   `requirements` = `[.name]` unless the request's options carry the name) or,
///   for a number already verified on this installation, a session at once (`verifiedBefore`).
/// - ``respond(to:with:context:)`` needs the code **and** a ``/MultiAuth/PersonName``. Both,
///   and the challenge's TTL, are checked before any network call. It emits `otpReceived`,
///   POSTs `/verify`, stores the name (`POST /v1/profile`), emits `verificationComplete`,
///   GETs the profile and returns a session whose access token a server checks with
///   ``TruecallerTokenVerifier``.
/// - States are published as `AuthEvent.Kind.verificationStateChanged(_:)` with the raw values
///   of ``TruecallerVerificationState``.
///
/// ## One-tap (Docs/Providers/Truecaller.md, "One-tap hand-off")
/// ``start(_:context:)`` with a `SignInRequest.truecallerOneTap(fallback:options:)`
/// request asks ``app`` whether the Truecaller app is installed. If it is, the answer is a
/// challenge of kind `.oauthRedirect(url:)` whose URL is TrueSDK's profile request (an archived
/// `TCTrueProfileRequest` with a fresh `requestNonce`, for `https://www.truecaller.com/userProfile`);
/// the app opens it (`TruecallerAppHandoff.open`), and the Truecaller app's return link through the
/// app link completes the flow with `AuthClient.handleRedirect(_:)`
/// (``handleRedirect(_:pending:context:)``: the nonce of the pending flow, the signed profile
/// checked by ``TruecallerProfileVerifier``). If it is not, a request with a fallback number
/// runs the OTP flow below. ``signIn(with:expectedNonce:context:)`` checks a response obtained
/// elsewhere (TrueSDK's own delegate), outside a client.
///
/// Errors are `AuthError`s whose `providerCode` is the raw Truecaller code
/// (``TruecallerErrorCode``). Concurrency: a `Sendable` value; the only shared state is the
/// key cache (an actor). Time only from `context.time`.
public struct TruecallerProvider: RedirectHandlingProvider {
    /// `AuthProviderID.truecaller`.
    public let id: AuthProviderID
    /// The configuration.
    public let configuration: TruecallerConfiguration
    /// The one-tap profile verifier (with its key cache).
    public let profileVerifier: TruecallerProfileVerifier
    /// Whether the Truecaller app is installed, asked before each one-tap start.
    public let app: TruecallerApp
    /// The one-tap nonces this provider (and its copies) already signed in with: a return link
    /// is exchanged once, even by a caller without the client's single-flight.
    let usedNonces = UsedNonces()

    /// Provider-state keys of an OTP challenge.
    enum StateKey {
        static let verificationToken = "verificationToken"
        static let countryCodeName = "countryCodeName"
        static let phoneNumber = "phoneNumber"
        static let name = "name"
        static let oneTapNonce = "oneTapNonce"
    }

    /// `SignInRequest.options` key for the first name, when the app collects the name before
    /// the code (then `ChallengeAnswer.name` may be `nil`).
    public static let firstNameOption = "firstName"
    /// `SignInRequest.options` key for the last name (optional).
    public static let lastNameOption = "lastName"

    /// Creates a provider.
    /// - Parameters:
    ///   - configuration: App key, app link, base URLs, installation id.
    ///   - id: The provider id; `AuthProviderID.truecaller` by default.
    ///   - app: Whether the Truecaller app is installed (one-tap); ``TruecallerApp/system`` by
    ///     default (UIKit's answer on Apple platforms, never installed elsewhere).
    public init(configuration: TruecallerConfiguration, id: AuthProviderID = .truecaller, app: TruecallerApp = .system)
    {
        self.id = id
        self.configuration = configuration
        self.profileVerifier = TruecallerProfileVerifier(configuration: configuration)
        self.app = app
    }

    // MARK: Start

    /// Starts a one-tap hand-off, or requests verification of a phone number
    /// (`POST /v1/otp/installation/create`).
    /// - Parameters:
    ///   - request: A one-tap request (`SignInRequest.truecallerOneTap(fallback:options:)`:
    ///     with the Truecaller app installed, a hand-off challenge, no network call; without
    ///     it, the OTP flow for the fallback number), or `.phone(number)` with channel `nil` or
    ///     `.sms`; the number's region must be in ``TruecallerConfiguration/otpRegions``.
    ///     Options ``firstNameOption`` and ``lastNameOption`` may carry the name up front; it
    ///     is checked here, before any network call, and used when the answer brings no name.
    ///   - context: Transport, time and event sink.
    /// - Returns: `.challenge` of kind `.oauthRedirect(url:)` (one-tap: the hand-off URL,
    ///   expiring after ``TruecallerConfiguration/maximumProfileAge``); `.challenge` (a
    ///   `.oneTimeCode` of ``TruecallerConfiguration/otpLength`` digits on SMS, expiring after
    ///   `tokenTtl`, requiring ``/MultiAuth/Challenge/Requirement/name`` unless the options
    ///   carried the name) after emitting `otpInitiated`; or `.signedIn` after emitting
    ///   `verifiedBefore`.
    /// - Throws: `AuthError` `.unsupported` (not a phone, another channel, a region outside
    ///   the OTP regions; code 8 for a one-tap request without a fallback number when the
    ///   Truecaller app is not installed), `.invalidInput` `.invalidName` with provider code
    ///   `"18"` (a name option breaking the rules), `.invalidInput` (a blank or over-long
    ///   ``requestNonceOption``), `.configuration` (code 1, blank app key; code 2, an app link
    ///   that is not an `https` URL; a title type or locale out of range), the mapped backend
    ///   codes (`.rateLimited` with `retryAfter` for `429`, …), `.malformedResponse`,
    ///   `.network`, `.providerUnavailable`; or `CancellationError`.
    public func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        try configuration.validate()
        if Self.isOneTap(request) {
            if let handoff = try await oneTapStart(request, context: context) { return handoff }
            return try await otpStart(Self.withoutOneTap(request), context: context)
        }
        return try await otpStart(request, context: context)
    }

    /// The OTP flow's start (`POST /v1/otp/installation/create`); see ``start(_:context:)``.
    private func otpStart(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        guard case .phone(let phone) = request.identity else {
            throw AuthError(.unsupported, "Truecaller verifies phone numbers only", provider: id)
        }
        if let channel = request.channel, channel != .sms {
            throw AuthError(.unsupported, "Truecaller sends codes by SMS only", provider: id)
        }
        guard let region = phone.regionCode?.uppercased() else {
            throw AuthError(.unsupported, "the number's region could not be determined", provider: id)
        }
        if let allowed = configuration.otpRegions, !allowed.contains(region) {
            throw AuthError(
                .unsupported, "Truecaller OTP verification is not available in region \(region)", provider: id)
        }
        let presetName: PersonName? = try request.options[Self.firstNameOption].map { first in
            try checkedName(first, request.options[Self.lastNameOption] ?? "")
        }
        let body = TruecallerWire.CreateRequest(
            countryCodeName: region, phoneNumber: phone.nationalNumber, clientId: 16, phonePermission: false, os: "ios",
            version: configuration.appVersion, sequence: 1, deviceId: configuration.deviceID.reveal(),
            simSerial: [configuration.deviceID.reveal()])
        let url = configuration.otpBaseURL.appending(path: "v1/otp/installation/create")
        let object = try await TruecallerWire.send(
            .json(.post, url, body: body, headers: TruecallerWire.headers(configuration)), transport: context.transport)
        try Task.checkCancellation()

        if object["method"]?.stringValue == "sms" {
            guard let token = object["verificationToken"]?.stringValue, !token.isEmpty else {
                throw AuthError(.malformedResponse, "create answered sms without a verificationToken", provider: id)
            }
            guard
                let seconds = WireNumber.number(
                    object["tokenTtl"]?.doubleValue, text: object["tokenTtl"]?.stringValue)
            else {
                throw AuthError(.malformedResponse, "create answered sms without a numeric tokenTtl", provider: id)
            }
            // Finite, positive, at most 10 years (Docs/Security.md, "Numbers from the wire").
            let ttl = try WireNumber.lifetime(seconds: seconds, field: "tokenTtl", provider: id)
            let now = context.now
            var state = ProviderState()
            state[StateKey.verificationToken] = Secret(token)
            state[StateKey.countryCodeName] = Secret(region)
            state[StateKey.phoneNumber] = Secret(phone.nationalNumber)
            if let presetName { try state.encode(presetName, forKey: StateKey.name) }
            context.emit(TruecallerVerificationState.otpInitiated.event)
            return .challenge(
                Challenge(
                    flowID: context.flowID ?? .random(), provider: id,
                    kind: .oneTimeCode(length: configuration.otpLength, channel: .sms, linkAlsoSent: false),
                    destination: phone.masked, issuedAt: now, expiresAt: now.addingTimeInterval(ttl),
                    providerState: state,
                    // `/verify` is followed by `POST /v1/profile` with the name (error 18 without a
                    // first name): say so before the code arrives, unless the request carried it.
                    requirements: presetName == nil ? [.name] : []))
        }
        if object["status"]?.int64Value == 1, let accessToken = object["accessToken"]?.stringValue.map({ Secret($0) }),
            !accessToken.isEmpty
        {
            context.emit(TruecallerVerificationState.verifiedBefore.event)
            let profile = try await fetchProfile(accessToken: accessToken, region: region, context: context)
            return .signedIn(
                session(profile: profile, accessToken: accessToken, fallbackName: presetName, context: context))
        }
        throw AuthError(
            .malformedResponse, "create answered neither an SMS challenge nor a verified number", provider: id)
    }

    // MARK: Respond

    /// Completes the OTP flow with the code and the user's name.
    /// - Parameters:
    ///   - challenge: A challenge this provider issued (possibly in an earlier process).
    ///   - answer: The code (``TruecallerConfiguration/otpLength`` digits) and a
    ///     ``/MultiAuth/PersonName`` (required unless the request's options carried the name;
    ///     the answer's name wins).
    ///   - context: Transport, time and event sink.
    /// - Returns: `.signedIn` with the access token in the credentials.
    /// - Throws: `AuthError` (local, no network call): `.invalidInput` with reason
    ///   `.answerMismatch` (no name) or `.invalidName` (name rules), both with provider code
    ///   `"18"`; `.invalidInput` `.invalidCodeFormat`; `.expired` (TTL passed);
    ///   `.invalidInput` `.answerMismatch` (not a Truecaller OTP challenge). From the backend:
    ///   `.invalidCode` for a refused verify (any `4xx` but `429`, or a `code` this adapter does
    ///   not know; raw code kept, `attemptsRemaining` when the body has it; the sandbox's 4001
    ///   too), `.rateLimited` with `retryAfter` (`429`; the sandbox's 4290), `.expired` (the
    ///   sandbox's 4002), a documented message's meaning, `.malformedResponse`, `.network`,
    ///   `.providerUnavailable`. Or `CancellationError`.
    public func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        try configuration.validate()
        guard challenge.provider == id, case .oneTimeCode = challenge.kind,
            let token = challenge.providerState[StateKey.verificationToken],
            let region = challenge.providerState[StateKey.countryCodeName]?.reveal(),
            let national = challenge.providerState[StateKey.phoneNumber]?.reveal()
        else {
            throw AuthError(.invalidInput, "not a Truecaller OTP challenge", provider: id, reason: .answerMismatch)
        }
        if challenge.isExpired(at: context.now) {
            throw AuthError(.expired, "the verification code expired; request a new one", provider: id)
        }
        let name: PersonName
        if let given = answer.name {
            // Re-check: a decoded PersonName skips its initializer's rules.
            name = try checkedName(given.firstName, given.lastName)
        } else if let preset = try challenge.providerState.decode(PersonName.self, forKey: StateKey.name) {
            name = try checkedName(preset.firstName, preset.lastName)
        } else {
            throw AuthError(
                .invalidInput, "Truecaller needs the user's first name to finish", provider: id,
                providerCode: String(TruecallerErrorCode.invalidName.rawValue), reason: .answerMismatch)
        }
        let code = try answer.normalizedCode(length: challenge.expectedCodeLength)
        context.emit(TruecallerVerificationState.otpReceived.event)

        let verifyURL = configuration.otpBaseURL.appending(path: "v1/otp/installation/verify")
        let body = TruecallerWire.VerifyRequest(
            countryCodeName: region, phoneNumber: national, secretToken: Secret(code), verificationToken: token)
        let object = try await TruecallerWire.send(
            .json(.post, verifyURL, body: body, headers: TruecallerWire.headers(configuration)), call: .verify,
            transport: context.transport)
        guard let accessToken = object["accessToken"]?.stringValue.map({ Secret($0) }), !accessToken.isEmpty else {
            throw AuthError(
                .malformedResponse, "verify answered without an access token or an error code", provider: id)
        }
        try Task.checkCancellation()

        let profileURL = configuration.profileBaseURL(forRegion: region).appending(path: "v1/profile")
        // TrueSDK never reads this answer: any 2xx is success, whatever the body (204, empty, `{}`).
        try await TruecallerWire.sendIgnoringBody(
            .json(
                .post, profileURL, body: TruecallerWire.NameRequest(firstName: name.firstName, lastName: name.lastName),
                headers: TruecallerWire.headers(configuration, accessToken: accessToken)),
            transport: context.transport)
        context.emit(TruecallerVerificationState.verificationComplete.event)
        let profile = try await fetchProfile(accessToken: accessToken, region: region, context: context)
        return .signedIn(session(profile: profile, accessToken: accessToken, fallbackName: name, context: context))
    }

    /// Truecaller has no sign-out or revoke endpoint (Docs/Providers/Truecaller.md); nothing to do.
    /// Idempotent; never throws.
    public func signOut(_ session: AuthSession, context: AuthContext) async throws {}

    // MARK: One-tap

    /// Signs in with a one-tap profile response obtained outside a client (TrueSDK's own
    /// delegate) after verifying it (see ``TruecallerProfileVerifier`` for the checks and their
    /// order). The session is not stored: an app that wants `AuthClient` to keep it uses the
    /// client's one-tap flow instead (``handleRedirect(_:pending:context:)``).
    /// - Parameters:
    ///   - response: The response from the Truecaller app.
    ///   - expectedNonce: The nonce the app issued with the profile request.
    ///   - context: Transport (key endpoint) and time.
    /// - Returns: A session without an access token; the signed payload and signature are kept
    ///   in `credentials.extra` (`payload`, `signature`, `signatureAlgorithm`) for a server to
    ///   check again.
    /// - Throws: `AuthError` `.signatureInvalid` (`"15"`, `"16"`), `.malformedResponse`
    ///   (`"13"`), `.expired`, key endpoint errors; `CancellationError`.
    public func signIn(with response: TruecallerProfileResponse, expectedNonce: String, context: AuthContext)
        async throws -> AuthSession
    {
        let profile = try await profileVerifier.verify(response, expectedNonce: expectedNonce, context: context)
        return oneTapSession(response, profile: profile, context: context)
    }

    // MARK: Helpers

    /// The name rules (error 18 meaning): ``/MultiAuth/PersonName``'s, with this provider and
    /// code 18 on the error.
    private func checkedName(_ first: String, _ last: String) throws -> PersonName {
        do { return try PersonName(firstName: first, lastName: last) } catch var error as AuthError {
            error.provider = id
            error.providerCode = String(TruecallerErrorCode.invalidName.rawValue)
            throw error
        }
    }

    private func fetchProfile(accessToken: Secret, region: String, context: AuthContext) async throws
        -> TruecallerProfile
    {
        let url = configuration.profileBaseURL(forRegion: region).appending(path: "v1/profile")
        let object = try await TruecallerWire.send(
            HTTPRequest(
                method: .get, url: url, headers: TruecallerWire.headers(configuration, accessToken: accessToken)),
            transport: context.transport)
        return try TruecallerProfile(object: object)
    }

    private func session(
        profile: TruecallerProfile, accessToken: Secret, fallbackName: PersonName?, context: AuthContext
    ) -> AuthSession {
        var user = profile.authUser
        if user.name == nil { user.name = fallbackName }
        return AuthSession(
            provider: id, user: user, credentials: Credentials(accessToken: accessToken, tokenType: "Bearer"),
            createdAt: context.now)
    }
}
