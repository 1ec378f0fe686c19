/// A ``ReplayStore`` or ``AttemptLimiter`` could not answer, so nothing can be accepted now:
/// the typed, **retryable** refusal of a fail-closed verifier (Docs/Server.md, "What fails
/// closed").
///
/// Never a verdict on the code, nonce or token: retry later (after ``retryAfter`` when set).
/// The verifiers of the adapters report it as `AuthError` code `storageUnavailable`, its cause
/// in the message. ``message`` never contains a key, code, password or anything the
/// store sent beyond a sanitized error word.
public struct StoreUnavailableError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the store could not answer. Extensible: switch with a `default` branch.
    public struct Cause: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The string form, e.g. `"unreachable"`.
        public let rawValue: String
        /// Creates a cause from its string form.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No connection could be made (refused, no route, name not resolved), or the client is
        /// backing off after such failures.
        public static let unreachable = Cause(rawValue: "unreachable")
        /// The connection broke during a command; the command may or may not have been applied.
        public static let connectionLost = Cause(rawValue: "connectionLost")
        /// The store did not answer within the configured timeout.
        public static let timedOut = Cause(rawValue: "timedOut")
        /// The store refused the credentials or the database (`AUTH`, `SELECT`).
        public static let authenticationFailed = Cause(rawValue: "authenticationFailed")
        /// The reply broke the protocol, exceeded a size bound or had a value out of range.
        public static let malformedReply = Cause(rawValue: "malformedReply")
        /// The store answered with an error (out of memory, read-only replica, a script error).
        public static let serverError = Cause(rawValue: "serverError")
        /// Every connection is busy and the queue of waiting callers is full.
        public static let overloaded = Cause(rawValue: "overloaded")
        /// An in-memory store is full of entries that have not expired yet.
        public static let capacityExhausted = Cause(rawValue: "capacityExhausted")
        /// Fewer replicas than required acknowledged the write (Redis `WAIT`); it may be lost
        /// at a failover.
        public static let replicationUnconfirmed = Cause(rawValue: "replicationUnconfirmed")
        /// The client was closed.
        public static let closed = Cause(rawValue: "closed")

        /// The string form.
        public var description: String { rawValue }
    }

    /// Why the store could not answer.
    public let cause: Cause
    /// A short, secret-free explanation for logs.
    public let message: String
    /// How long to wait before the store is likely to answer (e.g. the client's reconnect
    /// back-off), when known.
    public let retryAfter: Duration?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - cause: why the store could not answer.
    ///   - message: a secret-free explanation.
    ///   - retryAfter: when a retry makes sense, if known.
    public init(_ cause: Cause, _ message: String, retryAfter: Duration? = nil) {
        self.cause = cause
        self.message = message
        self.retryAfter = retryAfter
    }

    /// Always `true`: the same verification may succeed once the store answers again.
    public var isRetryable: Bool { true }

    /// e.g. `store unavailable (unreachable): connect to 127.0.0.1:6379 refused`.
    public var description: String {
        "store unavailable (\(cause.rawValue)): \(message)"
            + (retryAfter.map { ", retry after \($0)" } ?? "")
    }
}
