import MultiAuth

/// The in-process ``/MultiAuth/HTTPTransport`` of a ``Sandbox``: hands each request (bytes) to
/// the sandbox and returns its response (bytes). No sockets, no threads of its own.
///
/// Errors: `AuthError(.network)` for a dropped connection, `AuthError(.configuration)` for a
/// host no backend is registered under (the message names it and the registered hosts),
/// `CancellationError` when the calling task is cancelled (also while a latency fault is
/// sleeping on the sandbox clock). Never retries.
public struct SandboxTransport: HTTPTransport {
    /// The sandbox requests go to.
    public let sandbox: Sandbox

    /// Creates a transport for `sandbox` (or use ``Sandbox/transport``).
    public init(sandbox: Sandbox) { self.sandbox = sandbox }

    /// Sends `request` through the sandbox.
    /// - Throws: `AuthError` `.network`, `.configuration` (unknown host), or `CancellationError`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await sandbox.serve(request)
    }
}
