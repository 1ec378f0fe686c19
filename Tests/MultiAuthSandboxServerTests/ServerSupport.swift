import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthHTTP
import MultiAuthSandboxKit
import MultiAuthSandboxServer
import MultiAuthTestKeys

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An in-process server on a free loopback port, signing with committed test key A, and a
/// URLSession transport to reach it.
struct RunningServer: Sendable {
    let server: SandboxServer
    let url: URL
    let transport = URLSessionTransport(defaultTimeout: .seconds(120))

    init(limits: ServerLimits = ServerLimits(), seed: UInt64 = 0) throws {
        server = try SandboxServer(
            configuration: .init(
                settings: .init(seed: seed), signingKey: TestKeys.rsaA, limits: limits,
                sessionIssuer: EmulatorSessions.issue))
        url = try server.start()
    }

    /// A control-API call; the JSON answer as `JSONValue` (`.null` for an empty body).
    @discardableResult
    func control(_ method: HTTPMethod, _ path: String, _ body: JSONValue? = nil) async throws -> (Int, JSONValue) {
        let target = URL(string: url.absoluteString + "/_multiauth/" + path)!
        let request =
            try body.map { try HTTPRequest.json(method, target, body: $0) } ?? HTTPRequest(method: method, url: target)
        let response = try await transport.send(request)
        let json = response.body.isEmpty ? JSONValue.null : try JSONValue(parsing: response.body, limits: .jwks)
        return (response.status, json)
    }
}

/// A blocking TCP client for the hostile-client tests (raw bytes, no HTTP library).
final class RawClient: @unchecked Sendable {
    let descriptor: Int32

    init(port: UInt16) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawError("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            close(descriptor)
            throw RawError("connect: \(errno)")
        }
    }

    deinit { close(descriptor) }

    /// Sends every byte, or stops at the first failure (the server closed); returns the bytes sent.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Int {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count <= 0 { return sent }
            sent += count
        }
        return sent
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    /// Reads until the peer closes (or `limit` bytes).
    func readToEnd(limit: Int = 1 << 20) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while result.count < limit {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            result += buffer[0..<count]
        }
        return result
    }

    /// Reads one response (status line, headers, `Content-Length` body).
    func readResponse() -> (status: Int, body: String)? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = data.indices.dropLast(3).first(where: {
                data[$0] == 13 && data[$0 + 1] == 10 && data[$0 + 2] == 13 && data[$0 + 3] == 10
            }) {
                let head = String(decoding: data[..<end], as: UTF8.self)
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                while data.count < end + 4 + length {
                    let count = recv(descriptor, &buffer, buffer.count, 0)
                    if count <= 0 { return nil }
                    data += buffer[0..<count]
                }
                let status = Int(head.split(separator: " ")[1]) ?? 0
                return (status, String(decoding: data[(end + 4)..<(end + 4 + length)], as: UTF8.self))
            }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            data += buffer[0..<count]
        }
    }
}

struct RawError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs blocking work on a thread of its own (raw sockets block).
func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
