import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking

extension OAuthProviderName {
    /// Truecaller one-tap (the identity of a `SignInRequest.truecallerOneTap(fallback:options:)`
    /// request without a fallback number).
    public static let truecaller: OAuthProviderName = "truecaller"
}

extension SignInRequest {
    /// A Truecaller one-tap sign-in (Docs/Providers/Truecaller.md, "One-tap hand-off"): with
    /// the Truecaller app installed, `AuthClient.signIn(with: .truecaller, …)` answers with a
    /// hand-off challenge (`.oauthRedirect(url:)`) and the app link's return completes it
    /// through `AuthClient.handleRedirect(_:)`; without the app, the OTP flow runs for
    /// `fallback`, or, with no fallback, the start is refused with code 8.
    /// - Parameters:
    ///   - fallback: The number to verify by SMS code when the Truecaller app is not installed
    ///     (India only, like the OTP flow), or `nil`.
    ///   - options: Further options: the OTP flow's name options
    ///     (`TruecallerProvider.firstNameOption`, `lastNameOption`), and the one-tap request's
    ///     `TruecallerProvider.requestNonceOption`.
    /// - Returns: `.phone(fallback)` marked with `TruecallerProvider.oneTapOption`, or
    ///   `.oauth(.truecaller)`.
    public static func truecallerOneTap(fallback: PhoneNumber? = nil, options: [String: String] = [:])
        -> SignInRequest
    {
        var options = options
        options[TruecallerProvider.oneTapOption] = "true"
        guard let fallback else { return SignInRequest(identity: .oauth(.truecaller), options: options) }
        return .phone(fallback, options: options)
    }
}

extension TruecallerProvider {
    /// `SignInRequest.options` key marking a phone request as one-tap first (set by
    /// `SignInRequest.truecallerOneTap(fallback:options:)`): `"truecallerOneTap"`.
    public static let oneTapOption = "truecallerOneTap"

    /// `SignInRequest.options` key of the app's own `requestNonce` for the one-tap request (the
    /// SDK's `setupWithAppKey:appLink:requestNonce:`): 1 to ``maximumRequestNonceBytes`` bytes,
    /// not blank. Without it a random nonce (a UUID, as the SDK draws) is used.
    public static let requestNonceOption = "requestNonce"

    /// The longest ``requestNonceOption`` accepted, in UTF-8 bytes.
    public static let maximumRequestNonceBytes = 128

    /// Whether `challenge` is a one-tap hand-off this provider issued (its URL is the Truecaller
    /// profile request to open with the system opener, `TruecallerAppHandoff.open`, rather than
    /// in a browser).
    public func isOneTapHandoff(_ challenge: Challenge) -> Bool {
        guard challenge.provider == id, case .oauthRedirect = challenge.kind else { return false }
        return challenge.providerState[StateKey.oneTapNonce] != nil
    }

    static func isOneTap(_ request: SignInRequest) -> Bool {
        if case .oauth(let name) = request.identity, name == .truecaller { return true }
        if case .phone = request.identity, request.options[oneTapOption] == "true" { return true }
        return false
    }

    static func withoutOneTap(_ request: SignInRequest) -> SignInRequest {
        var plain = request
        plain.options[oneTapOption] = nil
        plain.options[requestNonceOption] = nil
        return plain
    }

    /// The one-tap start: the hand-off challenge when the Truecaller app is installed, `nil`
    /// when the OTP flow should run for the fallback number.
    /// - Throws: `AuthError` code 8 (`unsupported`) when the app is missing and there is no
    ///   fallback number; the configuration and option errors of ``start(_:context:)``.
    func oneTapStart(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep? {
        try configuration.validateOneTap()
        let presetNonce = try request.options[Self.requestNonceOption].map { raw in
            let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, trimmed == raw, raw.utf8.count <= Self.maximumRequestNonceBytes else {
                throw AuthError(
                    .invalidInput,
                    "the request nonce must be 1 to \(Self.maximumRequestNonceBytes) bytes without surrounding spaces",
                    provider: id)
            }
            return raw
        }
        guard await app.isInstalled() else {
            guard case .phone = request.identity else {
                throw TruecallerErrorCode.truecallerNotInstalled.authError(
                    "the Truecaller app is not installed; sign in with a fallback number for the SMS code flow")
            }
            return nil
        }
        try Task.checkCancellation()
        let nonce = try presetNonce ?? Self.randomNonce()
        let envelope = TruecallerOneTapEnvelope.Request(
            appID: configuration.bundleID, appKey: configuration.appKey.reveal(),
            appLink: configuration.appLink.absoluteString,
            appName: configuration.appName, requestNonce: nonce, titleType: configuration.oneTapTitleType,
            locale: configuration.oneTapLocale)
        let url = try TruecallerOneTapEnvelope.url(for: envelope, base: configuration.oneTapURL)
        var state = ProviderState()
        state[StateKey.oneTapNonce] = Secret(nonce)
        let now = context.now
        return .challenge(
            Challenge(
                flowID: context.flowID ?? .random(), provider: id, kind: .oauthRedirect(url: url), issuedAt: now,
                expiresAt: now.addingTimeInterval(configuration.maximumProfileAge.timeInterval), providerState: state))
    }

    /// An upper-case UUID string from the system's secure random source, like the SDK's
    /// `[NSUUID UUID].UUIDString`.
    static func randomNonce() throws -> String {
        var bytes = try SecureRandom.bytes(count: 16)
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined()
        let characters = Array(hex)
        let cuts = [0, 8, 12, 16, 20, 32]
        return (0..<5).map { String(characters[cuts[$0]..<cuts[$0 + 1]]) }.joined(separator: "-")
    }

    // MARK: Return link

    /// Whether `url` is a Truecaller return link of this app: the app link's scheme, host and
    /// port (compared without case; the path and query are ignored, as TrueSDK's
    /// `continueUserActivity:` does), or the `truecallersdk-<appKey>` scheme
    /// (`continueWithUrlScheme:`), and a `response` or `error` query item. Other links of the
    /// app link's domain are not claimed.
    public func canHandle(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        guard
            items.contains(where: {
                $0.name == TruecallerOneTapEnvelope.responseItem || $0.name == TruecallerOneTapEnvelope.errorItem
            })
        else { return false }
        if scheme == "truecallersdk-" + configuration.appKey.reveal().lowercased() { return true }
        return scheme == configuration.appLink.scheme?.lowercased()
            && url.host?.lowercased() == configuration.appLink.host?.lowercased()
            && url.port == configuration.appLink.port
    }

    /// Completes a one-tap flow with the Truecaller app's return link: reads the archived
    /// response or error, checks the response against the pending flow's `requestNonce` and
    /// verifies the signed profile with ``profileVerifier`` (algorithm, signature with key
    /// rotation, nonce, age), then builds the session.
    /// - Parameters:
    ///   - url: The return link (`userActivity.webpageURL`, or the `truecallersdk-<appKey>://` URL).
    ///   - pending: The pending one-tap challenge of this provider.
    ///   - context: Transport (the key endpoint) and time.
    /// - Returns: `.signedIn` with a session whose `credentials.extra` keeps `payload`,
    ///   `signature` and `signatureAlgorithm` for a server to check again (no access token).
    /// - Throws: `AuthError` `.invalidInput` (not this app's return link),
    ///   `.challengeNotPending` (no pending one-tap flow), the return's error code mapped
    ///   (`cancelledByProvider` for 3, the user declined; `unsupported` for 4, 6, 7, 8;
    ///   Docs/Providers/Truecaller.md, "Error table"), `.malformedResponse` `"13"` (an unreadable
    ///   return), `.signatureInvalid` `"15"` (forged or unknown signature) or `"16"` (another
    ///   nonce), `.codeAlreadyUsed` (the nonce already signed in through this provider),
    ///   `.expired` (a stale profile), the key endpoint's errors; or `CancellationError`.
    public func handleRedirect(_ url: URL, pending: Challenge?, context: AuthContext) async throws -> SignInStep {
        guard canHandle(url) else {
            throw AuthError(.invalidInput, "not a Truecaller return link of this app", provider: id)
        }
        guard let pending, pending.provider == id, let nonce = pending.providerState[StateKey.oneTapNonce]?.reveal()
        else {
            throw AuthError(
                .challengeNotPending, "no Truecaller one-tap sign-in is pending; the return link is refused",
                provider: id)
        }
        switch try TruecallerOneTapEnvelope.parse(url) {
        case .error(let code):
            throw code.authError(
                code == .userCancelled
                    ? "the user declined to share the Truecaller profile"
                    : "the Truecaller app returned error \(code.rawValue)")
        case .response(let response):
            let profile = try await profileVerifier.verify(response, expectedNonce: nonce, context: context)
            try Task.checkCancellation()
            // Last, after every check passed: a forged or stale return never spends the nonce.
            guard usedNonces.insert(nonce) else {
                throw AuthError(.codeAlreadyUsed, "this one-tap return link was already used", provider: id)
            }
            return .signedIn(oneTapSession(response, profile: profile, context: context))
        }
    }

    /// The session of a verified one-tap profile.
    func oneTapSession(_ response: TruecallerProfileResponse, profile: TruecallerProfile, context: AuthContext)
        -> AuthSession
    {
        var extra = ProviderState()
        extra["payload"] = response.payload
        extra["signature"] = response.signature
        extra["signatureAlgorithm"] = Secret(response.signatureAlgorithm)
        return AuthSession(
            provider: id, user: profile.authUser, credentials: Credentials(extra: extra), createdAt: context.now)
    }
}

/// The one-tap nonces already exchanged, oldest forgotten first past ``capacity`` (a flow's
/// nonce is also bounded by its challenge's expiry, so forgetting old ones reopens nothing a
/// client would still accept). Thread-safe.
final class UsedNonces: Sendable {
    /// How many nonces are remembered.
    static let capacity = 4_096
    private struct State {
        var set: Set<String> = []
        var order: [String] = []
    }

    private let state = Locked(State())

    /// Records `nonce`; `false` when it was recorded before.
    func insert(_ nonce: String) -> Bool {
        self.state.withLock { used in
            guard used.set.insert(nonce).inserted else { return false }
            used.order.append(nonce)
            if used.order.count > Self.capacity { used.set.remove(used.order.removeFirst()) }
            return true
        }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
