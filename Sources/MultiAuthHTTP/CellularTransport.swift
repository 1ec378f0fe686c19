#if canImport(Network)
import Dispatch
import Foundation
import MultiAuth
import MultiAuthLocking
import Network

/// A ``/MultiAuth/CellularHTTPTransport`` for Apple platforms: ordinary requests go through
/// ``base`` (a `URLSessionTransport` by default); ``sendOverCellular(_:)`` opens a Network
/// framework `NWConnection` that may use the cellular interface only, writes one HTTP/1.1
/// `GET` and reads the answer, following redirects by hand, each hop on a new cellular
/// connection. This is what silent network auth needs (Docs/Providers/OTPless.md, "Silent
/// network auth"): the operator recognises the subscriber by the bearer, so Wi-Fi, wired and
/// loopback interfaces are prohibited and no proxy is used.
///
/// - Connect timeout ``connectTimeout`` (default 5 s, `NWProtocolTCP.Options.connectionTimeout`);
///   the whole exchange is bounded by the request's `timeout`, else ``defaultTimeout``.
/// - At most ``maximumRedirects`` redirects (301, 302, 303, 307, 308); more is `.network`.
/// - Only `GET` (`AuthError(.unsupported)` otherwise, before any connection).
/// - The request head and response parsing are `HTTP1Message` (plain code, tested on every
///   platform); this type only moves bytes.
/// - ``isCellularAvailable`` reads an `NWPathMonitor` restricted to the cellular interface.
///
/// Concurrency: a `Sendable` value; each exchange owns its connection and a serial queue.
/// Cancelling the calling task cancels the connection and throws `CancellationError`.
public struct CellularTransport: CellularHTTPTransport {
    /// The transport for every request that need not travel on the cellular bearer.
    public let base: any HTTPTransport
    /// The TCP connect timeout of each cellular hop (default 5 s).
    public let connectTimeout: Duration
    /// The time limit of a whole cellular exchange when the request sets none (default 7 s).
    public let defaultTimeout: Duration
    /// The most redirects followed (default 10).
    public let maximumRedirects: Int
    private let monitor: CellularPathMonitor

    /// Creates a transport.
    /// - Parameters:
    ///   - base: The transport for ordinary requests.
    ///   - connectTimeout: TCP connect timeout per cellular hop.
    ///   - defaultTimeout: Limit of a whole cellular exchange when the request sets none.
    ///   - maximumRedirects: Redirects followed before giving up.
    public init(
        base: any HTTPTransport = URLSessionTransport(), connectTimeout: Duration = .seconds(5),
        defaultTimeout: Duration = .seconds(7), maximumRedirects: Int = 10
    ) {
        self.base = base
        self.connectTimeout = connectTimeout
        self.defaultTimeout = defaultTimeout
        self.maximumRedirects = max(0, maximumRedirects)
        self.monitor = CellularPathMonitor()
    }

    /// Sends `request` through ``base``.
    /// - Throws: `AuthError` `.network`, or `CancellationError`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await base.send(request)
    }

    /// Whether the cellular path monitor currently reports a satisfied path.
    public var isCellularAvailable: Bool { monitor.isSatisfied }

    /// Sends a `GET` on the cellular bearer only, following redirects there.
    /// - Throws: `AuthError` `.unsupported` (not `GET`), `.invalidInput` (URL without host or
    ///   not http/https), `.network` (no cellular path, connect timeout, too many redirects,
    ///   malformed answer), or `CancellationError`.
    public func sendOverCellular(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard request.method == .get else {
            throw AuthError(.unsupported, "the cellular transport sends GET requests only")
        }
        let timeout = request.timeout ?? defaultTimeout
        var url = request.url
        for _ in 0...maximumRedirects {
            try Task.checkCancellation()
            let bytes = try HTTP1Message.getRequest(for: url, headers: request.headers)
            let exchange = CellularExchange(url: url, request: bytes, connectTimeout: connectTimeout, timeout: timeout)
            let response = try await exchange.run()
            guard let next = HTTP1Message.redirectTarget(of: response, requestURL: url) else { return response }
            url = next
        }
        throw AuthError(.network, "the cellular request was redirected too often")
    }
}

/// The cellular path monitor: started once, read on demand (`currentPath`).
// @unchecked: only an `NWPathMonitor` (thread-safe, reads of `currentPath` from any thread);
// this Apple-only file is not compiled on the Linux builder, so its Sendable-ness is unchecked.
private final class CellularPathMonitor: @unchecked Sendable {
    private let monitor = NWPathMonitor(requiredInterfaceType: .cellular)

    init() { monitor.start(queue: DispatchQueue(label: "MultiAuthHTTP.CellularPathMonitor")) }
    deinit { monitor.cancel() }

    var isSatisfied: Bool { monitor.currentPath.status == .satisfied }
}

/// One cellular HTTP/1.1 exchange: connect, write the request, read until the response is
/// complete, close. Resumes its continuation exactly once (its mutable fields are one `Locked`
/// state).
// @unchecked: the state holds an `NWConnection`; this Apple-only file is not compiled on the
// Linux builder, so whether the Network types are `Sendable` in every supported SDK is unchecked.
private final class CellularExchange: @unchecked Sendable {
    private let url: URL
    private let request: Data
    private let connectTimeout: Duration
    private let timeout: Duration
    private let queue = DispatchQueue(label: "MultiAuthHTTP.CellularExchange")
    private struct State {
        var connection: NWConnection?
        var parser = HTTP1Message.Parser()
        var continuation: CheckedContinuation<HTTPResponse, any Error>?
        var finished = false
    }

    private let state = Locked(State())

    init(url: URL, request: Data, connectTimeout: Duration, timeout: Duration) {
        self.url = url
        self.request = request
        self.connectTimeout = connectTimeout
        self.timeout = timeout
    }

    func run() async throws -> HTTPResponse {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let cancelled: Bool = state.withLock { state in
                    if state.finished { return true }
                    state.continuation = continuation
                    return false
                }
                if cancelled {
                    // Cancelled before the exchange began.
                    continuation.resume(throwing: CancellationError())
                    return
                }
                start()
            }
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }

    private func start() {
        guard let host = url.host, let scheme = url.scheme?.lowercased() else {
            finish(.failure(AuthError(.invalidInput, "the cellular request URL has no host")))
            return
        }
        let secure = scheme == "https"
        let tcp = NWProtocolTCP.Options()
        tcp.connectionTimeout = max(1, Int(connectTimeout.components.seconds))
        let parameters = NWParameters(tls: secure ? NWProtocolTLS.Options() : nil, tcp: tcp)
        parameters.requiredInterfaceType = .cellular
        parameters.prohibitedInterfaceTypes = [.wifi, .wiredEthernet, .loopback]
        parameters.preferNoProxies = true
        let portNumber = UInt16(clamping: url.port ?? (secure ? 443 : 80))
        guard let port = NWEndpoint.Port(rawValue: portNumber) else {
            finish(.failure(AuthError(.invalidInput, "the cellular request URL has a bad port")))
            return
        }
        let connection = NWConnection(host: NWEndpoint.Host(host), port: port, using: parameters)
        let alreadyFinished: Bool = state.withLock { state in
            state.connection = connection
            return state.finished
        }
        if alreadyFinished {
            connection.cancel()
            return
        }
        connection.stateUpdateHandler = { [self] state in
            switch state {
            case .ready:
                send()
            case .waiting(let error):
                // With the cellular interface required, "waiting" means no usable cellular path.
                finish(.failure(AuthError(.network, "no cellular path: \(error.debugDescription)")))
            case .failed(let error):
                finish(.failure(AuthError(.network, "the cellular connection failed: \(error.debugDescription)")))
            default:
                break
            }
        }
        connection.start(queue: queue)
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        queue.asyncAfter(deadline: .now() + seconds) { [self] in
            finish(.failure(AuthError(.network, "the cellular request timed out")))
        }
    }

    /// The connection of this exchange (`nil` once finished).
    private var liveConnection: NWConnection? {
        state.withLock { state in state.finished ? nil : state.connection }
    }

    private func send() {
        liveConnection?.send(
            content: request,
            completion: .contentProcessed { [self] error in
                if let error {
                    finish(
                        .failure(
                            AuthError(.network, "the cellular request could not be sent: \(error.debugDescription)")))
                } else {
                    receive()
                }
            })
    }

    private func receive() {
        liveConnection?.receive(minimumIncompleteLength: 1, maximumLength: 65_536) {
            [self] data, _, isComplete, error in
            do {
                let response: HTTPResponse? = try state.withLock { state in
                    if let data { try state.parser.append(data) }
                    return try state.parser.response(connectionClosed: isComplete)
                }
                if let response {
                    finish(.success(response))
                } else if let error {
                    finish(.failure(AuthError(.network, "the cellular connection was lost: \(error.debugDescription)")))
                } else {
                    receive()
                }
            } catch {
                finish(.failure(error))
            }
        }
    }

    /// Resumes the caller once and closes the connection.
    private func finish(_ result: Result<HTTPResponse, any Error>) {
        let taken: (CheckedContinuation<HTTPResponse, any Error>?, NWConnection?)? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            defer { state.continuation = nil }
            return (state.continuation, state.connection)
        }
        guard let taken else { return }
        taken.1?.cancel()
        taken.0?.resume(with: result)
    }
}
#endif
