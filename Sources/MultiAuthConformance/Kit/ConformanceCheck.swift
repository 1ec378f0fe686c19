/// The checks of the provider conformance kit (issue 4), by id.
///
/// Each check runs against a fresh sandbox, a fresh provider from the factory and a fresh
/// `AuthClient` (``/MultiAuthSandboxRuntime/ManualClock`` time, sandbox transport); see ``ProviderConformance``.
public enum ConformanceCheck: String, CaseIterable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// Invalid identity rejected before any network call.
    case c01 = "C01"
    /// Happy path, persistence before return, event order.
    case c02 = "C02"
    /// Malformed codes handled locally.
    case c03 = "C03"
    /// Wrong code, then the right one.
    case c04 = "C04"
    /// Attempts exhausted.
    case c05 = "C05"
    /// Expired challenge.
    case c06 = "C06"
    /// Resend cool-down and new code.
    case c07 = "C07"
    /// Provider error code mapping.
    case c08 = "C08"
    /// 5xx and dropped connections.
    case c09 = "C09"
    /// Cancellation during start.
    case c10 = "C10"
    /// A new start supersedes a pending start, not a submit.
    case c11 = "C11"
    /// Storage failure on save.
    case c12 = "C12"
    /// Idempotent sign-out.
    case c13 = "C13"
    /// No secret in any description, dump, error or event.
    case c14 = "C14"
    /// Pending challenge survives encode → decode.
    case c15 = "C15"
    /// 200 concurrent flows.
    case c16 = "C16"
    /// Redirect handling.
    case c17 = "C17"
    /// Concurrent refreshes coalesce.
    case c18 = "C18"
    /// Server clock offset tolerance.
    case c19 = "C19"
    /// Restored session first after a restart.
    case c20 = "C20"
    /// A stale refresh result is discarded.
    case c21 = "C21"
    /// Revocation ends the session; transient failures keep it.
    case c22 = "C22"
    /// Duplicate redirect deliveries share one exchange.
    case c23 = "C23"
    /// A challenge announces what its answer needs besides the code.
    case c24 = "C24"

    /// The check's one-line title, as in the table.
    public var title: String {
        switch self {
        case .c01: "invalid identity is rejected before any network call"
        case .c02: "happy path: challenge, code from the inbox, signed in; stored before returned; events in order"
        case .c03: "malformed codes are handled locally; no attempt spent"
        case .c04: "a wrong code gives invalidCode with attemptsRemaining; the right code afterwards succeeds"
        case .c05: "attempts exhausted ends the challenge"
        case .c06: "an expired challenge is refused without a network call"
        case .c07: "resend before resendAvailableAt is refused with retryAfter; after it a new code arrives"
        case .c08: "provider error codes map to AuthError codes with the raw code kept; unknown → generic"
        case .c09: "5xx / dropped connection: retryable error, no session, challenge still usable"
        case .c10: "cancellation during start: CancellationError, no session, flowCancelled, nothing after it"
        case .c11: "a new start cancels the pending start; a submit in flight is not cancelled"
        case .c12: "storage failure on save: storageFailure; retrying the same answer completes with no network call"
        case .c13: "sign-out is idempotent, removes the session, emits signedOut once"
        case .c14: "no fixture secret appears in any description, dump, error or event"
        case .c15: "a pending challenge survives encode → decode into a fresh client and can be completed"
        case .c16: "concurrent flows on distinct identities all succeed with no cross-talk"
        case .c17: "redirects: foreign URL not claimed, unknown state refused, replayed grant returns the same result"
        case .c18: "concurrent refreshes of one session make one network call"
        case .c19: "a server clock offset within the documented tolerance does not break expiry checks"
        case .c20: "after a restart authStates() yields the stored session first"
        case .c21: "stale refresh discarded: a refresh that returns after another sign-in changes nothing; the newer session still refreshes"
        case .c22: "revocation vs transient: 5xx/offline keep the session; a revoked refresh credential ends it once with sessionExpired"
        case .c23: "duplicate redirect single-flight: concurrent deliveries share one exchange and one result; the spent grant is refused"
        case .c24: "a challenge announces what its answer needs besides the code (a name) before the code is sent"
        }
    }

    /// The id, e.g. `"C07"`.
    public var description: String { rawValue }

    /// Orders checks by id.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
