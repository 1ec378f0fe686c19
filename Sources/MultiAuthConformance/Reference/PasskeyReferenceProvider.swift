import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandboxRuntime

/// The provider for the passkey reference protocol (``PasskeyProtocol``):
/// sign-up with a passkey, sign-in with a passkey (the account's or any discoverable one),
/// remote sign-out.
///
/// The worked example of a passkey-offering adapter and the subject of the conformance kit's
/// passkey checks (Docs/Passkeys.md). Stateless: the challenge's provider state carries the
/// server's flow id.
///
/// Identities: `.email` (a new account registers a passkey; an account with passkeys signs in
/// with one of them) and `.passkey` (any passkey of the relying party). Anything else throws
/// `AuthError(.unsupported)` before any network call.
public struct PasskeyReferenceProvider: AuthProvider {
    /// The provider id, `"passkeys"` by default.
    public let id: AuthProviderID
    /// The backend's base URL, e.g. `https://passkeys.sandbox.test`.
    public let baseURL: URL

    /// The longest ceremony challenge accepted from the server, in bytes; a longer one is a
    /// malformed response.
    public static let maximumChallengeBytes = 1024
    /// The shortest ceremony challenge accepted from the server, in bytes (W3C WebAuthn Level 3
    /// §13.4.3); a shorter one is a malformed response.
    public static let minimumChallengeBytes = 16
    /// The longest `timeout` taken from the server, in milliseconds (10 minutes, the upper end
    /// of W3C WebAuthn Level 3 §5.4.6's recommended range); a longer one is clamped.
    public static let maximumTimeoutMilliseconds = 600_000

    /// Creates a provider talking to `baseURL`.
    public init(
        id: AuthProviderID = "passkeys", baseURL: URL = URL(string: "https://\(PasskeyProtocol.defaultHost)")!
    ) {
        self.id = id
        self.baseURL = baseURL
    }

    /// Starts a passkey registration (new account) or sign-in.
    /// - Returns: A ``/MultiAuth/Challenge`` of kind `.passkey` with requirement `.passkey`.
    /// - Throws: `AuthError` `.unsupported` (a phone or OAuth identity), `.invalidInput`,
    ///   `.network`, `.providerUnavailable`, `.malformedResponse` (options that are not a
    ///   ceremony), or `CancellationError`.
    public func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        let email: EmailAddress?
        switch request.identity {
        case .email(let address): email = address
        case .passkey: email = nil
        case .phone, .oauth:
            throw AuthError(.unsupported, "the passkey provider signs in by e-mail account or passkey", provider: id)
        }
        let response: PasskeyProtocol.StartResponse = try await post(
            "/passkeys/start", PasskeyProtocol.StartRequest(email: email?.identityKey), context: context)
        var state = ProviderState()
        state[revealing: "flowId"] = response.flowId
        state[revealing: "email"] = email?.identityKey
        return .challenge(
            Challenge(
                flowID: context.flowID ?? .random(), provider: id, kind: .passkey(try ceremony(response)),
                destination: email?.masked, issuedAt: context.now,
                expiresAt: context.now.addingTimeInterval(TimeInterval(max(0, response.expiresIn))),
                attemptsRemaining: max(0, response.attempts), providerState: state, requirements: [.passkey]))
    }

    /// The ceremony the server's options describe.
    private func ceremony(_ response: PasskeyProtocol.StartResponse) throws -> PasskeyCeremony {
        func data(_ text: String, limit: Int, _ what: String) throws -> Data {
            guard let bytes = try? Base64URL.decode(text), !bytes.isEmpty, bytes.count <= limit else {
                throw AuthError(
                    .malformedResponse, "the server's \(what) is not base64url of 1–\(limit) bytes", provider: id)
            }
            return Data(bytes)
        }
        func verification(_ raw: String?) -> PasskeyUserVerification {
            raw.flatMap(PasskeyUserVerification.init(rawValue:)) ?? .preferred
        }
        func timeout(_ milliseconds: Int?) -> Duration? {
            milliseconds.map { .milliseconds(min(max(0, $0), Self.maximumTimeoutMilliseconds)) }
        }
        func challenge(_ text: String) throws -> Data {
            let bytes = try data(text, limit: Self.maximumChallengeBytes, "challenge")
            guard bytes.count >= Self.minimumChallengeBytes else {
                throw AuthError(
                    .malformedResponse, "the server's challenge has \(bytes.count) bytes, fewer than 16", provider: id)
            }
            return bytes
        }
        // Entries of a type this client does not know are skipped (§5.8.3); a list that had
        // entries and keeps none must not become the empty list, which means "any passkey".
        func descriptors(_ list: [PasskeyProtocol.Descriptor]?, _ what: String) throws -> [PasskeyCredentialDescriptor]
        {
            let known = (list ?? []).filter { $0.type == "public-key" }
            guard known.isEmpty == (list ?? []).isEmpty else {
                throw AuthError(.malformedResponse, "the server's \(what) names no public-key credential", provider: id)
            }
            return try known.map {
                PasskeyCredentialDescriptor(
                    id: try data($0.id, limit: PasskeyResult.maximumCredentialIDBytes, "credential id"),
                    transports: $0.transports ?? [])
            }
        }
        // §5.1.3 step 10: no parameters means ES256 and RS256; parameters of which none is a
        // public-key type leave nothing to create (NotSupportedError).
        func algorithms(_ parameters: [PasskeyProtocol.Parameters]) throws -> [Int] {
            if parameters.isEmpty { return [-7, -257] }
            let known = parameters.filter { $0.type == "public-key" }.map(\.alg)
            guard !known.isEmpty else {
                throw AuthError(
                    .malformedResponse, "the server's pubKeyCredParams name no public-key algorithm", provider: id)
            }
            return known
        }
        switch (response.registration, response.assertion) {
        case (let options?, nil):
            // A web client would default to its own origin's domain; an app has none to default
            // to, and the API host is not the relying party.
            guard let rpID = options.rp.id, !rpID.isEmpty else {
                throw AuthError(.malformedResponse, "the registration options name no relying party id", provider: id)
            }
            return PasskeyCeremony(
                operation: .registration,
                challenge: try challenge(options.challenge),
                relyingPartyID: rpID, relyingPartyName: options.rp.name,
                user: PasskeyUser(
                    id: try data(options.user.id, limit: PasskeyResult.maximumUserHandleBytes, "user handle"),
                    name: options.user.name, displayName: options.user.displayName),
                excludedCredentials: try descriptors(options.excludeCredentials, "excludeCredentials"),
                userVerification: verification(options.authenticatorSelection?.userVerification),
                timeout: timeout(options.timeout),
                algorithms: try algorithms(options.pubKeyCredParams))
        case (nil, let options?):
            guard let rpID = options.rpId, !rpID.isEmpty else {
                throw AuthError(.malformedResponse, "the assertion options name no relying party id", provider: id)
            }
            return PasskeyCeremony(
                operation: .assertion,
                challenge: try challenge(options.challenge),
                relyingPartyID: rpID, allowedCredentials: try descriptors(options.allowCredentials, "allowCredentials"),
                userVerification: verification(options.userVerification), timeout: timeout(options.timeout),
                algorithms: [])
        default:
            throw AuthError(
                .malformedResponse, "the server must send exactly one of registration and assertion options",
                provider: id)
        }
    }

    /// Sends the platform's result to the server.
    /// - Throws: `AuthError` `.cancelledByUser` (a cancelled result, nothing sent),
    ///   `.signatureInvalid` (the server's verification failed; `providerCode` names the check,
    ///   e.g. `originMismatch`, or `cloned_authenticator`), `.unauthorized` (an unknown
    ///   credential), `.codeAlreadyUsed` (the flow's challenge was already used), `.expired`,
    ///   `.attemptsExhausted`, `.challengeNotPending`, `.invalidInput` (`credential_exists`),
    ///   `.network`, `.providerUnavailable`, or `CancellationError`.
    public func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
        -> SignInStep
    {
        guard let flowID = challenge.providerState[revealing: "flowId"] else {
            throw AuthError(.challengeNotPending, "the challenge carries no passkey flow", provider: id)
        }
        let tokens: ReferenceProtocol.TokenResponse
        switch answer.passkey {
        case .registration(let registration):
            let credentialID = Base64URL.encode(registration.credentialID)
            tokens = try await post(
                "/passkeys/register",
                PasskeyProtocol.FinishRegistrationRequest(
                    flowId: flowID,
                    credential: .init(
                        id: credentialID, rawId: credentialID,
                        response: .init(
                            clientDataJSON: Base64URL.encode(registration.clientDataJSON),
                            attestationObject: Base64URL.encode(registration.attestationObject)))), context: context)
        case .assertion(let assertion):
            let credentialID = Base64URL.encode(assertion.credentialID)
            tokens = try await post(
                "/passkeys/authenticate",
                PasskeyProtocol.FinishAssertionRequest(
                    flowId: flowID,
                    credential: .init(
                        id: credentialID, rawId: credentialID,
                        response: .init(
                            clientDataJSON: Base64URL.encode(assertion.clientDataJSON),
                            authenticatorData: Base64URL.encode(assertion.authenticatorData),
                            signature: Base64URL.encode(assertion.signature),
                            userHandle: assertion.userHandle.map { Base64URL.encode($0) }))), context: context)
        case .cancelled:
            throw AuthError(.cancelledByUser, "the passkey sheet was dismissed", provider: id)
        case nil:
            throw AuthError(
                .invalidInput, "a passkey challenge is answered with ChallengeAnswer(passkey:)", provider: id,
                reason: .answerMismatch)
        }
        // The account this flow was started for must be the one the server signed in.
        if let expected = challenge.providerState[revealing: "email"], tokens.user.email?.identityKey != expected {
            throw AuthError(
                .malformedResponse, "the server signed in another account than this flow's", provider: id,
                providerCode: "account_mismatch")
        }
        let user = AuthUser(id: tokens.user.id, email: tokens.user.email)
        return .signedIn(
            AuthSession(
                id: UUID().uuidString.lowercased(), provider: id, user: user,
                credentials: Credentials(
                    accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, tokenType: "Bearer",
                    expiresAt: context.now.addingTimeInterval(TimeInterval(max(0, tokens.expiresIn)))),
                createdAt: context.now))
    }

    /// Revokes the refresh token. Idempotent: an already revoked token (`401`) counts as done.
    /// - Throws: `AuthError` `.network`, `.providerUnavailable`, or `CancellationError`.
    public func signOut(_ session: AuthSession, context: AuthContext) async throws {
        guard let refreshToken = session.credentials.refreshToken else { return }
        let response = try await context.transport.send(
            try .json(.post, url("/logout"), body: ReferenceProtocol.LogoutRequest(refreshToken: refreshToken))
        )
        if response.isSuccess || response.status == 401 { return }
        throw mapError(response)
    }

    private func url(_ path: String) -> URL { baseURL.appendingPathComponent(String(path.dropFirst())) }

    private func post<Body: Encodable, Result: Decodable>(
        _ path: String, _ body: Body, context: AuthContext
    ) async throws -> Result {
        try await ReferenceWire.post(url(path), body, provider: id, context: context, mapError: mapError)
    }

    /// Maps an error response of the passkey protocol to an `AuthError`; `providerCode` keeps
    /// the verifier's reason for `verification_failed`, else the raw code.
    public func mapError(_ response: HTTPResponse) -> AuthError {
        let body: PasskeyProtocol.ErrorResponse
        switch ReferenceWire.errorBody(
            PasskeyProtocol.ErrorResponse.self, of: response, protocolName: "passkey", provider: id)
        {
        case .failure(let error): return error
        case .success(let decoded): body = decoded
        }
        let raw = body.code
        switch raw {
        case "verification_failed":
            return AuthError(
                .signatureInvalid, "the server refused the passkey (\(body.reason ?? "unknown check"))", provider: id,
                providerCode: body.reason ?? raw, attemptsRemaining: body.attemptsRemaining)
        case "cloned_authenticator":
            return AuthError(
                .signatureInvalid, "the passkey's signature counter went backwards (a cloned authenticator?)",
                provider: id, providerCode: raw)
        case "unknown_credential":
            return AuthError(
                .unauthorized, "the server does not know this passkey", provider: id, providerCode: raw,
                attemptsRemaining: body.attemptsRemaining)
        case "credential_exists":
            return AuthError(
                .invalidInput, "this authenticator already holds a passkey for the account", provider: id,
                providerCode: raw, reason: .answerMismatch)
        case "already_used":
            return AuthError(.codeAlreadyUsed, "the challenge was already used", provider: id, providerCode: raw)
        case "expired":
            return AuthError(.expired, "the challenge expired; start again", provider: id, providerCode: raw)
        case "attempts_exhausted":
            return AuthError(
                .attemptsExhausted, "no attempts remain; start again", provider: id, providerCode: body.reason ?? raw,
                attemptsRemaining: 0)
        case "unknown_flow":
            return AuthError(
                .challengeNotPending, "the server does not know this flow", provider: id, providerCode: raw)
        case "invalid_identity":
            return AuthError(.invalidInput, "the server rejected the identity", provider: id, providerCode: raw)
        case "invalid_token":
            return AuthError(.unauthorized, "the credentials are no longer accepted", provider: id, providerCode: raw)
        default:
            return AuthError(
                .generic, "the passkey server answered HTTP \(response.status)", provider: id, providerCode: raw)
        }
    }
}
