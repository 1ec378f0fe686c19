import Foundation

/// The relying party's options for one WebAuthn ceremony: what ``Challenge/Kind/passkey(_:)``
/// asks the platform authenticator to do.
///
/// A registration ceremony creates a passkey (the options of
/// `navigator.credentials.create()`, W3C WebAuthn Level 3 §5.4); an assertion ceremony signs in
/// with one (`navigator.credentials.get()`, §5.5). Hand these values to the platform (on Apple
/// platforms `PasskeyAuthorization` does it for you, Docs/Passkeys.md), then answer the
/// challenge with the platform's result as ``ChallengeAnswer/passkey``.
///
/// The challenge bytes are a single-use nonce (Docs/Security.md, "Redaction"): the mirror (and so
/// `String(describing:)`, built from it) and the short label ``Challenge/Kind`` shows give the
/// operation, the relying party and counts only.
public struct PasskeyCeremony: Sendable, Codable, Hashable, CustomReflectable {
    /// Which ceremony.
    public enum Operation: String, Sendable, Codable, Hashable {
        /// Create a passkey (W3C WebAuthn Level 3 §7.1).
        case registration
        /// Sign in with a passkey (W3C WebAuthn Level 3 §7.2).
        case assertion
    }

    /// Registration or assertion.
    public var operation: Operation
    /// The relying party's challenge: random bytes, at least 16 (W3C WebAuthn Level 3 §13.4.3).
    public var challenge: Data
    /// The relying party id, a registrable domain such as `"example.com"` (§5.4.2).
    public var relyingPartyID: String
    /// The relying party's display name (registration only).
    public var relyingPartyName: String?
    /// The account the passkey is created for (registration only).
    public var user: PasskeyUser?
    /// Credentials the user may sign in with (assertion); empty lets the user pick any passkey
    /// for ``relyingPartyID`` (a discoverable credential).
    public var allowedCredentials: [PasskeyCredentialDescriptor]
    /// Credentials the authenticator must not already hold (registration), so one account does
    /// not register the same authenticator twice.
    public var excludedCredentials: [PasskeyCredentialDescriptor]
    /// Whether the authenticator must verify the user (biometrics or device passcode).
    public var userVerification: PasskeyUserVerification
    /// How long the relying party waits for the ceremony, a hint for the platform; `nil` when
    /// the relying party gives none.
    public var timeout: Duration?
    /// The COSE algorithm identifiers the relying party accepts, most preferred first
    /// (registration; RFC 9053 §2.1: `-7` ES256, `-8` EdDSA, `-257` RS256).
    public var algorithms: [Int]

    /// Creates ceremony options.
    public init(
        operation: Operation, challenge: Data, relyingPartyID: String, relyingPartyName: String? = nil,
        user: PasskeyUser? = nil, allowedCredentials: [PasskeyCredentialDescriptor] = [],
        excludedCredentials: [PasskeyCredentialDescriptor] = [], userVerification: PasskeyUserVerification = .preferred,
        timeout: Duration? = nil, algorithms: [Int] = [-7, -257]
    ) {
        self.operation = operation
        self.challenge = challenge
        self.relyingPartyID = relyingPartyID
        self.relyingPartyName = relyingPartyName
        self.user = user
        self.allowedCredentials = allowedCredentials
        self.excludedCredentials = excludedCredentials
        self.userVerification = userVerification
        self.timeout = timeout
        self.algorithms = algorithms
    }

    /// `passkey(assertion, rp: example.com, 2 allowed)`, the label `Challenge.Kind` shows: never
    /// the challenge bytes or user id.
    var label: String {
        var parts = ["\(operation.rawValue)", "rp: \(relyingPartyID)"]
        if !allowedCredentials.isEmpty { parts.append("\(allowedCredentials.count) allowed") }
        if !excludedCredentials.isEmpty { parts.append("\(excludedCredentials.count) excluded") }
        if userVerification == .required { parts.append("user verification") }
        return "passkey(" + parts.joined(separator: ", ") + ")"
    }

    /// A mirror without the challenge bytes (a nonce); the user shows its own redacted mirror.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "operation": operation, "relyingPartyID": relyingPartyID, "user": user as Any,
                "allowedCredentials": allowedCredentials.count, "excludedCredentials": excludedCredentials.count,
                "userVerification": userVerification, "challenge": HTTPRequest.redactionMarker,
            ], displayStyle: .struct)
    }
}

/// Whether a WebAuthn ceremony requires user verification (W3C WebAuthn Level 3 §5.8.6).
public enum PasskeyUserVerification: String, Sendable, Codable, Hashable {
    /// The relying party refuses a result without user verification.
    case required
    /// Verify the user when the authenticator can.
    case preferred
    /// Do not ask for user verification.
    case discouraged
}

/// The account a passkey is created for (W3C WebAuthn Level 3 §5.4.3).
///
/// The names are personal data: every rendering shows `<redacted>` only.
public struct PasskeyUser: Sendable, Codable, Hashable, CustomReflectable {
    /// The user handle: at most 64 opaque bytes, never personal data (§5.4.3).
    public var id: Data
    /// The account name the platform shows, e.g. an e-mail address.
    public var name: String
    /// A friendly name the platform shows.
    public var displayName: String

    /// Creates a user.
    public init(id: Data, name: String, displayName: String) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }

    /// A mirror without the handle or the names; Swift's default `description` is built from it.
    public var customMirror: Mirror {
        Mirror(self, children: ["user": HTTPRequest.redactionMarker], displayStyle: .struct)
    }
}

/// A credential named in a ceremony's allow or exclude list (W3C WebAuthn Level 3 §5.8.3).
///
/// Nothing here is secret (a credential id is not, Docs/Passkeys.md, "What renderings show"), so
/// it keeps Swift's default rendering.
public struct PasskeyCredentialDescriptor: Sendable, Codable, Hashable {
    /// The credential id.
    public var id: Data
    /// Transport hints, e.g. `"internal"`, `"hybrid"`, `"usb"` (§5.8.4); may be empty.
    public var transports: [String]

    /// Creates a descriptor.
    public init(id: Data, transports: [String] = []) {
        self.id = id
        self.transports = transports
    }
}

/// What the platform authenticator returned for a ``PasskeyCeremony``: the answer to a
/// passkey challenge, carried by ``ChallengeAnswer/passkey``.
///
/// `AuthClient` checks the result against the challenge and its sizes before any network call
/// (``maximumCredentialIDBytes`` and the other limits); a ``cancelled`` result is refused with
/// `AuthError` `.cancelledByUser` and leaves the challenge answerable.
///
/// Swift's default rendering: the case, and the registration's or assertion's own mirror.
public enum PasskeyResult: Sendable, Hashable {
    /// A new passkey (answer to a registration ceremony).
    case registration(PasskeyRegistration)
    /// A signature by an existing passkey (answer to an assertion ceremony).
    case assertion(PasskeyAssertion)
    /// The user dismissed the platform sheet, or the platform found no passkey.
    case cancelled

    /// The largest credential id accepted, in bytes (W3C WebAuthn Level 3 §4, "Credential ID":
    /// at most 1023 bytes).
    public static let maximumCredentialIDBytes = 1023
    /// The largest `clientDataJSON` accepted, in bytes.
    public static let maximumClientDataBytes = 16 * 1024
    /// The largest authenticator data accepted, in bytes.
    public static let maximumAuthenticatorDataBytes = 16 * 1024
    /// The largest signature accepted, in bytes (an RSA-8192 signature is 1,024).
    public static let maximumSignatureBytes = 1024
    /// The largest attestation object accepted, in bytes (room for an x5c chain).
    public static let maximumAttestationObjectBytes = 64 * 1024
    /// The largest user handle accepted, in bytes (§5.4.3: at most 64).
    public static let maximumUserHandleBytes = 64

    /// The credential id of a registration or assertion; `nil` when cancelled.
    public var credentialID: Data? {
        switch self {
        case .registration(let registration): registration.credentialID
        case .assertion(let assertion): assertion.credentialID
        case .cancelled: nil
        }
    }
}

/// A new passkey: the platform's `AuthenticatorAttestationResponse` (W3C WebAuthn Level 3 §5.2.1).
///
/// The client data holds the ceremony's challenge, a nonce: the mirror, and so `description`,
/// shows sizes only.
public struct PasskeyRegistration: Sendable, Hashable, CustomReflectable {
    /// The new credential's id.
    public var credentialID: Data
    /// The client data the authenticator signed over, UTF-8 JSON (§5.8.1).
    public var clientDataJSON: Data
    /// The CBOR attestation object: format, statement, authenticator data (§6.5).
    public var attestationObject: Data

    /// Creates a registration result.
    public init(credentialID: Data, clientDataJSON: Data, attestationObject: Data) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
    }

    /// A mirror with sizes only; Swift's default `description` is built from it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "credentialID": "\(credentialID.count) bytes", "clientDataJSON": "\(clientDataJSON.count) bytes",
                "attestationObject": "\(attestationObject.count) bytes",
            ], displayStyle: .struct)
    }
}

/// A passkey's signature: the platform's `AuthenticatorAssertionResponse` (W3C WebAuthn Level 3
/// §5.2.2).
///
/// The client data holds the ceremony's challenge, a nonce: the mirror, and so `description`,
/// shows sizes only.
public struct PasskeyAssertion: Sendable, Hashable, CustomReflectable {
    /// The id of the credential that signed.
    public var credentialID: Data
    /// The client data the authenticator signed over, UTF-8 JSON (§5.8.1).
    public var clientDataJSON: Data
    /// The authenticator data (§6.1).
    public var authenticatorData: Data
    /// The signature over the authenticator data and the client data's SHA-256.
    public var signature: Data
    /// The user handle the credential was created with; present for discoverable credentials.
    public var userHandle: Data?

    /// Creates an assertion result.
    public init(credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }

    /// A mirror with sizes only; Swift's default `description` is built from it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "credentialID": "\(credentialID.count) bytes", "clientDataJSON": "\(clientDataJSON.count) bytes",
                "authenticatorData": "\(authenticatorData.count) bytes", "signature": "\(signature.count) bytes",
            ], displayStyle: .struct)
    }
}

extension PasskeyResult {
    /// The exact identity of a result: every field, base64 and joined (`.` cannot occur in
    /// base64), so two results share a key only when every byte is the same.
    private static func key(_ kind: String, _ fields: [Data]) -> String {
        "passkey-" + kind + ":" + fields.map { $0.base64EncodedString() }.joined(separator: ".")
    }

    /// Checks the result answers `ceremony` and is within the size limits; returns the key
    /// concurrent submits of the same result share and a finished flow replays for (see
    /// `AuthClient.submit`): every byte of the result.
    /// - Throws: `AuthError` `.cancelledByUser` for ``cancelled``; `.invalidInput` with reason
    ///   `.answerMismatch` for a registration answering an assertion (or the reverse), or a
    ///   credential the ceremony does not allow; `.invalidInput` with `.invalidToken` for a size
    ///   over a limit or an empty field.
    func checked(for ceremony: PasskeyCeremony, provider: AuthProviderID) throws -> String {
        func bounded(_ data: Data, _ limit: Int, _ name: String, allowEmpty: Bool = false) throws {
            guard data.count <= limit, allowEmpty || !data.isEmpty else {
                throw AuthError(
                    .invalidInput, "the passkey result's \(name) is empty or longer than \(limit) bytes",
                    provider: provider, reason: .invalidToken)
            }
        }
        switch (self, ceremony.operation) {
        case (.cancelled, _):
            throw AuthError(
                .cancelledByUser, "the passkey sheet was dismissed; the challenge stays open", provider: provider)
        case (.registration(let registration), .registration):
            try bounded(registration.credentialID, Self.maximumCredentialIDBytes, "credential id")
            try bounded(registration.clientDataJSON, Self.maximumClientDataBytes, "client data")
            try bounded(registration.attestationObject, Self.maximumAttestationObjectBytes, "attestation object")
            return Self.key(
                "registration",
                [registration.credentialID, registration.clientDataJSON, registration.attestationObject])
        case (.assertion(let assertion), .assertion):
            try bounded(assertion.credentialID, Self.maximumCredentialIDBytes, "credential id")
            try bounded(assertion.clientDataJSON, Self.maximumClientDataBytes, "client data")
            try bounded(assertion.authenticatorData, Self.maximumAuthenticatorDataBytes, "authenticator data")
            try bounded(assertion.signature, Self.maximumSignatureBytes, "signature")
            // A user handle is 1 to 64 bytes (§5.4.3); absent is allowed, empty is not.
            if let userHandle = assertion.userHandle {
                try bounded(userHandle, Self.maximumUserHandleBytes, "user handle")
            }
            if !ceremony.allowedCredentials.isEmpty,
                !ceremony.allowedCredentials.contains(where: { $0.id == assertion.credentialID })
            {
                throw AuthError(
                    .invalidInput, "the passkey that signed is not one this challenge allows", provider: provider,
                    reason: .answerMismatch)
            }
            return Self.key(
                "assertion",
                [
                    assertion.credentialID, assertion.clientDataJSON, assertion.authenticatorData, assertion.signature,
                    assertion.userHandle ?? Data(),  // never empty when present (checked above)
                ])
        case (.registration, .assertion), (.assertion, .registration):
            throw AuthError(
                .invalidInput, "a passkey \(ceremony.operation.rawValue) was asked for, not this result",
                provider: provider, reason: .answerMismatch)
        }
    }
}
