import Foundation
import MultiAuthSpawn
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the Redis tests find a server (Docs/Testing.md, "Redis"):
/// - `MULTIAUTH_REDIS_URL` (`redis://127.0.0.1:PORT`): a running server for the store kit, the
///   multi-process race and the fleet-wide limit (`.ci/run` starts one);
/// - the `redis-server` binary (`MULTIAUTH_REDIS_SERVER`, or on `PATH`): the outage test starts,
///   kills and restarts its own.
/// Without them those tests are skipped with a message saying what to set; never passed.
enum RedisTestEnvironment {
    static let url: String? = {
        guard let value = ProcessInfo.processInfo.environment["MULTIAUTH_REDIS_URL"], !value.isEmpty else { return nil }
        return value
    }()

    static let serverBinary: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["MULTIAUTH_REDIS_SERVER"], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        let directories = (environment["PATH"] ?? "/usr/bin:/usr/local/bin").split(separator: ":").map(String.init)
        return (directories + ["/usr/bin", "/usr/local/bin", "/usr/sbin"]).map { $0 + "/redis-server" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static let urlMissing: Comment =
        "no Redis: set MULTIAUTH_REDIS_URL=redis://127.0.0.1:PORT to a running redis-server (.ci/run does) to run this test"
    static let binaryMissing: Comment =
        "no redis-server binary: install Debian's redis-server (or set MULTIAUTH_REDIS_SERVER) to run the outage test"
}

/// A `redis-server` this test owns: a free loopback port, a temporary directory, AOF with
/// `appendfsync always` (so a write acknowledged before a SIGKILL survives the restart), a
/// password. Started and waited for by reading its log until it accepts connections (no
/// sleeping); killed with SIGKILL; always stopped by `stop()`.
final class RedisServerProcess: @unchecked Sendable {
    let binary: String
    let port: Int
    let directory: URL
    let password: String
    private var process: SpawnedProcess?

    init(binary: String, port: Int, password: String) throws {
        self.binary = binary
        self.port = port
        self.password = password
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multiauth-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var url: String { "redis://:\(password)@127.0.0.1:\(port)" }

    /// Starts the server and returns once it logs that it accepts connections.
    func start() throws {
        let process = try SpawnedProcess(
            executable: binary,
            arguments: [
                "--port", String(port), "--bind", "127.0.0.1", "--dir", directory.path, "--appendonly", "yes",
                "--appendfsync", "always", "--save", "", "--requirepass", password, "--daemonize", "no", "--logfile",
                "",
            ], standardOutput: .pipe)
        self.process = process
        let output = try #require(process.standardOutput)
        var log = Data()
        while true {
            let chunk = output.availableData
            guard !chunk.isEmpty else {
                throw POSIXError(.ECHILD)  // exited before it was ready
            }
            log.append(chunk)
            if String(decoding: log, as: UTF8.self).contains("Ready to accept connections") { break }
        }
        // Keep draining the log so the server never blocks on a full pipe.
        Thread {
            while !output.availableData.isEmpty {}
        }.start()
    }

    /// SIGKILL: no shutdown, no final save.
    func kill() {
        guard let process else { return }
        process.send(SIGKILL)
        _ = process.wait()
        self.process = nil
    }

    func stop() {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }
}
