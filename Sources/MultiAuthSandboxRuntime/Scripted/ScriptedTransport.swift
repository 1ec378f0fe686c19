import Foundation
import MultiAuth
import MultiAuthLocking

/// An ``/MultiAuth/HTTPTransport`` (cellular-capable) that answers from a script and records
/// every request with the response it got (``exchanges``), for testing an adapter's wire format
/// without a backend.
///
/// Each request is named by an endpoint (by default `"METHOD /path"`, e.g. `"GET /v1/key"`;
/// pass ``init(naming:cellularEndpoint:)`` a function to use your own names, such as contract
/// fixture names) and answered by the first of:
/// 1. the next response queued for its endpoint (``script(_:_:)``), used once;
/// 2. the next response queued for any endpoint (``enqueue(_:)``, ``init(_:)-([HTTPResponse])``), used once;
/// 3. the endpoint's standing answer (``setDefault(_:_:)``);
/// 4. the handler (``setHandler(_:)``, ``init(_:)-(ScriptedTransport.Handler)``, ``init(forwardingTo:)``),
///    which may compute a response, throw, or forward to another transport;
/// 5. otherwise `AuthError(.network)` ("nothing scripted", with the redacted request).
///
/// ```swift
/// let transport = ScriptedTransport()
/// transport.script("POST /v1/otp", try .json(200, ["status": "sent"]))
/// let context = AuthContext(transport: transport, time: ManualClock().timeSource)
/// // … drive the provider …
/// #expect(transport.endpoints == ["POST /v1/otp"])
/// ```
///
/// Requests over the cellular bearer (``sendOverCellular(_:)``) are named `cellularEndpoint`
/// (default `"cellular"`) and fail with `AuthError(.network)` while ``isCellularAvailable``
/// is `false`. A cancelled caller gets `CancellationError` before anything is recorded.
///
/// The recorded requests hold whatever the adapter sent (tokens, codes): read them in
/// assertions; its renderings show none of them (they are in a `Locked`, whose rendering hides
/// its contents; Docs/Security.md, "Redaction").
///
/// Thread-safe (its fields are in one `Locked` state); the handler runs outside the lock.
public final class ScriptedTransport: CellularHTTPTransport, Sendable {
    /// Computes the answer to a request nothing queued or standing answered.
    public typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse

    /// One recorded request with the endpoint name it was answered under.
    ///
    /// Its renderings are Swift's default: the endpoint name may carry a secret path segment, so
    /// it is kept as a `Secret` (`<redacted>`), and the request renders redacted.
    public struct Exchange: Sendable {
        /// The endpoint name (see ``ScriptedTransport``).
        public var endpoint: String { endpointName.reveal() }
        /// The endpoint name, as a `Secret` so that no rendering shows it.
        private let endpointName: Secret
        /// The request as the adapter sent it.
        public let request: HTTPRequest
        /// Whether it went through ``ScriptedTransport/sendOverCellular(_:)``.
        public let overCellular: Bool
        /// The response the request was answered with (from the script or the handler, e.g. the
        /// forwarded transport's); `nil` while it is in flight or when answering it threw. It
        /// renders as an `HTTPResponse` does: status, header names and body size, never a value.
        public internal(set) var response: HTTPResponse?

        /// Records one exchange, not yet answered.
        init(endpoint: String, request: HTTPRequest, overCellular: Bool) {
            self.endpointName = Secret(endpoint)
            self.request = request
            self.overCellular = overCellular
        }
    }

    /// The transport's mutable fields, only touched inside `state.withLock`.
    private struct State {
        var queues: [String: [HTTPResponse]] = [:]
        var anyQueue: [HTTPResponse] = []
        var defaults: [String: HTTPResponse] = [:]
        var handler: Handler?
        var cellularHandler: Handler?
        var recorded: [Exchange] = []
        var cellular = true
    }

    private let state = Locked(State())
    private let naming: @Sendable (HTTPRequest) -> String
    private let cellularEndpoint: String

    /// Creates a transport with an empty script.
    /// - Parameters:
    ///   - naming: Names a request's endpoint (default: ``methodAndPath(_:)``).
    ///   - cellularEndpoint: The endpoint name of every request sent over the cellular bearer.
    public init(
        naming: @escaping @Sendable (HTTPRequest) -> String = ScriptedTransport.methodAndPath,
        cellularEndpoint: String = "cellular"
    ) {
        self.naming = naming
        self.cellularEndpoint = cellularEndpoint
    }

    /// Creates a transport that answers requests with `responses`, in order, whatever their
    /// endpoint; once they are used up, requests fail with `AuthError(.network)`.
    public convenience init(_ responses: [HTTPResponse]) {
        self.init()
        state.withLock { $0.anyQueue = responses }
    }

    /// Creates a transport that answers every request with `handler`.
    public convenience init(_ handler: @escaping Handler) {
        self.init()
        state.withLock { $0.handler = handler }
    }

    /// Creates a transport that records every request and forwards it to `transport` (e.g. a
    /// sandbox's transport), for assertions on what an adapter sent.
    public convenience init(forwardingTo transport: any HTTPTransport) {
        self.init { request in try await transport.send(request) }
    }

    /// Creates a transport that records every request and forwards it to `transport`, a request
    /// over the cellular bearer through `transport`'s `sendOverCellular(_:)` (e.g. a sandbox's
    /// cellular transport), for assertions on what an adapter sent, silent network auth included.
    public convenience init(forwardingToCellular transport: any CellularHTTPTransport) {
        self.init { request in try await transport.send(request) }
        state.withLock { $0.cellularHandler = { request in try await transport.sendOverCellular(request) } }
    }

    /// The default endpoint name: the method and the URL path, e.g. `"GET /v1/key"`.
    @Sendable public static func methodAndPath(_ request: HTTPRequest) -> String {
        "\(request.method.rawValue) \(request.url.path)"
    }

    /// A response with a JSON body given as text, `Content-Type: application/json` added to
    /// `headers`.
    public static func json(_ status: Int, _ text: String, headers: [String: String] = [:]) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return HTTPResponse(status: status, headers: headers, body: Data(text.utf8))
    }

    /// Queues `responses` for `endpoint`; each answers one request, in order.
    public func script(_ endpoint: String, _ responses: HTTPResponse...) {
        state.withLock { $0.queues[endpoint, default: []] += responses }
    }

    /// Queues `responses` for requests to any endpoint (after the endpoint's own queue).
    public func enqueue(_ responses: HTTPResponse...) { state.withLock { $0.anyQueue += responses } }

    /// Answers `endpoint` with `response` whenever nothing is queued for it.
    public func setDefault(_ endpoint: String, _ response: HTTPResponse) {
        state.withLock { $0.defaults[endpoint] = response }
    }

    /// Replaces the handler that answers what the queues and standing answers do not.
    public func setHandler(_ handler: @escaping Handler) { state.withLock { $0.handler = handler } }

    /// Every request so far with its endpoint name and, once answered, its response, in arrival
    /// order.
    public var exchanges: [Exchange] { state.withLock { $0.recorded } }

    /// Every request so far, in arrival order.
    public var requests: [HTTPRequest] { exchanges.map(\.request) }

    /// The endpoint names of ``requests``, in order (with the default naming: `"GET /v1/key"`).
    public var endpoints: [String] { exchanges.map(\.endpoint) }

    /// The requests named `endpoint`, in order.
    public func requests(_ endpoint: String) -> [HTTPRequest] {
        exchanges.filter { $0.endpoint == endpoint }.map(\.request)
    }

    /// Whether the emulated device has a cellular data path (default `true`).
    public var isCellularAvailable: Bool {
        get { state.withLock { $0.cellular } }
        set { state.withLock { $0.cellular = newValue } }
    }

    /// Records `request` and answers it from the script.
    /// - Throws: `AuthError(.network)` when nothing is scripted for it, what the handler
    ///   throws, or `CancellationError`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await answer(request, endpoint: naming(request), overCellular: false)
    }

    /// Records `request` under the cellular endpoint name and answers it from the script.
    /// - Throws: `AuthError(.network)` when ``isCellularAvailable`` is `false` or nothing is
    ///   scripted, what the handler throws, or `CancellationError`.
    public func sendOverCellular(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        guard isCellularAvailable else { throw AuthError(.network, "no cellular path (scripted transport)") }
        return try await answer(request, endpoint: cellularEndpoint, overCellular: true)
    }

    private enum Answer {
        case response(HTTPResponse)
        case handler(Handler)
        case none
    }

    private func answer(_ request: HTTPRequest, endpoint: String, overCellular: Bool) async throws -> HTTPResponse {
        try Task.checkCancellation()
        let (index, answer): (Int, Answer) = state.withLock { state in
            state.recorded.append(Exchange(endpoint: endpoint, request: request, overCellular: overCellular))
            let index = state.recorded.count - 1
            if var queue = state.queues[endpoint], !queue.isEmpty {
                let next = queue.removeFirst()
                state.queues[endpoint] = queue
                return (index, .response(next))
            }
            if !state.anyQueue.isEmpty { return (index, .response(state.anyQueue.removeFirst())) }
            if let standing = state.defaults[endpoint] { return (index, .response(standing)) }
            if overCellular, let cellularHandler = state.cellularHandler { return (index, .handler(cellularHandler)) }
            return (index, state.handler.map { .handler($0) } ?? .none)
        }
        let response: HTTPResponse
        switch answer {
        case .response(let scripted): response = scripted
        case .handler(let handler): response = try await handler(request)
        // The redacted rendering: a path segment of the request may be a secret.
        case .none: throw AuthError(.network, "scripted transport: nothing scripted for \(request)")
        }
        state.withLock { $0.recorded[index].response = response }
        return response
    }

    /// The number of responses still queued (per endpoint and for any endpoint).
    var queuedCount: Int {
        state.withLock { state in state.queues.values.reduce(state.anyQueue.count) { $0 + $1.count } }
    }
}
