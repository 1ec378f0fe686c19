import Foundation
import MultiAuth
import MultiAuthLocking

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real ``/MultiAuth/HTTPTransport``: sends requests with `URLSession`
/// (FoundationNetworking on Linux).
///
/// - Every HTTP status is returned as a response; only a missing response throws.
/// - Failures map to `AuthError(.network)` with the `URLError` as `underlying`; cancellation of
///   the calling task cancels the request and throws `CancellationError`.
/// - **No retries.** A resent POST could send a second OTP to the user; retrying is the
///   caller's decision.
/// - Timeouts: the request's `timeout`, else ``defaultTimeout``.
/// - Errors name the request by its redacted rendering (``/MultiAuth/HTTPRequest/description``):
///   no query, header value, body or secret path segment (Docs/Security.md, "Redaction").
/// - `description`, `String(reflecting:)` and the mirror show the timeout and the default
///   header *names*: a default header may be an API key.
public struct URLSessionTransport: HTTPTransport, CustomStringConvertible,
    CustomReflectable
{
    /// The session requests go through.
    public let session: URLSession
    /// The timeout used when a request sets none (default 30 s).
    public let defaultTimeout: Duration
    /// Headers added to every request unless the request sets them (e.g. `User-Agent`).
    public let defaultHeaders: [String: String]

    /// Creates a transport.
    /// - Parameters:
    ///   - session: The `URLSession` to use; a test can pass one configured with a
    ///     `URLProtocol` (e.g. the sandbox's) to exercise this exact code path.
    ///   - defaultTimeout: Time limit for requests that set none.
    ///   - defaultHeaders: Headers added to every request.
    public init(
        session: URLSession = .shared, defaultTimeout: Duration = .seconds(30),
        defaultHeaders: [String: String] = ["User-Agent": "MultiAuth/1"]
    ) {
        self.session = session
        self.defaultTimeout = defaultTimeout
        self.defaultHeaders = defaultHeaders
    }

    /// Builds the `URLRequest` for `request` (method, headers, body, timeout in seconds).
    public func urlRequest(for request: HTTPRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.timeoutInterval = (request.timeout ?? defaultTimeout).timeInterval
        for (name, value) in defaultHeaders where request.header(name) == nil {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        return urlRequest
    }

    /// Sends `request` once.
    /// - Throws: `AuthError` `.network` (timeout, dropped connection, DNS, TLS), or
    ///   `CancellationError`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        let urlRequest = urlRequest(for: request)
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await load(urlRequest)
        } catch let error as URLError where error.code == .cancelled && Task.isCancelled {
            throw CancellationError()
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if Task.isCancelled { throw CancellationError() }
            // The cause keeps the host and the redacted path only, never the query or a secret
            // segment (URLError's userInfo holds the whole URL): Docs/Security.md, "Redaction".
            throw AuthError(
                .network, "\(request): \(Self.describe(error))",
                underlying: RedactedError(
                    redacting: error, host: request.url.host, redactedPath: request.redactedPath))
        }
        guard let http = response as? HTTPURLResponse else {
            throw AuthError(.network, "\(request): not an HTTP response")
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: data)
    }

    /// One data task; the calling task's cancellation ends the call at once, from another queue.
    ///
    /// Not `URLSession.data(for:)`: its cancellation handler runs while the Swift runtime holds
    /// the calling task's status lock and calls `URLSessionTask.cancel()`, which in
    /// swift-corelibs-foundation waits for the session's work queue; a transfer completing at
    /// that moment waits on that queue for the same lock to resume the task, and both wait
    /// forever (seen as a hung `multiauth conformance --server`). Nor `cancel()` from elsewhere:
    /// swift-corelibs-foundation stops the process when a cancel races the task's completion
    /// ("a task that is not in the registry"). So a cancelled call is answered with
    /// `CancellationError` at once, from a global queue; its request is cancelled too, on Linux
    /// only if it is still running a quarter second later (`PendingLoad.cancelDelay`), and its
    /// answer, if any, is dropped.
    private func load(_ urlRequest: URLRequest) async throws -> (Data, URLResponse) {
        let pending = PendingLoad()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        pending.finish(.failure(error))
                    } else if let response {
                        pending.finish(.success((data ?? Data(), response)))
                    } else {
                        pending.finish(.failure(URLError(.badServerResponse)))
                    }
                }
                // A task never resumed never calls its completion handler.
                if pending.start(continuation, task: task) {
                    task.resume()
                } else {
                    continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            // Never resume or call into URLSession while the runtime holds the task's lock.
            DispatchQueue.global().async { pending.abandon() }
        }
    }

    /// `URLSessionTransport(timeout: …, defaultHeaders: [names])`, never a header value.
    public var description: String {
        "URLSessionTransport(timeout: \(defaultTimeout), defaultHeaders: [\(defaultHeaders.keys.sorted().joined(separator: ", "))])"
    }

    /// A mirror with the timeout and the default header names only.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["defaultTimeout": defaultTimeout, "defaultHeaderNames": defaultHeaders.keys.sorted()],
            displayStyle: .struct)
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? URLError else { return "request failed" }
        switch error.code {
        case .timedOut: return "timed out"
        case .networkConnectionLost: return "connection lost"
        case .notConnectedToInternet: return "not connected"
        case .cannotFindHost, .dnsLookupFailed: return "host not found"
        case .cannotConnectToHost: return "cannot connect"
        case .secureConnectionFailed: return "TLS failed"
        default: return "URLError \(error.code.rawValue)"
        }
    }
}

/// One ``URLSessionTransport`` call: its continuation, resumed exactly once by whichever comes
/// first, the task's completion or the caller's cancellation (see `load(_:)`).
private final class PendingLoad: Sendable {
    /// How long after the caller's cancellation a request still running is cancelled (on
    /// Linux): long enough that a request already answering has finished (a cancel racing the
    /// finish stops the process in swift-corelibs-foundation), short enough that an abandoned
    /// long poll does not hold one of the session's connections to its host for long. Not a
    /// timeout of the call: the caller has its `CancellationError` at once.
    static let cancelDelay: DispatchTimeInterval = .milliseconds(250)

    private struct State {
        var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
        var task: URLSessionDataTask?
        var abandoned = false
        var finished = false
    }

    private let state = Locked(State())

    /// Keeps the continuation and the task; `false` (nothing kept) when the caller was already
    /// cancelled.
    func start(_ continuation: CheckedContinuation<(Data, URLResponse), any Error>, task: URLSessionDataTask) -> Bool {
        state.withLock { state in
            guard !state.abandoned else { return false }
            state.continuation = continuation
            state.task = task
            return true
        }
    }

    /// The task completed: resumes the caller unless it was already answered.
    func finish(_ result: Result<(Data, URLResponse), any Error>) {
        let continuation: CheckedContinuation<(Data, URLResponse), any Error>? = state.withLock { state in
            state.finished = true
            state.task = nil
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }

    /// The caller was cancelled: answers it with `CancellationError` unless the task already
    /// did, and cancels the task (on Linux only if it is still running ``cancelDelay`` later).
    func abandon() {
        let continuation: CheckedContinuation<(Data, URLResponse), any Error>? = state.withLock { state in
            state.abandoned = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(throwing: CancellationError())
        #if canImport(FoundationNetworking)
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.cancelDelay) { self.cancelIfRunning() }
        #else
        cancelIfRunning()
        #endif
    }

    private func cancelIfRunning() {
        let task: URLSessionDataTask? = state.withLock { state in
            defer { state.task = nil }
            return state.finished ? nil : state.task
        }
        task?.cancel()
    }
}
