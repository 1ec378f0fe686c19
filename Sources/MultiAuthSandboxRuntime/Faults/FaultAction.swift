import Foundation
import MultiAuth

/// What a ``FaultPlan`` rule does to a matching request.
public enum FaultAction: Sendable, Hashable, CustomStringConvertible {
    /// Delay the request by this long on the sandbox's ``ManualClock`` before anything else
    /// happens (the request is then served normally unless another rule intervenes). A task
    /// cancelled while delayed throws `CancellationError`; the backend never sees the request.
    case latency(Duration)
    /// Let the backend serve the request, then delay its answer by this long on the sandbox's
    /// ``ManualClock``: the server's side effects (a rotated token, a spent code) happen before
    /// the client hears of them. A task cancelled while delayed throws `CancellationError` and the
    /// answer is lost.
    case responseLatency(Duration)
    /// Answer with this status, headers and body instead of the backend (e.g. `503`).
    case status(Int, headers: [String: String], body: Data)
    /// Drop the connection: the transport throws `AuthError(.network)`; the backend never sees
    /// the request.
    case dropConnection
    /// Allow `limit` requests per sliding `window` (measured on the sandbox clock); further ones
    /// get `429` with a `Retry-After` header (whole seconds, rounded up) and the JSON body
    /// `{"code":"rate_limited","retryAfter":<seconds>}`.
    case rateLimit(limit: Int, window: Duration)

    /// A `status` action with a JSON body, e.g. `.jsonStatus(503, ["code": "maintenance"])`.
    public static func jsonStatus(_ status: Int, _ body: [String: String] = [:], headers: [String: String] = [:])
        -> FaultAction
    {
        var headers = headers
        headers["Content-Type"] = "application/json"
        let data = (try? JSONEncoder.multiAuth.encode(body)) ?? Data("{}".utf8)
        return .status(status, headers: headers, body: data)
    }

    /// e.g. `latency(2.0 seconds)`, `status(503)`.
    public var description: String {
        switch self {
        case .latency(let duration): "latency(\(duration))"
        case .responseLatency(let duration): "responseLatency(\(duration))"
        case .status(let status, _, _): "status(\(status))"
        case .dropConnection: "dropConnection"
        case .rateLimit(let limit, let window): "rateLimit(\(limit) per \(window))"
        }
    }
}
