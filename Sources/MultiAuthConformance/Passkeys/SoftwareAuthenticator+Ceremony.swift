import Foundation
import MultiAuth
import MultiAuthCrypto

extension SoftwareAuthenticator {
    /// Runs `challenge`'s passkey ceremony as the platform would for an app at `origin`, and
    /// returns the answer to submit.
    /// - Parameters:
    ///   - challenge: A challenge of kind `.passkey`.
    ///   - origin: The web origin the platform reports in the client data (an app's associated
    ///     domain); default ``PasskeyProtocol/origin``.
    ///   - relyingPartyID: The relying party id the authenticator data names; `nil` uses the
    ///     ceremony's. A different one is the "wrong rp id" fault: a registration is made for
    ///     it, an assertion signs with the ceremony's credential but hashes this id.
    ///   - userVerified: Whether the user was verified (biometrics or passcode).
    /// - Throws: `AuthError` `.invalidInput` (reason `.answerMismatch`) for a challenge that is
    ///   not a passkey ceremony; the authenticator's errors (no credential for the relying
    ///   party, an excluded credential present).
    public func answer(
        _ challenge: Challenge, origin: String = PasskeyProtocol.origin, relyingPartyID: String? = nil,
        userVerified: Bool = true
    ) throws -> ChallengeAnswer {
        guard case .passkey(let ceremony) = challenge.kind else {
            throw AuthError(
                .invalidInput, "not a passkey challenge: \(challenge.kind)", provider: challenge.provider,
                reason: .answerMismatch)
        }
        return ChallengeAnswer(
            passkey: try perform(ceremony, origin: origin, relyingPartyID: relyingPartyID, userVerified: userVerified))
    }

    /// Runs `ceremony` for an app at `origin`: a registration creates a credential, an assertion
    /// signs with one the ceremony allows (any credential of the relying party when it names
    /// none).
    /// - Parameters: See ``answer(_:origin:relyingPartyID:userVerified:)``.
    /// - Throws: The authenticator's errors (no credential for the relying party, an excluded
    ///   credential present), `AuthError` `.invalidInput` for a registration without a user.
    public func perform(
        _ ceremony: PasskeyCeremony, origin: String = PasskeyProtocol.origin, relyingPartyID: String? = nil,
        userVerified: Bool = true
    ) throws -> PasskeyResult {
        let rpID = relyingPartyID ?? ceremony.relyingPartyID
        switch ceremony.operation {
        case .registration:
            guard let user = ceremony.user else {
                throw AuthError(.invalidInput, "a registration ceremony names no user", reason: .answerMismatch)
            }
            let made = try makeCredential(
                rpID: rpID, origin: origin, challenge: Array(ceremony.challenge), userHandle: Array(user.id),
                userName: user.name, excludedCredentialIDs: ceremony.excludedCredentials.map { Array($0.id) },
                userVerified: userVerified)
            return .registration(
                PasskeyRegistration(
                    credentialID: Data(made.credentialID), clientDataJSON: Data(made.clientDataJSON),
                    attestationObject: Data(made.attestationObject)))
        case .assertion:
            let signed = try getAssertion(
                rpID: ceremony.relyingPartyID, origin: origin, challenge: Array(ceremony.challenge),
                allowedCredentialIDs: ceremony.allowedCredentials.map { Array($0.id) }, userVerified: userVerified,
                claimedRPID: relyingPartyID)
            return .assertion(
                PasskeyAssertion(
                    credentialID: Data(signed.credentialID), clientDataJSON: Data(signed.clientDataJSON),
                    authenticatorData: Data(signed.authenticatorData), signature: Data(signed.signature),
                    userHandle: signed.userHandle.map { Data($0) }))
        }
    }
}
