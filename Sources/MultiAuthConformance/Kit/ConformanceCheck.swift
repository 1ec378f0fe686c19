/// The checks of the provider conformance kit, named by what they check; each keeps
/// its id (`"C01"` … `"C24"`, the raw value) for reports, skip lists and the docs.
///
/// Each check runs against a fresh sandbox, a fresh provider from the factory and a fresh
/// `AuthClient` (``/MultiAuthSandboxRuntime/ManualClock`` time, sandbox transport); see ``ProviderConformance``.
public enum ConformanceCheck: String, CaseIterable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// C01: Invalid identity rejected before any network call.
    case invalidIdentityRejectedBeforeNetwork = "C01"
    /// C02: Happy path, persistence before return, event order.
    case happyPathStoresSessionBeforeReturning = "C02"
    /// C03: Malformed codes handled locally.
    case malformedCodesHandledLocally = "C03"
    /// C04: Wrong code, then the right one.
    case wrongCodeThenRightCodeSucceeds = "C04"
    /// C05: Attempts exhausted.
    case exhaustedAttemptsEndTheChallenge = "C05"
    /// C06: Expired challenge.
    case expiredChallengeRefusedLocally = "C06"
    /// C07: Resend cool-down and new code.
    case resendHonoursCooldownAndSendsNewCode = "C07"
    /// C08: Provider error code mapping.
    case providerErrorCodesMapToAuthErrors = "C08"
    /// C09: 5xx and dropped connections.
    case serverFailuresAreRetryable = "C09"
    /// C10: Cancellation during start.
    case cancellingStartEndsTheFlow = "C10"
    /// C11: A new start supersedes a pending start, not a submit.
    case newStartSupersedesPendingStart = "C11"
    /// C12: Storage failure on save.
    case storageFailureOnSaveIsRetryable = "C12"
    /// C13: Idempotent sign-out.
    case signOutIsIdempotent = "C13"
    /// C14: No secret in any description, dump, error or event.
    case noSecretInAnyRendering = "C14"
    /// C15: Pending challenge survives encode → decode.
    case pendingChallengeSurvivesEncoding = "C15"
    /// C16: 200 concurrent flows.
    case concurrentFlowsDoNotCrossTalk = "C16"
    /// C17: Redirect handling.
    case redirectsAreClaimedOnlyWhenValid = "C17"
    /// C18: Concurrent refreshes coalesce.
    case concurrentRefreshesCoalesce = "C18"
    /// C19: Server clock offset tolerance.
    case serverClockOffsetIsTolerated = "C19"
    /// C20: Restored session first after a restart.
    case restoredSessionComesFirstAfterRestart = "C20"
    /// C21: A stale refresh result is discarded.
    case refreshDoesNotOverwriteNewerSession = "C21"
    /// C22: Revocation ends the session; transient failures keep it.
    case revocationEndsSessionTransientFailureKeepsIt = "C22"
    /// C23: Duplicate redirect deliveries share one exchange.
    case duplicateRedirectsShareOneExchange = "C23"
    /// C24: A challenge announces what its answer needs besides the code.
    case challengeAnnouncesAnswerRequirements = "C24"

    /// The check's one-line title, as in the table.
    public var title: String {
        switch self {
        case .invalidIdentityRejectedBeforeNetwork: "invalid identity is rejected before any network call"
        case .happyPathStoresSessionBeforeReturning:
            "happy path: challenge, code from the inbox, signed in; stored before returned; events in order"
        case .malformedCodesHandledLocally: "malformed codes are handled locally; no attempt spent"
        case .wrongCodeThenRightCodeSucceeds:
            "a wrong code gives invalidCode with attemptsRemaining; the right code afterwards succeeds"
        case .exhaustedAttemptsEndTheChallenge: "attempts exhausted ends the challenge"
        case .expiredChallengeRefusedLocally: "an expired challenge is refused without a network call"
        case .resendHonoursCooldownAndSendsNewCode:
            "resend before resendAvailableAt is refused with retryAfter; after it a new code arrives"
        case .providerErrorCodesMapToAuthErrors:
            "provider error codes map to AuthError codes with the raw code kept; unknown → generic"
        case .serverFailuresAreRetryable:
            "5xx / dropped connection: retryable error, no session, challenge still usable"
        case .cancellingStartEndsTheFlow:
            "cancellation during start: CancellationError, no session, flowCancelled, nothing after it"
        case .newStartSupersedesPendingStart:
            "a new start cancels the pending start; a submit in flight is not cancelled"
        case .storageFailureOnSaveIsRetryable:
            "storage failure on save: storageFailure; retrying the same answer completes with no network call"
        case .signOutIsIdempotent: "sign-out is idempotent, removes the session, emits signedOut once"
        case .noSecretInAnyRendering: "no fixture secret appears in any description, dump, error or event"
        case .pendingChallengeSurvivesEncoding:
            "a pending challenge survives encode → decode into a fresh client and can be completed"
        case .concurrentFlowsDoNotCrossTalk: "concurrent flows on distinct identities all succeed with no cross-talk"
        case .redirectsAreClaimedOnlyWhenValid:
            "redirects: foreign URL not claimed, refusals and unknown state refused typed, replayed grant returns the same result"
        case .concurrentRefreshesCoalesce: "concurrent refreshes of one session make one network call"
        case .serverClockOffsetIsTolerated:
            "a server clock offset within the documented tolerance does not break expiry checks"
        case .restoredSessionComesFirstAfterRestart: "after a restart authStates() yields the stored session first"
        case .refreshDoesNotOverwriteNewerSession:
            "stale refresh discarded: a refresh that returns after another sign-in changes nothing; the newer session still refreshes"
        case .revocationEndsSessionTransientFailureKeepsIt:
            "revocation vs transient: 5xx/offline keep the session; a revoked refresh credential ends it once with sessionExpired"
        case .duplicateRedirectsShareOneExchange:
            "duplicate redirect single-flight: concurrent deliveries share one exchange and one result; the spent grant is refused"
        case .challengeAnnouncesAnswerRequirements:
            "a challenge announces what its answer needs besides the code (a name) before the code is sent"
        }
    }

    /// The id, e.g. `"C07"`.
    public var description: String { rawValue }

    /// Orders checks by id.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
