import Foundation
import MultiAuth
import MultiAuthLocking

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `URLProtocol` that answers requests from a ``Sandbox`` instead of the network, so tests can
/// run the real `URLSessionTransport` (module `MultiAuthHTTP`) against emulated backends.
///
/// Use ``Sandbox/urlSessionConfiguration()`` or ``Sandbox/makeURLSession()``: the configuration
/// lists this class in `protocolClasses`, and every host the sandbox serves at that moment is
/// routed to it. Routing is by host, process-wide: a host is served by the sandbox that most
/// recently made a configuration for it, so tests that run in parallel through `URLSession`
/// give each sandbox its own host names, or send ``Sandbox/urlProtocolHeaders`` with every
/// request (e.g. as `URLSessionTransport`'s `defaultHeaders`): a request carrying the
/// ``sandboxHeader`` is routed to that sandbox whatever its host. (The in-process
/// ``Sandbox/transport`` has no such limit.) The header is removed before the backend sees
/// the request. A host no sandbox serves fails
/// with `URLError(.cannotFindHost)`; the real network is never used by this class.
///
/// A dropped connection (fault) fails the load with `URLError(.networkConnectionLost)`; a
/// request routed by header to a sandbox without a backend for its host fails with
/// `URLError(.cannotFindHost)` (URL loading can only carry `URLError`s; the in-process
/// ``Sandbox/transport`` reports it as `AuthError(.configuration)`); `stopLoading` (the
/// session task was cancelled) cancels the sandbox call. Responses are delivered with `.notAllowed` cache policy.
public final class SandboxURLProtocol: URLProtocol {
    /// The request header carrying the sandbox id.
    public static let sandboxHeader = "X-MultiAuth-Sandbox"

    private struct WeakSandbox: Sendable {
        weak var sandbox: Sandbox?
        init(_ sandbox: Sandbox) { self.sandbox = sandbox }
    }

    /// The process-wide routing tables, only touched inside `routing.withLock`.
    private struct Routing: Sendable {
        var registry: [String: WeakSandbox] = [:]
        var hostRoutes: [String: WeakSandbox] = [:]
    }

    private static let routing = Locked(Routing())

    /// Carries this (non-`Sendable`) protocol instance into its loading task; URL loading
    /// calls back from one task at a time.
    // @unchecked: holds the non-Sendable URLProtocol instance (a Foundation subclass) for its own loading task.
    private struct Reference: @unchecked Sendable {
        weak var value: SandboxURLProtocol?
    }

    /// This load's mutable fields, only touched inside `state.withLock`.
    private struct LoadState {
        var loading: Task<Void, Never>?
        /// Set by `stopLoading`: URL loading has cancelled this load (and may already have
        /// forgotten its task), so the answer must not be reported to the client any more.
        var stopped = false
    }

    private let state = Locked(LoadState())

    static func register(_ sandbox: Sandbox, id: String) {
        routing.withLock { $0.registry[id] = WeakSandbox(sandbox) }
    }

    static func unregister(id: String) {
        // The live sandboxes are kept until after the lock: if the check held the last strong
        // reference to one, its `deinit` (which unregisters, taking this lock) would run inside
        // the lock and deadlock.
        var alive: [Sandbox] = []
        routing.withLock { routing in
            routing.registry[id] = nil
            routing.hostRoutes = routing.hostRoutes.filter { route in
                guard let sandbox = route.value.sandbox else { return false }
                alive.append(sandbox)
                return true
            }
        }
        withExtendedLifetime(alive) {}
    }

    static func route(hosts: [String], to sandbox: Sandbox) {
        routing.withLock { routing in
            for host in hosts { routing.hostRoutes[host.lowercased()] = WeakSandbox(sandbox) }
        }
    }

    static func sandbox(for request: URLRequest) -> Sandbox? {
        routing.withLock { routing in
            if let id = request.value(forHTTPHeaderField: sandboxHeader) { return routing.registry[id]?.sandbox }
            return request.url?.host.flatMap { routing.hostRoutes[$0.lowercased()]?.sandbox }
        }
    }

    /// Claims every request: a session configured with this class never touches the network.
    public override class func canInit(with request: URLRequest) -> Bool { true }

    /// Returns `request` unchanged.
    public override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    /// Serves the request from its sandbox on a task owned by this protocol instance.
    public override func startLoading() {
        let request = self.request
        guard let sandbox = Self.sandbox(for: request), let url = request.url else {
            client?.urlProtocol(self, didFailWithError: URLError(.cannotFindHost))
            return
        }
        var headers: [String: String] = [:]
        for (name, value) in request.allHTTPHeaderFields ?? [:]
        where name.caseInsensitiveCompare(Self.sandboxHeader) != .orderedSame {
            headers[name] = value
        }
        let body = request.httpBody ?? request.httpBodyStream.map(Self.read)
        let httpRequest = HTTPRequest(
            method: HTTPMethod(rawValue: request.httpMethod ?? "GET"), url: url, headers: headers, body: body)
        // Owned by this protocol instance (`loading`); ends when the sandbox answers, or early
        // when `stopLoading` cancels it.
        let reference = Reference(value: self)
        let task = Task {
            let result: Result<HTTPResponse, any Error>
            do { result = .success(try await sandbox.serve(httpRequest)) } catch { result = .failure(error) }
            reference.value?.complete(with: result, url: url)
        }
        state.withLock { $0.loading = task }
    }

    /// Cancels the sandbox call in flight.
    public override func stopLoading() {
        let task = state.withLock { state in
            let task = state.loading
            state.loading = nil
            state.stopped = true
            return task
        }
        task?.cancel()
    }

    private func complete(with result: Result<HTTPResponse, any Error>, url: URL) {
        // A cancelled load reports nothing: swift-corelibs-foundation stops on a report for a task
        // it already removed.
        guard !state.withLock({ $0.stopped }) else { return }
        switch result {
        case .success(let response):
            guard
                let http = HTTPURLResponse(
                    url: url, statusCode: response.status, httpVersion: "HTTP/1.1", headerFields: response.headers)
            else {
                client?.urlProtocol(self, didFailWithError: URLError(.badServerResponse))
                return
            }
            client?.urlProtocol(self, didReceive: http, cacheStoragePolicy: .notAllowed)
            if !response.body.isEmpty { client?.urlProtocol(self, didLoad: response.body) }
            client?.urlProtocolDidFinishLoading(self)
        case .failure(let error as AuthError) where error.code == .network:
            client?.urlProtocol(self, didFailWithError: URLError(.networkConnectionLost))
        case .failure(let error as AuthError) where error.code == .configuration:
            client?.urlProtocol(self, didFailWithError: URLError(.cannotFindHost))
        case .failure:
            client?.urlProtocol(self, didFailWithError: URLError(.cancelled))
        }
    }

    private static func read(_ stream: InputStream) -> Data {
        var data = Data()
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }
}
