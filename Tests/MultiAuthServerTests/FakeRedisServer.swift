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
    private let finished = DispatchSemaphore(value: 0)

    init(_ scripts: [Script]) throws {
        self.scripts = scripts
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
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

    /// Accepts until `stop()` shuts the listener down, then closes it here, on this thread:
    /// the descriptor stays open (and its number taken) until nothing can use it any more, so a
    /// concurrent test can never be handed the same number and see it closed under it.
    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { break }  // shut down by stop()
            let script: Script? = lock.withLock {
                guard !stopped else { return nil }
                accepted += 1
                return scripts.count > 1 ? scripts.removeFirst() : scripts.first
            }
            guard let script else {
                _ = close(connection)
                break
            }
            var buffer = [UInt8](repeating: 0, count: 4096)
            for reply in script.replies {
                let received = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress!, $0.count, 0) }
                guard received > 0 else { break }
                #if canImport(Glibc)
                _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                #else
                _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
                #endif
            }
            if script.close {
                // Read whatever else arrived first: closing with unread bytes would send a reset,
                // and the client could lose the reply it was sent.
                while buffer.withUnsafeMutableBytes({ recv(connection, $0.baseAddress!, $0.count, Int32(MSG_DONTWAIT)) }
                )
                    > 0
                {}
                _ = close(connection)
            } else {
                let keep = lock.withLock {
                    if !stopped { held.append(connection) }
                    return !stopped
                }
                if !keep { _ = close(connection) }
            }
        }
        _ = close(listener)
        finished.signal()
    }

    /// Closes the held connections, shuts the listener down and returns once the accepting
    /// thread has closed it (so the port refuses connections); once.
    func stop() {
        let connections: [Int32]? = lock.withLock {
            guard !stopped else { return nil }
            stopped = true
            defer { held = [] }
            return held
        }
        guard let connections else { return }
        for connection in connections { _ = close(connection) }
        #if canImport(Glibc)
        shutdown(listener, Int32(SHUT_RDWR))
        #else
        shutdown(listener, SHUT_RDWR)
        #endif
        // The accepting thread leaves at once (its accept fails); the bound only matters if it
        // were stuck reading a client that never writes, which no test does.
        _ = finished.wait(timeout: .now() + .seconds(30))
    }

    /// A loopback port with nothing listening (bound, then closed).
    static func closedPort() throws -> Int {
        let server = try FakeRedisServer(reply: "")
        let port = server.port
        server.stop()
        return port
    }
}
