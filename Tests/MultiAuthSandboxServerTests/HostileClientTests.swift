import Foundation
import MultiAuth
import MultiAuthSandboxServer
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hostile clients leave the server answering others. Nothing here measures time: each test
/// holds the hostile connections open (or lets the server refuse them) and then requires an
/// ordinary request to be answered; the time limit is a hang guard.
@Suite(.timeLimit(.minutes(10)))
struct HostileClientTests {
    /// An ordinary request on a new connection, answered.
    func ordinaryRequestIsAnswered(_ running: RunningServer) async throws {
        let (status, json) = try await running.control(.get, "clock")
        #expect(status == 200)
        #expect(json["mode"]?.stringValue == "manual")
    }

    var port: (RunningServer) -> UInt16 { { UInt16($0.url.port ?? 0) } }

    /// Slowloris: connections that send part of a header section and then nothing keep no one
    /// else waiting; once the header deadline passes the server answers them 408 and closes.
    @Test func slowlorisConnectionsDoNotBlockOthersAndAreClosedAt408() async throws {
        var limits = ServerLimits()
        limits.headerTimeout = .milliseconds(300)
        let running = try RunningServer(limits: limits)
        defer { running.server.stopAndWait() }
        let slow = try (0..<50).map { _ in try RawClient(port: port(running)) }
        for client in slow { client.send("GET /_multiauth/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ") }
        try await ordinaryRequestIsAnswered(running)
        let answers = try await onThread { slow.map { String(decoding: $0.readToEnd(), as: UTF8.self) } }
        #expect(answers.allSatisfy { $0.hasPrefix("HTTP/1.1 408 ") }, "\(answers.first ?? "")")
        try await ordinaryRequestIsAnswered(running)
    }

    /// A 10 MB header section is refused with 431 after the first 64 KiB; the connection is
    /// closed and the server keeps answering.
    @Test func aTenMegabyteHeaderIsRefusedWith431() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        let answer = try await onThread {
            let client = try RawClient(port: port(running))
            var bytes = Array("GET /_multiauth/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Huge: ".utf8)
            bytes += [UInt8](repeating: UInt8(ascii: "a"), count: 10 * 1024 * 1024)
            bytes += Array("\r\n\r\n".utf8)
            let sent = client.send(bytes)
            return (sent, String(decoding: client.readToEnd(), as: UTF8.self))
        }
        #expect(answer.1.hasPrefix("HTTP/1.1 431 "), "\(answer.1.prefix(200))")
        #expect(answer.0 < 10 * 1024 * 1024, "the server read the whole 10 MB instead of refusing early")
        try await ordinaryRequestIsAnswered(running)
    }

    /// 1,000 connections open at once, each with a request in flight: every one is answered,
    /// and so is an ordinary request made while they are all open.
    @Test func aThousandConnectionsAtOnceAreAllAnswered() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        let clients = try (0..<1000).map { _ in try RawClient(port: port(running)) }
        for client in clients { client.send("GET /_multiauth/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") }
        try await ordinaryRequestIsAnswered(running)
        let statuses = try await onThread { clients.map { $0.readResponse()?.status ?? 0 } }
        #expect(statuses.filter { $0 == 200 }.count == 1000)
        #expect(running.server.openConnections >= 1000)
    }

    /// Garbage bytes (seeded, never a valid request line) get 400 and a closed connection.
    @Test func garbageBytesGet400() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        var generator = SplitMix64(seed: 27)
        for round in 0..<20 {
            let garbage = (0..<(1000 + round * 500)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let answer = try await onThread {
                let client = try RawClient(port: port(running))
                client.send(garbage + Array("\r\n\r\n".utf8))
                return String(decoding: client.readToEnd(), as: UTF8.self)
            }
            #expect(
                answer.hasPrefix("HTTP/1.1 400 ") || answer.hasPrefix("HTTP/1.1 414 "),
                "round \(round): \(answer.prefix(80))")
        }
        for line in [
            "GET / HTTP/9.9", "GET\t/ HTTP/1.1", "GET / HTTP/1.1\nHost: x",
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked",
        ] {
            let answer = try await onThread {
                let client = try RawClient(port: port(running))
                client.send(line + "\r\n\r\n")
                return String(decoding: client.readToEnd(), as: UTF8.self)
            }
            #expect(
                answer.hasPrefix("HTTP/1.1 400 ") || answer.hasPrefix("HTTP/1.1 505 "), "\(line): \(answer.prefix(80))")
        }
        try await ordinaryRequestIsAnswered(running)
    }
}
