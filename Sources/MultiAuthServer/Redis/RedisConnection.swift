import Foundation
import MultiAuthCrypto

/// One authenticated connection: sends commands (several at once when a caller pipelines) and
/// reads exactly one reply per command. Used by one caller at a time (the pool leases it), which
/// is why it may cross to the I/O queue (Sendable without the compiler's check).
// @unchecked: the read buffer and the socket are used by the one caller that leases the
// connection from the pool; the lease, not a lock, keeps them unshared.
final class RedisConnection: @unchecked Sendable {
    private let socket: RedisSocket
    private let limits: RESPLimits
    private var buffer: [UInt8] = []

    private init(socket: RedisSocket, limits: RESPLimits) {
        self.socket = socket
        self.limits = limits
    }

    /// Connects, then `AUTH` and `SELECT` as configured.
    ///
    /// - Throws: ``StoreUnavailableError`` (`unreachable`, `timedOut`, `authenticationFailed`, …).
    static func open(_ configuration: RedisConfiguration, limits: RESPLimits) throws -> RedisConnection {
        let socket = try RedisSocket.connect(
            host: configuration.host, port: configuration.port, timeout: configuration.connectTimeout)
        let connection = RedisConnection(socket: socket, limits: limits)
        var setup: [[[UInt8]]] = []
        if let password = configuration.password {
            let user = configuration.username.map { [Array($0.utf8)] } ?? []
            setup.append([Array("AUTH".utf8)] + user + [Array(password.reveal().utf8)])
        }
        if configuration.database != 0 {
            setup.append([Array("SELECT".utf8), Array(String(configuration.database).utf8)])
        }
        if !setup.isEmpty {
            let replies = try connection.roundTrip(setup, timeout: configuration.connectTimeout)
            for reply in replies where reply != .simpleString("OK") {
                socket.close()
                throw StoreUnavailableError(
                    .authenticationFailed,
                    "Redis at \(socket.endpoint) refused AUTH or SELECT (\(reply.errorWord ?? "unexpected reply"))")
            }
        }
        return connection
    }

    /// Sends `commands` in one write and reads one reply per command.
    ///
    /// - Throws: ``StoreUnavailableError``; after any error the connection must be discarded
    ///   (its stream position is unknown).
    func roundTrip(_ commands: [[[UInt8]]], timeout: Duration) throws -> [RESPValue] {
        let deadline = RedisSocket.deadline(after: timeout)
        try write(commands, deadline: deadline)
        return try readReplies(commands.count, deadline: deadline)
    }

    /// Writes `commands` as one buffer (a pipeline when there are several).
    ///
    /// - Throws: ``StoreUnavailableError``.
    func write(_ commands: [[[UInt8]]], deadline: UInt64) throws {
        var out: [UInt8] = []
        for command in commands { RESPParser.encode(command, into: &out) }
        try socket.write(out, deadline: deadline)
    }

    /// Reads exactly `count` replies, refusing any byte beyond them.
    ///
    /// - Throws: ``StoreUnavailableError``.
    func readReplies(_ count: Int, deadline: UInt64) throws -> [RESPValue] {
        var replies: [RESPValue] = []
        replies.reserveCapacity(count)
        while replies.count < count {
            if let (value, consumed) = try RESPParser.parse(buffer[...], limits: limits) {
                replies.append(value)
                buffer.removeFirst(consumed)
                continue
            }
            try socket.read(into: &buffer, maximum: limits.maximumReplyBytes + 64, deadline: deadline)
        }
        // A reply nobody asked for means the stream is out of step: never reuse it.
        guard buffer.isEmpty else {
            throw StoreUnavailableError(.malformedReply, "Redis sent bytes beyond the replies asked for")
        }
        return replies
    }

    /// Whether the connection can be reused (open, nothing unread).
    var isReusable: Bool { buffer.isEmpty && socket.isIdleAndOpen }

    func close() { socket.close() }
}
