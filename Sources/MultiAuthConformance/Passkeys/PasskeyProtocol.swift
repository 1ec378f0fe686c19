import Foundation

/// The **passkey reference protocol**: a small WebAuthn relying-party protocol served by
/// ``PasskeyBackend`` and spoken by `PasskeyReferenceProvider` (module `MultiAuthConformance`),
/// so a passkey registration and sign-in run offline through `AuthClient` (Docs/Passkeys.md).
///
/// The ceremony options and the credentials travel in the JSON forms the W3C WebAuthn Level 3
/// specification defines (§5.1.11 `PublicKeyCredentialCreationOptionsJSON` and
/// `PublicKeyCredentialRequestOptionsJSON`; §5.1.3/§5.1.4 `RegistrationResponseJSON` and
/// `AuthenticationResponseJSON`): binary values are base64url without padding. Times are seconds
/// except the options' `timeout` (milliseconds, as in the specification).
///
/// | request | success | errors (`{"code": …}`) |
/// |---|---|---|
/// | `POST /passkeys/start` `StartRequest` | 200 `StartResponse` | 400 `invalid_identity` |
/// | `POST /passkeys/register` `FinishRegistrationRequest` | 200 token response | 401 `verification_failed` (+`reason`), 409 `credential_exists`, 404 `unknown_flow`, 409 `already_used`, 410 `expired`, 403 `attempts_exhausted` |
/// | `POST /passkeys/authenticate` `FinishAssertionRequest` | 200 token response | 401 `verification_failed` (+`reason`, `attemptsRemaining`), 401 `unknown_credential` (+`attemptsRemaining`), 403 `cloned_authenticator`, 404 `unknown_flow`, 409 `already_used`, 410 `expired`, 403 `attempts_exhausted` |
/// | `POST /logout` `{"refreshToken"}` | 204 | 401 `invalid_token` |
///
/// A start with an e-mail address of a new account asks for a registration (sign-up with a
/// passkey); of an account that has passkeys, an assertion limited to its credentials. A start
/// without one asks for an assertion with any passkey of the relying party (a discoverable
/// credential), whose response must then carry the user handle (§7.2 step 6). A flow's
/// challenge is single-use: once a finish succeeds, the same flow answers `409 already_used`; a
/// failed verification or an unknown credential costs one of ``maximumAttempts`` attempts. A
/// stored sign count only moves forward. The
/// token response is ``ReferenceProtocol/TokenResponse``.
///
/// The sandbox trusts the e-mail address of a sign-up; a real relying party proves it first (an
/// e-mail code, then the registration as a second step). The body types are `package`: an app
/// or a test talks to the backend through `PasskeyReferenceProvider`.
public enum PasskeyProtocol {
    /// The default host of the passkey backend.
    public static let defaultHost = "passkeys.sandbox.test"
    /// The relying party id the backend uses by default.
    public static let relyingPartyID = "sandbox.test"
    /// The web origin the backend accepts by default (an app's associated domain).
    public static let origin = "https://app.sandbox.test"
    /// Seconds a ceremony's challenge stays valid.
    public static let challengeTTL = 300
    /// Failed verifications per flow.
    public static let maximumAttempts = 3
    /// Bytes of a ceremony challenge (W3C WebAuthn Level 3 §13.4.3 asks for at least 16).
    public static let challengeBytes = 32

    /// `POST /passkeys/start` body.
    package struct StartRequest: Codable, Sendable {
        /// The account's e-mail identity key; `nil` for a discoverable-credential sign-in.
        package var email: String?
        /// Creates a body.
        package init(email: String?) { self.email = email }
    }

    /// The ceremony a start issued: exactly one of `registration` and `assertion`.
    package struct StartResponse: Codable, Sendable {
        /// The server's flow id.
        package var flowId: String
        /// Seconds until the challenge expires.
        package var expiresIn: Int
        /// Attempts left.
        package var attempts: Int
        /// Registration options, for a new account.
        package var registration: CreationOptions?
        /// Assertion options, for a sign-in.
        package var assertion: RequestOptions?
        /// Creates a response.
        package init(
            flowId: String, expiresIn: Int, attempts: Int, registration: CreationOptions?, assertion: RequestOptions?
        ) {
            self.flowId = flowId
            self.expiresIn = expiresIn
            self.attempts = attempts
            self.registration = registration
            self.assertion = assertion
        }
    }

    /// `PublicKeyCredentialRpEntity` (§5.4.2).
    package struct RelyingParty: Codable, Sendable, Hashable {
        /// The relying party id.
        package var id: String?
        /// The display name.
        package var name: String
        /// Creates an entity.
        package init(id: String?, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// `PublicKeyCredentialUserEntityJSON` (§5.4.3): `id` is base64url.
    package struct User: Codable, Sendable, Hashable {
        /// The user handle, base64url.
        package var id: String
        /// The account name.
        package var name: String
        /// The display name.
        package var displayName: String
        /// Creates an entity.
        package init(id: String, name: String, displayName: String) {
            self.id = id
            self.name = name
            self.displayName = displayName
        }
    }

    /// `PublicKeyCredentialParameters` (§5.3).
    package struct Parameters: Codable, Sendable, Hashable {
        /// Always `"public-key"`.
        package var type: String
        /// A COSE algorithm identifier (RFC 9053 §2.1).
        package var alg: Int
        /// Creates parameters.
        package init(type: String = "public-key", alg: Int) {
            self.type = type
            self.alg = alg
        }
    }

    /// `PublicKeyCredentialDescriptorJSON` (§5.8.3): `id` is base64url.
    package struct Descriptor: Codable, Sendable, Hashable {
        /// Always `"public-key"`.
        package var type: String
        /// The credential id, base64url.
        package var id: String
        /// Transport hints.
        package var transports: [String]?
        /// Creates a descriptor.
        package init(type: String = "public-key", id: String, transports: [String]? = nil) {
            self.type = type
            self.id = id
            self.transports = transports
        }
    }

    /// `AuthenticatorSelectionCriteria` (§5.4.4).
    package struct Selection: Codable, Sendable, Hashable {
        /// `"required"`, `"preferred"` or `"discouraged"`.
        package var residentKey: String?
        /// `"required"`, `"preferred"` or `"discouraged"`.
        package var userVerification: String?
        /// Creates criteria.
        package init(residentKey: String?, userVerification: String?) {
            self.residentKey = residentKey
            self.userVerification = userVerification
        }
    }

    /// `PublicKeyCredentialCreationOptionsJSON` (§5.1.11).
    package struct CreationOptions: Codable, Sendable, Hashable {
        /// The relying party.
        package var rp: RelyingParty
        /// The account.
        package var user: User
        /// The challenge, base64url.
        package var challenge: String
        /// Accepted algorithms, most preferred first.
        package var pubKeyCredParams: [Parameters]
        /// Milliseconds the relying party waits.
        package var timeout: Int?
        /// Credentials the authenticator must not already hold.
        package var excludeCredentials: [Descriptor]?
        /// Authenticator requirements.
        package var authenticatorSelection: Selection?
        /// The attestation conveyance preference, e.g. `"none"`.
        package var attestation: String?
        /// Creates options.
        package init(
            rp: RelyingParty, user: User, challenge: String, pubKeyCredParams: [Parameters], timeout: Int?,
            excludeCredentials: [Descriptor]?, authenticatorSelection: Selection?, attestation: String?
        ) {
            self.rp = rp
            self.user = user
            self.challenge = challenge
            self.pubKeyCredParams = pubKeyCredParams
            self.timeout = timeout
            self.excludeCredentials = excludeCredentials
            self.authenticatorSelection = authenticatorSelection
            self.attestation = attestation
        }
    }

    /// `PublicKeyCredentialRequestOptionsJSON` (§5.1.11).
    package struct RequestOptions: Codable, Sendable, Hashable {
        /// The challenge, base64url.
        package var challenge: String
        /// Milliseconds the relying party waits.
        package var timeout: Int?
        /// The relying party id.
        package var rpId: String?
        /// Credentials allowed; empty or absent for a discoverable credential.
        package var allowCredentials: [Descriptor]?
        /// `"required"`, `"preferred"` or `"discouraged"`.
        package var userVerification: String?
        /// Creates options.
        package init(
            challenge: String, timeout: Int?, rpId: String?, allowCredentials: [Descriptor]?, userVerification: String?
        ) {
            self.challenge = challenge
            self.timeout = timeout
            self.rpId = rpId
            self.allowCredentials = allowCredentials
            self.userVerification = userVerification
        }
    }

    /// `AuthenticatorAttestationResponseJSON` (§5.2.1), the fields the server reads.
    package struct AttestationResponse: Codable, Sendable {
        /// base64url.
        package var clientDataJSON: String
        /// base64url.
        package var attestationObject: String
        /// Creates a response.
        package init(clientDataJSON: String, attestationObject: String) {
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
        }
    }

    /// `AuthenticatorAssertionResponseJSON` (§5.2.2).
    package struct AssertionResponse: Codable, Sendable {
        /// base64url.
        package var clientDataJSON: String
        /// base64url.
        package var authenticatorData: String
        /// base64url.
        package var signature: String
        /// base64url, when the authenticator returned one.
        package var userHandle: String?
        /// Creates a response.
        package init(clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String?) {
            self.clientDataJSON = clientDataJSON
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userHandle = userHandle
        }
    }

    /// `RegistrationResponseJSON` / `AuthenticationResponseJSON` (§5.1.3, §5.1.4).
    package struct Credential<Response: Codable & Sendable>: Codable, Sendable {
        /// The credential id, base64url.
        package var id: String
        /// The credential id, base64url (the same bytes as `id`).
        package var rawId: String
        /// Always `"public-key"`.
        package var type: String
        /// The authenticator's response.
        package var response: Response
        /// Creates a credential.
        package init(id: String, rawId: String, type: String = "public-key", response: Response) {
            self.id = id
            self.rawId = rawId
            self.type = type
            self.response = response
        }
    }

    /// `POST /passkeys/register` body.
    package struct FinishRegistrationRequest: Codable, Sendable {
        /// The flow the start issued.
        package var flowId: String
        /// The new credential.
        package var credential: Credential<AttestationResponse>
        /// Creates a body.
        package init(flowId: String, credential: Credential<AttestationResponse>) {
            self.flowId = flowId
            self.credential = credential
        }
    }

    /// `POST /passkeys/authenticate` body.
    package struct FinishAssertionRequest: Codable, Sendable {
        /// The flow the start issued.
        package var flowId: String
        /// The assertion.
        package var credential: Credential<AssertionResponse>
        /// Creates a body.
        package init(flowId: String, credential: Credential<AssertionResponse>) {
            self.flowId = flowId
            self.credential = credential
        }
    }

    /// An error body: `code`, and for `verification_failed` the verifier's `reason` (e.g.
    /// `originMismatch`), and the attempts left when a verification failed.
    package struct ErrorResponse: Codable, Sendable {
        /// The error code.
        package var code: String
        /// The verifier's reason, for `verification_failed`.
        package var reason: String?
        /// Attempts left, after a failed verification.
        package var attemptsRemaining: Int?
        /// Creates a body.
        package init(code: String, reason: String? = nil, attemptsRemaining: Int? = nil) {
            self.code = code
            self.reason = reason
            self.attemptsRemaining = attemptsRemaining
        }
    }
}
