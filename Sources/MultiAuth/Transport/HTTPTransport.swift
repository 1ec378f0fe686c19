import Foundation

/// Sends one HTTP request and returns the response: the only way a provider reaches the
/// network.
///
/// `URLSessionTransport` (module `MultiAuthHTTP`) is the real one; `MultiAuthSandbox`
/// provides an in-process transport that serves emulated provider backends.
///
/// Requirements for conformers:
/// - Return every HTTP status (4xx, 5xx included) as an ``HTTPResponse``; throw only when no
///   response arrived.
/// - Throw `AuthError` `.network` (connection dropped, timeout, DNS) or `CancellationError`.
/// - Never retry a POST on your own: a resent OTP request is a user-visible side effect.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and waits for the whole response body.
    /// - Throws: `AuthError` `.network`, or `CancellationError`.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
