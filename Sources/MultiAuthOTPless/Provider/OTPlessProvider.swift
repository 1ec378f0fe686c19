import Foundation
import MultiAuth
import MultiAuthCrypto

/// The OTPLESS-style headless adapter: phone, e-mail or OAuth sign-in with OTP on WhatsApp,
/// SMS or e-mail, magic links, OTP + link, silent network auth (SNA) that may fall back, and
/// SmartAuth channel fallback (Docs/Providers/OTPless.md).
///
/// - **Start** (`start(_:context:)`): local checks first, with no network call: OTP length
///   option `otpLength` must be `"4"` or `"6"` (`7116`, the SDK's own rule), expiry option
///   `expiry` must be whole seconds (`.invalidInput` without a providerCode; the range is the
///   server's to decide and is sent as given), the channel must be enabled by the merchant
///   (`4003`). Then the device state and merchant config are fetched once, and the intent is
///   posted. Phone numbers travel as country code + national number.
/// - **Channel choice** (Docs/Cases.md, B29): `request.channel == nil` lets the server choose (SNA when
///   the merchant enabled it, else SmartAuth in the order set on the OTPLESS dashboard: the
///   real wire carries no order from the app, so ``OTPlessConfiguration/preferredChannels``
///   reaches only the sandbox) and fall back automatically; an explicit channel is forced (`deliveryMethod`) and a
///   failure on it is `.channelUnavailable`, never a silent switch.
/// - **Polling**: after a delivery intent with `pollingRequired`, a poller owned by this
///   provider GETs the transaction status every `timerSettings.interval` **seconds** (default
///   3 s, up to `timeout`, default 60 s) on `context.time.clock`; a changed
///   `communicationMode` publishes `fallbackTriggered(from:to:)` and `challengeIssued` with the
///   new channel, a delivery publishes `deliveryStatus(…, .delivered)`. It stops when the flow
///   ends (verified, link exchanged, new start, terminal status, timeout) or on
///   ``stopPolling(flowID:)`` / ``stopAllPolling()``.
/// - **SNA** only where it can work: when the merchant enabled it and `context.transport` is a
///   `CellularHTTPTransport` with a cellular path, `start` returns a `.silentNetworkAuth`
///   challenge; answer it with an empty code (`AuthClient.submit(ChallengeAnswer(code: ""),
///   for:)`). The adapter hits the carrier URL on the cellular bearer, polls `silent-auth-status` every `interval` **milliseconds** (default 200 ms / 7000 ms),
///   and returns a session, or the fallback challenge (after `fallbackTriggered(from: .sna,
///   to: …)`), or throws `.channelUnavailable` with providerCode `9106` / `7161` when no
///   fallback is left (Docs/Providers/OTPless.md, "Silent network auth").
///   Without a cellular path the intent asks for a code at once.
/// - **Deep links** `otpless.{appid}://otpless?code=…` complete magic-link, OTP-link and OAuth
///   flows through ``handleRedirect(_:pending:context:)``.
/// - **Sessions**: with the merchant's session management, the session carries the session
///   token, refresh token and session JWT (its `exp` is the session's expiry);
///   ``refresh(_:context:)`` renews the JWT and ``signOut(_:context:)`` deletes the session
///   on the server.
///
/// Concurrency: a `Sendable` value; copies share one flow table and device cache. Every call
/// may run concurrently with others. Errors are `AuthError` (codes mapped as the table in
/// Docs/Providers/OTPless.md, "Error table", says) or `CancellationError`.
public struct OTPlessProvider: RedirectHandlingProvider, ResendableProvider, RefreshableProvider {
    /// The provider id (default `otpless`); keys the session store.
    public let id: AuthProviderID
    /// The validated configuration.
    public let configuration: OTPlessConfiguration
    let api: OTPlessAPI
    let registry = OTPlessFlowRegistry()
    let device = OTPlessDevice()

    /// A guess (Docs/Providers/OTPless.md, "Verified against"): default OTP expiry in seconds,
    /// used for the challenge when the request sets no `expiry` option.
    public static let defaultExpirySeconds = 300
    /// A guess: resend cooldown.
    public static let resendCooldown: Duration = .seconds(30)
    /// A guess: wrong codes allowed before the transaction is burned.
    public static let maximumAttempts = 5

    /// Creates a provider.
    /// - Parameters:
    ///   - configuration: App id, hosts and channel policy.
    ///   - id: The provider id; give each OTPLESS app its own when registering several.
    /// - Throws: `AuthError` `.configuration` when the configuration is invalid, e.g. a
    ///   preferred channel the merchant has not enabled (Docs/Cases.md, B29, providerCode `4003`).
    public init(configuration: OTPlessConfiguration, id: AuthProviderID = .otpless) throws {
        try configuration.validate()
        self.configuration = configuration
        self.id = id
        self.api = OTPlessAPI(configuration: configuration, provider: id)
    }

    /// Creates a provider for `appID` and the app's bundle id with the production hosts.
    /// - Throws: `AuthError` `.configuration` (see ``init(configuration:id:)``).
    public init(appID: String, packageName: String) throws {
        try self.init(configuration: .production(appID: appID, packageName: packageName))
    }

    /// The number of status pollers currently running (diagnostics and tests).
    public var activePollerCount: Int { registry.activePollerCount }

    /// Stops the status poller of a flow, e.g. after `AuthClient.cancelFlow(for:)`.
    /// - Parameter flowID: The flow whose poller to stop; unknown ids are ignored.
    public func stopPolling(flowID: FlowID) { registry.end(flowID) }

    /// `AuthClient` calls this when a flow ends without the provider being asked again
    /// (cancelled, superseded, signed out, expired, signed in): its status poller stops.
    public func flowEnded(_ flowID: FlowID) { registry.end(flowID) }

    /// Stops every status poller of this provider (a new start does this too, as in the SDK).
    public func stopAllPolling() { registry.stopAllPolling() }

    /// The latest challenge of a pending flow this provider started: after a fallback its
    /// channel is the new one. `nil` when the flow ended or is unknown.
    public func currentChallenge(for flowID: FlowID) -> Challenge? { registry.challenge(for: flowID) }

    // MARK: Start

    /// Starts a sign-in (Docs/Providers/OTPless.md, "Flows").
    ///
    /// SNA is requested (`silentAuthEnabled`) only when the merchant enabled it, the request is
    /// a phone request the system may route, and `context.transport` is a
    /// `CellularHTTPTransport` with a cellular path now; otherwise the intent asks for a code at
    /// once (no carrier hit, no SNA polling).
    /// - Returns: A challenge (`oneTimeCode`, `magicLink`, `silentNetworkAuth`, `oauthRedirect`)
    ///   or a session when the server answers with `oneTap` at once.
    /// - Throws: `AuthError` `.invalidInput` (providerCode `7116`; an `expiry` option that is
    ///   not whole seconds, no providerCode; the server's `7113` for one it refuses), `.configuration`
    ///   (`4003`, `4001`), `.unsupported` (a channel OTPLESS cannot use for that identity),
    ///   `.channelUnavailable` (explicit channel that cannot deliver; `7160` SNA-only merchant
    ///   without a cellular path), `.rateLimited`, `.providerUnavailable` (`5003`, 5xx),
    ///   `.network`; or `CancellationError`.
    public func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        registry.stopAllPolling()
        var plan = try OTPlessIntentPlan(request: request, configuration: configuration, provider: id)
        let ready = try await device.ready(api: api, context: context)
        try plan.check(against: ready.config, configuration: configuration, provider: id)
        plan.cellularAvailable = context.transport.availableCellularTransport != nil
        let flowID = context.flowID ?? FlowID.random()
        let body = plan.intentBody(
            config: ready.config, configuration: configuration, forcedChannel: plan.forcedChannel)
        let response = try await api.post(
            "v3/lp/user/transaction/intent/\(ready.state)", body: body, uid: "", context: context)
        let intent = try api.decode(OTPlessWire.IntentResponse.self, from: response)
        try Task.checkCancellation()
        return try issue(intent, plan: plan, state: ready.state, flowID: flowID, failedChannels: [], context: context)
    }

    /// Turns an intent (or fallback) answer into a step, records the flow and starts polling.
    func issue(
        _ intent: OTPlessWire.IntentResponse, plan: OTPlessIntentPlan, state: String, flowID: FlowID,
        failedChannels: Set<DeliveryChannel>, fallbackFrom: DeliveryChannel? = nil, context: AuthContext
    ) throws -> SignInStep {
        guard let leap = intent.quantumLeap else {
            if let oneTap = intent.oneTap {
                return .signedIn(
                    try OTPlessSessionMapper.session(
                        from: oneTap, provider: id, appID: configuration.appID, state: state, now: context.now))
            }
            throw AuthError(.malformedResponse, "intent response has no quantumLeap", provider: id)
        }
        if let oneTap = intent.oneTap, leap.pollingRequired != true {
            return .signedIn(
                try OTPlessSessionMapper.session(
                    from: oneTap, provider: id, appID: configuration.appID, state: state, now: context.now))
        }
        let now = context.now
        var providerState = plan.providerState(state: state)
        providerState[otpless: "appId"] = configuration.appID
        providerState[otpless: "asId"] = leap.asId
        providerState[otpless: "token"] = leap.channelAuthToken?.reveal()
        providerState[otpless: "uid"] = leap.uid
        let authType = (leap.channel ?? "OTP").uppercased()
        providerState[otpless: "authType"] = authType
        let channel = leap.communicationMode.map(OTPlessChannel.deliveryChannel(forMode:)) ?? plan.defaultChannel
        providerState[otpless: "channel"] = channel.rawValue
        providerState[otpless: "failedChannels"] = failedChannels.map(\.rawValue).sorted().joined(separator: ",")
        providerState[otpless: "fallbackFrom"] = fallbackFrom?.rawValue
        let kind: Challenge.Kind
        var expiresAt = now.addingTimeInterval(TimeInterval(plan.expirySeconds))
        var resendAt: Date? = now.addingTimeInterval(Self.resendCooldown.timeInterval)
        var attempts: Int? = Self.maximumAttempts
        switch authType {
        case "OTP": kind = .oneTimeCode(length: plan.otpLength, channel: channel, linkAlsoSent: false)
        case "OTP_LINK": kind = .oneTimeCode(length: plan.otpLength, channel: channel, linkAlsoSent: true)
        case "MAGICLINK":
            kind = .magicLink(channel: channel)
            attempts = nil
        case "SILENT_AUTH":
            guard let target = leap.intent.flatMap(URL.init(string:)) else {
                throw AuthError(.malformedResponse, "SNA intent has no carrier URL", provider: id)
            }
            kind = .silentNetworkAuth
            providerState[otpless: "intent"] = target.absoluteString
            providerState[otpless: "channel"] = DeliveryChannel.silentNetworkAuth.rawValue
            try providerState.encode(leap.timerSettings ?? OTPlessWire.TimerSettings(), forKey: "snaTimer")
            resendAt = nil
            attempts = nil
            expiresAt = now.addingTimeInterval(TimeInterval(plan.expirySeconds))
        default:
            guard let target = leap.intent.flatMap(URL.init(string:)) else {
                throw AuthError(.malformedResponse, "OAuth intent has no URL", provider: id)
            }
            kind = .oauthRedirect(url: target)
            resendAt = nil
            attempts = nil
        }
        let challenge = Challenge(
            flowID: flowID, provider: id, kind: kind, destination: plan.maskedDestination, issuedAt: now,
            expiresAt: expiresAt, resendAvailableAt: resendAt, attemptsRemaining: attempts, providerState: providerState
        )
        registry.record(challenge)
        switch kind {
        case .oneTimeCode, .magicLink: context.emit(.deliveryStatus(channel: channel, status: .sent))
        default: break
        }
        if leap.pollingRequired == true, kind != .silentNetworkAuth {
            startPolling(flowID: flowID, timer: leap.timerSettings, context: context)
        }
        return .challenge(challenge)
    }

    // MARK: Respond

    /// Verifies a typed OTP or runs the SNA check (Docs/Providers/OTPless.md, "Flows").
    /// - Returns: A session, or for SNA possibly the fallback challenge.
    /// - Throws: `AuthError` `.invalidCode` (`7118`, with `attemptsRemaining`),
    ///   `.attemptsExhausted` (fifth wrong code, a guess), `.expired` (`7303`),
    ///   `.codeAlreadyUsed` (`7115`), `.channelUnavailable` (SNA `9106` / `7161`),
    ///   `.challengeNotPending` (a challenge of another app id), `.invalidInput`
    ///   (`.answerMismatch` for link and redirect challenges, `.invalidCodeFormat`), `.network`,
    ///   `.providerUnavailable`; or `CancellationError`.
    public func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        try checkOwnership(challenge)
        if challenge.isExpired(at: context.now) {
            throw AuthError(.expired, "the challenge expired; start again", provider: id)
        }
        switch challenge.kind {
        case .silentNetworkAuth:
            return try await runSilentNetworkAuth(challenge, context: context)
        case .oneTimeCode:
            let code = try answer.normalizedCode(length: challenge.expectedCodeLength)
            return try await verify(code: code, challenge: challenge, context: context)
        default:
            throw AuthError(
                .invalidInput, "this challenge completes through a redirect", provider: id, reason: .answerMismatch)
        }
    }

    private func verify(code: String, challenge: Challenge, context: AuthContext) async throws -> SignInStep {
        let state = challenge.providerState
        var body: [String: JSONValue] = ["otp": .string(code)]
        if state[otpless: "identifierType"] == "MOBILE" {
            body["mobile"] = .string(state[otpless: "mobile"] ?? "")
            body["selectedCountryCode"] = .string(state[otpless: "countryCode"] ?? "")
            body["value"] = .string((state[otpless: "countryCode"] ?? "") + (state[otpless: "mobile"] ?? ""))
        } else {
            body["email"] = .string(state[otpless: "email"] ?? "")
            body["value"] = .string(state[otpless: "email"] ?? "")
        }
        for key in ["asId", "token"] {
            if let value = state[otpless: key], !value.isEmpty { body[key] = .string(value) }
        }
        let remaining = max(0, (challenge.attemptsRemaining ?? Self.maximumAttempts) - 1)
        let response = try await api.post(
            "v3/lp/user/transaction/otp/\(state[otpless: "state"] ?? "")", body: body, uid: state[otpless: "uid"] ?? "",
            context: context)
        let status: OTPlessWire.TransactionStatus
        do {
            status = try api.decode(OTPlessWire.TransactionStatus.self, from: response, attemptsRemaining: remaining)
        } catch var error as AuthError where error.code == .invalidCode && remaining == 0 {
            error.code = .attemptsExhausted
            error.message = "no attempts remain; start again"
            registry.end(challenge.flowID)
            throw error
        } catch let error as AuthError where [.expired, .attemptsExhausted, .codeAlreadyUsed].contains(error.code) {
            registry.end(challenge.flowID)
            throw error
        }
        return try finish(status, flowID: challenge.flowID, state: state[otpless: "state"], context: context)
    }

    /// Completes a flow from a transaction status: `SUCCESS` with `oneTap` → session.
    func finish(_ status: OTPlessWire.TransactionStatus, flowID: FlowID, state: String?, context: AuthContext) throws
        -> SignInStep
    {
        if (status.authDetail?.status ?? "SUCCESS").uppercased() == "FAILED" {
            throw AuthError(.invalidCode, "OTPLESS reported the verification as failed", provider: id)
        }
        guard let oneTap = status.oneTap else {
            throw AuthError(.malformedResponse, "verification response has no ONETAP payload", provider: id)
        }
        let session = try OTPlessSessionMapper.session(
            from: oneTap, provider: id, appID: configuration.appID, state: state, now: context.now)
        registry.end(flowID)
        return .signedIn(session)
    }

    /// Refuses a challenge issued by another provider or another app id.
    func checkOwnership(_ challenge: Challenge) throws {
        guard challenge.provider == id, challenge.providerState[otpless: "appId"] == configuration.appID else {
            throw AuthError(.challengeNotPending, "the challenge was not issued by this OTPLESS app", provider: id)
        }
    }

    // MARK: Sign-out

    /// Logs the session out on OTPLESS: `DELETE {session API}/v4/session/{sessionToken}` with
    /// headers `appId` and `state` and the JSON body `{appId, origin, loginUri}`, as the SDK
    /// does (Docs/Providers/OTPless.md, "Sessions"). Idempotent: a session without a session
    /// token, or one the server no longer knows (any 4xx but 429), counts as signed out.
    /// - Throws: `AuthError` `.network`, `.providerUnavailable` (5xx), `.rateLimited` (429);
    ///   or `CancellationError`.
    public func signOut(_ session: AuthSession, context: AuthContext) async throws {
        guard let token = session.credentials.extra["sessionToken"]?.reveal(), !token.isEmpty else { return }
        // The protocol puts the session token in the path: marked secret, it never appears in
        // a rendering of the request or in a transport error (Docs/Security.md, "Redaction").
        var request = try api.sessionRequest(
            .delete, ["v4", "session", token], state: session.credentials.extra["state"]?.reveal() ?? "")
        request.markPathSegmentSecret(token)
        let response = try await context.transport.send(request)
        if response.isSuccess || ((400..<500).contains(response.status) && response.commonErrorCode == nil) { return }
        throw OTPlessErrorMapping.error(for: response, provider: id)
    }
}
