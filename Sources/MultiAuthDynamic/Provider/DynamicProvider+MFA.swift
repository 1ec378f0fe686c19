import Foundation
import MultiAuth
import MultiAuthCrypto

extension DynamicProvider {
    /// The JWT scope of a sign-in that still needs its MFA step (Dynamic's MFA docs: "the initial
    /// JWT with a requiresAdditionalAuth scope"; Docs/Providers/Dynamic.md, "MFA").
    public static let requiresAdditionalAuthScope = "requiresAdditionalAuth"

    /// The `providerCode` of an MFA demand that cannot be met here (a refresh that asks for
    /// MFA, an upgrade that still asks for a factor).
    public static let mfaRequiredCode = "mfa_required"

    /// The token that must be upgraded by the MFA step, or `nil` when `verified` is a finished
    /// sign-in: the bearer JWT (`minifiedJwt`, else `jwt`) when its scope holds
    /// ``requiresAdditionalAuthScope``, else an `mfaToken` that came without any JWT.
    static func mfaPendingToken(_ verified: DynamicWire.VerifyResponse) -> Secret? {
        if let bearer = verified.minifiedJwt ?? verified.jwt, !bearer.isEmpty {
            let scopes = (try? JWT(parsing: bearer.reveal()))?.claims["scope"]?.stringValue?.split(separator: " ") ?? []
            return scopes.contains(Substring(requiresAdditionalAuthScope)) ? bearer : nil
        }
        if let token = verified.mfaToken, !token.isEmpty { return token }
        return nil
    }

    /// Whether `challenge` is the MFA step of a Dynamic sign-in.
    static func isMFAStep(_ challenge: Challenge) -> Bool {
        challenge.providerState[StateKey.mfaBearer] != nil || challenge.providerState[StateKey.mfaToken] != nil
    }

    /// A sign-in's answer: the session, or the MFA step when the answer still needs one.
    /// - Throws: `AuthError` from ``makeSession(_:sessionID:createdAt:now:previous:)``.
    func finish(
        _ verified: DynamicWire.VerifyResponse, flowID: FlowID, destination: String?, state: ProviderState,
        context: AuthContext
    ) throws -> SignInStep {
        guard let pending = Self.mfaPendingToken(verified) else {
            return .signedIn(try makeSession(verified, sessionID: nil, createdAt: context.now, now: context.now))
        }
        context.emit(.verificationStateChanged("mfaRequired"))
        var next = state
        if verified.minifiedJwt ?? verified.jwt != nil {
            next[StateKey.mfaBearer] = pending
        } else {
            next[StateKey.mfaToken] = pending
        }
        return .challenge(
            Challenge(
                flowID: flowID, provider: id, kind: .totp(digits: 6, enrollment: nil), destination: destination,
                issuedAt: context.now, providerState: next))
    }

    /// Answers the MFA step: `POST /sdk/{env}/users/mfa/auth/totp {code}` with the pending token
    /// as bearer → the upgraded `VerifyResponse` (Docs/Providers/Dynamic.md, "MFA").
    /// - Throws: `AuthError` `.invalidInput` `.invalidCodeFormat` (not 6 digits; no request),
    ///   `.invalidCode` (`mfa_invalid_code`; the step stays usable), `.unauthorized` (`401`: the
    ///   pending token expired or was revoked; an upgrade that still requires a factor, code
    ///   ``mfaRequiredCode``), the common mappings, `.malformedResponse`; `CancellationError`.
    func respondToMFA(_ challenge: Challenge, answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        let code = try answer.normalizedCode(length: 6)
        guard
            let bearer = (challenge.providerState[StateKey.mfaBearer] ?? challenge.providerState[StateKey.mfaToken])?
                .reveal()
        else {
            throw AuthError(.challengeNotPending, "the challenge carries no Dynamic MFA session", provider: id)
        }
        var request = try HTTPRequest.json(
            .post, configuration.endpoint("users/mfa/auth/totp"), body: DynamicWire.MFATotp(code: Secret(code)))
        request.headers["Authorization"] = "Bearer \(bearer)"
        let verified: DynamicWire.VerifyResponse = try await send(request, channel: nil, context: context)
        if Self.mfaPendingToken(verified) != nil {
            throw AuthError(
                .unauthorized, "Dynamic accepted the code but still asks for another factor", provider: id,
                providerCode: Self.mfaRequiredCode)
        }
        return .signedIn(try makeSession(verified, sessionID: nil, createdAt: context.now, now: context.now))
    }
}
