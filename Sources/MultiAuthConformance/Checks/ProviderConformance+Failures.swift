import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

// C08–C12: errors, faults, cancellation and storage failures.
extension ProviderConformance {
    /// C08: each harness error fixture, injected once, maps to its `AuthError.Code` with the
    /// raw provider code kept; the fixtures must include an unknown code (→ `.generic`).
    static func providerErrorCodesMapToAuthErrors(_ env: ConformanceEnvironment) async throws {
        let fixtures = env.harness.errorFixtures
        guard !fixtures.isEmpty else { throw ConformanceFailure.skip("the harness gives no error fixtures") }
        try require(
            fixtures.contains { $0.expectedCode == .generic },
            "the harness gives no fixture with an unknown provider code (→ generic)")
        for (index, fixture) in fixtures.enumerated() {
            let action = FaultAction.status(fixture.status, headers: fixture.headers, body: fixture.body)
            let error: AuthError
            switch fixture.stage {
            case .start:
                env.sandbox.faults.add(action, host: env.harness.host, pathPrefix: fixture.pathPrefix, repeat: .once)
                error = try await expectAuthError("fixture '\(fixture.name)' at start") {
                    try await env.client.signIn(with: env.providerID, env.harness.validRequest(index))
                }
            case .submit:
                let (request, challenge) = try await env.start(index)
                env.sandbox.faults.add(action, host: env.harness.host, pathPrefix: fixture.pathPrefix, repeat: .once)
                error = try await expectAuthError("fixture '\(fixture.name)' at submit") {
                    try await env.answer(challenge, for: request)
                }
            }
            try require(
                error.code == fixture.expectedCode,
                "fixture '\(fixture.name)' gave \(error.code), expected \(fixture.expectedCode)")
            try require(
                error.providerCode == fixture.expectedProviderCode,
                "fixture '\(fixture.name)' kept raw code \(error.providerCode ?? "nil"), expected \(fixture.expectedProviderCode ?? "nil")"
            )
            try require(try await env.storedSession() == nil, "a session was stored after fixture '\(fixture.name)'")
        }
    }

    /// C09: a 503 or a dropped connection at start and at submit gives a retryable error,
    /// stores nothing and keeps the challenge pending; after the fault the same code succeeds.
    static func serverFailuresAreRetryable(_ env: ConformanceEnvironment) async throws {
        let faults: [(String, FaultAction)] = [
            ("HTTP 503", .jsonStatus(503, ["code": "unavailable"])), ("a dropped connection", .dropConnection),
        ]
        for (index, (label, action)) in faults.enumerated() {
            let rule = env.sandbox.faults.add(action, host: env.harness.host)
            let error = try await expectAuthError("start during \(label)") {
                try await env.client.signIn(with: env.providerID, env.harness.validRequest(10 + index))
            }
            env.sandbox.faults.remove(rule)
            try require(error.isRetryable, "start during \(label) gave \(error.code), which is not retryable")
        }
        let (request, challenge) = try await env.start(0)
        for (label, action) in faults {
            let rule = env.sandbox.faults.add(action, host: env.harness.host)
            let error = try await expectAuthError("answering during \(label)") {
                try await env.answer(challenge, for: request)
            }
            env.sandbox.faults.remove(rule)
            try require(error.isRetryable, "submit during \(label) gave \(error.code), which is not retryable")
            try require(try await env.storedSession() == nil, "a session was stored after \(label)")
            try require(
                await env.client.pendingChallenge(for: env.providerID)?.flowID == challenge.flowID,
                "the challenge is no longer pending after \(label)")
        }
        _ = try await env.complete(challenge, for: request, label: "the right answer after the faults")
    }

    /// C10: a start held by latency on the manual clock and then cancelled throws
    /// `CancellationError`; the backend never handles it, no code is delivered, nothing is
    /// stored, `flowCancelled` is published once and nothing follows it.
    static func cancellingStartEndsTheFlow(_ env: ConformanceEnvironment) async throws {
        let latency = Duration.seconds(30)
        let rule = env.sandbox.faults.add(.latency(latency), host: env.harness.host)
        let request = env.harness.validRequest(0)
        let client = env.client
        let providerID = env.providerID
        // Sleepers already on the clock (a provider's status poller) do not count.
        let sleepers = env.clock.sleeperCount
        // Owned by this check: cancelled below and awaited before the check ends.
        let task = Task { try await client.signIn(with: providerID, request) }
        await env.clock.waitForSleepers(count: sleepers + 1)
        task.cancel()
        await env.settleCancellation()
        // Wakes anything that ignored the cancellation, so its effects become visible.
        env.clock.advance(by: latency + .seconds(1))
        let result = await task.result
        env.sandbox.faults.remove(rule)
        switch result {
        case .success(let step): throw ConformanceFailure("the cancelled start returned \(step)")
        case .failure(let error):
            try require(
                error is CancellationError, "the cancelled start threw \(describe(error)), expected CancellationError")
        }
        let handled = env.sandbox.requestLog.filter { $0.status != nil }
        try require(handled.isEmpty, "the backend handled \(handled.count) request(s) after the start was cancelled")
        try require(
            env.sandbox.inbox.messages(for: env.harness.destination(request)).isEmpty,
            "a code was delivered after the start was cancelled")
        try require(try await env.storedSession() == nil, "a session was stored after cancellation")
        let events = await env.allEvents()
        guard let cancelled = events.firstIndex(where: { $0.kind.name == "flowCancelled" }) else {
            throw ConformanceFailure("no flowCancelled event was published")
        }
        try require(
            events.filter { $0.kind.name == "flowCancelled" }.count == 1, "flowCancelled was published more than once")
        let after = events[(cancelled + 1)...]
        try require(after.isEmpty, "events followed flowCancelled: \(after.map(\.kind.name))")
    }

    /// C11: a second start with the same identity while the first is held on latency cancels
    /// the first (`CancellationError`, `flowCancelled`) and itself issues a challenge; a submit
    /// held on latency is not cancelled by a new start and signs in.
    static func newStartSupersedesPendingStart(_ env: ConformanceEnvironment) async throws {
        let client = env.client
        let providerID = env.providerID
        let latency = Duration.seconds(30)
        let request = env.harness.validRequest(0)
        env.sandbox.faults.add(.latency(latency), host: env.harness.host, repeat: .once)
        let sleepers = env.clock.sleeperCount
        // Owned by this check: superseded by the second start, awaited below.
        let first = Task { try await client.signIn(with: providerID, request) }
        await env.clock.waitForSleepers(count: sleepers + 1)
        let second: SignInStep
        do { second = try await client.signIn(with: providerID, request) } catch {
            env.clock.advance(by: latency + .seconds(1))
            _ = await first.result
            throw ConformanceFailure("the new start (same identity, the user tapped twice) threw \(describe(error))")
        }
        await env.settleCancellation()
        env.clock.advance(by: latency + .seconds(1))
        let firstResult = await first.result
        guard case .challenge(let secondChallenge) = second else {
            throw ConformanceFailure("the new start returned \(second), expected a challenge")
        }
        if case .failure(let error) = firstResult {
            try require(
                error is CancellationError, "the superseded start threw \(describe(error)), expected CancellationError")
        } else {
            throw ConformanceFailure("the superseded start was not cancelled")
        }
        let events = await env.allEvents()
        let firstFlow = events.first { $0.kind.name == "flowStarted" }?.flowID
        try require(
            events.contains { $0.kind.name == "flowCancelled" && $0.flowID == firstFlow },
            "no flowCancelled was published for the superseded start")
        try require(
            await client.pendingChallenge(for: providerID)?.flowID == secondChallenge.flowID,
            "the new start's challenge is not pending")

        let (requestC, challengeC) = try await env.start(1)
        env.sandbox.faults.add(.latency(latency), host: env.harness.host, repeat: .once)
        // The start's status poller (if the provider has one) may already sleep on the clock:
        // wait for the submit's own sleep, not for any sleeper.
        let sleepersC = env.clock.sleeperCount
        // Owned by this check: must survive the new start below; awaited before the check ends.
        let submit = Task { try await env.answer(challengeC, for: requestC) }
        await env.clock.waitForSleepers(count: sleepersC + 1)
        let newStart: Result<SignInStep, any Error>
        do { newStart = .success(try await client.signIn(with: providerID, env.harness.validRequest(2))) } catch {
            newStart = .failure(error)
        }
        env.clock.advance(by: latency + .seconds(1))
        let submitted = await submit.result
        if case .failure(let error) = submitted {
            throw ConformanceFailure("the submit in flight failed when a new start began: \(describe(error))")
        }
        if case .failure(let error) = newStart {
            throw ConformanceFailure("the start during a submit threw \(describe(error))")
        }
    }

    /// C12: with the store failing once on save, the answer that signs in gives
    /// `storageFailure` and stores nothing; retrying the same answer makes no request, returns
    /// the session, and the store (which keeps only the encoded form) then holds exactly it.
    static func storageFailureOnSaveIsRetryable(_ env: ConformanceEnvironment) async throws {
        let (request, challenge) = try await env.start(0)
        await env.store.failNext(.save)
        var last = challenge
        var failure: AuthError?
        for _ in 0..<4 where failure == nil {
            do {
                let step = try await env.answer(last, for: request)
                guard case .challenge(let next) = step else {
                    throw ConformanceFailure("signed in although saving the session failed")
                }
                last = next
            } catch let error as AuthError {
                failure = error
            }
        }
        guard let error = failure else { throw ConformanceFailure("still no session after 4 challenges") }
        try require(error.code == .storageFailure, "a failing save gave \(error.code), expected storageFailure")
        try require(try await env.storedSession() == nil, "a session is stored although the save failed")
        let before = env.sandbox.requestCount
        let session = try await env.complete(last, for: request, label: "retrying the same answer")
        try require(
            env.sandbox.requestCount == before,
            "retrying the same answer made \(env.sandbox.requestCount - before) network call(s)")
        let stored = try await env.storedSession()
        try require(stored != nil, "the retry did not store the session")
        try require(
            stored == session,
            "the stored session differs from the returned one after encoding (dates finer than a millisecond, or a field not encoded)"
        )
    }
}
