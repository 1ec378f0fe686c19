import Foundation
import MultiAuthLocking
import MultiAuthSpawn

/// The repository root (for `Scripts/`), from this file's path at build time.
enum Paths {
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func script(_ name: String) -> String {
        root.appendingPathComponent("Scripts").appendingPathComponent(name).path
    }

    /// This executable (to re-run it for one kernel under callgrind, or for a fresh process).
    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// A new empty temporary directory.
    static func temporaryDirectory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multiauth-bench-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// A Python baseline running as a peer process (`script --serve`): the bench writes a count
/// on a line, the peer performs that many operations and answers the nanoseconds it took,
/// measured inside Python, so process start-up and pipe traffic are never counted.
final class PythonPeer: Sendable {
    private let process: SpawnedProcess
    private let input: FileHandle
    private let output: FileHandle
    /// Bytes read from the peer after the last full line; its lock also keeps one request's
    /// write and answer together.
    private let pending = Locked(Data())

    private init(process: SpawnedProcess, input: FileHandle, output: FileHandle) {
        self.process = process
        self.input = input
        self.output = output
    }

    static func start(_ arguments: [String]) throws -> Runner {
        // Standard error stays this process's: a peer's traceback reaches the person running the bench.
        let process = try SpawnedProcess(
            executable: "/usr/bin/env", arguments: ["python3"] + arguments + ["--serve"], standardInput: .pipe,
            standardOutput: .pipe, standardError: .descriptor(STDERR_FILENO))
        guard let stdin = process.standardInput, let stdout = process.standardOutput else {
            throw BenchError("python peer \(arguments.first ?? "") has no pipes")
        }
        let peer = PythonPeer(process: process, input: stdin, output: stdout)
        let ready = try peer.pending.withLock { try peer.readLine(&$0) }
        guard ready.hasPrefix("ready") else {
            throw BenchError("python peer \(arguments.first ?? "") did not start: \(ready)")
        }
        return Runner(run: { count in try peer.request(count) }, close: { peer.stop() })
    }

    private func request(_ count: Int) throws -> Double {
        try pending.withLock { pending in
            input.write(Data("\(count)\n".utf8))
            let line = try readLine(&pending)
            guard let nanoseconds = Double(line) else { throw BenchError("python peer answered \(line.prefix(200))") }
            return nanoseconds
        }
    }

    private func readLine(_ pending: inout Data) throws -> String {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                return line
            }
            let chunk = output.availableData
            guard !chunk.isEmpty else { throw BenchError("python peer exited") }
            pending.append(chunk)
        }
    }

    private func stop() {
        try? input.close()
        _ = process.wait()
    }
}
