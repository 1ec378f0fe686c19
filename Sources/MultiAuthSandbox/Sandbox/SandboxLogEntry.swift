import Foundation
import MultiAuth

/// One request that reached a ``Sandbox``, as its request log records it.
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
    /// The path, without query.
    public let path: String
    /// When the request arrived (sandbox clock, no server offset).
    public let receivedAt: Date
    /// How it ended.
    public internal(set) var outcome: Outcome

    /// The HTTP status, when the request got a response.
    public var status: Int? {
        if case .response(let status) = outcome { status } else { nil }
    }

    /// Creates an entry.
    public init(index: Int, host: String, method: String, path: String, receivedAt: Date, outcome: Outcome) {
        self.index = index
        self.host = host
        self.method = method
        self.path = path
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
        return "#\(index) \(method) \(host)\(path) → \(end)"
    }
}
