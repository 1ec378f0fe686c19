import Foundation

/// A sign-in provider: the one protocol an identity service adapter implements.
///
/// `AuthClient` drives providers and enforces the shared invariants (Docs/Architecture.md, "Invariants") around
/// them: it rejects malformed codes and expired challenges before calling you, persists the
/// session before returning it, publishes the flow events, cancels a superseded start and
/// coalesces refreshes. A provider only speaks its wire protocol and maps it to the core model.
///
/// ## Writing a provider
/// 1. **`id`**: a stable ``AuthProviderID``; it keys the session store.
/// 2. **`start(_:context:)`**: validate the request locally first (unsupported identity or
///    channel → `AuthError(.unsupported)` / `.invalidInput`, with **no network call**), then
///    make the first request through `context.transport` and return a ``Challenge`` (with
///    everything needed to continue in its ``Challenge/providerState``) or a session.
/// 3. **`respond(to:with:context:)`**: the answer's code is already normalized and
///    length-checked (``ChallengeAnswer/normalizedCode(length:)``). Verify it; a wrong code
///    throws `AuthError(.invalidCode, attemptsRemaining:)` and must leave the challenge usable.
/// 4. **`signOut(_:context:)`**: revoke remotely if the protocol can; must be idempotent.
/// 5. Map every provider error code to an `AuthError.Code`, keeping the raw code in
///    `providerCode`; unknown codes map to `.generic`. Throw `CancellationError` on
///    cancellation. Never put a code, token or secret in a message.
/// 6. Read time only from `context.time`; sleep only on `context.time.clock`. Sessions are
///    stored with millisecond precision, so put dates on whole milliseconds
///    (`Date.roundedToMilliseconds`) and a restored session equals the one you returned.
/// 7. Optional abilities are separate protocols: ``RedirectHandlingProvider``,
///    ``RefreshableProvider``, ``ResendableProvider``.
///
/// ```swift
/// struct EchoProvider: AuthProvider {
///     let id: AuthProviderID = "echo"
///     let baseURL: URL
///     func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
///         guard case .email(let email) = request.identity else { throw AuthError(.unsupported, provider: id) }
///         let response = try await context.transport.send(
///             .json(.post, baseURL.appending(path: "otp"), body: ["email": email.identityKey]))
///         guard response.isSuccess else { throw AuthError(.providerUnavailable, provider: id) }
///         var state = ProviderState()
///         state["email"] = email.identityKey
///         return .challenge(Challenge(
///             flowID: context.flowID ?? .random(), provider: id,
///             kind: .oneTimeCode(length: 6, channel: .email, linkAlsoSent: false),
///             destination: email.masked, issuedAt: context.now,
///             expiresAt: context.now.addingTimeInterval(600), providerState: state))
///     }
///     func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws -> SignInStep {
///         // POST the code, map 4xx to .invalidCode, build an AuthSession from the tokens.
///     }
///     func signOut(_ session: AuthSession, context: AuthContext) async throws {}
/// }
/// ```
/// Then prove it with `ProviderConformance` from `MultiAuthConformance`
/// (see Docs/WritingAProvider.md).
///
/// Concurrency: providers are `Sendable` values called from many tasks at once; keep mutable
/// state out of them or behind an actor or lock.
public protocol AuthProvider: Sendable {
    /// The provider's stable id; keys the session store.
    var id: AuthProviderID { get }

    /// Starts a sign-in.
    /// - Returns: A challenge for the user, or a session when no challenge is needed.
    /// - Throws: `AuthError` (`.invalidInput`, `.unsupported`, `.rateLimited`, `.network`,
    ///   `.providerUnavailable`, `.configuration`, …) or `CancellationError`.
    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep

    /// Answers a challenge this provider issued (possibly in an earlier process).
    /// - Returns: A session, or a further challenge (e.g. a TOTP second step).
    /// - Throws: `AuthError` (`.invalidCode` with `attemptsRemaining`, `.expired`,
    ///   `.attemptsExhausted`, `.unauthorized`, `.network`, …) or `CancellationError`.
    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws -> SignInStep

    /// Ends the session on the provider's side if its protocol allows it. Idempotent.
    /// - Throws: `AuthError` (`.network`, `.providerUnavailable`) or `CancellationError`.
    func signOut(_ session: AuthSession, context: AuthContext) async throws

    /// Stops any per-flow work (polling, timers) of `flowID`; see the default in the extension.
    func flowEnded(_ flowID: FlowID)
}

extension AuthProvider {
    /// Called by `AuthClient` when a flow this provider started ends without the provider
    /// being asked again: cancelled (`cancelFlow`, a superseding start, sign-out), expired, or
    /// signed in. A provider that keeps per-flow work alive (status polling, timers) stops it
    /// here. Synchronous and non-throwing; may be called more than once for a flow.
    ///
    /// The default does nothing.
    public func flowEnded(_ flowID: FlowID) {}
}
