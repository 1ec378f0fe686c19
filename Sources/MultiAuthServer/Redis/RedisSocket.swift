import Foundation
import MultiAuthCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP connection on a POSIX socket, non-blocking, with every wait a `poll(2)` bounded by a
/// deadline. Blocking calls: run it on a thread that may block (the client's dispatch queue),
/// never on the cooperative pool.
///
/// I/O deadlines are kernel waits measured on the monotonic clock; they bound how long a dead
/// server can hold a caller and are not the verifier's time (which comes from its
/// `TimeSource`).
final class RedisSocket {
    private var descriptor: Int32
    let endpoint: String

    private init(descriptor: Int32, endpoint: String) {
        self.descriptor = descriptor
        self.endpoint = endpoint
    }

    deinit { close() }

    /// Monotonic nanoseconds for deadlines.
    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    static func deadline(after duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + attoseconds / 1_000_000_000
        return monotonicNanoseconds() &+ UInt64(max(0, nanoseconds))
    }

    /// Connects to `host:port` within `timeout`, trying each resolved address in turn.
    ///
    /// - Throws: ``StoreUnavailableError`` (`unreachable`, `timedOut`).
    static func connect(host: String, port: Int, timeout: Duration) throws -> RedisSocket {
        let endpoint = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let deadline = deadline(after: timeout)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc) || canImport(Musl)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw StoreUnavailableError(.unreachable, "cannot resolve the Redis host of \(endpoint)")
        }
        defer { freeaddrinfo(first) }
        var lastError = "no address"
        var timedOut = false
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else {
                lastError = "socket: errno \(errno)"
                continue
            }
            let candidate = RedisSocket(descriptor: fd, endpoint: endpoint)
            do {
                try candidate.configure()
                try candidate.connect(info.pointee.ai_addr, info.pointee.ai_addrlen, deadline: deadline)
                return candidate
            } catch let error as StoreUnavailableError {
                lastError = error.message
                timedOut = error.cause == .timedOut
                candidate.close()
            }
        }
        throw StoreUnavailableError(timedOut ? .timedOut : .unreachable, "connect to \(endpoint): \(lastError)")
    }

    private func configure() throws {
        let flags = fcntl(descriptor, F_GETFL, 0)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw StoreUnavailableError(.unreachable, "fcntl: errno \(errno)")
        }
        var one: Int32 = 1
        // Commands are small and answered at once: no Nagle delay.
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        // A write to a closed connection must be an error, never SIGPIPE (Linux: MSG_NOSIGNAL).
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    private func connect(_ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t, deadline: UInt64) throws {
        if systemConnect(descriptor, address, length) == 0 { return }
        guard errno == EINPROGRESS else {
            throw StoreUnavailableError(.unreachable, errno == ECONNREFUSED ? "refused" : "errno \(errno)")
        }
        try wait(for: Int16(POLLOUT), deadline: deadline, what: "connect")
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size) == 0 else {
            throw StoreUnavailableError(.unreachable, "getsockopt: errno \(errno)")
        }
        guard error == 0 else {
            throw StoreUnavailableError(.unreachable, error == ECONNREFUSED ? "refused" : "errno \(error)")
        }
    }

    /// Waits until the socket is ready for `events` or the deadline passes.
    private func wait(for events: Int16, deadline: UInt64, what: String) throws {
        while true {
            let now = Self.monotonicNanoseconds()
            guard now < deadline else { throw StoreUnavailableError(.timedOut, "\(what) on \(endpoint) timed out") }
            let milliseconds = Int32(min(UInt64(Int32.max), (deadline - now + 999_999) / 1_000_000))
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR {
                throw StoreUnavailableError(.connectionLost, "poll on \(endpoint): errno \(errno)")
            }
        }
    }

    /// Writes every byte of `bytes` before `deadline`.
    ///
    /// - Throws: ``StoreUnavailableError`` (`connectionLost`, `timedOut`, `closed`).
    func write(_ bytes: [UInt8], deadline: UInt64) throws {
        guard descriptor >= 0 else { throw StoreUnavailableError(.closed, "the connection is closed") }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer -> Int in
                #if canImport(Glibc) || canImport(Musl)
                return send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                #else
                return send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, 0)
                #endif
            }
            if written > 0 {
                offset += written
            } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                try wait(for: Int16(POLLOUT), deadline: deadline, what: "write")
            } else {
                throw StoreUnavailableError(.connectionLost, "write to \(endpoint): errno \(errno)")
            }
        }
    }

    /// Appends what is available (waiting until `deadline` for at least one byte) to `buffer`,
    /// at most `maximum` bytes.
    ///
    /// - Throws: ``StoreUnavailableError`` (`connectionLost` at end of stream or on an error,
    ///   `timedOut`, `closed`).
    func read(into buffer: inout [UInt8], maximum: Int, deadline: UInt64) throws {
        guard descriptor >= 0 else { throw StoreUnavailableError(.closed, "the connection is closed") }
        var chunk = [UInt8](repeating: 0, count: max(1, min(maximum, 4 * 1024)))  // replies are small
        while true {
            let received = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, $0.count, 0) }
            if received > 0 {
                buffer.append(contentsOf: chunk[0..<received])
                return
            }
            if received == 0 { throw StoreUnavailableError(.connectionLost, "\(endpoint) closed the connection") }
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                throw StoreUnavailableError(.connectionLost, "read from \(endpoint): errno \(errno)")
            }
            try wait(for: Int16(POLLIN), deadline: deadline, what: "read")
        }
    }

    /// Whether an idle connection still looks usable: not closed by the peer, nothing unread
    /// (a pooled connection must never have bytes waiting).
    var isIdleAndOpen: Bool {
        guard descriptor >= 0 else { return false }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, 0)
        return ready == 0
    }

    func close() {
        guard descriptor >= 0 else { return }
        systemClose(descriptor)
        descriptor = -1
    }
}

// Free functions, so the names resolve to the C library's and not to the methods above.
private func systemConnect(_ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t)
    -> Int32
{
    connect(descriptor, address, length)
}

private func systemClose(_ descriptor: Int32) {
    _ = close(descriptor)
}
