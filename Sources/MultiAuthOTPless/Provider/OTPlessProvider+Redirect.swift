import Foundation
import MultiAuth
import MultiAuthCrypto

extension OTPlessProvider {
    /// Whether `url` is this app's OTPLESS deep link: scheme `otpless.{appid}` (compared in
    /// lower case) and host `otpless` (Docs/Providers/OTPless.md, "Deep links"). Links of other
    /// app ids are not claimed.
    public func canHandle(_ url: URL) -> Bool {
        url.scheme?.lowercased() == configuration.deepLinkScheme && url.host?.lowercased() == "otpless"
    }

    /// Exchanges the deep link's `code` (query name matched case-insensitively) through
    /// `POST /v3/lp/user/transaction/code/{state}` (Docs/Providers/OTPless.md, "Deep links").
    ///
    /// Accepted only while a flow this provider started (same app id) is pending with a
    /// magic-link, OTP + link or OAuth challenge; each code is exchanged at most once.
    /// - Returns: The session (`ONETAP`).
    /// - Throws: `AuthError` `.challengeNotPending` (no pending flow, or a flow of another
    ///   provider or app id), `.invalidInput` (not this app's link, or no `code`),
    ///   `.codeAlreadyUsed` (the code was exchanged before; the server's `7115` too),
    ///   `.expired` (`7303`), `.network`, `.providerUnavailable`; or `CancellationError`.
    public func handleRedirect(_ url: URL, pending: Challenge?, context: AuthContext) async throws -> SignInStep {
        guard canHandle(url) else {
            throw AuthError(.invalidInput, "not a deep link of this OTPLESS app", provider: id)
        }
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        guard let code = items.first(where: { $0.name.lowercased() == "code" })?.value, !code.isEmpty else {
            throw AuthError(.invalidInput, "the deep link has no code", provider: id)
        }
        guard let pending else {
            throw AuthError(.challengeNotPending, "no OTPLESS sign-in is pending; the link is refused", provider: id)
        }
        try checkOwnership(pending)
        switch pending.kind {
        case .magicLink, .oauthRedirect, .oneTimeCode(_, _, true): break
        default:
            throw AuthError(.challengeNotPending, "the pending OTPLESS flow does not expect a link", provider: id)
        }
        guard registry.consume(code: code) else {
            throw AuthError(.codeAlreadyUsed, "this sign-in link was already used", provider: id)
        }
        let state = registry.challenge(for: pending.flowID)?.providerState ?? pending.providerState
        var body: [String: JSONValue] = [
            "code": .string(code), "hasWhatsapp": .string(configuration.hasWhatsApp ? "true" : "false"),
        ]
        for key in ["asId", "token"] {
            if let value = state[otpless: key], !value.isEmpty { body[key] = .string(value) }
        }
        do {
            let response = try await api.post(
                "v3/lp/user/transaction/code/\(state[otpless: "state"] ?? "")", body: body,
                uid: state[otpless: "uid"] ?? "",
                context: context)
            let status = try api.decode(OTPlessWire.TransactionStatus.self, from: response)
            return try finish(status, flowID: pending.flowID, state: state[otpless: "state"], context: context)
        } catch let error as AuthError where error.isRetryable {
            registry.release(code: code)
            throw error
        } catch is CancellationError {
            registry.release(code: code)
            throw CancellationError()
        }
    }
}
