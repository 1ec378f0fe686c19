import Foundation

/// Something that happened in MultiAuth, published by an `AuthClient` and received through its
/// ``AuthClient/events`` (``AuthEventSource``) or ``AuthClient/authStates(bufferCapacity:)``.
///
/// Every event carries a sequence number (rising by one per event published on its bus), the
/// wall-clock time of the injected `TimeSource`, and the provider and flow it concerns.
/// Events never carry secrets: sessions and challenges in them redact themselves.
public struct AuthEvent: Sendable, CustomStringConvertible {
    /// The bus-wide sequence number; consecutive for one subscriber unless events were
    /// dropped by its buffer policy (see ``AuthEventStream/droppedCount``) or, on an
    /// `authStates()` stream, a state event that repeated what the stream had shown was skipped
    /// (Docs/Events.md, "Every state change once").
    public let sequence: UInt64
    /// When the event was published (wall clock of the bus's `TimeSource`).
    public let timestamp: Date
    /// The provider concerned, if any.
    public let provider: AuthProviderID?
    /// The flow concerned, if any.
    public let flowID: FlowID?
    /// What happened.
    public let kind: Kind

    /// Creates an event; the bus assigns `sequence` and `timestamp` when publishing.
    public init(sequence: UInt64, timestamp: Date, provider: AuthProviderID?, flowID: FlowID?, kind: Kind) {
        self.sequence = sequence
        self.timestamp = timestamp
        self.provider = provider
        self.flowID = flowID
        self.kind = kind
    }

    /// What happened. Cases are past tense.
    ///
    /// Cases carrying sessions, challenges, states or errors are `indirect`: one boxed value
    /// is shared by every subscriber's buffer instead of being copied inline into each.
    public enum Kind: Sendable, CustomStringConvertible {
        /// The first element of `AuthClient.authStates()`: the state when the subscriber
        /// attached (stored sessions with expired flags). Sent once per subscriber.
        indirect case initialState(AuthState)
        /// A sign-in flow started; the summary is masked (e.g. `phone(+91 •••••• 3210)`).
        case flowStarted(summary: String)
        /// A challenge was issued (or re-issued after a resend or fallback).
        indirect case challengeIssued(Challenge)
        /// The provider reported a delivery status for the code or link.
        case deliveryStatus(channel: DeliveryChannel, status: DeliveryStatus)
        /// Delivery moved from one channel to another (SmartAuth fallback, SNA → OTP).
        case fallbackTriggered(from: DeliveryChannel, to: DeliveryChannel)
        /// A provider-specific verification state changed (e.g. Truecaller's `otpReceived`).
        case verificationStateChanged(String)
        /// A code was rejected; the challenge stays usable while attempts remain.
        ///
        /// `attemptsRemaining` is what the provider reported (`nil` when it reported no count).
        /// `challenge` is the flow's pending challenge as the client updated it after this code
        /// (its `attemptsRemaining` lowered to the provider's count, else by one): what a UI shows
        /// next, with no rule of its own. `nil` when the client holds no pending challenge of this
        /// flow (e.g. an answer to a challenge saved by an earlier process).
        indirect case codeRejected(attemptsRemaining: Int?, challenge: Challenge?)
        /// The flow was cancelled (by a new start, the caller, or the provider). Nothing about
        /// this flow follows.
        case flowCancelled
        /// The flow's challenge expired.
        case flowExpired
        /// The last allowed wrong code was submitted: no attempts remain and the flow is over
        /// (start again). Published once per flow, after the `codeRejected` of that code when
        /// the provider reports it as a wrong code.
        case attemptsExhausted
        /// A session was created and persisted.
        indirect case signedIn(AuthSession)
        /// A stored session was loaded at start-up.
        indirect case sessionRestored(AuthSession)
        /// A session's tokens were refreshed and persisted.
        indirect case sessionRefreshed(AuthSession)
        /// The user signed out: the provider's session was removed by `AuthClient.signOut`.
        case signedOut
        /// The provider ended the session: a refresh was rejected because its refresh
        /// credential was revoked or is unknown. The session was removed once; the error is
        /// `.sessionExpired` with the provider's raw code. Distinct from a user's `signedOut`;
        /// transient failures never publish it.
        indirect case sessionExpired(AuthError)
        /// Writing or reading the session store failed; nothing was deleted.
        indirect case storageFailed(AuthError)
        /// This subscriber lagged and its buffer dropped `count` events published since the
        /// element before this one; the events that follow are what its overflow policy kept
        /// (the latest state event per provider, then the newest flow events). Never published
        /// on the bus: each lagging subscriber gets its own marker, with `provider` and `flowID`
        /// nil, the sequence number of the element before it (the bus's sequence at
        /// subscription if none) and the time of the newest dropped event. A subscriber that
        /// must not miss state can re-read it (e.g. from a new `authStates()`) when it sees one.
        /// See Docs/Events.md, "Buffers and overflow".
        case eventsDropped(count: Int)

        /// The case name, e.g. `"signedIn"`.
        public var name: String {
            switch self {
            case .initialState: "initialState"
            case .flowStarted: "flowStarted"
            case .challengeIssued: "challengeIssued"
            case .deliveryStatus: "deliveryStatus"
            case .fallbackTriggered: "fallbackTriggered"
            case .verificationStateChanged: "verificationStateChanged"
            case .codeRejected: "codeRejected"
            case .flowCancelled: "flowCancelled"
            case .flowExpired: "flowExpired"
            case .attemptsExhausted: "attemptsExhausted"
            case .signedIn: "signedIn"
            case .sessionRestored: "sessionRestored"
            case .sessionRefreshed: "sessionRefreshed"
            case .signedOut: "signedOut"
            case .sessionExpired: "sessionExpired"
            case .storageFailed: "storageFailed"
            case .eventsDropped: "eventsDropped"
            }
        }

        /// Whether this event changes the signed-in state (initial state, signed in/out,
        /// restored, refreshed, session expired). A lagging subscriber's buffer keeps the latest
        /// of these per provider before any flow event (Docs/Events.md, "Buffers and overflow").
        public var isStateEvent: Bool {
            switch self {
            case .initialState, .signedIn, .signedOut, .sessionRestored, .sessionRefreshed, .sessionExpired: true
            default: false
            }
        }

        /// A one-line, secret-free summary.
        public var description: String {
            switch self {
            case .initialState(let state): "initialState(\(state))"
            case .flowStarted(let summary): "flowStarted(\(summary))"
            case .challengeIssued(let challenge): "challengeIssued(\(challenge.kind))"
            case .deliveryStatus(let channel, let status): "deliveryStatus(\(channel), \(status))"
            case .fallbackTriggered(let from, let to): "fallbackTriggered(from: \(from), to: \(to))"
            case .verificationStateChanged(let state): "verificationStateChanged(\(state))"
            case .codeRejected(let remaining, _):
                "codeRejected(attemptsRemaining: \(remaining.map(String.init) ?? "?"))"
            case .flowCancelled: "flowCancelled"
            case .flowExpired: "flowExpired"
            case .attemptsExhausted: "attemptsExhausted"
            case .signedIn(let session): "signedIn(\(session.user))"
            case .sessionRestored(let session): "sessionRestored(\(session.user))"
            case .sessionRefreshed(let session): "sessionRefreshed(\(session.user))"
            case .signedOut: "signedOut"
            case .sessionExpired(let error): "sessionExpired(\(error.providerCode ?? "-"))"
            case .storageFailed(let error): "storageFailed(\(error.code))"
            case .eventsDropped(let count): "eventsDropped(count: \(count))"
            }
        }
    }

    /// `#<sequence> <provider> <kind>`.
    public var description: String {
        "#\(sequence) \(provider?.rawValue ?? "-") \(kind)"
    }
}
