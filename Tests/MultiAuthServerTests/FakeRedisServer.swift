import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback TCP server that answers every connection with scripted bytes: a hostile or broken
/// "Redis" for the client's tests. Each accepted connection takes the next script (the last one
/// repeats): for each of its replies it reads at least one byte of a command and writes the
/// reply; then it closes the connection or holds it open until the server stops.
final class FakeRedisServer: @unchecked Sendable {
    struct Script: Sendable {
        var replies: [[UInt8]]
        var close = true

        init(reply: [UInt8], close: Bool = true) {
            self.replies = [reply]
            self.close = close
        }

        init(replies: [String], close: Bool = true) {
            self.replies = replies.map { Array($0.utf8) }
            self.close = close
        }
    }

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var scripts: [Script]
    private var held: [Int32] = []
    private var stopped = false
    private(set) var accepted = 0

    init(_ scripts: [Script]) throws {
        self.scripts = scripts
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in serve() }.start()
    }

    convenience init(reply: String, close: Bool = true) throws {
        try self.init([Script(reply: Array(reply.utf8), close: close)])
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }  // the listener was closed
            let script: Script? = lock.withLock {
                guard !stopped else { return nil }
                accepted += 1
                return scripts.count > 1 ? scripts.removeFirst() : scripts.first
            }
            guard let script else {
                _ = close(connection)
                return
            }
            var buffer = [UInt8](repeating: 0, count: 4096)
            for reply in script.replies {
                let received = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress!, $0.count, 0) }
                guard received > 0 else { break }
                _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            if script.close {
                _ = close(connection)
            } else {
                lock.withLock { held.append(connection) }
            }
        }
    }

    /// Closes the held connections and the listener; once (a descriptor is never closed twice).
    func stop() {
        let connections: [Int32]? = lock.withLock {
            guard !stopped else { return nil }
            stopped = true
            defer { held = [] }
            return held
        }
        guard let connections else { return }
        for connection in connections { _ = close(connection) }
        shutdown(listener, Int32(SHUT_RDWR))
        _ = close(listener)
    }

    /// A loopback port with nothing listening (bound, then closed).
    static func closedPort() throws -> Int {
        let server = try FakeRedisServer(reply: "")
        let port = server.port
        server.stop()
        return port
    }
}
