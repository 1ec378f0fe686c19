import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking
import MultiAuthSandboxRuntime

/// The emulated relying party of the ``PasskeyProtocol``: registers passkeys and signs in with
/// them, verifying every credential with MultiAuth's server-side `WebAuthnVerifier`.
///
/// Register it with `sandbox.register(PasskeyBackend(), host: PasskeyProtocol.defaultHost)` and
/// answer its ceremonies with a `SoftwareAuthenticator` (Docs/Passkeys.md). Challenges, flow
/// ids, user handles and tokens come from the sandbox's seeded random source; time from the
/// server clock.
///
/// Thread-safe (its tables are in one `Locked` state; never held across the verifier's suspension). A
/// flow being verified is reserved, so two finishes of one flow at once verify once: the second
/// gets `409 already_used`.
public final class PasskeyBackend: SandboxBackend, Sendable {
    private struct Flow {
        let email: String?
        let operation: PasskeyCeremony.Operation
        let challenge: [UInt8]
        let userHandle: [UInt8]?
        let expiresAt: Date
        var attempts: Int
        var busy = false
        var finished = false
    }

    private struct Account {
        let userID: String
        let userHandle: [UInt8]
        var credentials: [[UInt8]]
    }

    private struct Grant {
        let userID: String
        let email: String
        let accessToken: String
    }

    /// The backend's tables, only touched inside `state.withLock`.
    private struct State {
        var flows: [String: Flow] = [:]
        var accounts: [String: Account] = [:]
        var credentials: [[UInt8]: (email: String, record: WebAuthnCredential)] = [:]
        var grants: [String: Grant] = [:]
        var regressions = 0
    }

    private let state = Locked(State())
    private let verifier: WebAuthnVerifier
    private let relyingParty: WebAuthnRelyingParty
    private let userVerification: WebAuthnUserVerification
    /// A seam for the conformance kit's self-test: a finished flow verifies again (the
    /// single-use rule removed).
    private let reusesChallenges: Bool

    /// Creates a backend with no accounts.
    /// - Parameters:
    ///   - relyingParty: The relying party id and the origins it accepts (default
    ///     ``PasskeyProtocol/relyingPartyID`` and ``PasskeyProtocol/origin``).
    ///   - userVerification: What the ceremonies ask for and the verifier enforces.
    public convenience init(
        relyingParty: WebAuthnRelyingParty = WebAuthnRelyingParty(
            id: PasskeyProtocol.relyingPartyID, origins: [PasskeyProtocol.origin]),
        userVerification: WebAuthnUserVerification = .preferred
    ) {
        self.init(relyingParty: relyingParty, userVerification: userVerification, reusesChallenges: false)
    }

    /// The backend with its single-use rule removed when `reusesChallenges` (the kit's
    /// self-test proves check P03 catches it).
    package init(relyingParty: WebAuthnRelyingParty, userVerification: WebAuthnUserVerification, reusesChallenges: Bool)
    {
        self.relyingParty = relyingParty
        self.userVerification = userVerification
        self.reusesChallenges = reusesChallenges
        verifier = WebAuthnVerifier(relyingParty: relyingParty)
    }

    /// The number of accounts created so far.
    public var accountCount: Int { state.withLock { $0.accounts.count } }

    /// The stored credential record of `credentialID` (its sign count, algorithm, flags), or
    /// `nil` when no account registered it.
    public func credential(_ credentialID: [UInt8]) -> WebAuthnCredential? {
        state.withLock { $0.credentials[credentialID]?.record }
    }

    /// How many sign-ins were refused because the sign count went backwards (a cloned
    /// authenticator, W3C WebAuthn Level 3 §6.1.1).
    public var signCountRegressions: Int { state.withLock { $0.regressions } }

    /// Routes `request` to its endpoint (see ``PasskeyProtocol``); unknown paths get `404`
    /// `{"code":"not_found"}`, undecodable bodies `400` `{"code":"bad_request"}`.
    public func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse {
        guard request.method == .post else { return try Self.error(405, "method_not_allowed") }
        do {
            switch request.url.path {
            case "/passkeys/start": return try start(try request.decodeJSON(), context: context)
            case "/passkeys/register": return try await register(try request.decodeJSON(), context: context)
            case "/passkeys/authenticate": return try await authenticate(try request.decodeJSON(), context: context)
            case "/logout": return try logout(try request.decodeJSON())
            default: return try Self.error(404, "not_found")
            }
        } catch let error as AuthError where error.code == .invalidInput {
            return try Self.error(400, "bad_request")
        } catch is Base64URLDecodingFailure {
            return try Self.error(400, "bad_request")
        }
    }

    private struct Base64URLDecodingFailure: Error {}

    private static func error(
        _ status: Int, _ code: String, reason: String? = nil, attemptsRemaining: Int? = nil
    ) throws -> HTTPResponse {
        try .json(
            status, PasskeyProtocol.ErrorResponse(code: code, reason: reason, attemptsRemaining: attemptsRemaining))
    }

    private static func bytes(_ text: String) throws -> [UInt8] {
        do { return try Base64URL.decode(text) } catch { throw Base64URLDecodingFailure() }
    }

    private static func randomBytes(_ count: Int, _ context: SandboxContext) -> [UInt8] {
        (0..<count).map { _ in UInt8(context.random.int(in: 0...255)) }
    }

    private func start(_ body: PasskeyProtocol.StartRequest, context: SandboxContext) throws -> HTTPResponse {
        if let email = body.email {
            let parts = email.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), email == email.lowercased() else {
                return try Self.error(400, "invalid_identity")
            }
        }
        let challenge = Self.randomBytes(PasskeyProtocol.challengeBytes, context)
        let flowID = "pk_" + context.random.hex(bytes: 12)
        let newHandle = Self.randomBytes(16, context)
        let expiresAt = context.time.now.addingTimeInterval(TimeInterval(PasskeyProtocol.challengeTTL))
        let timeout = PasskeyProtocol.challengeTTL * 1000
        let (account, known): (Account?, Bool) = state.withLock { state in
            guard let email = body.email else { return (nil, false) }
            return (state.accounts[email], state.accounts[email].map { !$0.credentials.isEmpty } ?? false)
        }
        var response = PasskeyProtocol.StartResponse(
            flowId: flowID, expiresIn: PasskeyProtocol.challengeTTL, attempts: PasskeyProtocol.maximumAttempts,
            registration: nil, assertion: nil)
        let flow: Flow
        if let email = body.email, !known {
            let handle = account?.userHandle ?? newHandle
            flow = Flow(
                email: email, operation: .registration, challenge: challenge, userHandle: handle, expiresAt: expiresAt,
                attempts: PasskeyProtocol.maximumAttempts)
            response.registration = PasskeyProtocol.CreationOptions(
                rp: .init(id: relyingParty.id, name: "MultiAuth Sandbox"),
                user: .init(id: Base64URL.encode(handle), name: email, displayName: email),
                challenge: Base64URL.encode(challenge),
                pubKeyCredParams: [.init(alg: -7), .init(alg: -8), .init(alg: -257)], timeout: timeout,
                excludeCredentials: account?.credentials.map { .init(id: Base64URL.encode($0)) } ?? [],
                authenticatorSelection: .init(residentKey: "required", userVerification: userVerification.rawValue),
                attestation: "none")
        } else {
            flow = Flow(
                email: body.email, operation: .assertion, challenge: challenge, userHandle: nil, expiresAt: expiresAt,
                attempts: PasskeyProtocol.maximumAttempts)
            response.assertion = PasskeyProtocol.RequestOptions(
                challenge: Base64URL.encode(challenge), timeout: timeout, rpId: relyingParty.id,
                allowCredentials: account?.credentials.map { .init(id: Base64URL.encode($0), transports: ["internal"]) }
                    ?? [],
                userVerification: userVerification.rawValue)
        }
        state.withLock { $0.flows[flowID] = flow }
        return try .json(200, response)
    }

    /// Reserves `flowID` for one verification of `operation`, or the error response refusing it.
    private func reserve(_ flowID: String, _ operation: PasskeyCeremony.Operation, now: Date) throws -> (
        Flow?, HTTPResponse?
    ) {
        try state.withLock { state in
            guard var flow = state.flows[flowID], flow.operation == operation else {
                return (nil, try Self.error(404, "unknown_flow"))
            }
            if (flow.finished && !reusesChallenges) || flow.busy { return (nil, try Self.error(409, "already_used")) }
            if now >= flow.expiresAt { return (nil, try Self.error(410, "expired")) }
            if flow.attempts <= 0 { return (nil, try Self.error(403, "attempts_exhausted")) }
            flow.busy = true
            state.flows[flowID] = flow
            return (flow, nil)
        }
    }

    /// Ends a reserved verification: finished, or one attempt spent.
    private func release(_ flowID: String, success: Bool) -> Int {
        state.withLock { state in
            guard var flow = state.flows[flowID] else { return 0 }
            flow.busy = false
            if success { flow.finished = true } else { flow.attempts -= 1 }
            state.flows[flowID] = flow
            return flow.attempts
        }
    }

    /// Ends a reserved verification that failed: one attempt spent; `401 code` (with the
    /// verifier's reason and the attempts left), or `403 attempts_exhausted` at zero.
    private func refusal(_ flowID: String, _ error: (any Error)? = nil, code: String = "verification_failed") throws
        -> HTTPResponse
    {
        let left = release(flowID, success: false)
        let reason = error.map { ($0 as? WebAuthnError)?.code.rawValue ?? "malformed" }
        if left <= 0 { return try Self.error(403, "attempts_exhausted", reason: reason ?? code, attemptsRemaining: 0) }
        return try Self.error(401, code, reason: reason, attemptsRemaining: left)
    }

    private func register(_ body: PasskeyProtocol.FinishRegistrationRequest, context: SandboxContext) async throws
        -> HTTPResponse
    {
        let clientData = try Self.bytes(body.credential.response.clientDataJSON)
        let attestation = try Self.bytes(body.credential.response.attestationObject)
        let (reserved, refused) = try reserve(body.flowId, .registration, now: context.time.now)
        guard let flow = reserved, let email = flow.email, let handle = flow.userHandle else {
            return try refused ?? Self.error(404, "unknown_flow")
        }
        var record: WebAuthnCredential
        do {
            record = try await verifier.verifyRegistration(
                clientDataJSON: clientData, attestationObject: attestation, expectedChallenge: flow.challenge,
                userVerification: userVerification)
        } catch {
            return try refusal(body.flowId, error)
        }
        record.userHandle = handle
        // `nil` when the credential is registered already (to this or another account).
        let registered: String? = state.withLock { state in
            guard state.credentials[record.credentialID] == nil else { return nil }
            var account =
                state.accounts[email]
                ?? Account(userID: "pk-u\(state.accounts.count + 1)", userHandle: handle, credentials: [])
            guard account.credentials.isEmpty || account.userHandle == handle else { return nil }
            account.credentials.append(record.credentialID)
            state.accounts[email] = account
            state.credentials[record.credentialID] = (email, record)
            return account.userID
        }
        guard let userID = registered else {
            _ = release(body.flowId, success: false)
            return try Self.error(409, "credential_exists")
        }
        _ = release(body.flowId, success: true)
        return try .json(200, issueTokens(userID: userID, email: email, context: context))
    }

    private func authenticate(_ body: PasskeyProtocol.FinishAssertionRequest, context: SandboxContext) async throws
        -> HTTPResponse
    {
        let credentialID = try Self.bytes(body.credential.rawId)
        let clientData = try Self.bytes(body.credential.response.clientDataJSON)
        let authenticatorData = try Self.bytes(body.credential.response.authenticatorData)
        let signature = try Self.bytes(body.credential.response.signature)
        let userHandle = try body.credential.response.userHandle.map(Self.bytes)
        let (reserved, refused) = try reserve(body.flowId, .assertion, now: context.time.now)
        guard let flow = reserved else { return try refused ?? Self.error(404, "unknown_flow") }
        let stored = state.withLock { $0.credentials[credentialID] }
        guard let stored, flow.email == nil || flow.email == stored.email else {
            return try refusal(body.flowId, code: "unknown_credential")
        }
        // §7.2 step 6: a discoverable sign-in identified no user before the ceremony, so the
        // response must name one (and the verifier checks it is the credential's).
        if flow.email == nil, userHandle == nil {
            return try refusal(
                body.flowId, WebAuthnError(.userHandleMismatch, "a discoverable sign-in must return the user handle"))
        }
        let result: WebAuthnAssertionResult
        do {
            result = try await verifier.verifyAssertion(
                credentialID: credentialID, clientDataJSON: clientData, authenticatorData: authenticatorData,
                signature: signature, userHandle: userHandle, expectedChallenge: flow.challenge,
                credential: stored.record, userVerification: userVerification)
        } catch {
            return try refusal(body.flowId, error)
        }
        if result.signCountRegressed {
            // A cloned authenticator (§6.1.1): this relying party refuses the sign-in.
            state.withLock { $0.regressions += 1 }
            _ = release(body.flowId, success: false)
            return try Self.error(403, "cloned_authenticator")
        }
        let userID: String? = state.withLock { state in
            // Only forward: two sign-ins of one credential at once must not store the lower count.
            if let current = state.credentials[credentialID]?.record.signCount, result.signCount > current {
                state.credentials[credentialID]?.record.signCount = result.signCount
            }
            state.credentials[credentialID]?.record.backedUp = result.backedUp
            return state.accounts[stored.email]?.userID
        }
        guard let userID else { return try refusal(body.flowId, code: "unknown_credential") }
        _ = release(body.flowId, success: true)
        return try .json(200, issueTokens(userID: userID, email: stored.email, context: context))
    }

    private func issueTokens(userID: String, email: String, context: SandboxContext) -> ReferenceProtocol.TokenResponse
    {
        let access = "at_" + context.random.hex(bytes: 16)
        let refresh = "rt_" + context.random.hex(bytes: 16)
        let now = context.time.now
        state.withLock { $0.grants[refresh] = Grant(userID: userID, email: email, accessToken: access) }
        return ReferenceProtocol.TokenResponse(
            accessToken: Secret(access), refreshToken: Secret(refresh), expiresIn: ReferenceProtocol.accessTokenTTL,
            expiresAt: now.addingTimeInterval(TimeInterval(ReferenceProtocol.accessTokenTTL)),
            user: ReferenceProtocol.User(id: userID, email: try? EmailAddress(email), phone: nil))
    }

    private func logout(_ body: ReferenceProtocol.LogoutRequest) throws -> HTTPResponse {
        let removed = state.withLock { $0.grants.removeValue(forKey: body.refreshToken.reveal()) }
        return removed == nil ? try Self.error(401, "invalid_token") : HTTPResponse(status: 204)
    }
}
