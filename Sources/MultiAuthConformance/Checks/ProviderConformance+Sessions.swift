import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

// C13–C20: sessions, secrets, resumption, concurrency, redirects, refresh, clocks, restart.
extension ProviderConformance {
    /// C13: sign-out removes the session, revokes without error and publishes `signedOut`
    /// once; a second sign-out does nothing; the provider signs out an already revoked session
    /// without throwing.
    static func signOutIsIdempotent(_ env: ConformanceEnvironment) async throws {
        let session = try await env.signIn(0)
        let first = try await expectSuccess("the first sign-out") { try await env.client.signOut(env.providerID) }
        try require(first.wasSignedIn, "the first sign-out found no session")
        if let remote = first.remoteError { throw ConformanceFailure("revoking a valid session failed: \(remote)") }
        try require(try await env.storedSession() == nil, "the session is still stored after sign-out")
        let second = try await expectSuccess("the second sign-out") { try await env.client.signOut(env.providerID) }
        try require(!second.wasSignedIn && second.remoteError == nil, "the second sign-out was not a no-op")
        let events = await env.allEvents()
        let signedOut = events.filter { $0.kind.name == "signedOut" }.count
        try require(signedOut == 1, "signedOut was published \(signedOut) times, expected once")
        do { try await env.provider.signOut(session, context: env.directContext) } catch {
            throw ConformanceFailure(
                "signing out an already signed-out session threw \(describe(error)); signOut must be idempotent")
        }
    }

    /// C14: the delivered code, a submitted wrong code, every token and every provider-state
    /// value (but those of ``ConformanceHarness/publicProviderStateKeys``) never appear in any
    /// of the five ``SecretRenderings`` (description, debug description, reflection, dump and
    /// a recursive Mirror walk) of the challenge, the session, the steps, the errors or the
    /// events.
    static func noSecretInAnyRendering(_ env: ConformanceEnvironment) async throws {
        let (request, challenge) = try await env.start(0)
        let codeEntry = env.harness.abilities.contains(.codeEntry)
        let code = codeEntry ? try env.code(for: request, challenge) : nil
        let wrong = code.map(env.harness.wrongCode)
        var secrets: [(String, String)] = [("the delivered code", code), ("a submitted code", wrong)].compactMap {
            label, value in
            value.map { (label, $0) }
        }
        secrets += challenge.providerState.values.filter { !env.harness.publicProviderStateKeys.contains($0.key) }
            .map { ("provider state '\($0.key)'", $0.value.reveal()) }
        var texts: [(String, String)] = []
        // All five renderings, the recursive Mirror walk (a debugger's view) included.
        func collect(_ label: String, _ value: Any) {
            texts += SecretRenderings.renderings(of: value).map { ("\(label) (\($0.name))", $0.text) }
        }
        collect("the challenge", challenge)
        if let wrong {
            do { _ = try await env.client.submit(ChallengeAnswer(code: wrong), for: challenge) } catch {
                collect("the wrong-code error", error)
                if let error = error as? AuthError {
                    texts += [
                        ("the wrong-code error message", error.message),
                        ("the wrong-code error", error.localizedDescription),
                    ]
                }
            }
        }
        let session = try await env.complete(challenge, for: request)
        collect("the signed-in step", SignInStep.signedIn(session))
        collect("the session", session)
        let credentials = session.credentials
        secrets += [
            ("the access token", credentials.accessToken), ("the refresh token", credentials.refreshToken),
            ("the id token", credentials.idToken),
        ]
        .compactMap { label, value in value.map { (label, $0.reveal()) } }
        secrets += credentials.extra.values.map { ("credential '\($0.key)'", $0.value.reveal()) }
        secrets += env.harness.fixtureSecrets.map { ("a fixture secret", $0) }
        for event in await env.allEvents() { collect("event #\(event.sequence) \(event.kind.name)", event) }
        for (label, secret) in secrets where secret.count >= 4 {
            if let (place, _) = texts.first(where: { $0.1.contains(secret) }) {
                throw ConformanceFailure("\(label) appears in \(place)")
            }
        }
    }

    /// C15: a pending challenge encoded to JSON and decoded is equal to the original, and a
    /// fresh client with a fresh provider instance completes it.
    static func pendingChallengeSurvivesEncoding(_ env: ConformanceEnvironment) async throws {
        let (request, challenge) = try await env.start(0)
        let decoded = try await expectSuccess("encoding and decoding the challenge") {
            try JSONDecoder.multiAuth.decode(Challenge.self, from: try JSONEncoder.multiAuth.encode(challenge))
        }
        try require(decoded == challenge, "the challenge does not survive encode → decode unchanged")
        let store = InMemorySessionStore()
        let fresh = try env.makeClient(store: store, freshProvider: true)
        let session = try await env.complete(
            decoded, for: request, client: fresh, label: "completing the decoded challenge in a fresh client")
        try require(try await store.load(for: env.providerID) == session, "the fresh client did not store the session")
    }

    /// C16: ``ConformanceHarness/concurrentFlows`` clients (one shared provider and sandbox)
    /// start at once on distinct identities, then all submit at once; every flow signs in with
    /// its own user and tokens.
    static func concurrentFlowsDoNotCrossTalk(_ env: ConformanceEnvironment) async throws {
        let count = max(2, env.harness.concurrentFlows)
        struct Started: Sendable {
            let index: Int
            let client: AuthClient
            let store: InMemorySessionStore
            let request: SignInRequest
            let challenge: Challenge
        }
        typealias Outcome = Result<Started, ConformanceFailure>
        let started: [Outcome] = await withTaskGroup(of: Outcome.self) { group in
            for index in 0..<count {
                group.addTask {
                    do {
                        let store = InMemorySessionStore()
                        let client = try env.makeClient(store: store, freshProvider: false)
                        let (request, challenge) = try await env.start(index + 1, client: client)
                        return .success(
                            Started(index: index, client: client, store: store, request: request, challenge: challenge))
                    } catch {
                        return .failure(ConformanceFailure("flow #\(index + 1) could not start: \(describe(error))"))
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let flows = try started.map { try $0.get() }.sorted { $0.index < $1.index }
        let finished: [(Started, Result<AuthSession, ConformanceFailure>)] = await withTaskGroup(
            of: (Started, Result<AuthSession, ConformanceFailure>).self
        ) { group in
            for flow in flows {
                group.addTask {
                    do {
                        return (
                            flow,
                            .success(try await env.complete(flow.challenge, for: flow.request, client: flow.client))
                        )
                    } catch {
                        return (flow, .failure(ConformanceFailure(describe(error))))
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let failures = finished.filter { if case .failure = $0.1 { true } else { false } }
        if let (flow, result) = failures.min(by: { $0.0.index < $1.0.index }), case .failure(let failure) = result {
            throw ConformanceFailure(
                "\(failures.count) of \(count) concurrent flows failed; flow #\(flow.index + 1): \(failure.detail)")
        }
        var sessions: [AuthSession] = []
        for (flow, result) in finished {
            guard case .success(let session) = result else { continue }
            sessions.append(session)
            switch flow.request.identity {
            case .email(let email):
                if let user = session.user.email {
                    try require(
                        user.identityKey == email.identityKey, "flow #\(flow.index + 1) signed in another user's e-mail"
                    )
                }
            case .phone(let phone):
                if let user = session.user.phone {
                    try require(user.e164 == phone.e164, "flow #\(flow.index + 1) signed in another user's phone")
                }
            case .oauth, .passkey: break
            }
            try require(
                try await flow.store.load(for: env.providerID) == session,
                "flow #\(flow.index + 1)'s client does not hold its own session")
        }
        try require(
            Set(sessions.map(\.user.id)).count == count,
            "\(count) identities signed in as \(Set(sessions.map(\.user.id)).count) users")
        let tokens = sessions.compactMap(\.credentials.accessToken)
        try require(Set(tokens).count == tokens.count, "two flows received the same access token")
    }

    /// C17: foreign URLs are not claimed (no request); the fixture's refusals (a declined
    /// hand-off, say) end in their typed errors, store nothing and leave the flow pending; a link
    /// with an unknown state is refused and stores nothing; the genuine link signs in; replaying
    /// it returns the same session without a request. A genuine link that leads to a further step instead is checked by
    /// ``replayRedirectWithFurtherStep(_:link:next:request:)``.
    static func redirectsAreClaimedOnlyWhenValid(_ env: ConformanceEnvironment) async throws {
        let (provider, fixture) = try env.requireRedirects()
        let foreign =
            [
                URL(string: "https://example.com/callback?state=abc&code=123456")!,
                URL(string: "otherapp://callback?state=abc&code=123456")!,
                URL(string: "mailto:user@example.com")!,
            ] + fixture.foreignURLs
        for url in foreign {
            try require(
                !provider.canHandle(url),
                "the provider claims a foreign URL (scheme \(url.scheme ?? "-"), host \(url.host ?? "-"))")
            let step = try await expectSuccess("routing a foreign URL") { try await env.client.handleRedirect(url) }
            try require(step == nil, "the client routed a foreign URL to the provider")
        }
        try require(env.sandbox.requestCount == 0, "foreign URLs made \(env.sandbox.requestCount) network call(s)")

        let (request, challenge) = try await env.start(0, redirect: true)
        let valid = try fixture.validURL(env.sandbox, request, challenge)
        try require(provider.canHandle(valid), "the provider does not claim its own redirect URL")
        for refusal in try fixture.refusals(env.sandbox, request, challenge) {
            try require(provider.canHandle(refusal.url), "the provider does not claim its refusal \(refusal.name)")
            let refused = try await expectAuthError("the refusal \(refusal.name)") {
                try await env.client.handleRedirect(refusal.url)
            }
            try require(
                refusal.expectedCodes.contains(refused.code),
                "the refusal \(refusal.name) gave \(refused.code), expected one of \(refusal.expectedCodes.map(\.rawValue).sorted())"
            )
            try require(try await env.storedSession() == nil, "a session was stored from the refusal \(refusal.name)")
            try require(
                await env.client.pendingChallenge(for: env.providerID) != nil,
                "the refusal \(refusal.name) ended the flow; the user could not try again")
        }
        let forged = fixture.forge(valid)
        let refused = try await expectAuthError("a link with an unknown state") {
            try await env.client.handleRedirect(forged)
        }
        try require(
            [.challengeNotPending, .unauthorized, .invalidInput, .signatureInvalid].contains(refused.code),
            "a link with an unknown state gave \(refused.code)")
        try require(try await env.storedSession() == nil, "a session was stored from a link with an unknown state")
        let step = try await expectSuccess("the genuine link") { try await env.client.handleRedirect(valid) }
        switch step {
        case .signedIn(let session)?:
            let before = env.sandbox.requestCount
            let replay = try await expectSuccess("replaying the genuine link") {
                try await env.client.handleRedirect(valid)
            }
            guard case .signedIn(let replayed) = replay else {
                throw ConformanceFailure("the replayed link did not return the session")
            }
            try require(replayed == session, "the replayed link returned a different session")
            try require(
                env.sandbox.requestCount == before,
                "the replayed link made \(env.sandbox.requestCount - before) network call(s)")
        case .challenge(let next)?:
            try await replayRedirectWithFurtherStep(env, link: valid, next: next, request: request)
        case nil:
            throw ConformanceFailure("the client routed the genuine link to no provider")
        }
    }

    /// C17 for a link that leads to a further step (a TOTP, say): re-delivering the link while
    /// that step is pending returns the same challenge without a request; once the step signs
    /// in, replaying the link makes no request and gives no other session (the same session,
    /// or a refusal because no flow is pending).
    private static func replayRedirectWithFurtherStep(
        _ env: ConformanceEnvironment, link: URL, next: Challenge, request: SignInRequest
    ) async throws {
        var before = env.sandbox.requestCount
        let again = try await expectSuccess("re-delivering the genuine link while its further step is pending") {
            try await env.client.handleRedirect(link)
        }
        try require(
            again?.challenge == next,
            "re-delivering the genuine link while its further step is pending did not return that step")
        try require(
            env.sandbox.requestCount == before,
            "re-delivering the genuine link made \(env.sandbox.requestCount - before) network call(s)")
        let session = try await env.complete(next, for: request, label: "the step after the genuine link")
        before = env.sandbox.requestCount
        do {
            let replay = try await env.client.handleRedirect(link)
            guard case .signedIn(let replayed) = replay, replayed == session else {
                throw ConformanceFailure("the link replayed after sign-in returned \(replay.map { "\($0)" } ?? "nil")")
            }
        } catch let error as AuthError {
            try require(
                error.code == .challengeNotPending,
                "the link replayed after sign-in gave \(error.code), expected the session or challengeNotPending")
        }
        try require(
            env.sandbox.requestCount == before,
            "the link replayed after sign-in made \(env.sandbox.requestCount - before) network call(s)")
        try require(try await env.storedSession() == session, "the store does not hold the session of the genuine link")
    }

    /// C18: five concurrent refreshes of the stored session, held on latency until all have
    /// joined, make exactly one request and all get the same tokens, which the store holds; a
    /// minute later the stored (possibly rotated) credentials refresh again.
    static func concurrentRefreshesCoalesce(_ env: ConformanceEnvironment) async throws {
        try env.requireRefreshable()
        _ = try await env.signIn(0)
        let client = env.client
        let providerID = env.providerID
        let latency = Duration.seconds(5)
        let rule = env.sandbox.faults.add(.latency(latency), host: env.harness.host)
        let before = env.sandbox.requestCount
        let loadsBefore = await env.store.callCounts[.load, default: 0]
        let callers = 5
        let results: [Result<AuthSession, any Error>] = await withTaskGroup(of: Result<AuthSession, any Error>.self) {
            group in
            for _ in 0..<callers {
                group.addTask {
                    do { return .success(try await client.refresh(providerID)) } catch { return .failure(error) }
                }
            }
            // Every caller has loaded the session (its next step, on the client actor, joins the
            // refresh in flight) and the refresh is held on the clock; then one more turn of the
            // client actor, queued behind the callers, before the clock releases the refresh.
            await env.store.waitForCalls(.load, count: loadsBefore + callers)
            await env.clock.waitForSleepers(count: 1)
            for _ in 0..<3 { _ = await client.pendingChallenge(for: providerID) }
            env.clock.advance(by: latency)
            return await group.reduce(into: []) { $0.append($1) }
        }
        env.sandbox.faults.remove(rule)
        let refreshed = try results.map { result in
            do { return try result.get() } catch {
                throw ConformanceFailure("a concurrent refresh threw \(describe(error))")
            }
        }
        let made = env.sandbox.requestCount - before
        try require(made == 1, "\(callers) concurrent refreshes made \(made) network calls, expected 1")
        try require(Set(refreshed).count == 1, "concurrent callers received different sessions")
        try require(try await env.storedSession() == refreshed.first, "the store does not hold the refreshed session")
        // A minute later, past any rotation grace period (a reused refresh token is accepted
        // for a few seconds by providers with a reuse interval, up to 60 s at Okta), so only
        // the rotated credentials can work.
        env.clock.advance(by: .seconds(61))
        _ = try await expectSuccess("refreshing again with the stored credentials") {
            try await client.refresh(providerID)
        }
    }

    /// C19: with the server clock ahead and behind by the documented tolerance, sign-in works
    /// and the challenge expiry, resend time and session expiry (relative to the client's
    /// clock) match a run without offset to within one second. Codes come from the harness's
    /// `readCode` at client time, so a TOTP flow is checked against the skewed server too.
    static func serverClockOffsetIsTolerated(_ env: ConformanceEnvironment) async throws {
        guard let tolerance = env.harness.serverClockTolerance else {
            throw ConformanceFailure.skip("the harness documents no server clock tolerance")
        }
        struct Timing {
            var challengeExpiry: TimeInterval?
            var resend: TimeInterval?
            var sessionExpiry: TimeInterval?
        }
        func run(offset: Duration, seed: UInt64) async throws -> Timing {
            let world = try ConformanceEnvironment(harness: env.harness, makeProvider: env.makeProvider, seed: seed)
            defer { world.recorder.cancel() }
            world.sandbox.faults.setServerClockOffset(offset)
            let now = world.clock.wallNow
            let (request, challenge) = try await world.start(0)
            let session = try await world.complete(challenge, for: request)
            return Timing(
                challengeExpiry: challenge.expiresAt?.timeIntervalSince(now),
                resend: challenge.resendAvailableAt?.timeIntervalSince(now),
                sessionExpiry: session.expiresAt?.timeIntervalSince(now))
        }
        let baseline = try await run(offset: .zero, seed: env.sandbox.seed)
        for offset in [tolerance, .zero - tolerance] {
            let label = offset > .zero ? "\(offset) ahead" : "\(.zero - offset) behind"
            let timing: Timing
            do { timing = try await run(offset: offset, seed: env.sandbox.seed) } catch let failure
                as ConformanceFailure
            {
                throw ConformanceFailure("with the server clock \(label): \(failure.detail)")
            }
            let pairs: [(String, TimeInterval?, TimeInterval?)] = [
                ("the challenge expiry", baseline.challengeExpiry, timing.challengeExpiry),
                ("the resend time", baseline.resend, timing.resend),
                ("the session expiry", baseline.sessionExpiry, timing.sessionExpiry),
            ]
            for (name, expected, actual) in pairs {
                guard let expected, let actual else {
                    try require(
                        expected == nil && actual == nil,
                        "with the server clock \(label), \(name) appears or disappears")
                    continue
                }
                try require(
                    abs(expected - actual) <= 1,
                    "with the server clock \(label), \(name) is \(Int(actual)) s away instead of \(Int(expected)) s: the provider uses the server's absolute time"
                )
            }
        }
    }

    /// C20: after sign-in, the stored bytes are decoded into a new store; a fresh provider and
    /// client, one minute later, yield `initialState` first with that session, not expired.
    static func restoredSessionComesFirstAfterRestart(_ env: ConformanceEnvironment) async throws {
        let session = try await env.signIn(0)
        guard let stored = try await env.storedSession() else {
            throw ConformanceFailure("nothing was stored after sign-in")
        }
        let restored = try await expectSuccess("encoding and decoding the stored session") {
            try JSONDecoder.multiAuth.decode(AuthSession.self, from: try JSONEncoder.multiAuth.encode(stored))
        }
        let client = try env.makeClient(store: InMemorySessionStore(sessions: [restored]), freshProvider: true)
        env.clock.advance(by: .seconds(60))
        var states = client.authStates().makeAsyncIterator()
        guard let first = await states.next() else { throw ConformanceFailure("authStates() ended without an element") }
        guard case .initialState(let state) = first.kind else {
            throw ConformanceFailure("the first element of authStates() was \(first.kind.name), expected initialState")
        }
        guard let entry = state.sessions[env.providerID] else {
            throw ConformanceFailure("the initial state holds no session for the provider")
        }
        try require(
            entry.session.id == session.id && entry.session.credentials.accessToken == session.credentials.accessToken,
            "the initial state holds a different session")
        try require(!entry.isExpired, "the restored session is reported expired one minute after sign-in")
    }
}
