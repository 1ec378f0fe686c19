import Foundation
import MultiAuth

/// How `FileSessionStore` scales with the number of session files in its directory: creating
/// a store and `remove(for:)` (sign-out of a provider with no file: lock, unlink, temporary-file
/// cleanup) with 1, 1,000 and 10,000 session files present.
///
/// Every round runs each directory once, in an order rotated from round to round, so a change
/// of load lands on every size; the ratios to the 1-file directory are taken within a round and
/// reported as median [min–max] over the rounds.
enum StoreScalingBench {
    /// The numbers of session files in the directory.
    static func fileCounts(smoke: Bool) -> [Int] { smoke ? [1, 100] : [1, 1_000, 10_000] }

    /// A directory holding `count` session files (`p<i>.session.json`, each a real 1 KB session
    /// of another provider), written without `fsync`: only their names matter here.
    static func directory(holding count: Int, bytes: Data) throws -> URL {
        let url = try Paths.temporaryDirectory("store-scaling-\(count)")
        for index in 0..<count {
            let path = url.appendingPathComponent("p\(index).session.json").path
            guard FileManager.default.createFile(atPath: path, contents: bytes) else {
                throw BenchError("cannot create \(path)")
            }
        }
        return url
    }

    /// Nanoseconds per operation of `count` runs of `body`.
    static func perOperation(_ count: Int, _ body: () async throws -> Void) async throws -> Double {
        let start = Clock.nanoseconds()
        for _ in 0..<count { try await body() }
        return Double(Clock.nanoseconds() - start) / Double(count)
    }

    /// The rows: per directory size, the time of `init` and of `remove(for:)`.
    static func infoRows(repeats: Int, smoke: Bool) async throws -> [InfoRow] {
        let counts = fileCounts(smoke: smoke)
        let rounds = smoke ? 3 : max(5, repeats / 2)
        let batch = max(4, Int(200 * Report.scale))
        // The bytes FileSessionStore writes for the bench session, saved once and read back.
        let source = try Paths.temporaryDirectory("store-scaling-bytes")
        defer { try? FileManager.default.removeItem(at: source) }
        let sourceStore = try FileSessionStore(directory: source)
        try await sourceStore.save(StoreBench.session())
        let bytes = try Data(contentsOf: sourceStore.fileURL(for: StoreBench.session().provider))

        let directories = try counts.map { try directory(holding: $0, bytes: bytes) }
        defer { for url in directories { try? FileManager.default.removeItem(at: url) } }
        let stores = try directories.map { try FileSessionStore(directory: $0) }
        var initNanos = Array(repeating: [Double](), count: counts.count)
        var removeNanos = Array(repeating: [Double](), count: counts.count)
        let loadBefore = Load.average()?.one
        for round in 0..<rounds {
            for offset in counts.indices {
                let index = (offset + round) % counts.count
                let url = directories[index]
                let store = stores[index]
                initNanos[index].append(
                    try await perOperation(batch) { blackHole(try FileSessionStore(directory: url)) })
                removeNanos[index].append(try await perOperation(batch) { try await store.remove(for: "bench") })
            }
        }
        let loadAfter = Load.average()?.one

        func rows(_ operation: String, _ nanos: [[Double]]) -> [InfoRow] {
            counts.indices.map { index in
                let ratios = zip(nanos[index], nanos[0]).map { $0 / $1 }
                let last = index == counts.count - 1
                return InfoRow(
                    group: "store dir",
                    label:
                        "FileSessionStore \(operation), \(counts[index]) session file\(counts[index] == 1 ? "" : "s") "
                        + "in the directory",
                    value: String(format: "%.1f µs, ", Stats.median(nanos[index]) / 1000)
                        + JWKSScalingBench.spread(ratios, digits: 2),
                    goal: last ? "≤ 2× the 1-file directory" : nil, met: last ? Stats.median(ratios) <= 2 : nil)
            }
        }
        return rows("init", initNanos) + rows("remove(for:)", removeNanos) + [
            InfoRow(
                group: "store dir", label: "1-minute load average before → after the rows above",
                value: String(format: "%.1f → %.1f", loadBefore ?? -1, loadAfter ?? -1))
        ]
    }
}
