import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandboxRuntime

extension DynamicBackend {
    /// The social providers the emulated environment has enabled by default (the SDK's
    /// `SocialSignInProviderEnum` minus Telegram and Farcaster; Docs/Providers/Dynamic.md,
    /// "Social login").
    public static let socialProviders: Set<String> = [
        "apple", "bitbucket", "coinbasesocial", "discord", "epicgames", "facebook", "github", "gitlab", "google",
        "instagram", "linkedin", "microsoft", "twitch", "twitter", "spotify", "tiktok", "line", "steam", "shopify",
        "kraken",
    ]
    /// How long an authorization code of the emulated social provider can be exchanged:
    /// **[ASSUMPTION]** 600 s.
    public static let oauthCodeLifetime: Duration = .seconds(600)
    /// The path of the emulated social providers' authorization pages on the backend's host:
    /// `/oauth-sandbox/{provider}/authorize`.
    public static let authorizePathPrefix = "/oauth-sandbox/"

    // MARK: Test and demo controls

    /// Turns a social provider off (`initAuth` then answers `422 provider_not_available`), or on again.
    public func setSocialProvider(_ provider: String, enabled: Bool) {
        state.withLock { state in
            if enabled {
                state.disabledSocialProviders.remove(provider)
            } else {
                state.disabledSocialProviders.insert(provider)
            }
        }
    }

    /// Accepts only these deep links in `initAuth` (the dashboard's "Whitelist Mobile
    /// Deeplink"); others answer `422 unauthorized_mobile_deeplink_url`. `nil` (the default)
    /// accepts any.
    public func whitelistDeepLinks(_ links: Set<String>?) {
        state.withLock { $0.allowedDeepLinks = links }
    }

    /// The user consents on the emulated social provider's page: the return link the
    /// provider's redirect, through Dynamic, opens on the app (`<deep link>?dynamicOauthCode=…&dynamicOauthState=…`).
    /// - Parameters:
    ///   - authorizeURL: The challenge's URL (the `loginUrl` with the `state`).
    ///   - email: The social account's e-mail (the user Dynamic signs in).
    ///   - now: The time of consent (the sandbox clock's).
    /// - Returns: The return link.
    /// - Throws: `AuthError` `.invalidInput` when the URL is not an authorization page of this
    ///   backend or its `state` was never registered by `initAuth`.
    public func approveSocialLogin(_ authorizeURL: URL, email: String, now: Date) throws -> URL {
        let (provider, state, registered) = try socialPage(authorizeURL)
        let code: String = self.state.withLock { tables in
            tables.oauthCounter += 1
            let code = Base64URL.encode(MessageDigest.sha256(Array("\(state)|\(tables.oauthCounter)".utf8)))
            tables.oauthCodes[code] = OAuthCode(
                state: state, provider: provider, email: email,
                expiresAt: now.addingTimeInterval(Self.oauthCodeLifetime.timeInterval))
            return code
        }
        return try Self.returnLink(registered.redirectURL, ["dynamicOauthCode": code, "dynamicOauthState": state])
    }

    /// The user cancels on the emulated social provider's page: the return link carries the
    /// state and `error=access_denied` (**[ASSUMPTION]**: Dynamic's error return is not
    /// published; OAuth's own error name is used).
    /// - Throws: `AuthError` `.invalidInput` as ``approveSocialLogin(_:email:now:)``.
    public func declineSocialLogin(_ authorizeURL: URL) throws -> URL {
        let (_, state, registered) = try socialPage(authorizeURL)
        return try Self.returnLink(registered.redirectURL, ["dynamicOauthState": state, "error": "access_denied"])
    }

    private func socialPage(_ url: URL) throws -> (provider: String, state: String, registered: OAuthState) {
        let parts = url.path.split(separator: "/").map(String.init)
        guard parts.count == 3,
            "/" + parts[0] + "/" == Self.authorizePathPrefix, parts[2] == "authorize",
            let state = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: {
                $0.name == "state"
            })?.value,
            let registered = self.state.withLock({ $0.oauthStates[state] }), registered.provider == parts[1]
        else {
            throw AuthError(.invalidInput, "not an authorization page of this backend with a registered state")
        }
        return (parts[1], state, registered)
    }

    private static func returnLink(_ deepLink: String, _ items: [String: String]) throws -> URL {
        guard var components = URLComponents(string: deepLink) else {
            throw AuthError(.invalidInput, "the registered deep link is not a URL")
        }
        components.queryItems =
            (components.queryItems ?? []) + items.keys.sorted().map { URLQueryItem(name: $0, value: items[$0]) }
        guard let url = components.url else { throw AuthError(.invalidInput, "the return link could not be built") }
        return url
    }

    // MARK: Routes

    /// The provider of a route `providers/{provider}/{last}` (lower-cased), or `nil`.
    static func socialRoute(_ route: String, _ last: String) -> String? {
        let parts = route.split(separator: "/")
        guard parts.count == 3, parts[0] == "providers", parts[2] == last else { return nil }
        return String(parts[1])
    }

    private struct InitBody: Decodable {
        var state: String
        var redirectUrl: String?
    }

    private struct SignInBody: Decodable {
        var code: String?
        var codeVerifier: String?
        var state: String
        var captchaToken: String?
        var sessionPublicKey: String?
    }

    private struct TOTPBody: Decodable {
        var code: String
    }

    /// `POST providers/{provider}/initAuth {state, redirectUrl}` (`OauthInitAuthRequest`) → `204`.
    func initAuth(_ request: HTTPRequest, provider: String, context: SandboxContext) throws -> HTTPResponse {
        if let refusal = try Self.unexpectedKeys(in: request, allowed: ["state", "redirectUrl"]) { return refusal }
        let body: InitBody = try request.decodeJSON()
        guard Self.socialProviders.contains(provider),
            !state.withLock({ $0.disabledSocialProviders.contains(provider) })
        else {
            return try Self.error(422, "Provider not available", code: "provider_not_available")
        }
        guard !body.state.isEmpty, body.state.utf8.count <= 512, let link = body.redirectUrl,
            let url = URL(string: link), url.scheme != nil
        else {
            return try Self.error(400, "Bad request: state and redirectUrl are required")
        }
        if let allowed = state.withLock({ $0.allowedDeepLinks }), !allowed.contains(link) {
            return try Self.error(422, "Unauthorized mobile deeplink", code: "unauthorized_mobile_deeplink_url")
        }
        state.withLock { state in
            state.oauthStates[body.state] = OAuthState(
                provider: provider, redirectURL: link, createdAt: context.time.now)
        }
        return HTTPResponse(status: 204)
    }

    /// `GET providers/{provider}/loginUrl` → `200 {url}`: the emulated provider's authorization
    /// page, with its client id, Dynamic's redirect endpoint, `response_type=code` and a scope.
    func loginURL(provider: String, context: SandboxContext) throws -> HTTPResponse {
        guard Self.socialProviders.contains(provider),
            !state.withLock({ $0.disabledSocialProviders.contains(provider) })
        else {
            return try Self.error(422, "Provider not available", code: "provider_not_available")
        }
        var components = URLComponents()
        components.scheme = "https"
        components.host = context.host
        components.path = Self.authorizePathPrefix + provider + "/authorize"
        components.queryItems = [
            URLQueryItem(name: "client_id", value: "sandbox-\(provider)-client"),
            URLQueryItem(
                name: "redirect_uri",
                value: "https://\(context.host)\(Self.apiPrefix)/sdk/\(environmentID)/providers/\(provider)/redirect"),
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "scope", value: "openid email"),
        ]
        return try .json(200, JSONValue.object(["url": .string(components.url?.absoluteString ?? "")]))
    }

    /// `POST providers/{provider}/signIn {code, state, …}` (`OauthRequest`) → `200 VerifyResponse`
    /// (MFA-pending tokens for a user marked with ``requireMFA(for:)``); an unknown, spent or
    /// expired code, or one of another state or provider, answers `422 invalid_verification`
    /// (**[ASSUMPTION]**: the real answer is not published).
    func socialSignIn(_ request: HTTPRequest, provider: String, context: SandboxContext) throws -> HTTPResponse {
        let allowed: Set<String> = ["code", "codeVerifier", "state", "captchaToken", "sessionPublicKey"]
        if let refusal = try Self.unexpectedKeys(in: request, allowed: allowed) { return refusal }
        let body: SignInBody = try request.decodeJSON()
        if state.withLock({ $0.captchaRequired }) && (body.captchaToken ?? "").isEmpty {
            return try Self.captchaRefusal()
        }
        let now = context.time.now
        let userID = Self.uuid(context)
        let credentialID = Self.uuid(context)
        let sessionID = Self.uuid(context)
        let outcome: (key: String, mfa: Bool)? = state.withLock { state in
            guard let code = body.code, var issued = state.oauthCodes[code], !issued.used, issued.state == body.state,
                issued.provider == provider, now < issued.expiresAt
            else { return nil }
            issued.used = true
            state.oauthCodes[code] = issued
            state.oauthStates[body.state] = nil
            let key = "\(provider):\(issued.email)"
            if state.users[key] == nil {
                state.users[key] = User(
                    id: userID, credentialID: credentialID, destination: issued.email, channel: .email,
                    wire: ["email": .string(issued.email)], oauthProvider: provider)
            }
            state.users[key]?.signIns += 1
            let mfa = state.mfaSecrets[issued.email] != nil
            state.sessions[sessionID] = Session(id: sessionID, userKey: key, mfaPending: mfa)
            return (key, mfa)
        }
        guard outcome != nil else {
            return try Self.error(422, "Invalid or expired authorization code", code: "invalid_verification")
        }
        return try .json(200, try issue(sessionID: sessionID, context: context))
    }

    /// `POST users/mfa/auth/totp {code}` (`MFAAuthTotpDevicePostRequest`) with an MFA-pending
    /// bearer → `200 VerifyResponse` with `user:basic` tokens; `401` without a live bearer;
    /// `422 mfa_invalid_code` for a wrong code (the pending session stays); `422
    /// mfa_invalid_request` when nothing is owed.
    func authenticateTOTP(_ request: HTTPRequest, context: SandboxContext) throws -> HTTPResponse {
        guard let (_, sessionID) = bearerSession(request, context: context) else {
            return try Self.error(401, "Unauthorized")
        }
        if let refusal = try Self.unexpectedKeys(in: request, allowed: ["id", "createMfaToken", "code"]) {
            return refusal
        }
        let body: TOTPBody = try request.decodeJSON()
        let (pending, secret): (Bool, [UInt8]?) = state.withLock { state in
            let session = state.sessions[sessionID]
            let destination = session.flatMap { state.users[$0.userKey]?.destination }
            return (session?.mfaPending ?? false, destination.flatMap { state.mfaSecrets[$0] })
        }
        guard pending, let secret else {
            return try Self.error(422, "No MFA step is pending", code: "mfa_invalid_request")
        }
        let seconds = Int64(context.time.now.timeIntervalSince1970.rounded(.down))
        guard body.code.count == 6, (try? TOTP(secret: secret).verify(body.code, at: seconds, window: 1)) != nil else {
            return try Self.error(422, "Invalid MFA code", code: "mfa_invalid_code")
        }
        state.withLock { state in
            state.sessions[sessionID]?.mfaPending = false
            state.tokens = state.tokens.filter { $0.value != sessionID }
        }
        return try .json(200, try issue(sessionID: sessionID, context: context))
    }
}
