import CMultiAuthBench
import Foundation
import MultiAuth

/// `FileSessionStore.save` (encode, temp file 0600, write, fsync, close, rename, directory
/// fsync) through the `SessionStore` protocol, against the same system calls made by bare C on
/// the session already encoded. Both write to their own directory on the same disk.
enum StoreBench {
    static func session() -> AuthSession {
        AuthSession(
            provider: "bench", user: AuthUser(id: "user-1", email: try? EmailAddress("bench@example.com")),
            credentials: Credentials(
                accessToken: String(repeating: "a", count: 800), refreshToken: String(repeating: "r", count: 64),
                expiresAt: Date(timeIntervalSince1970: 1_800_000_000)),
            createdAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    static let ours = Kernel("store.ours", batch: 100, instructions: 50) {
        let directory = try Paths.temporaryDirectory("store-ours")
        let store: any SessionStore = try FileSessionStore(directory: directory)
        let session = StoreBench.session()
        return Runner(
            run: { count in
                let start = Clock.nanoseconds()
                for _ in 0..<count { try await store.save(session) }
                return Double(Clock.nanoseconds() - start)
            },
            close: { try? FileManager.default.removeItem(at: directory) })
    }

    static let bareC = Kernel("store.c", batch: 100, instructions: 50) {
        let directory = try Paths.temporaryDirectory("store-c")
        let data = try JSONEncoder.multiAuth.encode(StoreBench.session())
        let path = directory.appendingPathComponent("bench.session.json").path
        let directoryPath = directory.path
        return Runner(
            run: { count in
                let start = Clock.nanoseconds()
                for index in 0..<count {
                    let temp = path + ".tmp-\(index)"
                    let status = data.withUnsafeBytes { mab_durable_write(path, temp, directoryPath, $0.baseAddress, $0.count) }
                    guard status == 0 else { throw BenchError("durable write failed: errno \(errno)") }
                }
                return Double(Clock.nanoseconds() - start)
            },
            close: { try? FileManager.default.removeItem(at: directory) })
    }

    static let comparisons = [
        Comparison(group: "store", label: "FileSessionStore.save vs the same syscalls in C (pre-encoded)", ours: ours, baseline: bareC,
                   goal: .atMost(1.1), judgedOnTime: true,
                   note: "store: judged on time. A save is two fsyncs, whose cost is in the kernel and the disk, which "
                       + "callgrind does not count; its instruction ratio compares only the user-space work (JSON encoding "
                       + "against none)."),
    ]
}
