import Foundation
import MultiAuth
#if canImport(Glibc)
import Glibc
#endif

/// `FileSessionStore.save` against the same durable write in bare C calls, and `load` rate.
enum StoreBench {
    static let iterations = 300

    static func session() -> AuthSession {
        AuthSession(
            provider: "bench", user: AuthUser(id: "user-1", email: try? EmailAddress("bench@example.com")),
            credentials: Credentials(
                accessToken: String(repeating: "a", count: 800), refreshToken: String(repeating: "r", count: 64),
                expiresAt: Date(timeIntervalSince1970: 1_800_000_000)),
            createdAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    static func directory(_ name: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-bench-\(name)-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The baseline: the same bytes written with open/write/fsync/close/rename/fsync(dir).
    static func bareWrite(_ data: Data, to path: String, directory: String) {
        let temp = path + ".tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        precondition(fd >= 0)
        _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        fsync(fd)
        close(fd)
        rename(temp, path)
        let dirFD = open(directory, O_RDONLY | O_CLOEXEC)
        fsync(dirFD)
        close(dirFD)
    }

    static func run(repeats: Int) async throws -> [BenchRow] {
        let session = session()
        let ourDirectory = directory("ours")
        let bareDirectory = directory("bare")
        defer {
            try? FileManager.default.removeItem(at: ourDirectory)
            try? FileManager.default.removeItem(at: bareDirectory)
        }
        let store = try FileSessionStore(directory: ourDirectory)
        let data = try JSONEncoder.multiAuth.encode(session)
        let barePath = bareDirectory.appendingPathComponent("bench.session.json").path
        var ours: [Double] = []
        var bare: [Double] = []
        for _ in 0..<repeats {
            ours.append(try await Measure.nanosPerOperation(repeats: 1, operations: iterations) {
                for _ in 0..<iterations { try await store.save(session) }
            })
            bare.append(Measure.nanosPerOperation(repeats: 1, operations: iterations) {
                for _ in 0..<iterations { bareWrite(data, to: barePath, directory: bareDirectory.path) }
            })
        }
        let a = Measure.median(ours)
        let b = Measure.median(bare)
        let loads = 5_000
        let load = try await Measure.nanosPerOperation(repeats: repeats, operations: loads) {
            for _ in 0..<loads { _ = try await store.load(for: "bench") }
        }
        return [
            BenchRow(
                group: "FileSessionStore", name: "save (atomic + fsync)", value: a / 1000, unit: "µs/op", baseline: b / 1000,
                ratioLabel: String(format: "%.2f× bare C write+fsync+rename", a / b), goal: "≤ 1.2×", met: a / b <= 1.2),
            BenchRow(group: "FileSessionStore", name: "load", value: 1e9 / load, unit: "/s"),
        ]
    }
}
