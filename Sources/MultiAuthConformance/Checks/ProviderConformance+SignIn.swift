import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

// C01–C07: the sign-in flow itself.
extension ProviderConformance {
    /// C01: every request the harness lists as invalid is refused with `invalidInput` or
    /// `unsupported`, and the sandbox sees zero requests.
    static func invalidIdentityRejectedBeforeNetwork(_ env: ConformanceEnvironment) async throws {
        guard !env.harness.invalidRequests.isEmpty else {
            throw ConformanceFailure.skip("the harness lists no request this provider must refuse")
        }
        for (index, request) in env.harness.invalidRequests.enumerated() {
            let error = try await expectAuthError("invalid request #\(index + 1) \(request)") {
                try await env.client.signIn(with: env.providerID, request)
            }
            try require(
                error.code == .invalidInput || error.code == .unsupported,
                "invalid request #\(index + 1) \(request) gave \(error.code), expected invalidInput or unsupported")
            try require(
                env.sandbox.requestCount == 0,
                "invalid request #\(index + 1) \(request) made \(env.sandbox.requestCount) network call(s) before it was refused"
            )
        }
        try require(try await env.storedSession() == nil, "a session was stored after invalid requests")
    }

    /// C02: start → challenge → code from the inbox → session; the store held the session
    /// before `signedIn` was published; flowStarted, challengeIssued (once per challenge),
    /// signedIn, all of one flow, with rising sequence numbers.
    static func happyPathStoresSessionBeforeReturning(_ env: ConformanceEnvironment) async throws {
        let (request, challenge) = try await env.start(0)
        try require(
            challenge.provider == env.providerID,
            "the challenge names provider \(challenge.provider), not \(env.providerID)")
        let session = try await env.complete(challenge, for: request)
        try require(
            session.provider == env.providerID, "the session names provider \(session.provider), not \(env.providerID)")
        try require(try await env.storedSession() == session, "the store does not hold the returned session")
        let events = await env.allEvents()
        for (earlier, later) in zip(events, events.dropFirst()) {
            try require(
                later.sequence > earlier.sequence,
                "sequence numbers do not rise: #\(earlier.sequence) then #\(later.sequence)")
        }
        let lifecycle = events.filter { ["flowStarted", "challengeIssued", "signedIn"].contains($0.kind.name) }
        let names = lifecycle.map(\.kind.name)
        try require(
            names.count >= 3 && names.first == "flowStarted" && names.last == "signedIn"
                && names.dropFirst().dropLast().allSatisfy { $0 == "challengeIssued" },
            "lifecycle events were \(names), expected [flowStarted, challengeIssued, signedIn]")
        let flows = Set(lifecycle.map(\.flowID))
        try require(
            flows.count == 1,
            "the lifecycle events carry \(flows.count) different flow ids; the challenge must belong to the started flow"
        )
        try require(lifecycle.allSatisfy { $0.provider == env.providerID }, "a lifecycle event names another provider")
        guard let signedIn = lifecycle.last, let saved = env.saves.sequence(ofFirstSave: session.id) else {
            throw ConformanceFailure("the session was never saved")
        }
        try require(
            saved < signedIn.sequence, "signedIn (#\(signedIn.sequence)) was published before the session was stored")
    }

    /// C03: codes of the wrong length, with letters, blank or in numerals that are not decimal
    /// digits (superscripts) are refused locally (invalidInput, invalidCodeFormat) with no request
    /// and no attempt used; the right code typed in full-width digits with whitespace (leading
    /// space, inner space, trailing newline) is accepted.
    static func malformedCodesHandledLocally(_ env: ConformanceEnvironment) async throws {
        try env.requireCodeEntry("submit malformed codes")
        let (request, challenge) = try await env.start(0)
        guard let length = challenge.expectedCodeLength else {
            throw ConformanceFailure(
                "the challenge (\(challenge.kind)) declares no code length, so malformed codes cannot be refused locally"
            )
        }
        let code = try env.code(for: request, challenge)
        try require(
            code.count == length, "the delivered code has \(code.count) characters, the challenge announces \(length)")
        let attemptsBefore = await env.client.pendingChallenge(for: env.providerID)?.attemptsRemaining
        let requestsBefore = env.sandbox.requestCount
        let half = length / 2
        let malformed: [(String, String)] = [
            ("one digit short", String(code.dropLast())),
            ("one digit long", code + "0"),
            ("a letter", String(code.dropLast()) + "a"),
            ("a dash inside", String(code.prefix(half)) + "-" + String(code.dropFirst(half).dropLast())),
            ("empty", ""),
            ("blank", "  \n"),
            // Numbers but not decimal digits (general category No): never read as a code.
            ("superscript digits", String(code.map { Array("⁰¹²³⁴⁵⁶⁷⁸⁹")[$0.wholeNumberValue ?? 0] })),
        ]
        for (label, variant) in malformed {
            let error = try await expectAuthError("a code that is \(label)") {
                try await env.client.submit(ChallengeAnswer(code: variant), for: challenge)
            }
            try require(
                error.code == .invalidInput && error.reason == .invalidCodeFormat,
                "a code that is \(label) gave \(error.code)\(error.reason.map { "/\($0)" } ?? ""), expected invalidInput/invalidCodeFormat"
            )
        }
        try require(
            env.sandbox.requestCount == requestsBefore,
            "malformed codes made \(env.sandbox.requestCount - requestsBefore) network call(s)")
        let attemptsAfter = await env.client.pendingChallenge(for: env.providerID)?.attemptsRemaining
        try require(attemptsAfter == attemptsBefore, "malformed codes changed attemptsRemaining")
        // Typed on a full-width digit keyboard (decimal digits, category Nd), with spaces and a
        // newline: read as the ASCII code.
        let fullWidth = String(code.map { Character(UnicodeScalar(0xFF10 + ($0.wholeNumberValue ?? 0))!) })
        let spaced = " " + String(fullWidth.prefix(half)) + " " + String(fullWidth.dropFirst(half)) + "\n"
        _ = try await env.submit(
            spaced, for: challenge, request: request,
            label: "submitting the right code in full-width digits with spaces and a newline")
    }

    /// C04: a wrong code gives `invalidCode` with `attemptsRemaining` (fewer than announced),
    /// publishes `codeRejected`, stores nothing and keeps the challenge pending; the right code
    /// then succeeds.
    static func wrongCodeThenRightCodeSucceeds(_ env: ConformanceEnvironment) async throws {
        try env.requireCodeEntry("submit a wrong code")
        let (request, challenge) = try await env.start(0)
        let code = try env.code(for: request, challenge)
        let wrong = env.harness.wrongCode(code)
        try require(
            wrong != code && wrong.count == code.count,
            "the harness's wrong code is not a different code of the same length")
        let error = try await expectAuthError("a wrong code") {
            try await env.client.submit(ChallengeAnswer(code: wrong), for: challenge)
        }
        try require(error.code == .invalidCode, "a wrong code gave \(error.code), expected invalidCode")
        guard let remaining = error.attemptsRemaining else {
            throw ConformanceFailure("invalidCode carried no attemptsRemaining")
        }
        if let announced = challenge.attemptsRemaining {
            try require(
                remaining < announced,
                "attemptsRemaining after a wrong code is \(remaining), not below the announced \(announced)")
        }
        try require(try await env.storedSession() == nil, "a session was stored after a wrong code")
        let pending = await env.client.pendingChallenge(for: env.providerID)
        try require(pending?.flowID == challenge.flowID, "the challenge is no longer pending after a wrong code")
        let events = await env.allEvents()
        try require(
            events.contains { $0.kind.name == "codeRejected" && $0.flowID == challenge.flowID },
            "no codeRejected event was published")
        _ = try await env.submit(code, for: challenge, request: request, label: "the right code after a wrong one")
    }

    /// C05: wrong codes until the provider reports `attemptsExhausted`, no later than the
    /// announced attempts allow; afterwards even the right code is refused and nothing is stored.
    static func exhaustedAttemptsEndTheChallenge(_ env: ConformanceEnvironment) async throws {
        try env.requireAbility(.attemptLimit, "attemptLimit")
        try env.requireCodeEntry("submit wrong codes")
        let (request, challenge) = try await env.start(0)
        let code = try env.code(for: request, challenge)
        let wrong = env.harness.wrongCode(code)
        let announced = challenge.attemptsRemaining
        var submits = 0
        var last: AuthError?
        for _ in 0...(announced ?? 10) {
            submits += 1
            last = try await expectAuthError("wrong code #\(submits)") {
                try await env.client.submit(ChallengeAnswer(code: wrong), for: challenge)
            }
            if last?.code != .invalidCode { break }
        }
        guard let last, last.code == .attemptsExhausted else {
            throw ConformanceFailure(
                "after \(submits) wrong codes the error was \(last?.code.rawValue ?? "none"), expected attemptsExhausted"
            )
        }
        if let announced {
            try require(
                submits <= announced,
                "attemptsExhausted came at wrong code #\(submits) although the challenge allowed \(announced) attempts: the provider did not report exhaustion"
            )
        }
        let afterwards = try await expectAuthError("the right code after exhaustion") {
            try await env.client.submit(ChallengeAnswer(code: code), for: challenge)
        }
        try require(
            [.attemptsExhausted, .challengeNotPending, .expired, .invalidCode].contains(afterwards.code),
            "the right code after exhaustion gave \(afterwards.code)")
        try require(try await env.storedSession() == nil, "a session was stored after exhaustion")
        try require(
            await env.client.pendingChallenge(for: env.providerID)?.flowID != challenge.flowID,
            "the exhausted challenge is still pending")
    }

    /// C06: the right code one second before `expiresAt` succeeds (the reported expiry is not
    /// later than the server's); one second after, it is refused with `expired`, no request and
    /// a `flowExpired` event.
    static func expiredChallengeRefusedLocally(_ env: ConformanceEnvironment) async throws {
        try env.requireAbility(.expiry, "expiry")
        let (requestA, challengeA) = try await env.start(0)
        guard let expiryA = challengeA.expiresAt else { throw ConformanceFailure("the challenge has no expiresAt") }
        env.advance(to: expiryA.addingTimeInterval(-1))
        _ = try await env.complete(
            challengeA, for: requestA, label: "the right answer 1 s before the challenge's expiresAt")

        let (requestB, challengeB) = try await env.start(1)
        guard let expiryB = challengeB.expiresAt else {
            throw ConformanceFailure("the second challenge has no expiresAt")
        }
        env.advance(to: expiryB.addingTimeInterval(1))
        let before = env.sandbox.requestCount
        let error = try await expectAuthError("the right answer 1 s after expiresAt") {
            try await env.answer(challengeB, for: requestB)
        }
        try require(error.code == .expired, "an expired challenge gave \(error.code), expected expired")
        try require(
            env.sandbox.requestCount == before,
            "an expired challenge made \(env.sandbox.requestCount - before) network call(s)")
        let events = await env.allEvents()
        try require(
            events.contains { $0.kind.name == "flowExpired" && $0.flowID == challengeB.flowID },
            "no flowExpired event was published")
    }

    /// C07: a resend before `resendAvailableAt` is refused with `rateLimited` + `retryAfter`
    /// and no request; at `resendAvailableAt` the server accepts, a new code is delivered and
    /// completes the flow.
    static func resendHonoursCooldownAndSendsNewCode(_ env: ConformanceEnvironment) async throws {
        try env.requireResendable()
        let (request, challenge) = try await env.start(0)
        guard let available = challenge.resendAvailableAt else {
            throw ConformanceFailure("the challenge has no resendAvailableAt")
        }
        let destination = env.harness.destination(request)
        let deliveredBefore = env.sandbox.inbox.messages(for: destination).filter { $0.status == .delivered }.count
        let wait = available.timeIntervalSince(env.clock.wallNow)
        if wait > 0 {
            let before = env.sandbox.requestCount
            let error = try await expectAuthError("a resend before resendAvailableAt") {
                try await env.client.resend(challenge)
            }
            try require(error.code == .rateLimited, "an early resend gave \(error.code), expected rateLimited")
            guard let retryAfter = error.retryAfter else {
                throw ConformanceFailure("an early resend carried no retryAfter")
            }
            try require(
                abs(retryAfter.timeInterval - wait) <= 1,
                "retryAfter is \(retryAfter), the challenge says \(Int(wait)) s")
            try require(
                env.sandbox.requestCount == before,
                "an early resend made \(env.sandbox.requestCount - before) network call(s)")
            env.advance(to: available)
        }
        let updated = try await expectSuccess("a resend at resendAvailableAt (\(Int(max(0, wait))) s after start)") {
            try await env.client.resend(challenge)
        }
        try require(updated.flowID == challenge.flowID, "the resent challenge belongs to another flow")
        let deliveredAfter = env.sandbox.inbox.messages(for: destination).filter { $0.status == .delivered }.count
        try require(deliveredAfter > deliveredBefore, "no new code was delivered after the resend")
        _ = try await env.complete(updated, for: request, label: "answering with the resent code")
    }
}
