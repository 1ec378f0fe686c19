import Foundation

// The platform-independent half of `PasskeyAuthorization` (Docs/Passkeys.md): everything the
// AuthenticationServices glue (PasskeyAuthorization+AuthenticationServices.swift) would
// otherwise decide itself, so it runs and is tested on Linux
// (Tests/MultiAuthTests/PasskeyAuthorizationMappingTests.swift). The glue only copies these
// values into `ASAuthorization…` objects and back.

/// What AuthenticationServices needs to run one ``PasskeyCeremony``: the arguments of
/// `ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier:)` and of its
/// `createCredentialRegistrationRequest(challenge:name:userID:)` /
/// `createCredentialAssertionRequest(challenge:)`, the `allowedCredentials` ids and the
/// `userVerificationPreference`.
///
/// Not mapped, because the platform request has no such parameter: the ceremony's `timeout`,
/// the credential descriptors' `transports`, and `excludedCredentials` (AuthenticationServices
/// exposes an exclude list for platform registrations only through
/// `ASAuthorizationWebBrowserPlatformPublicKeyCredentialRegistrationRequest`, iOS 17.4+, an
/// API for web browsers; the relying party must refuse a credential id it already holds,
/// W3C WebAuthn Level 3 §7.1).
package struct PasskeyPlatformRequest: Sendable, Hashable {
    /// Which platform request to create, with its operation-specific arguments.
    package enum Operation: Sendable, Hashable {
        /// `createCredentialRegistrationRequest(challenge:name:userID:)`, then `displayName`.
        case registration(name: String, displayName: String?, userID: Data)
        /// `createCredentialAssertionRequest(challenge:)`, then `allowedCredentials` (empty: any
        /// passkey of the relying party, a discoverable credential).
        case assertion(allowedCredentialIDs: [Data])
    }

    /// The COSE algorithm the platform authenticator's passkeys use: ES256 (RFC 9053 §2.1).
    /// The platform request has no algorithm parameter.
    package static let platformAlgorithm = -7

    /// The provider that issued the challenge (for the errors).
    package var provider: AuthProviderID
    /// `relyingPartyIdentifier`: the ceremony's relying party id.
    package var relyingPartyIdentifier: String
    /// The challenge bytes, as given.
    package var challenge: Data
    /// Registration or assertion, with their arguments.
    package var operation: Operation
    /// The ceremony's user verification requirement.
    package var userVerification: PasskeyUserVerification

    /// The user verification preference as WebAuthn spells it (`"required"`, `"preferred"`,
    /// `"discouraged"`, W3C WebAuthn Level 3 §5.8.6), the values of
    /// `ASAuthorizationPublicKeyCredentialUserVerificationPreference`'s three constants.
    package var userVerificationPreference: String { userVerification.rawValue }

    /// Reads the platform request out of a passkey challenge, before anything is shown.
    /// - Throws: `AuthError` `.invalidInput` with reason `.answerMismatch` when the challenge
    ///   is not ``Challenge/Kind/passkey(_:)``; `.malformedResponse` for a ceremony the platform
    ///   cannot run (no challenge bytes or relying party id; a registration without a user, or
    ///   with an empty or over-long user id or an empty account name); `.unsupported` for a
    ///   registration whose algorithms leave out ES256, the only one the platform creates.
    package init(_ challenge: Challenge) throws(AuthError) {
        let provider = challenge.provider
        guard case .passkey(let ceremony) = challenge.kind else {
            throw AuthError(
                .invalidInput, "PasskeyAuthorization runs passkey challenges only, not \(challenge.kind)",
                provider: provider, reason: .answerMismatch)
        }
        func malformed(_ what: String) -> AuthError {
            AuthError(
                .malformedResponse, "the passkey \(ceremony.operation.rawValue) ceremony \(what)", provider: provider)
        }
        guard !ceremony.challenge.isEmpty else { throw malformed("has no challenge bytes") }
        guard !ceremony.relyingPartyID.isEmpty else { throw malformed("has no relying party id") }
        switch ceremony.operation {
        case .registration:
            guard let user = ceremony.user else { throw malformed("names no user") }
            guard !user.id.isEmpty, user.id.count <= PasskeyResult.maximumUserHandleBytes else {
                throw malformed("has a user id of \(user.id.count) bytes (1 to 64, W3C WebAuthn Level 3 §5.4.3)")
            }
            guard !user.name.isEmpty else { throw malformed("has an empty account name") }
            guard ceremony.algorithms.isEmpty || ceremony.algorithms.contains(Self.platformAlgorithm) else {
                throw AuthError(
                    .unsupported,
                    "the relying party accepts COSE algorithms \(ceremony.algorithms), not ES256 (-7), the only one "
                        + "the platform authenticator creates", provider: provider)
            }
            operation = .registration(
                name: user.name, displayName: user.displayName.isEmpty ? nil : user.displayName, userID: user.id)
        case .assertion:
            operation = .assertion(allowedCredentialIDs: ceremony.allowedCredentials.map(\.id))
        }
        self.provider = provider
        relyingPartyIdentifier = ceremony.relyingPartyID
        self.challenge = ceremony.challenge
        userVerification = ceremony.userVerification
    }

    /// The result of a platform registration credential
    /// (`ASAuthorizationPlatformPublicKeyCredentialRegistration`): `credentialID`,
    /// `rawClientDataJSON`, `rawAttestationObject`.
    /// - Throws: `AuthError` `.malformedResponse` when this request is an assertion or the
    ///   platform gave no attestation object.
    package func registration(credentialID: Data, clientDataJSON: Data, attestationObject: Data?) throws(AuthError)
        -> PasskeyResult
    {
        guard case .registration = operation else { throw unexpected("a new passkey for an assertion request") }
        guard let attestationObject else { throw unexpected("a new passkey without an attestation object") }
        return .registration(
            PasskeyRegistration(
                credentialID: credentialID, clientDataJSON: clientDataJSON, attestationObject: attestationObject))
    }

    /// The result of a platform assertion credential
    /// (`ASAuthorizationPlatformPublicKeyCredentialAssertion`): `credentialID`,
    /// `rawClientDataJSON`, `rawAuthenticatorData`, `signature`, `userID` (an empty or absent
    /// user id becomes a `nil` user handle).
    /// - Throws: `AuthError` `.malformedResponse` when this request is a registration or the
    ///   platform gave no authenticator data or no signature.
    package func assertion(
        credentialID: Data, clientDataJSON: Data, authenticatorData: Data?, signature: Data?, userID: Data?
    ) throws(AuthError) -> PasskeyResult {
        guard case .assertion = operation else { throw unexpected("a signature for a registration request") }
        guard let authenticatorData, let signature else {
            throw unexpected("a signature without authenticator data or signature bytes")
        }
        return .assertion(
            PasskeyAssertion(
                credentialID: credentialID, clientDataJSON: clientDataJSON, authenticatorData: authenticatorData,
                signature: signature, userHandle: userID.flatMap { $0.isEmpty ? nil : $0 }))
    }

    /// The error for a credential of another type than the request's (a password, an Apple ID).
    package func unexpectedCredential(_ typeName: String) -> AuthError {
        unexpected("a \(typeName) instead of a passkey")
    }

    private func unexpected(_ what: String) -> AuthError {
        AuthError(.malformedResponse, "the platform returned \(what)", provider: provider)
    }

    /// What an `ASAuthorizationController` failure means for the app.
    ///
    /// `code` is the `ASAuthorizationError.Code` raw value when the error is an
    /// `ASAuthorizationError` (https://developer.apple.com/documentation/authenticationservices/asauthorizationerror-swift.struct/code),
    /// else `nil`. The user dismissing the sheet or the device having no passkey to offer is
    /// not a failure, it is ``PasskeyResult/cancelled`` (answer it, and `AuthClient` answers
    /// `.cancelledByUser` with the challenge still open):
    ///
    /// | code | meaning | result |
    /// |---|---|---|
    /// | 1001 `canceled` | the user closed the sheet (also after our `cancel()`) | `.cancelled` |
    /// | 1005 `notInteractive` | no passkey to offer without showing UI | `.cancelled` |
    /// | 1006 `matchedExcludedCredential` | this device already holds a passkey the relying party excluded | `.cancelled` |
    /// | 1004 `failed` | the request was refused: usually the app's associated domains lack `webcredentials:<rp id>`, or a parameter is invalid | `AuthError` `.configuration` |
    /// | 1002 `invalidResponse` | the platform received an invalid response | `AuthError` `.malformedResponse` |
    /// | 1003 `notHandled` | no provider handled the request | `AuthError` `.unsupported` |
    /// | 1010 `deviceNotConfiguredForPasskeyCreation` | the device cannot create passkeys now (no passcode, iCloud Keychain off) | `AuthError` `.unsupported` |
    /// | 1000 `unknown`, any other code, any other error | | `AuthError` `.generic` |
    ///
    /// An `AuthError` keeps the code in `providerCode` and the platform error, redacted, in
    /// `underlying`.
    /// - Throws: `CancellationError` as it is (the calling task was cancelled); otherwise the
    ///   `AuthError` of the table.
    package func result(forFailure error: any Error, authorizationErrorCode code: Int?) throws -> PasskeyResult {
        if error is CancellationError { throw error }
        func failure(_ authCode: AuthError.Code, _ message: String) -> AuthError {
            AuthError(authCode, message, provider: provider, providerCode: code.map(String.init), underlying: error)
        }
        switch code {
        case 1001, 1005, 1006:
            return .cancelled
        case 1004:
            throw failure(
                .configuration,
                "the platform refused the passkey request: check the app's associated domains "
                    + "(webcredentials:\(relyingPartyIdentifier)) and the ceremony's parameters")
        case 1002:
            throw failure(.malformedResponse, "the platform received an invalid passkey response")
        case 1003:
            throw failure(.unsupported, "no credential provider handled the passkey request")
        case 1010:
            throw failure(.unsupported, "this device cannot create passkeys now (no passcode, or iCloud Keychain off)")
        case .some(let code):
            throw failure(.generic, "the passkey request failed with ASAuthorizationError \(code)")
        case nil:
            throw failure(.generic, "the passkey request failed")
        }
    }
}

/// Resumes one passkey ceremony's continuation exactly once, whichever comes first: the
/// platform's success, its failure, or the cancellation of the calling task (which then also
/// cancels the platform request). Later outcomes are ignored, so a delegate callback after a
/// cancellation cannot resume twice.
///
/// Main-actor isolated, as `ASAuthorizationController` and its delegates are. The gate also
/// keeps the platform objects alive (the controller holds its delegate weakly) until the
/// ceremony ends.
@MainActor
package final class PasskeyCeremonyGate {
    private var continuation: CheckedContinuation<PasskeyResult, any Error>?
    private var cancelPlatform: (@MainActor () -> Void)?
    private var cancelledBeforeStart = false
    /// Whether the ceremony has ended (an outcome was delivered).
    package private(set) var isFinished = false

    private init() {}

    /// Runs one ceremony: `start` begins the platform request (or finishes the gate itself) and
    /// returns how to cancel it. `start` is not called when the task is already cancelled.
    /// - Returns: The first outcome delivered to ``finish(_:)``.
    /// - Throws: `CancellationError` when the calling task is cancelled first; the error
    ///   delivered to ``finish(_:)`` otherwise.
    package static func run(
        start: @MainActor (PasskeyCeremonyGate) -> @MainActor () -> Void
    ) async throws -> PasskeyResult {
        let gate = PasskeyCeremonyGate()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                gate.continuation = continuation
                guard !Task.isCancelled, !gate.cancelledBeforeStart else { return gate.cancel() }
                let cancel = start(gate)
                if !gate.isFinished { gate.cancelPlatform = cancel }
            }
        } onCancel: {
            Task { @MainActor in gate.cancel() }
        }
    }

    /// Delivers the platform's outcome; ignored once the ceremony has ended.
    package func finish(_ outcome: Result<PasskeyResult, any Error>) {
        guard !isFinished, let continuation else { return }
        isFinished = true
        self.continuation = nil
        cancelPlatform = nil
        continuation.resume(with: outcome)
    }

    /// Ends the ceremony with `CancellationError`, then cancels the platform request; ignored
    /// once the ceremony has ended.
    package func cancel() {
        guard continuation != nil || isFinished else {
            cancelledBeforeStart = true
            return
        }
        let cancelPlatform = cancelPlatform
        finish(.failure(CancellationError()))
        cancelPlatform?()
    }
}
