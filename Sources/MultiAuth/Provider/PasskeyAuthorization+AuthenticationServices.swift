#if canImport(AuthenticationServices) && !os(watchOS)
import AuthenticationServices
import Foundation

/// Runs a passkey challenge's ceremony with the platform authenticator (AuthenticationServices)
/// and returns the answer to submit (Docs/Passkeys.md).
///
/// ```swift
/// let answer = try await PasskeyAuthorization().perform(challenge, anchor: window)
/// let step = try await client.submit(answer, for: challenge)
/// ```
///
/// The answer carries ``PasskeyResult/cancelled`` when the person closed the sheet or the device
/// had no passkey to offer; submitting it throws `AuthError` `.cancelledByUser` with the
/// challenge still open, so one `catch` handles both. The mapping between the ceremony and the
/// platform's values, and which platform errors count as a cancellation, run on every platform
/// (`PasskeyPlatformRequest`, Sources/MultiAuth/Provider/PasskeyAuthorizationMapping.swift).
///
/// Needs the associated domain `webcredentials:<relying party id>` and iOS 16 / macOS 13 /
/// tvOS 16 (the package floors; watchOS has no presentation anchor). Main-actor isolated, as
/// `ASAuthorizationController` is.
@MainActor
public struct PasskeyAuthorization {
    /// Creates the runner; it holds no state between ceremonies.
    public init() {}

    /// Shows the platform's passkey sheet for a ``Challenge/Kind/passkey(_:)`` challenge and
    /// waits for the person.
    ///
    /// Cancelling the calling task cancels the sheet (`ASAuthorizationController.cancel()`)
    /// and throws `CancellationError`.
    /// - Parameters:
    ///   - challenge: A challenge of kind ``Challenge/Kind/passkey(_:)`` (registration or
    ///     assertion).
    ///   - anchor: The window the sheet is presented over.
    /// - Returns: `ChallengeAnswer(passkey:)` with the registration, the assertion or
    ///   ``PasskeyResult/cancelled``; submit it with `AuthClient.submit(_:for:)`.
    /// - Throws: `AuthError` `.invalidInput` with reason `.answerMismatch` for a challenge of
    ///   another kind (nothing is shown); `.malformedResponse`, `.unsupported`,
    ///   `.configuration` or `.generic` for a ceremony the platform cannot run or a platform
    ///   failure (the table of `PasskeyPlatformRequest.result(forFailure:authorizationErrorCode:)`);
    ///   `CancellationError` when the calling task is cancelled.
    public func perform(_ challenge: Challenge, anchor: ASPresentationAnchor) async throws -> ChallengeAnswer {
        let request = try PasskeyPlatformRequest(challenge)
        let result = try await PasskeyCeremonyGate.run { gate in
            let controller = ASAuthorizationController(authorizationRequests: [Self.platformRequest(for: request)])
            let delegate = PasskeyAuthorizationDelegate(request: request, gate: gate, anchor: anchor)
            controller.delegate = delegate
            controller.presentationContextProvider = delegate
            controller.performRequests()
            return { withExtendedLifetime(delegate) { controller.cancel() } }
        }
        return ChallengeAnswer(passkey: result)
    }

    private static func platformRequest(for request: PasskeyPlatformRequest) -> ASAuthorizationRequest {
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(
            relyingPartyIdentifier: request.relyingPartyIdentifier)
        let preference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(
            rawValue: request.userVerificationPreference)
        switch request.operation {
        case .registration(let name, let displayName, let userID):
            let registration = provider.createCredentialRegistrationRequest(
                challenge: request.challenge, name: name, userID: userID)
            registration.displayName = displayName
            registration.userVerificationPreference = preference
            return registration
        case .assertion(let allowedCredentialIDs):
            let assertion = provider.createCredentialAssertionRequest(challenge: request.challenge)
            assertion.allowedCredentials = allowedCredentialIDs.map {
                ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0)
            }
            assertion.userVerificationPreference = preference
            return assertion
        }
    }
}

/// The controller's delegate and presentation context: hands the credential's fields or the
/// error to `PasskeyPlatformRequest` and the outcome to the gate.
@MainActor
private final class PasskeyAuthorizationDelegate: NSObject, ASAuthorizationControllerDelegate,
    ASAuthorizationControllerPresentationContextProviding
{
    let request: PasskeyPlatformRequest
    let gate: PasskeyCeremonyGate
    let anchor: ASPresentationAnchor

    init(request: PasskeyPlatformRequest, gate: PasskeyCeremonyGate, anchor: ASPresentationAnchor) {
        self.request = request
        self.gate = gate
        self.anchor = anchor
    }

    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor { anchor }

    func authorizationController(
        controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization
    ) {
        do {
            gate.finish(.success(try result(of: authorization.credential)))
        } catch {
            gate.finish(.failure(error))
        }
    }

    private func result(of credential: any ASAuthorizationCredential) throws(AuthError) -> PasskeyResult {
        switch credential {
        case let registration as ASAuthorizationPlatformPublicKeyCredentialRegistration:
            try request.registration(
                credentialID: registration.credentialID, clientDataJSON: registration.rawClientDataJSON,
                attestationObject: registration.rawAttestationObject)
        case let assertion as ASAuthorizationPlatformPublicKeyCredentialAssertion:
            try request.assertion(
                credentialID: assertion.credentialID, clientDataJSON: assertion.rawClientDataJSON,
                authenticatorData: assertion.rawAuthenticatorData, signature: assertion.signature,
                userID: assertion.userID)
        default:
            throw request.unexpectedCredential(String(describing: type(of: credential)))
        }
    }

    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        let code = (error as? ASAuthorizationError)?.code.rawValue
        gate.finish(Result { try request.result(forFailure: error, authorizationErrorCode: code) })
    }
}
#endif
