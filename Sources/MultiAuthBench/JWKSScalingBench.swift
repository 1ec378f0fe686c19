import Foundation
import MultiAuthCrypto
import MultiAuthTestKeys

/// How `JWKSCache` verification scales: N tasks verifying RS256 tokens through one shared
/// cache against one cache per task (the same work, no shared state), the speed-up of N tasks
/// over one on the shared cache, and the verify time against the number of keys in the set.
///
/// Every round runs each configuration once, in an order rotated from round to round, so a
/// change of load lands on every configuration; the ratios are taken within a round and
/// reported as median [min–max] over the rounds.
enum JWKSScalingBench {
    /// The task counts of the scaling rows.
    static let taskCounts = [1, 2, 4]
    /// The key-set sizes of the key-count rows.
    static let keyCounts = [1, 10, 100]

    /// A warm cache over `jwks` (fetched once before timing).
    static func warmCache(_ jwks: Data, token: String, now: Date) async throws -> JWKSCache {
        let cache = JWKSCache { jwks }
        _ = try await cache.verify(
            token, at: now, issuer: JWTBench.issuer, audience: .expected(JWTBench.audience))
        return cache
    }

    /// Tokens per second for `caches.count` concurrent tasks (task `i` verifies through
    /// `caches[i]`) verifying `total` tokens between them.
    static func tokensPerSecond(_ caches: [JWKSCache], total: Int, token: String, now: Date) async throws -> Double {
        let perTask = max(1, total / caches.count)
        let start = Clock.nanoseconds()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for cache in caches {
                group.addTask {
                    for _ in 0..<perTask {
                        let jwt = try await cache.verify(
                            token, at: now, issuer: JWTBench.issuer, audience: .expected(JWTBench.audience))
                        blackHole(jwt)
                    }
                }
            }
            try await group.waitForAll()
        }
        return Double(perTask * caches.count) / (Double(Clock.nanoseconds() - start) / 1e9)
    }

    /// `median× [min–max]` of the ratios `values`, with `digits` decimals.
    static func spread(_ values: [Double], digits: Int) -> String {
        let format = "%.\(digits)f"
        return String(
            format: "\(format)× [\(format)–\(format)]", Stats.median(values), values.min() ?? .nan,
            values.max() ?? .nan)
    }

    /// Tokens per second as `35.3 k`.
    static func rate(_ value: Double) -> String { String(format: "%.1f k", value / 1000) }

    /// The rows: per task count, shared vs per-task caches and the shared cache's speed-up;
    /// per key count, the verify time.
    static func infoRows(repeats: Int, smoke: Bool) async throws -> [InfoRow] {
        let now = Date()
        let token = JWTBench.fixture.rs256
        let jwks = JWTBench.fixture.jwks
        let total = max(4, Int(2_000 * Report.scale))
        let rounds = smoke ? 3 : max(5, repeats / 2)
        let shared = try await warmCache(jwks, token: token, now: now)
        var perTask: [JWKSCache] = []
        for _ in 0..<taskCounts.max()! { perTask.append(try await warmCache(jwks, token: token, now: now)) }

        // (shared?, tasks) → tokens/s per round.
        var rates: [String: [Double]] = [:]
        let configurations = taskCounts.flatMap { [(true, $0), (false, $0)] }
        let loadBefore = Load.average()?.one
        for round in 0..<rounds {
            for offset in configurations.indices {
                let (isShared, tasks) = configurations[(offset + round) % configurations.count]
                let caches = isShared ? Array(repeating: shared, count: tasks) : Array(perTask.prefix(tasks))
                let rate = try await tokensPerSecond(caches, total: total, token: token, now: now)
                rates["\(isShared)-\(tasks)", default: []].append(rate)
            }
        }
        let loadAfter = Load.average()?.one
        let cores = ProcessInfo.processInfo.activeProcessorCount

        var rows: [InfoRow] = []
        for tasks in taskCounts {
            let sharedRates = rates["true-\(tasks)"]!
            let ownRates = rates["false-\(tasks)"]!
            let ratios = zip(sharedRates, ownRates).map { $0 / $1 }
            let median = Stats.median(ratios)
            rows.append(
                InfoRow(
                    group: "JWKS tasks",
                    label: "RS256, \(tasks) task\(tasks == 1 ? "" : "s"): one shared JWKSCache vs one per task",
                    value: "\(rate(Stats.median(sharedRates))) vs \(rate(Stats.median(ownRates))) tokens/s, "
                        + spread(ratios, digits: 2),
                    goal: "≥ 0.9×", met: median >= 0.9))
        }
        let single = rates["true-1"]!
        for tasks in taskCounts where tasks > 1 {
            let speedUps = zip(rates["true-\(tasks)"]!, single).map { $0 / $1 }
            rows.append(
                InfoRow(
                    group: "JWKS tasks", label: "RS256, one shared JWKSCache: \(tasks) tasks vs 1 task",
                    value: spread(speedUps, digits: 2) + " on \(cores) cores",
                    goal: cores >= 2 ? "≥ 1.8×" : nil, met: cores >= 2 ? Stats.median(speedUps) >= 1.8 : nil))
        }
        rows.append(
            InfoRow(
                group: "JWKS tasks", label: "1-minute load average before → after the rows above",
                value: String(format: "%.1f → %.1f", loadBefore ?? -1, loadAfter ?? -1)))
        rows += try await keyCountRows(rounds: rounds, now: now)
        return rows
    }

    /// Verify time with 1, 10 and 100 keys in the set: the token's key last, behind RSA decoys
    /// with other `kid`s (every decoy a valid 2048-bit key, imported with the set).
    static func keyCountRows(rounds: Int, now: Date) async throws -> [InfoRow] {
        let decoy = TestKeys.rsaB.publicKey
        let real = try TestKeys.rsaA.publicKey.jwk(keyID: "rsa-1", algorithm: .rs256)
        let token = JWTBench.fixture.rs256
        var caches: [JWKSCache] = []
        for count in keyCounts {
            let decoys = try (0..<(count - 1)).map { try decoy.jwk(keyID: "decoy-\($0)", algorithm: .rs256) }
            caches.append(try await warmCache(try JWKSet(keys: decoys + [real]).jsonData(), token: token, now: now))
        }
        let batch = max(2, Int(1_000 * Report.scale))
        var nanos = Array(repeating: [Double](), count: keyCounts.count)
        for round in 0..<rounds {
            for offset in keyCounts.indices {
                let index = (offset + round) % keyCounts.count
                let rate = try await tokensPerSecond([caches[index]], total: batch, token: token, now: now)
                nanos[index].append(1e9 / rate)
            }
        }
        return keyCounts.indices.map { index in
            let ratios = zip(nanos[index], nanos[0]).map { $0 / $1 }
            let last = index == keyCounts.count - 1
            return InfoRow(
                group: "JWKS keys",
                label:
                    "RS256 verify, \(keyCounts[index]) key\(keyCounts[index] == 1 ? "" : "s") in the set (token's key last)",
                value: String(format: "%.1f µs, ", Stats.median(nanos[index]) / 1000) + spread(ratios, digits: 3),
                goal: last ? "≤ 1.1× the 1-key set" : nil, met: last ? Stats.median(ratios) <= 1.1 : nil)
        }
    }
}
