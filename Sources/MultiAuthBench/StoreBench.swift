import CMultiAuthBench
import Foundation
import MultiAuth

/// `FileSessionStore.save` (encode, temp file 0600, write, fsync, close, rename, directory
/// fsync) through the `SessionStore` protocol, against the same system calls made by bare C on
/// the same bytes, already encoded. Both write to their own directory on the same disk.
enum StoreBench {
    static func session() -> AuthSession {
        AuthSession(
            provider: "bench", user: AuthUser(id: "user-1", email: try? EmailAddress("bench@example.com")),
            credentials: Credentials(
                accessToken: Secret(String(repeating: "a", count: 800)),
                refreshToken: Secret(String(repeating: "r", count: 64)),
                expiresAt: Date(timeIntervalSince1970: 1_800_000_000)),
            createdAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    /// `cpu`: the runner reports process CPU time (user + system) instead of wall time.
    static func ours(cpu: Bool) -> Kernel {
        Kernel(cpu ? "store.ours.cpu" : "store.ours", batch: 100, instructions: 50) {
            let directory = try Paths.temporaryDirectory("store-ours")
            let store: any SessionStore = try FileSessionStore(directory: directory)
            let session = StoreBench.session()
            return Runner(
                run: { count in
                    let start = cpu ? Clock.cpuNanoseconds() : Clock.nanoseconds()
                    for _ in 0..<count { try await store.save(session) }
                    return Double((cpu ? Clock.cpuNanoseconds() : Clock.nanoseconds()) - start)
                },
                close: { try? FileManager.default.removeItem(at: directory) })
        }
    }

    static func bareC(cpu: Bool) -> Kernel {
        Kernel(cpu ? "store.c.cpu" : "store.c", batch: 100, instructions: 50) {
            // The exact bytes FileSessionStore writes for the session: saved once, read back.
            let source = try Paths.temporaryDirectory("store-bytes")
            defer { try? FileManager.default.removeItem(at: source) }
            try await FileSessionStore(directory: source).save(StoreBench.session())
            // The directory also holds the store's lock file (FileSessionStore.lockFileName).
            let files = try FileManager.default.contentsOfDirectory(at: source, includingPropertiesForKeys: nil)
                .filter { $0.lastPathComponent.hasSuffix(".session.json") }
            guard files.count == 1, let data = FileManager.default.contents(atPath: files[0].path) else {
                throw BenchError("expected one session file, found \(files.count)")
            }
            let directory = try Paths.temporaryDirectory("store-c")
            let path = directory.appendingPathComponent("bench.session.json").path
            let directoryPath = directory.path
            let lockPath = directory.appendingPathComponent(FileSessionStore.lockFileName).path
            return Runner(
                run: { count in
                    let start = cpu ? Clock.cpuNanoseconds() : Clock.nanoseconds()
                    for index in 0..<count {
                        let temp = path + ".tmp-\(index)"
                        let status = data.withUnsafeBytes {
                            mab_durable_write(lockPath, path, temp, directoryPath, $0.baseAddress, $0.count)
                        }
                        guard status == 0 else { throw BenchError("durable write failed: errno \(errno)") }
                    }
                    return Double((cpu ? Clock.cpuNanoseconds() : Clock.nanoseconds()) - start)
                },
                close: { try? FileManager.default.removeItem(at: directory) })
        }
    }

    static let comparisons = [
        Comparison(
            group: "store", label: "FileSessionStore.save vs the same syscalls in C: CPU time (user+sys)",
            ours: ours(cpu: true),
            baseline: bareC(cpu: true), goal: .atMost(1.1), judgedOnTime: true,
            note:
                "store: judged on CPU time (user + system, interleaved). A save is two fsyncs: the wait for the disk is "
                + "the same for both sides and moves with the machine's other I/O (the wall-time row), and callgrind counts "
                + "only user-space instructions, where the C side does almost nothing (it writes pre-encoded bytes)."),
        Comparison(
            group: "store", label: "the same, wall time", ours: ours(cpu: false), baseline: bareC(cpu: false),
            goal: .none),
    ]
}
