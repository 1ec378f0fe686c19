import Foundation
import MultiAuth
import MultiAuthLocking

/// An in-process ``/MultiAuth/CellularHTTPTransport`` for a ``Sandbox``, so silent network auth
/// (SNA) flows stay testable where no cellular interface exists.
///
/// ``send(_:)`` serves requests exactly like ``SandboxTransport``. ``sendOverCellular(_:)``
/// marks the request with ``bearerHeader`` `: cellular` before the sandbox serves it (a
/// backend that emulates a carrier answers only requests so marked, as a real operator only
/// recognises its own bearer) and follows redirects by hand (301, 302, 303, 307, 308, at most
/// ``maximumRedirects``), like the Apple `CellularTransport`. ``isCellularAvailable`` is a
/// switch a test flips to emulate a device without mobile data.
///
/// Errors: `AuthError(.network)` (dropped connection, unknown host, too many redirects, or
/// ``isCellularAvailable`` off), `AuthError(.unsupported)` for a method other than `GET`,
/// `CancellationError`.
///
/// Concurrency: a `Sendable` value; copies share the availability switch (lock-guarded).
public struct SandboxCellularTransport: CellularHTTPTransport {
    /// The header the sandbox adds to requests that travelled "on the cellular bearer".
    public static let bearerHeader = "X-MultiAuth-Sandbox-Bearer"
    /// The most redirects followed.
    public static let maximumRedirects = 10

    /// The sandbox requests go to.
    public let sandbox: Sandbox
    private let availability: Availability

    /// Creates a transport for `sandbox` with cellular data available.
    public init(sandbox: Sandbox) {
        self.sandbox = sandbox
        self.availability = Availability()
    }

    /// Serves `request` through the sandbox (not marked as cellular).
    /// - Throws: `AuthError` `.network`, or `CancellationError`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var plain = request
        plain.headers = plain.headers.filter { $0.key.caseInsensitiveCompare(Self.bearerHeader) != .orderedSame }
        return try await sandbox.serve(plain)
    }

    /// Whether the emulated device has a cellular data path (default `true`).
    public var isCellularAvailable: Bool {
        get { availability.value }
        nonmutating set { availability.value = newValue }
    }

    /// Serves a `GET` marked as cellular, following redirects.
    /// - Throws: `AuthError` `.network` (no cellular path, dropped, unknown host, too many
    ///   redirects), `.unsupported` (not `GET`), or `CancellationError`.
    public func sendOverCellular(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard request.method == .get else {
            throw AuthError(.unsupported, "the cellular transport sends GET requests only")
        }
        guard isCellularAvailable else { throw AuthError(.network, "no cellular path (sandbox)") }
        var hop = request
        for _ in 0...Self.maximumRedirects {
            hop.headers[Self.bearerHeader] = "cellular"
            let response = try await sandbox.serve(hop)
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.header("Location"),
                let next = URL(string: location, relativeTo: hop.url)?.absoluteURL
            else { return response }
            hop = HTTPRequest(method: .get, url: next, headers: request.headers, timeout: request.timeout)
        }
        throw AuthError(.network, "the cellular request was redirected too often (sandbox)")
    }

    private final class Availability: Sendable {
        private let available = Locked(true)
        var value: Bool {
            get { available.withLock { $0 } }
            set { available.withLock { $0 = newValue } }
        }
    }
}

extension Sandbox {
    /// A ``SandboxCellularTransport`` for this sandbox (cellular data available); use it as the
    /// client's transport to exercise silent network auth.
    public var cellularTransport: SandboxCellularTransport { SandboxCellularTransport(sandbox: self) }

    /// Whether `request` reached the sandbox through ``SandboxCellularTransport/sendOverCellular(_:)``.
    public static func arrivedOverCellular(_ request: HTTPRequest) -> Bool {
        request.header(SandboxCellularTransport.bearerHeader) == "cellular"
    }
}
