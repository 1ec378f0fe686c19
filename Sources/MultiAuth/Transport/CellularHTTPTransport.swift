import Foundation

/// A transport that can also send a request on the **cellular bearer only**: the capability
/// silent network auth (SNA) needs, where the mobile operator recognises the subscriber by the
/// data connection the request arrives on.
///
/// A refinement of ``HTTPTransport``: ``HTTPTransport/send(_:)`` stays the ordinary path for
/// every other request. A provider asks for SNA only when `context.transport` conforms and
/// ``isCellularAvailable`` is `true` (see Docs/Providers/OTPless.md, "Silent network auth");
/// a transport that does not conform means "no SNA", and the provider starts with a code at
/// once.
///
/// Requirements for conformers:
/// - ``sendOverCellular(_:)`` must never fall back to Wi-Fi, wired or loopback interfaces,
///   and must not go through a proxy: a carrier check that arrives any other way fails.
/// - Redirects (301, 302, 303, 307, 308) are followed by the transport, each hop on the
///   cellular bearer, up to a limit it documents; the final response is returned.
/// - `GET` must be supported; a conformer may refuse other methods with
///   `AuthError(.unsupported)` before any network activity.
/// - Errors as for ``HTTPTransport``: every HTTP status is a response; `AuthError(.network)`
///   when no response arrived (no cellular path, connect timeout, dropped connection);
///   `CancellationError` when the calling task is cancelled.
/// - A wrapper around a cellular transport (logging, metrics) should conform too and forward
///   both requirements, or the providers behind it will not offer SNA.
///
/// `MultiAuthHTTP` provides the Apple implementation (`CellularTransport`, Network
/// framework); on Linux no cellular transport exists and SNA is reported as unavailable. The
/// sandbox offers an in-process one so SNA flows stay testable.
///
/// Concurrency: conformers are `Sendable` and called from many tasks at once.
public protocol CellularHTTPTransport: HTTPTransport {
    /// Whether a cellular data path is usable right now (a SIM with mobile data on and a
    /// satisfied cellular path). Read before a provider decides to ask for SNA; cheap and
    /// non-blocking.
    var isCellularAvailable: Bool { get }

    /// Sends `request` over the cellular bearer only, following redirects on it.
    /// - Returns: The final response (any status).
    /// - Throws: `AuthError` `.network` (no cellular path, connect timeout, connection lost),
    ///   `.unsupported` (a method the transport cannot send this way), or `CancellationError`.
    func sendOverCellular(_ request: HTTPRequest) async throws -> HTTPResponse
}
