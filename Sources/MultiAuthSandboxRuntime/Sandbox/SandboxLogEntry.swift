import Foundation
import MultiAuth

/// One request that reached a ``Sandbox``, as its request log records it.
///
/// ``path`` is the path as sent (tests count requests by it), kept as a `Secret`;
/// `description` and `String(reflecting:)` show ``redactedPath`` instead, and the mirror (Swift's
/// default) shows the sent path as `<redacted>`, so a log printed in a test failure never carries
/// a token from the URL.
public struct SandboxLogEntry: Sendable, Hashable, CustomStringConvertible {
    /// How a logged request ended.
    public enum Outcome: Sendable, Hashable {
        /// Still in flight (delayed or being handled).
        case pending
        /// Answered with this HTTP status (by the backend or a fault rule).
        case response(status: Int)
        /// The connection was dropped (fault rule, unknown host, or the backend threw
        /// `AuthError(.network)`).
        case dropped
        /// The calling task was cancelled while the request was delayed or handled.
        case cancelled
    }

    /// Position in the log, starting at 1.
    public let index: Int
    /// The request's host.
    public let host: String
    /// The method, e.g. `POST`.
    public let method: String
    /// The path, without query, as sent (it may hold a credential: never print it).
    public var path: String { sentPath.reveal() }
    /// The path as sent, as a `Secret` so that no rendering shows it.
    private let sentPath: Secret
    /// The path with secret and credential-like segments redacted (see
    /// `HTTPRequest.redactedPath`), the only form any rendering shows.
    public let redactedPath: String
    /// When the request arrived (sandbox clock, no server offset).
    public let receivedAt: Date
    /// How it ended.
    public internal(set) var outcome: Outcome

    /// The HTTP status, when the request got a response.
    public var status: Int? {
        if case .response(let status) = outcome { status } else { nil }
    }

    /// Creates an entry.
    /// - Parameters:
    ///   - index: The request's position in the log (0 first).
    ///   - host: The host the request was sent to.
    ///   - method: The HTTP method.
    ///   - path: The URL path as sent.
    ///   - receivedAt: When the sandbox received it (sandbox time).
    ///   - outcome: What the sandbox answered.
    ///   - redactedPath: the path as renderings show it; `nil` redacts `path` with
    ///     `HTTPRequest.redactedPath(_:)` (credential-like segments only).
    public init(
        index: Int, host: String, method: String, path: String, receivedAt: Date, outcome: Outcome,
        redactedPath: String? = nil
    ) {
        self.index = index
        self.host = host
        self.method = method
        self.sentPath = Secret(path)
        self.redactedPath = redactedPath ?? HTTPRequest.redactedPath(path)
        self.receivedAt = receivedAt
        self.outcome = outcome
    }

    /// e.g. `#3 POST ref.sandbox.test/otp/verify → 401`.
    public var description: String {
        let end: String
        switch outcome {
        case .pending: end = "pending"
        case .response(let status): end = String(status)
        case .dropped: end = "dropped"
        case .cancelled: end = "cancelled"
        }
        return "#\(index) \(method) \(host)\(redactedPath) → \(end)"
    }
}
