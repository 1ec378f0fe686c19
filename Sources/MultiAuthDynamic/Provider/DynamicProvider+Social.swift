import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking

extension DynamicProvider {
    /// The social providers `start(.oauth(name))` accepts (Docs/Providers/Dynamic.md, "Social
    /// login"): the SDK's `SocialSignInProviderEnum` minus Telegram and Farcaster, whose sign-ins
    /// do not come back through an authorization code (`telegramAuthToken`; a Farcaster relay).
    /// Apple, Google, Twitter, Discord, GitHub and Twitch are the ones the SDK's social guide
    /// lists; the others share the wire by the API's path template (**[ASSUMPTION]** that each
    /// returns the same way). Whether one is enabled is the environment's to say
    /// (`provider_not_available` → `.configuration`).
    public static let socialProviders: Set<OAuthProviderName> = [
        "apple", "bitbucket", "coinbasesocial", "discord", "epicgames", "facebook", "github", "gitlab", "google",
        "instagram", "linkedin", "microsoft", "twitch", "twitter", "spotify", "tiktok", "line", "steam", "shopify",
        "kraken",
    ]

    /// The query items of a social return (Dynamic's web SDK reads the same names):
    /// `dynamicOauthCode`, `dynamicOauthState`.
    static let codeItem = "dynamicOauthCode"
    static let stateItem = "dynamicOauthState"
    /// The items an error return may carry instead of a code: **[ASSUMPTION]** `error` (OAuth's
    /// own name, RFC 6749 §4.1.2.1) or `dynamicOauthError`.
    static let errorItems = ["dynamicOauthError", "error"]
    /// The longest social return link read, in UTF-8 bytes.
    static let maximumReturnLinkBytes = 8_192
    /// The longest `loginUrl` accepted from the server, in UTF-8 bytes.
    static let maximumLoginURLBytes = 8_192

    /// `start(.oauth(name))`: `initAuth`, `loginUrl`, then the `.oauthRedirect(url:)` challenge.
    func startSocial(_ name: OAuthProviderName, _ request: SignInRequest, context: AuthContext) async throws
        -> SignInStep
    {
        guard Self.socialProviders.contains(name), request.channel == nil else {
            throw AuthError(
                .unsupported, "Dynamic social login does not offer '\(name)' (or a delivery channel)", provider: id)
        }
        guard let deepLink = configuration.socialRedirectURL else {
            throw AuthError(
                .configuration,
                "social login needs DynamicConfiguration.socialRedirectURL: the app's deep link whitelisted in the Dynamic dashboard",
                provider: id)
        }
        let captcha = try Self.captchaToken(in: request, provider: id)
        let state = Base64URL.encode(try SecureRandom.bytes(count: 24))
        let path = "providers/\(name.rawValue)"
        let initAuth = try HTTPRequest.json(
            .post, configuration.endpoint(path + "/initAuth"),
            body: DynamicWire.OAuthInit(state: state, redirectUrl: deepLink.absoluteString))
        let initialized = try await context.transport.send(initAuth)
        guard initialized.isSuccess else { throw mapError(initialized, channel: nil) }
        try Task.checkCancellation()
        let loginRequest = HTTPRequest(
            method: .get, url: configuration.endpoint(path + "/loginUrl"), headers: ["Accept": "application/json"])
        let login: DynamicWire.OAuthLoginURL = try await send(loginRequest, channel: nil, context: context)
        let authorize = try Self.authorizationURL(login.url, state: state, provider: id)
        var providerState = ProviderState()
        providerState[StateKey.socialState] = Secret(state)
        providerState[StateKey.socialProvider] = Secret(name.rawValue)
        providerState[StateKey.captchaToken] = captcha
        let now = context.now
        return .challenge(
            Challenge(
                flowID: context.flowID ?? .random(), provider: id, kind: .oauthRedirect(url: authorize), issuedAt: now,
                expiresAt: now.addingTimeInterval(configuration.socialLoginLifetime.timeInterval),
                providerState: providerState))
    }

    /// The server's `loginUrl` with `state` set (replacing any `state` it carries): what the SDK
    /// "can manipulate before redirecting the browser to" (**[ASSUMPTION]**: that the manipulation is
    /// adding the `state`).
    /// - Throws: `AuthError` `.malformedResponse` for a URL over ``maximumLoginURLBytes`` or not
    ///   `http(s)` with a host.
    static func authorizationURL(_ text: String, state: String, provider: AuthProviderID) throws -> URL {
        guard text.utf8.count <= maximumLoginURLBytes, var components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), ["https", "http"].contains(scheme),
            components.host?.isEmpty == false
        else {
            throw AuthError(.malformedResponse, "Dynamic's loginUrl is not an http(s) URL", provider: provider)
        }
        var items = (components.queryItems ?? []).filter { $0.name != "state" }
        items.append(URLQueryItem(name: "state", value: state))
        components.queryItems = items
        guard let url = components.url else {
            throw AuthError(.malformedResponse, "Dynamic's loginUrl could not carry the state", provider: provider)
        }
        return url
    }

    // MARK: The return

    /// Whether `url` is a social return of this app: the configured deep link
    /// (``DynamicConfiguration/socialRedirectURL``: scheme and host without case, the path
    /// exact, query and fragment ignored) carrying `dynamicOauthState` or `dynamicOauthCode`.
    /// Other links of the app's scheme are not claimed.
    public func canHandle(_ url: URL) -> Bool {
        guard let deepLink = configuration.socialRedirectURL, Self.sameTarget(url, deepLink) else { return false }
        let names = Set((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map(\.name))
        return names.contains(Self.stateItem) || names.contains(Self.codeItem)
    }

    /// Whether two URLs name the same target: scheme and host compared without case, the port
    /// and the path (a trailing `/` ignored) exactly.
    static func sameTarget(_ a: URL, _ b: URL) -> Bool {
        func path(_ url: URL) -> String {
            var text = URLComponents(url: url, resolvingAgainstBaseURL: false)?.path ?? ""
            while text.hasSuffix("/") { text.removeLast() }
            return text
        }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && a.port == b.port && path(a) == path(b)
    }

    /// Whether `url` is the social return of `challenge`'s flow: its `dynamicOauthState` is the
    /// flow's state (`nil` when the URL or the challenge carries none). No network call; lets
    /// `AuthClient` tell a second return of a signed-in flow from another user's (rule F8,
    /// Docs/Architecture.md, "Sign-in flows").
    public func redirect(_ url: URL, belongsTo challenge: Challenge) -> Bool? {
        guard let expected = challenge.providerState[StateKey.socialState]?.reveal(),
            let returned = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
                .first(where: { $0.name == Self.stateItem })?.value
        else { return nil }
        return ConstantTime.equals(Array(returned.utf8), Array(expected.utf8))
    }

    /// Completes a social login with its return: checks `dynamicOauthState` against the
    /// pending flow, then exchanges `dynamicOauthCode` through
    /// `POST /sdk/{env}/providers/{name}/signIn {code, state}` (Docs/Providers/Dynamic.md,
    /// "Social login").
    /// - Parameters:
    ///   - url: The deep link the app received.
    ///   - pending: The pending social challenge of this provider.
    ///   - context: Transport and time.
    /// - Returns: `.signedIn`, or the MFA step (`.totp`) when the environment requires one.
    /// - Throws: `AuthError` `.invalidInput` (not this app's return; no code; a link over
    ///   8 KB), `.challengeNotPending` (no pending social flow, or a state
    ///   of another flow), `.cancelledByProvider` (an error return `access_denied`) or
    ///   `.unauthorized` (any other error return), `.codeAlreadyUsed` (this return was already
    ///   exchanged here), the sign-in's mapped errors (`.configuration` for a provider not
    ///   enabled or a cookie-authentication environment, `.expired`, `.rateLimited`, …),
    ///   `.malformedResponse`; or `CancellationError`.
    public func handleRedirect(_ url: URL, pending: Challenge?, context: AuthContext) async throws -> SignInStep {
        guard canHandle(url), url.absoluteString.utf8.count <= Self.maximumReturnLinkBytes else {
            throw AuthError(.invalidInput, "not a Dynamic social return of this app", provider: id)
        }
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
        guard let pending, pending.provider == id, let state = pending.providerState[StateKey.socialState]?.reveal(),
            let name = pending.providerState[StateKey.socialProvider]?.reveal()
        else {
            throw AuthError(
                .challengeNotPending, "no Dynamic social sign-in is pending; the return is refused", provider: id)
        }
        guard let returned = item(Self.stateItem), ConstantTime.equals(Array(returned.utf8), Array(state.utf8)) else {
            throw AuthError(
                .challengeNotPending, "the return belongs to another sign-in (its state differs)", provider: id)
        }
        guard let code = item(Self.codeItem), !code.isEmpty else {
            if let error = Self.errorItems.lazy.compactMap(item).first {
                let kept = AuthError.plausibleProviderCode(error)
                if error == "access_denied" {
                    throw AuthError(
                        .cancelledByProvider, "the user declined the social sign-in", provider: id, providerCode: kept)
                }
                throw AuthError(
                    .unauthorized, "the social provider refused the sign-in", provider: id, providerCode: kept)
            }
            throw AuthError(.invalidInput, "the social return carries no code", provider: id)
        }
        guard !usedStates.contains(state) else {
            throw AuthError(.codeAlreadyUsed, "this social return was already exchanged", provider: id)
        }
        let request = try HTTPRequest.json(
            .post, configuration.endpoint("providers/\(name)/signIn"),
            body: DynamicWire.OAuthSignIn(
                code: Secret(code), state: state, captchaToken: pending.providerState[StateKey.captchaToken],
                sessionPublicKey: configuration.wireSessionPublicKey))
        let verified: DynamicWire.VerifyResponse = try await send(request, channel: nil, context: context)
        guard usedStates.insert(state) else {
            throw AuthError(.codeAlreadyUsed, "this social return was already exchanged", provider: id)
        }
        return try finish(
            verified, flowID: pending.flowID, destination: pending.destination, state: pending.providerState,
            context: context)
    }
}

/// The social `state`s already exchanged, oldest forgotten first past ``capacity`` (a state is
/// also bounded by its challenge's expiry). Thread-safe.
final class UsedStates: Sendable {
    /// How many states are remembered.
    static let capacity = 4_096
    private struct State {
        var set: Set<String> = []
        var order: [String] = []
    }

    private let state = Locked(State())

    /// Whether `state` was recorded.
    func contains(_ state: String) -> Bool { self.state.withLock { $0.set.contains(state) } }

    /// Records `state`; `false` when it was recorded before.
    func insert(_ state: String) -> Bool {
        self.state.withLock { used in
            guard used.set.insert(state).inserted else { return false }
            used.order.append(state)
            if used.order.count > Self.capacity { used.set.remove(used.order.removeFirst()) }
            return true
        }
    }
}
