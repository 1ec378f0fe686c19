import Foundation
import MultiAuth

/// Where a ``RedisClient`` connects and how long it waits (Docs/Server.md, "Redis").
///
/// The password is a `Secret` (module `MultiAuth`), so it is never printed: every rendering shows it as
/// `<redacted>` (Docs/Security.md, "Redaction").
public struct RedisConfiguration: Sendable {
    /// The server's host name or IP address (IPv6 without brackets).
    public var host: String
    /// The TCP port, 1...65535; 6379 by default.
    public var port: Int
    /// The ACL user for `AUTH username password` (Redis 6+), or `nil` for `AUTH password`.
    public var username: String?
    /// The password for `AUTH`, or `nil` to send no `AUTH`.
    public var password: Secret?
    /// The logical database for `SELECT`, 0 by default.
    public var database: Int
    /// How long one connection attempt (TCP connect, `AUTH`, `SELECT`) may take; 1 s by default.
    public var connectTimeout: Duration
    /// How long one command round trip may take; 1 s by default. A verification waits at most
    /// this long for a stalled server, then fails closed.
    public var commandTimeout: Duration
    /// The most connections open at once, 1 or more; 8 by default.
    public var poolSize: Int
    /// The most callers waiting for a connection while all are busy; more are refused at once
    /// (`overloaded`). 1,024 by default.
    public var maximumWaiters: Int
    /// The first pause after a failed connection attempt; doubled after each further failure.
    /// 50 ms by default. During it calls fail fast with `unreachable` instead of connecting.
    public var reconnectBackoff: Duration
    /// The longest pause between connection attempts; 2 s by default.
    public var maximumReconnectBackoff: Duration

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - host: the server's host name or address.
    ///   - port: the TCP port; 6379 by default.
    ///   - username: the ACL user, or `nil`.
    ///   - password: the `AUTH` password, or `nil`.
    ///   - database: the `SELECT` database; 0 by default.
    public init(host: String, port: Int = 6379, username: String? = nil, password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password.map { Secret($0) }
        self.database = database
        self.connectTimeout = .seconds(1)
        self.commandTimeout = .seconds(1)
        self.poolSize = 8
        self.maximumWaiters = 1024
        self.reconnectBackoff = .milliseconds(50)
        self.maximumReconnectBackoff = .seconds(2)
    }

    /// Reads a `redis://[[username]:password@]host[:port][/database]` URL (the form of the
    /// `MULTIAUTH_REDIS_URL` variable, Docs/Testing.md); user and password may be
    /// percent-encoded, an IPv6 host is written in brackets. A user part without a colon is the
    /// password (`redis://secret@host`, as `AUTH secret`); `redis://user:secret@host` is an ACL
    /// user and its password.
    ///
    /// - Throws: `AuthError` `.configuration` for another scheme (`rediss://`: TLS is not
    ///   supported, Docs/Server.md), no host, a port outside 1...65535 or a database outside
    ///   0...9999.
    public init(url text: String) throws {
        guard let components = URLComponents(string: text), components.scheme?.lowercased() == "redis" else {
            throw AuthError(.configuration, "a Redis URL must start with redis:// (TLS, rediss://, is not supported)")
        }
        var host = components.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw AuthError(.configuration, "the Redis URL has no host") }
        let port = components.port ?? 6379
        guard (1...65535).contains(port) else { throw AuthError(.configuration, "the Redis port is out of range") }
        var database = 0
        let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if !path.isEmpty {
            guard path.count <= 4, path.allSatisfy(\.isASCII), let number = Int(path), (0...9999).contains(number)
            else {
                throw AuthError(.configuration, "the Redis URL's database is not a number in 0...9999")
            }
            database = number
        }
        let user = components.user.flatMap { $0.isEmpty ? nil : $0 }
        let password = components.password
        self.init(
            host: host, port: port, username: password == nil ? nil : user, password: password ?? user,
            database: database)
    }
}
