import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the POSIX socket calls the server makes (socket, bind, listen, accept,
/// recv, send, poll), with `errno` turned into ``SandboxServerError``.
enum Socket {
    #if canImport(Darwin)
    static let streamType = SOCK_STREAM
    static let sendFlags: Int32 = 0
    #else
    static let streamType = Int32(SOCK_STREAM.rawValue)
    static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    /// A listening, non-blocking TCP socket on `host` (an IPv4 or IPv6 literal) and `port`
    /// (`0`: the kernel picks a free one).
    /// - Returns: The descriptor and the port it listens on.
    /// - Throws: ``SandboxServerError`` `.addressInUse`, `.invalidAddress` or `.system`.
    static func listen(host: String, port: UInt16, backlog: Int32 = 1024) throws -> (descriptor: Int32, port: UInt16) {
        var v4 = in_addr()
        var v6 = in6_addr()
        let family: Int32
        if inet_pton(AF_INET, host, &v4) == 1 {
            family = AF_INET
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            family = AF_INET6
        } else {
            throw SandboxServerError.invalidAddress(host)
        }
        let descriptor = socket(family, streamType, 0)
        guard descriptor >= 0 else { throw SandboxServerError.system("socket", errno) }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        let bound: Int32
        if family == AF_INET {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr = v4
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = v6
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            if code == EADDRINUSE { throw SandboxServerError.addressInUse(host: host, port: port) }
            if code == EADDRNOTAVAIL { throw SandboxServerError.invalidAddress(host) }
            if code == EACCES { throw SandboxServerError.permissionDenied(host: host, port: port) }
            throw SandboxServerError.system("bind", code)
        }
        guard systemListen(descriptor, backlog) == 0 else {
            let code = errno
            close(descriptor)
            if code == EADDRINUSE { throw SandboxServerError.addressInUse(host: host, port: port) }
            throw SandboxServerError.system("listen", code)
        }
        try setNonBlocking(descriptor)
        return (descriptor, try localPort(of: descriptor, family: family))
    }

    private static func localPort(of descriptor: Int32, family: Int32) throws -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0 else { throw SandboxServerError.system("getsockname", errno) }
        if family == AF_INET {
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
        }
    }

    static func setNonBlocking(_ descriptor: Int32) throws {
        let flags = fcntl(descriptor, F_GETFL, 0)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw SandboxServerError.system("fcntl", errno)
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }

    /// Accepts one connection, non-blocking; `nil` when none is waiting (or it vanished).
    static func accept(_ listener: Int32) -> Int32? {
        while true {
            let descriptor = systemAccept(listener, nil, nil)
            if descriptor >= 0 {
                do { try setNonBlocking(descriptor) } catch {
                    close(descriptor)
                    return nil
                }
                var one: Int32 = 1
                setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                #if canImport(Darwin)
                setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
                #endif
                return descriptor
            }
            if errno == EINTR || errno == ECONNABORTED { continue }
            return nil
        }
    }

    /// The outcome of a non-blocking read or write.
    enum Transfer {
        case bytes(Int)
        case wouldBlock
        case closed
    }

    static func receive(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Transfer {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .closed
        }
    }

    static func send(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Transfer {
        while true {
            let count = systemSend(descriptor, bytes.baseAddress, bytes.count, sendFlags)
            if count >= 0 { return .bytes(count) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .closed
        }
    }

    /// Raises this process's soft open-file limit towards `wanted` (never above the hard limit).
    static func raiseOpenFileLimit(to wanted: Int) {
        var limit = rlimit()
        #if canImport(Darwin)
        let resource = RLIMIT_NOFILE
        #else
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #endif
        guard getrlimit(resource, &limit) == 0 else { return }
        let target = min(rlim_t(max(0, wanted)), limit.rlim_max)
        if limit.rlim_cur < target {
            limit.rlim_cur = target
            _ = setrlimit(resource, &limit)
        }
    }
}

// The C functions whose names the Swift wrappers above shadow.
#if canImport(Darwin)
private let systemListen = Darwin.listen
private let systemAccept = Darwin.accept
private let systemSend = Darwin.send
#elseif canImport(Musl)
private let systemListen = Musl.listen
private let systemAccept = Musl.accept
private let systemSend = Musl.send
#else
private let systemListen = Glibc.listen
private let systemAccept = Glibc.accept
private let systemSend = Glibc.send
#endif
