import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Sandbox {
    /// A `URLSessionConfiguration` (ephemeral) whose requests are served through
    /// ``SandboxURLProtocol``; the real network is never used. Routes every host registered
    /// so far to this sandbox (register backends first); see ``SandboxURLProtocol`` for the
    /// routing rules.
    public func urlSessionConfiguration() -> URLSessionConfiguration {
        SandboxURLProtocol.route(hosts: hosts, to: self)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [SandboxURLProtocol.self]
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// Headers that route a request to this sandbox whatever its host (``SandboxURLProtocol``
    /// reads them); add them to every request, e.g. as `URLSessionTransport(defaultHeaders:)`.
    public var urlProtocolHeaders: [String: String] { [SandboxURLProtocol.sandboxHeader: urlProtocolRegistration] }

    /// A `URLSession` built from ``urlSessionConfiguration()``, e.g. for
    /// `URLSessionTransport(session:)`.
    public func makeURLSession() -> URLSession {
        URLSession(configuration: urlSessionConfiguration())
    }
}
