import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

/// The provider for the reference protocol (`ReferenceProtocol` in `MultiAuthSandbox`): e-mail
/// codes, SMS/WhatsApp codes with automatic WhatsApp → SMS fallback, magic-link redirects,
/// resend, rotating refresh tokens and remote sign-out.
///
/// It is the worked example of an adapter and the subject of the conformance kit's self-test:
/// every check of ``ProviderConformance`` passes against it. Stateless: everything a flow needs
/// lives in the challenge's provider state (`flowId`, `state`), so a challenge saved before the
/// process died can be completed by a fresh instance.
///
/// Identities: e-mail with channel `email` (default); phone with `sms` (default when the
/// channel is explicit) or `whatsapp`. With no channel, a phone gets WhatsApp and the server
/// may fall back to SMS (a `fallbackTriggered` event). Anything else (OAuth, phone + `email`,
/// e-mail + `sms`) throws `AuthError(.unsupported)` before any network call.
public struct ReferenceProvider: RedirectHandlingProvider, RefreshableProvider, ResendableProvider {
    /// The provider id, `"reference"` by default.
    public let id: AuthProviderID
    /// The backend's base URL, e.g. `https://ref.sandbox.test`.
    public let baseURL: URL

    /// Creates a provider talking to `baseURL`.
    public init(
        id: AuthProviderID = "reference", baseURL: URL = URL(string: "https://\(ReferenceProtocol.defaultHost)")!
    ) {
        self.id = id
        self.baseURL = baseURL
    }

    // MARK: Sign-in

    /// Starts a code flow.
    /// - Throws: `AuthError` `.unsupported` (identity or channel), `.invalidInput`,
    ///   `.channelUnavailable`, `.rateLimited`, `.network`, `.providerUnavailable`,
    ///   `.malformedResponse`, or `CancellationError`.
    public func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        let identity: String
        let channel: DeliveryChannel
        let destination: String
        switch (request.identity, request.channel) {
        case (.email(let email), nil), (.email(let email), .some(.email)):
            (identity, channel, destination) = (email.identityKey, .email, email.masked)
        case (.phone(let phone), nil):
            (identity, channel, destination) = (phone.e164, .whatsapp, phone.masked)
        case (.phone(let phone), .some(let explicit)) where explicit == .sms || explicit == .whatsapp:
            (identity, channel, destination) = (phone.e164, explicit, phone.masked)
        default:
            throw AuthError(
                .unsupported, "the reference provider supports e-mail codes and SMS/WhatsApp codes only", provider: id)
        }
        // A fresh random value, unrelated to the flow id (which appears in events and logs).
        let state = FlowID.random().rawValue
        let body = ReferenceProtocol.StartRequest(
            identity: Secret(identity), channel: channel.rawValue, allowFallback: request.channel == nil,
            state: Secret(state))
        let response: ReferenceProtocol.ChallengeResponse = try await post("/otp/start", body, context: context)
        if let from = response.fallbackFrom {
            context.emit(
                .fallbackTriggered(
                    from: DeliveryChannel(rawValue: from), to: DeliveryChannel(rawValue: response.channel)))
        }
        context.emit(.deliveryStatus(channel: DeliveryChannel(rawValue: response.channel), status: .sent))
        var providerState = ProviderState()
        providerState["flowId"] = response.flowId
        providerState[revealing: "state"] = state
        return .challenge(
            makeChallenge(
                response, flowID: context.flowID ?? .random(), destination: destination,
                state: providerState, now: context.now))
    }

    private func makeChallenge(
        _ response: ReferenceProtocol.ChallengeResponse, flowID: FlowID, destination: String?, state: ProviderState,
        now: Date
    ) -> Challenge {
        // Relative times only: the server's absolute `expiresAt` is on its clock, which may be skewed.
        Challenge(
            flowID: flowID, provider: id,
            kind: .oneTimeCode(
                length: response.length, channel: DeliveryChannel(rawValue: response.channel), linkAlsoSent: true),
            destination: destination, issuedAt: now,
            expiresAt: now.addingTimeInterval(TimeInterval(response.expiresIn)),
            resendAvailableAt: now.addingTimeInterval(TimeInterval(response.resendAfter)),
            attemptsRemaining: response.attempts, providerState: state)
    }

    /// Verifies the code.
    /// - Throws: `AuthError` `.invalidCode` (with `attemptsRemaining`), `.expired`,
    ///   `.attemptsExhausted`, `.challengeNotPending`, `.codeAlreadyUsed`, `.network`,
    ///   `.providerUnavailable`, or `CancellationError`.
    public func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        guard let flowID = challenge.providerState[revealing: "flowId"] else {
            throw AuthError(.challengeNotPending, "the challenge carries no reference flow", provider: id)
        }
        return .signedIn(try await verify(flowID: flowID, code: answer.rawCode.reveal(), context: context))
    }

    private func verify(flowID: String, code: String, context: AuthContext) async throws -> AuthSession {
        let tokens: ReferenceProtocol.TokenResponse = try await post(
            "/otp/verify", ReferenceProtocol.VerifyRequest(flowId: Secret(flowID), code: Secret(code)), context: context
        )
        return makeSession(tokens, id: UUID().uuidString.lowercased(), createdAt: context.now, now: context.now)
    }

    private func makeSession(
        _ tokens: ReferenceProtocol.TokenResponse, id sessionID: String, createdAt: Date, now: Date
    ) -> AuthSession {
        let user = AuthUser(
            id: tokens.user.id, phone: tokens.user.phone, email: tokens.user.email)
        return AuthSession(
            id: sessionID, provider: id, user: user,
            credentials: Credentials(
                accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, tokenType: "Bearer",
                expiresAt: now.addingTimeInterval(TimeInterval(tokens.expiresIn))),
            createdAt: createdAt)
    }

    /// Signs out remotely (revokes the refresh token). Idempotent: an already revoked token
    /// (`401 invalid_token`) counts as signed out.
    /// - Throws: `AuthError` `.network`, `.providerUnavailable`, or `CancellationError`.
    public func signOut(_ session: AuthSession, context: AuthContext) async throws {
        guard let refreshToken = session.credentials.refreshToken else { return }
        let response = try await context.transport.send(
            try .json(.post, url("/logout"), body: ReferenceProtocol.LogoutRequest(refreshToken: refreshToken))
        )
        if response.isSuccess || response.status == 401 { return }
        throw mapError(response)
    }

    // MARK: Abilities

    /// Whether `url` is a reference redirect: `multiauth-ref://callback?…`.
    public func canHandle(_ url: URL) -> Bool {
        url.scheme?.lowercased() == ReferenceProtocol.redirectScheme && url.host == "callback"
    }

    /// Whether `url`'s `state` parameter is `challenge`'s (`nil` when the URL carries none).
    public func redirect(_ url: URL, belongsTo challenge: Challenge) -> Bool? {
        guard
            let state = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
                .first(where: { $0.name == "state" })?.value
        else { return nil }
        return challenge.providerState[revealing: "state"] == state
    }

    /// Completes the pending flow with a magic link: its `state` must equal the pending flow's.
    /// - Throws: `AuthError` `.challengeNotPending` (no pending flow or another flow's state),
    ///   `.invalidInput` (no code in the link), the verify errors, or `CancellationError`.
    public func handleRedirect(_ url: URL, pending: Challenge?, context: AuthContext) async throws -> SignInStep {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let state = items.first { $0.name == "state" }?.value
        guard let pending, let state, pending.providerState[revealing: "state"] == state,
            let flowID = pending.providerState[revealing: "flowId"]
        else {
            throw AuthError(.challengeNotPending, "the link does not belong to a pending sign-in", provider: id)
        }
        guard let code = items.first(where: { $0.name == "code" })?.value, !code.isEmpty else {
            throw AuthError(.invalidInput, "the link carries no code", provider: id)
        }
        return .signedIn(try await verify(flowID: flowID, code: code, context: context))
    }

    /// Exchanges the refresh token (it rotates: the returned session carries the new one).
    ///
    /// A refresh token the server does not accept (`401 invalid_grant`: revoked by a remote
    /// sign-out, rotated longer ago than the reuse interval, or unknown) ended the session:
    /// it is thrown as `.sessionExpired` with `providerCode` `"invalid_grant"`, as
    /// ``/MultiAuth/RefreshableProvider`` asks.
    /// - Throws: `AuthError` `.sessionExpired` (`invalid_grant`), `.unsupported` (the session
    ///   has no refresh token), `.rateLimited`, `.network`, `.providerUnavailable`, or
    ///   `CancellationError`.
    public func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession {
        guard let refreshToken = session.credentials.refreshToken else {
            throw AuthError(.unsupported, "the session has no refresh token", provider: id)
        }
        let tokens: ReferenceProtocol.TokenResponse
        do {
            tokens = try await post(
                "/token/refresh", ReferenceProtocol.RefreshRequest(refreshToken: refreshToken),
                context: context)
        } catch let error as AuthError where error.code == .unauthorized {
            throw AuthError(
                .sessionExpired, "the refresh token is no longer accepted; sign in again", provider: id,
                providerCode: error.providerCode, underlying: error)
        }
        return makeSession(tokens, id: session.id, createdAt: session.createdAt, now: context.now)
    }

    /// Sends a new code, on `channel` when given.
    /// - Throws: `AuthError` `.rateLimited` (with `retryAfter`), `.expired`,
    ///   `.challengeNotPending`, `.channelUnavailable`, `.network`, or `CancellationError`.
    public func resend(_ challenge: Challenge, channel: DeliveryChannel?, context: AuthContext) async throws
        -> Challenge
    {
        guard let flowID = challenge.providerState[revealing: "flowId"] else {
            throw AuthError(.challengeNotPending, "the challenge carries no reference flow", provider: id)
        }
        let response: ReferenceProtocol.ChallengeResponse = try await post(
            "/otp/resend", ReferenceProtocol.ResendRequest(flowId: Secret(flowID), channel: channel?.rawValue),
            context: context
        )
        context.emit(.deliveryStatus(channel: DeliveryChannel(rawValue: response.channel), status: .sent))
        return makeChallenge(
            response, flowID: challenge.flowID, destination: challenge.destination, state: challenge.providerState,
            now: context.now)
    }

    // MARK: Wire

    private func url(_ path: String) -> URL { baseURL.appendingPathComponent(String(path.dropFirst())) }

    private func post<Body: Encodable, Result: Decodable>(
        _ path: String, _ body: Body, context: AuthContext
    ) async throws -> Result {
        try await ReferenceWire.post(url(path), body, provider: id, context: context, mapError: mapError)
    }

    /// Maps an error response of the reference protocol to an `AuthError`, keeping the raw
    /// code in `providerCode`.
    public func mapError(_ response: HTTPResponse) -> AuthError {
        let body: ReferenceProtocol.ErrorResponse
        switch ReferenceWire.errorBody(
            ReferenceProtocol.ErrorResponse.self, of: response, protocolName: "reference", provider: id)
        {
        case .failure(let error): return error
        case .success(let decoded): body = decoded
        }
        let raw = body.code
        switch raw {
        case "invalid_code":
            return AuthError(
                .invalidCode, "the code is not correct", provider: id, providerCode: raw,
                attemptsRemaining: body.attemptsRemaining)
        case "expired": return AuthError(.expired, "the code expired; start again", provider: id, providerCode: raw)
        case "attempts_exhausted":
            return AuthError(
                .attemptsExhausted, "no attempts remain; start again", provider: id, providerCode: raw,
                attemptsRemaining: 0)
        case "rate_limited":
            return AuthError(
                .rateLimited, "too many requests", provider: id, providerCode: raw,
                retryAfter: response.retryAfter ?? body.retryAfter.map { .seconds($0) })
        case "invalid_identity":
            return AuthError(.invalidInput, "the server rejected the identity", provider: id, providerCode: raw)
        case "unsupported_channel":
            return AuthError(.unsupported, "the channel is not supported", provider: id, providerCode: raw)
        case "channel_unavailable":
            return AuthError(
                .channelUnavailable, "the channel cannot reach this destination", provider: id, providerCode: raw)
        case "unknown_flow":
            return AuthError(
                .challengeNotPending, "the server does not know this flow", provider: id, providerCode: raw)
        case "already_used":
            return AuthError(.codeAlreadyUsed, "the code was already used", provider: id, providerCode: raw)
        case "invalid_grant", "invalid_token":
            return AuthError(.unauthorized, "the credentials are no longer accepted", provider: id, providerCode: raw)
        default:
            return AuthError(
                .generic, "the reference server answered HTTP \(response.status)", provider: id, providerCode: raw)
        }
    }
}
