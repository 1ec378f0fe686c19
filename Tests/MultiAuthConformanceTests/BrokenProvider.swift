import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox

/// The reference provider with exactly one behaviour broken, chosen by the check that must
/// catch it. Proves no check of the kit is vacuous: each breakage fails its check and only it.
struct BrokenProvider: RedirectHandlingProvider, RefreshableProvider, ResendableProvider {
    let breaking: ConformanceCheck
    let reference = ReferenceProvider()
    private let memory = Memory()

    var id: AuthProviderID { reference.id }

    init(breaking: ConformanceCheck) { self.breaking = breaking }

    /// Per-instance state some breakages keep (a fresh instance starts empty).
    final class Memory: @unchecked Sendable {
        private let lock = NSLock()
        private var states: [FlowID: ProviderState] = [:]
        private var lastState: ProviderState?
        private var lastSession: AuthSession?
        private var redirectSessions: [URL: AuthSession] = [:]
        private var starts: [String: Task<SignInStep, any Error>] = [:]
        private var silentNames: Set<FlowID> = []

        func remember(_ state: ProviderState, for flow: FlowID) { locked { states[flow] = state } }
        func state(for flow: FlowID) -> ProviderState? { locked { states[flow] } }
        func setLast(_ state: ProviderState) { locked { lastState = state } }
        func demandName(_ flow: FlowID) { locked { _ = silentNames.insert(flow) } }
        func demandsName(_ flow: FlowID) -> Bool { locked { silentNames.contains(flow) } }
        var last: ProviderState? { locked { lastState } }
        func issued(_ session: AuthSession) { locked { lastSession = session } }
        var lastIssued: AuthSession? { locked { lastSession } }
        func redirected(_ url: URL, _ session: AuthSession) { locked { redirectSessions[url] = session } }
        func redirectSession(_ url: URL) -> AuthSession? { locked { redirectSessions[url] } }
        func start(_ key: String, _ make: () -> Task<SignInStep, any Error>) -> Task<SignInStep, any Error> {
            locked {
                if let task = starts[key] { return task }
                let task = make()
                starts[key] = task
                return task
            }
        }
        private func locked<T>(_ body: () -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body()
        }
    }

    func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
        switch breaking {
        case .invalidIdentityRejectedBeforeNetwork:
            // Asks the server to validate identities the provider cannot serve.
            do { return try await reference.start(request, context: context) } catch let error as AuthError
                where error.code == .unsupported || error.code == .invalidInput
            {
                let body = ReferenceProtocol.StartRequest(
                    identity: Secret("\(request)"), channel: "email", allowFallback: false, state: "x")
                _ = try? await context.transport.send(
                    try .json(.post, reference.baseURL.appendingPathComponent("otp/start"), body: body))
                throw error
            }
        case .cancellingStartEndsTheFlow:
            // The breakage: runs the start in an unstructured task that nobody cancels; it ends
            // when the reference start returns (after the kit advances the clock).
            let task = Task { try await reference.start(request, context: context) }
            return try await task.value
        case .newStartSupersedesPendingStart:
            // The breakage: coalesces starts of one identity into one unstructured task, owned by
            // `memory` and never evicted (cancelled ones included); each ends with its start.
            let task = memory.start(ConformanceHarness.defaultDestination(request)) {
                Task { try await reference.start(request, context: context) }
            }
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        case .serverClockOffsetIsTolerated:
            // Takes the server's absolute expiry (server clock) instead of the relative one.
            // The shared recorder keeps each response it forwarded; the last one is the start's.
            let capture = ScriptedTransport(forwardingTo: context.transport)
            let inner = AuthContext(
                transport: capture, time: context.time, flowID: context.flowID, events: { context.emit($0) })
            let step = try await reference.start(request, context: inner)
            guard case .challenge(var challenge) = step, let response = capture.exchanges.last?.response,
                let wire = try? response.decodeJSON(ReferenceProtocol.ChallengeResponse.self)
            else { return step }
            challenge.expiresAt = wire.expiresAt
            return .challenge(challenge)
        case .noSecretInAnyRendering:
            // The breakage: shows the flow's secret `state` as the challenge's destination.
            // (Echoing the submitted code in an error no longer works: `AuthClient` strips it.)
            guard case .challenge(var challenge) = try await reference.start(request, context: context) else {
                throw AuthError(.generic, "the reference start did not issue a challenge", provider: id)
            }
            challenge.destination = challenge.providerState[revealing: "state"]
            return .challenge(challenge)
        default:
            break
        }
        let step = try await reference.start(request, context: context)
        guard case .challenge(var challenge) = step else { return step }
        switch breaking {
        case .happyPathStoresSessionBeforeReturning: challenge.flowID = .random()
        case .malformedCodesHandledLocally: challenge.kind = .profileConsent
        case .expiredChallengeRefusedLocally:
            if let expiresAt = challenge.expiresAt {
                challenge.expiresAt = challenge.issuedAt.addingTimeInterval(
                    expiresAt.timeIntervalSince(challenge.issuedAt) * 60)
            }
        case .resendHonoursCooldownAndSendsNewCode: challenge.resendAvailableAt = challenge.issuedAt
        case .pendingChallengeSurvivesEncoding:
            memory.remember(challenge.providerState, for: challenge.flowID)
            challenge.providerState = ProviderState()
        case .concurrentFlowsDoNotCrossTalk: memory.setLast(challenge.providerState)
        case .challengeAnnouncesAnswerRequirements:
            // Demands a name when the request carried none, without saying so in the challenge.
            if request.options[Self.nameOption] == nil { memory.demandName(challenge.flowID) }
        default: break
        }
        return .challenge(challenge)
    }

    private func restored(_ challenge: Challenge) -> Challenge {
        var challenge = challenge
        switch breaking {
        case .pendingChallengeSurvivesEncoding:
            challenge.providerState = memory.state(for: challenge.flowID) ?? ProviderState()
        case .concurrentFlowsDoNotCrossTalk: challenge.providerState = memory.last ?? challenge.providerState
        default: break
        }
        return challenge
    }

    /// The request option that carries the name up front (C24's breakage).
    static let nameOption = "name"

    func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws -> SignInStep
    {
        if breaking == .challengeAnnouncesAnswerRequirements, answer.name == nil, memory.demandsName(challenge.flowID) {
            throw AuthError(.invalidInput, "a name is required", provider: id, reason: .answerMismatch)
        }
        let step: SignInStep
        do { step = try await reference.respond(to: restored(challenge), with: answer, context: context) } catch var
            error
            as AuthError
        {
            switch breaking {
            case .wrongCodeThenRightCodeSucceeds where error.code == .invalidCode: error.attemptsRemaining = nil
            case .exhaustedAttemptsEndTheChallenge where error.code == .attemptsExhausted:
                error = AuthError(.invalidCode, error.message, provider: id, providerCode: error.providerCode)
            case .providerErrorCodesMapToAuthErrors: error.providerCode = nil
            case .serverFailuresAreRetryable where error.code == .providerUnavailable: error.code = .generic
            default: break
            }
            throw error
        }
        guard case .signedIn(var session) = step else { return step }
        memory.issued(session)
        switch breaking {
        case .storageFailureOnSaveIsRetryable:
            session.credentials.expiresAt = session.credentials.expiresAt?.addingTimeInterval(0.0004)
        case .restoredSessionComesFirstAfterRestart:
            if let expiresAt = session.credentials.expiresAt {
                // Rounded to the millisecond, as sessions are stored, so only C20 notices.
                session.credentials.expiresAt =
                    session.createdAt.addingTimeInterval(
                        expiresAt.timeIntervalSince(session.createdAt) / 1000
                    ).roundedToMilliseconds
            }
        default: break
        }
        return .signedIn(session)
    }

    func signOut(_ session: AuthSession, context: AuthContext) async throws {
        guard breaking == .signOutIsIdempotent else { return try await reference.signOut(session, context: context) }
        // Treats "already revoked" as an error: not idempotent.
        let body = ReferenceProtocol.LogoutRequest(refreshToken: session.credentials.refreshToken ?? "")
        let response = try await context.transport.send(
            try .json(.post, reference.baseURL.appendingPathComponent("logout"), body: body))
        if !response.isSuccess { throw reference.mapError(response) }
    }

    func canHandle(_ url: URL) -> Bool { reference.canHandle(url) }

    func handleRedirect(_ url: URL, pending: Challenge?, context: AuthContext) async throws -> SignInStep {
        let pending = pending.map(restored)
        if breaking == .duplicateRedirectsShareOneExchange {
            // Accepts a spent grant: presented again, the link returns the session it gave.
            do {
                let step = try await reference.handleRedirect(url, pending: pending, context: context)
                if case .signedIn(let session) = step { memory.redirected(url, session) }
                return step
            } catch let error as AuthError where error.code == .codeAlreadyUsed {
                guard let session = memory.redirectSession(url) else { throw error }
                return .signedIn(session)
            }
        }
        guard breaking == .redirectsAreClaimedOnlyWhenValid, let pending else {
            return try await reference.handleRedirect(url, pending: pending, context: context)
        }
        // Ignores the link's state: any link completes the pending flow.
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.queryItems =
            (components.queryItems ?? []).filter { $0.name != "state" } + [
                URLQueryItem(name: "state", value: pending.providerState[revealing: "state"])
            ]
        return try await reference.handleRedirect(components.url!, pending: pending, context: context)
    }

    func refresh(_ session: AuthSession, context: AuthContext) async throws -> AuthSession {
        var refreshed: AuthSession
        do { refreshed = try await reference.refresh(session, context: context) } catch var error as AuthError {
            // Reads a revoked refresh credential as an unknown failure.
            if breaking == .revocationEndsSessionTransientFailureKeepsIt, error.code == .sessionExpired {
                error.code = .generic
            }
            throw error
        }
        if breaking == .refreshDoesNotOverwriteNewerSession {
            // Keeps "one current session": a refresh revokes the newest other session it issued.
            if let newest = memory.lastIssued, newest.credentials.refreshToken != session.credentials.refreshToken {
                try? await reference.signOut(newest, context: context)
            }
            memory.issued(refreshed)
        }
        // Keeps the old refresh token although the server rotated it.
        if breaking == .concurrentRefreshesCoalesce {
            refreshed.credentials.refreshToken = session.credentials.refreshToken
        }
        return refreshed
    }

    func resend(_ challenge: Challenge, channel: DeliveryChannel?, context: AuthContext) async throws -> Challenge {
        var updated = try await reference.resend(restored(challenge), channel: channel, context: context)
        if breaking == .pendingChallengeSurvivesEncoding {
            memory.remember(updated.providerState, for: updated.flowID)
            updated.providerState = ProviderState()
        }
        return updated
    }
}
