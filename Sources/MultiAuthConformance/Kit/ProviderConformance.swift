import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

/// The provider conformance kit: runs checks C01–C24 (``ConformanceCheck``) against any
/// ``/MultiAuth/AuthProvider`` and returns a ``ConformanceReport``.
///
/// Each check gets a fresh world: a new ``/MultiAuthSandboxRuntime/Sandbox`` (seed `harness.seed +
/// check number`, a new ``/MultiAuthSandboxRuntime/ManualClock``), the harness's backend installed in
/// it, a fresh provider from the factory wired to it, a store that fails on command and a new
/// `AuthClient` on the sandbox transport. Checks assert through the sandbox (request log,
/// inbox), the store and the client's events; nothing sleeps in real time and nothing reaches
/// the network.
///
/// The kit imports no test framework: assert on the report in your tests,
///
/// ```swift
/// @Test func acmeConforms() async {
///     let report = await ProviderConformance(provider: { sandbox in AcmeProvider(baseURL: …) }, harness: .acme).run()
///     #expect(report.failed.isEmpty, "\(report.renderTable())")
/// }
/// ```
///
/// or print ``ConformanceReport/renderTable(titleWidth:)`` (the `multiauth conformance` command does).
/// A check the harness's abilities exclude is skipped with its reason, never passed.
///
/// Concurrency: ``run(_:)->ConformanceReport`` runs the checks one after another; C16 and C18 run many tasks
/// inside one check. Cancelling the calling task ends the run early (remaining checks fail
/// with `CancellationError`).
public struct ProviderConformance: Sendable {
    /// Makes a fresh provider wired to `sandbox` (point its base URL at the harness's host).
    public typealias ProviderFactory = @Sendable (_ sandbox: Sandbox) throws -> any AuthProvider

    /// The provider factory.
    public let makeProvider: ProviderFactory
    /// The harness.
    public let harness: ConformanceHarness

    /// Creates a kit for the providers `makeProvider` builds.
    /// - Parameters:
    ///   - makeProvider: Called at least once per check, with that check's sandbox.
    ///   - harness: How to drive the provider's backend.
    public init(provider makeProvider: @escaping ProviderFactory, harness: ConformanceHarness) {
        self.makeProvider = makeProvider
        self.harness = harness
    }

    /// Runs `checks` (default: all, in id order) and collects the results.
    public func run(_ checks: [ConformanceCheck] = ConformanceCheck.allCases) async -> ConformanceReport {
        var results: [ConformanceResult] = []
        var providerName = "?"
        if let provider = try? makeProvider(Sandbox(seed: harness.seed)) { providerName = provider.id.rawValue }
        for check in checks { results.append(await run(check)) }
        return ConformanceReport(provider: providerName, results: results)
    }

    /// Runs one check.
    public func run(_ check: ConformanceCheck) async -> ConformanceResult {
        let number = UInt64(check.rawValue.dropFirst()) ?? 0
        do {
            try Task.checkCancellation()
            let environment = try ConformanceEnvironment(
                harness: harness, makeProvider: makeProvider, seed: harness.seed &+ number,
                baseStore: check == .storageFailureOnSaveIsRetryable ? EncodedSessionStore() : nil)
            defer { environment.recorder.cancel() }
            try await body(of: check)(environment)
            return ConformanceResult(id: check.rawValue, title: check.title, status: .passed)
        } catch let failure as ConformanceFailure {
            return ConformanceResult(
                id: check.rawValue, title: check.title, status: failure.isSkip ? .skipped : .failed,
                detail: failure.detail)
        } catch {
            return ConformanceResult(
                id: check.rawValue, title: check.title, status: .failed, detail: "unexpected error: \(describe(error))")
        }
    }

    private func body(of check: ConformanceCheck) -> @Sendable (ConformanceEnvironment) async throws -> Void {
        switch check {
        case .invalidIdentityRejectedBeforeNetwork: Self.invalidIdentityRejectedBeforeNetwork
        case .happyPathStoresSessionBeforeReturning: Self.happyPathStoresSessionBeforeReturning
        case .malformedCodesHandledLocally: Self.malformedCodesHandledLocally
        case .wrongCodeThenRightCodeSucceeds: Self.wrongCodeThenRightCodeSucceeds
        case .exhaustedAttemptsEndTheChallenge: Self.exhaustedAttemptsEndTheChallenge
        case .expiredChallengeRefusedLocally: Self.expiredChallengeRefusedLocally
        case .resendHonoursCooldownAndSendsNewCode: Self.resendHonoursCooldownAndSendsNewCode
        case .providerErrorCodesMapToAuthErrors: Self.providerErrorCodesMapToAuthErrors
        case .serverFailuresAreRetryable: Self.serverFailuresAreRetryable
        case .cancellingStartEndsTheFlow: Self.cancellingStartEndsTheFlow
        case .newStartSupersedesPendingStart: Self.newStartSupersedesPendingStart
        case .storageFailureOnSaveIsRetryable: Self.storageFailureOnSaveIsRetryable
        case .signOutIsIdempotent: Self.signOutIsIdempotent
        case .noSecretInAnyRendering: Self.noSecretInAnyRendering
        case .pendingChallengeSurvivesEncoding: Self.pendingChallengeSurvivesEncoding
        case .concurrentFlowsDoNotCrossTalk: Self.concurrentFlowsDoNotCrossTalk
        case .redirectsAreClaimedOnlyWhenValid: Self.redirectsAreClaimedOnlyWhenValid
        case .concurrentRefreshesCoalesce: Self.concurrentRefreshesCoalesce
        case .serverClockOffsetIsTolerated: Self.serverClockOffsetIsTolerated
        case .restoredSessionComesFirstAfterRestart: Self.restoredSessionComesFirstAfterRestart
        case .refreshDoesNotOverwriteNewerSession: Self.refreshDoesNotOverwriteNewerSession
        case .revocationEndsSessionTransientFailureKeepsIt: Self.revocationEndsSessionTransientFailureKeepsIt
        case .duplicateRedirectsShareOneExchange: Self.duplicateRedirectsShareOneExchange
        case .challengeAnnouncesAnswerRequirements: Self.challengeAnnouncesAnswerRequirements
        }
    }
}
