#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a ``SandboxServer`` could not start.
public enum SandboxServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another socket listens on `host`:`port` already (`EADDRINUSE`).
    case addressInUse(host: String, port: UInt16)
    /// `host` is not an IPv4 or IPv6 address literal of this machine.
    case invalidAddress(String)
    /// The system refused the port (`EACCES`: a port below 1024 without privileges).
    case permissionDenied(host: String, port: UInt16)
    /// The server was started twice, or after it stopped.
    case alreadyStarted
    /// A system call failed with `errno`.
    case system(String, Int32)

    /// One sentence that says what to do.
    public var description: String {
        switch self {
        case .addressInUse(let host, let port):
            "\(Self.render(host)):\(port) is already in use by another process; choose another port with --port, or --port 0 for a free one"
        case .invalidAddress(let host):
            "'\(host)' is not an IP address of this machine; use 127.0.0.1 (the default), ::1, or an interface's address"
        case .permissionDenied(let host, let port):
            "\(Self.render(host)):\(port) needs privileges this process lacks; choose a port from 1024 up"
        case .alreadyStarted:
            "the server was already started"
        case .system(let call, let code):
            "\(call) failed: \(String(cString: strerror(code)))"
        }
    }

    private static func render(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}
