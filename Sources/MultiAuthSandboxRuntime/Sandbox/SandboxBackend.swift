import MultiAuth

/// An emulated provider backend hosted by a ``Sandbox`` under a host name.
///
/// ## Writing a backend
/// 1. Route on `request.method` and `request.url.path`; decode the JSON body with
///    `request.decodeJSON(_:)` (a body that does not decode is the client's fault: answer
///    `400`, do not throw).
/// 2. Read time only from `context.time` (the sandbox clock with the server clock offset of the
///    fault plan applied) and draw codes and tokens from `context.random` so a run is
///    reproducible under the sandbox's seed.
/// 3. "Send" codes and links with ``SandboxContext/deliver(code:link:to:channel:)``; it lands
///    in the ``Inbox`` and tells you whether the channel failed (fall back or answer an error).
/// 4. Answer with `HTTPResponse.json(_:_:)`; every status is a response. Throw
///    `AuthError(.network)` only to emulate a dropped connection.
///
/// ```swift
/// struct PingBackend: SandboxBackend {
///     func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse {
///         try .json(200, ["serverTime": context.time.now.timeIntervalSince1970.description])
///     }
/// }
/// sandbox.register(PingBackend(), host: "ping.sandbox.test")
/// ```
///
/// Concurrency: called from many tasks at once; keep state behind a lock or an actor.
public protocol SandboxBackend: Sendable {
    /// Handles one request that passed the fault plan.
    /// - Returns: The response (any status).
    /// - Throws: `AuthError(.network)` to drop the connection, `CancellationError`; any other
    ///   error becomes a `500` response.
    func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse
}
