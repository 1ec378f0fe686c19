import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

// C21–C23: the session-lifecycle rules (Docs/Architecture.md, "Session lifecycle").
extension ProviderConformance {
    /// C21: a refresh of session A held on latency while user B signs in throws `unauthorized`
    /// (A is no longer stored, and a refresh of A never answers with B's session, rule L10),
    /// stores nothing and publishes no `sessionRefreshed`; a minute later B's own credentials
    /// still refresh — the stale refresh spent A's credential, never B's.
    static func refreshDoesNotOverwriteNewerSession(_ env: ConformanceEnvironment) async throws {
        try env.requireRefreshable()
        let a = try await env.signIn(0)
        let client = env.client
        let latency = Duration.seconds(5)
        // The server serves the refresh at once and the answer comes late: the provider's side of
        // the refresh happened before B signs in (whose sign-in then revokes A, rule L14).
        let rule = env.sandbox.faults.add(.responseLatency(latency), host: env.harness.host, repeat: .once)
        let stale = Task { try await client.refresh(a) }
        await env.clock.waitForSleepers(count: 1)
        let b = try await env.signIn(1)
        let sequence = client.events.currentSequence
        env.clock.advance(by: latency)
        env.sandbox.faults.remove(rule)
        let result: Result<AuthSession, any Error>
        do { result = .success(try await stale.value) } catch { result = .failure(error) }
        switch result {
        case .success(let session):
            throw ConformanceFailure(
                session == b
                    ? "the stale refresh of A answered with B's session; it must throw unauthorized"
                    : "the stale refresh of A returned a session; it must throw unauthorized")
        case .failure(let error as AuthError) where error.code == .unauthorized: break
        case .failure(let error):
            throw ConformanceFailure("the stale refresh threw \(describe(error)); it should throw unauthorized")
        }
        try require(
            try await env.storedSession() == b, "the stale refresh result replaced the newer session in the store")
        let refreshed = await env.allEvents().filter { $0.sequence > sequence && $0.kind.name == "sessionRefreshed" }
        try require(refreshed.isEmpty, "the discarded refresh published sessionRefreshed")
        env.clock.advance(by: .seconds(61))
        _ = try await expectSuccess("refreshing the newer session after the stale refresh") {
            try await client.refresh(b)
        }
    }

    /// C22: a refresh answered `503` or a dropped connection throws a retryable error and keeps
    /// the session, with no event; after the session is revoked on the provider's side
    /// (`signOut` called on the provider directly, so the store still holds it), a refresh
    /// throws `sessionExpired` with the raw code kept, removes the session and publishes one
    /// `sessionExpired` and no `signedOut`. Skipped when a remote sign-out does not revoke the
    /// refresh credential.
    static func revocationEndsSessionTransientFailureKeepsIt(_ env: ConformanceEnvironment) async throws {
        try env.requireRefreshable()
        let session = try await env.signIn(0)
        let client = env.client
        let providerID = env.providerID
        let sequence = client.events.currentSequence
        let faults: [(String, FaultAction)] = [
            ("HTTP 503", .jsonStatus(503, ["error": "unavailable"])), ("a dropped connection", .dropConnection),
        ]
        for (name, action) in faults {
            let rule = env.sandbox.faults.add(action, host: env.harness.host, repeat: .once)
            let error = try await expectAuthError("a refresh answered with \(name)") {
                try await client.refresh(providerID)
            }
            env.sandbox.faults.remove(rule)
            try require(error.isRetryable, "a refresh answered with \(name) gave \(error.code), which is not retryable")
            try require(
                try await env.storedSession() == session, "a refresh answered with \(name) changed the stored session")
        }
        let transientEvents = await env.allEvents().filter { $0.sequence > sequence }.map(\.kind.name)
        try require(transientEvents.isEmpty, "transient refresh failures published \(transientEvents)")
        do { try await env.provider.signOut(session, context: env.directContext) } catch {
            throw ConformanceFailure("revoking the session on the provider threw \(describe(error))")
        }
        env.clock.advance(by: .seconds(61))  // past any rotation grace period
        let outcome: Result<AuthSession, AuthError>
        do { outcome = .success(try await client.refresh(providerID)) } catch let error as AuthError {
            outcome = .failure(error)
        }
        guard case .failure(let error) = outcome else {
            throw ConformanceFailure.skip(
                "a remote sign-out does not revoke the refresh credential, so no revocation can be produced")
        }
        try require(
            error.code == .sessionExpired,
            "a revoked refresh credential gave \(error.code); the provider must throw sessionExpired (or unauthorized)")
        try require(error.providerCode != nil, "the sessionExpired error does not keep the provider's raw code")
        try require(try await env.storedSession() == nil, "the revoked session is still stored")
        let events = await env.allEvents().filter { $0.sequence > sequence }.map(\.kind.name)
        try require(events == ["sessionExpired"], "revocation published \(events), expected one sessionExpired")
    }

    /// C23: the genuine link delivered twice at once, the first held on latency, makes one
    /// exchange: both deliveries get the same result. The spent grant presented to the
    /// provider again (as a client without single-flight would) is refused with a typed error,
    /// never a second session.
    static func duplicateRedirectsShareOneExchange(_ env: ConformanceEnvironment) async throws {
        let (provider, fixture) = try env.requireRedirects()
        let (request, challenge) = try await env.start(0, redirect: true)
        let link = try fixture.validURL(env.sandbox, request, challenge)
        let client = env.client
        let latency = Duration.seconds(5)
        let rule = env.sandbox.faults.add(.latency(latency), host: env.harness.host, repeat: .once)
        let first = Task { try await client.handleRedirect(link) }
        await env.clock.waitForSleepers(count: 1)
        let second = Task { try await client.handleRedirect(link) }
        for _ in 0..<100 { await Task.yield() }
        env.clock.advance(by: latency)
        env.sandbox.faults.remove(rule)
        let a: SignInStep?
        let b: SignInStep?
        do {
            a = try await first.value
            b = try await second.value
        } catch {
            throw ConformanceFailure("a duplicate delivery of the genuine link threw \(describe(error))")
        }
        switch (a, b) {
        case (.signedIn(let x)?, .signedIn(let y)?) where x == y: break
        case (.challenge(let x)?, .challenge(let y)?) where x == y: break
        default: throw ConformanceFailure("two deliveries of one link got different results")
        }
        do {
            let replay = try await provider.handleRedirect(link, pending: challenge, context: env.directContext)
            if case .signedIn = replay {
                throw ConformanceFailure("the provider exchanged a spent grant again and returned a session")
            }
        } catch let error as AuthError {
            try require(
                [.challengeNotPending, .codeAlreadyUsed, .unauthorized, .expired, .invalidInput, .sessionExpired]
                    .contains(error.code),
                "the spent grant presented again gave \(error.code)")
        }
    }
}
