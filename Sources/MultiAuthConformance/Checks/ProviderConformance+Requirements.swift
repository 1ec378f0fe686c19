import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

// C24: a challenge says up front what its answer needs besides the code.
extension ProviderConformance {
    /// The name the kit supplies when a challenge requires one (C24).
    static let requirementsCheckName = "Ada"

    /// C24: the kit starts with the harness's ``ConformanceHarness/bareRequest`` (a request
    /// that leaves everything optional to the answer; else the valid request) and submits the
    /// right code alone.
    /// - When the provider refuses it for a missing part of the answer (`invalidInput` /
    ///   `answerMismatch`), the challenge must have listed a requirement before the code was
    ///   sent (a name: `Challenge.Requirement.name`); the refusal makes no network call; and
    ///   with a name the same code then completes (when the requirement is `.name`).
    /// - When the code alone completes, the challenge must not have required a name.
    static func challengeAnnouncesAnswerRequirements(_ env: ConformanceEnvironment) async throws {
        try env.requireCodeEntry("answer with the code alone")
        let request = env.harness.bareRequest?(0) ?? env.harness.validRequest(0)
        let step = try await expectSuccess("start for \(request)") {
            try await env.client.signIn(with: env.providerID, request)
        }
        guard case .challenge(let challenge) = step else {
            throw ConformanceFailure(
                "start for \(request) returned a session without a challenge; the kit needs a challenge to answer")
        }
        switch challenge.kind {
        case .magicLink, .oauthRedirect:
            throw ConformanceFailure.skip(
                "the challenge (\(challenge.kind)) completes through a redirect, not a typed answer")
        default: break
        }
        let announced = challenge.requirements.sorted().map(\.rawValue)
        let code = try env.code(for: request, challenge)
        let requestsBefore = env.sandbox.requestCount
        let refusal: AuthError
        do {
            _ = try await env.client.submit(ChallengeAnswer(code: code), for: challenge)
            try require(
                !challenge.requirements.contains(.name),
                "the challenge required a name (requirements \(announced)) but the code alone completed it")
            return
        } catch let error as AuthError {
            refusal = error
        } catch {
            throw ConformanceFailure("submitting the right code alone threw \(describe(error))")
        }
        guard refusal.code == .invalidInput, refusal.reason == .answerMismatch else {
            throw ConformanceFailure(
                "submitting the right code alone gave \(describe(refusal)), expected success or invalidInput/answerMismatch"
            )
        }
        try require(
            !challenge.requirements.isEmpty,
            "the right code alone was refused for a missing part of the answer (invalidInput/answerMismatch), but the "
                + "challenge announced no requirement: list it in Challenge.requirements (a name: .name) before the code is sent"
        )
        try require(
            env.sandbox.requestCount == requestsBefore,
            "refusing the incomplete answer made \(env.sandbox.requestCount - requestsBefore) network call(s)")
        guard challenge.requirements.contains(.name) else { return }
        let name = try PersonName(firstName: requirementsCheckName)
        let next = try await expectSuccess("submitting the right code with a name") {
            try await env.client.submit(ChallengeAnswer(code: code, name: name), for: challenge)
        }
        if case .challenge(let further) = next { _ = try await env.complete(further, for: request) }
    }
}
