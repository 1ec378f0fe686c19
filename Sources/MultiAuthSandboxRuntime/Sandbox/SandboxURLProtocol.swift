import Foundation
import MultiAuth

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

    private final class WeakSandbox: @unchecked Sendable {
        weak var sandbox: Sandbox?
        init(_ sandbox: Sandbox) { self.sandbox = sandbox }
    }

    private static let registryLock = NSLock()
    nonisolated(unsafe) private static var registry: [String: WeakSandbox] = [:]
    nonisolated(unsafe) private static var hostRoutes: [String: WeakSandbox] = [:]

    /// Carries this (non-`Sendable`) protocol instance into its loading task; URL loading
    /// calls back from one task at a time.
    private struct Reference: @unchecked Sendable {
        weak var value: SandboxURLProtocol?
    }

    private let stateLock = NSLock()
    private var loading: Task<Void, Never>?
    /// Set by `stopLoading`: URL loading has cancelled this load (and may already have forgotten
    /// its task), so the answer must not be reported to the client any more.
    private var stopped = false

    static func register(_ sandbox: Sandbox, id: String) {
        registryLock.lock()
        defer { registryLock.unlock() }
        registry[id] = WeakSandbox(sandbox)
    }

    static func unregister(id: String) {
        registryLock.lock()
        defer { registryLock.unlock() }
        registry[id] = nil
        hostRoutes = hostRoutes.filter { $0.value.sandbox != nil }
    }

    static func route(hosts: [String], to sandbox: Sandbox) {
        registryLock.lock()
        defer { registryLock.unlock() }
        for host in hosts { hostRoutes[host.lowercased()] = WeakSandbox(sandbox) }
    }

    static func sandbox(for request: URLRequest) -> Sandbox? {
        registryLock.lock()
        defer { registryLock.unlock() }
        if let id = request.value(forHTTPHeaderField: sandboxHeader) { return registry[id]?.sandbox }
        return request.url?.host.flatMap { hostRoutes[$0.lowercased()]?.sandbox }
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
        stateLock.lock()
        loading = task
        stateLock.unlock()
    }

    /// Cancels the sandbox call in flight.
    public override func stopLoading() {
        stateLock.lock()
        let task = loading
        loading = nil
        stopped = true
        stateLock.unlock()
        task?.cancel()
    }

    private func complete(with result: Result<HTTPResponse, any Error>, url: URL) {
        // A cancelled load reports nothing: swift-corelibs-foundation stops on a report for a task
        // it already removed.
        guard !stateLock.withLock({ stopped }) else { return }
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
