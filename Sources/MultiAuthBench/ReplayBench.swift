import CMultiAuthBench
import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking
import MultiAuthServer

/// The fleet stores: TOTP verifications per second (`FleetVerifiers.totp()`: an attempt-limit
/// hit and a compare-and-advance per verification) on the in-memory and the Redis stores, with
/// 1 and 8 concurrent verifiers; and `RedisReplayStore.consumeOnce` against a bare `SET NX`
/// round trip written in C on the same server (Docs/Performance.md, "Fleet stores").
///
/// The Redis rows need a server: `--redis redis://127.0.0.1:PORT` (or `MULTIAUTH_REDIS_URL`);
/// without one they are skipped with a message.
enum ReplayBench {
    nonisolated(unsafe) static var redis: RedisConfiguration?

    static let secret = try! TOTP(secret: Array("12345678901234567890".utf8))
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// The comparison row, when a loopback server is given.
    static var comparisons: [Comparison] {
        guard let redis, ["127.0.0.1", "localhost"].contains(redis.host) else { return [] }
        return [
            Comparison(
                group: "replay", label: "RedisReplayStore.consumeOnce vs a bare SET NX round trip in C (loopback)",
                ours: ours(redis), baseline: bare(redis), goal: .none, judgedOnTime: true,
                note:
                    "replay: wall time, no goal. A round trip is mostly kernel and server time, which callgrind does not "
                    + "see; the ratio shows what the client adds to the same command on the same server: key hashing, "
                    + "RESP, the pool, and two thread hand-offs (the blocking socket work runs on the client's own queue, "
                    + "never on the cooperative pool), which grow with the machine's load.")
        ]
    }

    static func ours(_ configuration: RedisConfiguration) -> Kernel {
        Kernel("replay.redis.consumeOnce", batch: 2_000, instructions: 0) {
            let client = RedisClient(configuration: configuration)
            let store = RedisReplayStore(client: client)
            let prefix = "bench-ours-" + UUID().uuidString + "-"
            let counter = Counter()
            return Runner(
                run: { count in
                    let start = Clock.nanoseconds()
                    for _ in 0..<count {
                        let key = try store.keyspace.key("bench", prefix + String(counter.next()))
                        guard try await store.consumeOnce(key: key, ttl: .seconds(60)) else {
                            throw BenchError("a fresh key was refused")
                        }
                    }
                    return Double(Clock.nanoseconds() - start)
                }, close: { client.close() })
        }
    }

    static func bare(_ configuration: RedisConfiguration) -> Kernel {
        Kernel("replay.redis.c", batch: 2_000, instructions: 0) {
            let fd = mab_redis_connect(Int32(configuration.port))
            guard fd >= 0 else { throw BenchError("cannot connect to Redis on port \(configuration.port)") }
            let prefix = "bench-c-" + UUID().uuidString + "-"
            let counter = Counter()
            return Runner(
                run: { count in
                    let start = Clock.nanoseconds()
                    for _ in 0..<count {
                        guard mab_redis_setnx(fd, prefix, counter.next()) == 1 else {
                            throw BenchError("the bare SET NX failed")
                        }
                    }
                    return Double(Clock.nanoseconds() - start)
                }, close: { mab_redis_close(fd) })
        }
    }

    /// A thread-safe counter for unique keys.
    final class Counter: Sendable {
        private let value = Locked(0)
        func next() -> Int {
            value.withLock { value in
                defer { value += 1 }
                return value
            }
        }
    }

    /// Verifications per second, median of three runs of `count`, with `verifiers` concurrent tasks.
    static func verificationsPerSecond(_ fleet: FleetVerifiers, count: Int, verifiers: Int) async throws -> Double {
        let verifier = try fleet.totp(attemptLimit: .init(attempts: 1_000, window: .seconds(900)))
        let code = try secret.code(at: now)
        var rates: [Double] = []
        for run in 0..<3 {
            let prefix = "bench-\(UUID().uuidString)-\(run)-"
            let start = Clock.nanoseconds()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<verifiers {
                    group.addTask {
                        for index in stride(from: worker, to: count, by: verifiers) {
                            _ = try await verifier.verify(code, for: secret, account: prefix + String(index))
                        }
                    }
                }
                try await group.waitForAll()
            }
            rates.append(Double(count) / (Double(Clock.nanoseconds() - start) / 1e9))
        }
        return Stats.median(rates)
    }

    /// The throughput rows, and the added latency from the comparison when it ran.
    static func infoRows(smoke: Bool, timed: InterleavedResult?) async throws -> [InfoRow] {
        let time = TimeSource(clock: ContinuousClock(), now: { now })
        var rows: [InfoRow] = []
        func row(_ label: String, _ rate: Double) {
            rows.append(InfoRow(group: "replay", label: label, value: String(format: "%.0f verifications/s", rate)))
        }
        let memoryCount = smoke ? 200 : 20_000
        for verifiers in [1, 8] {
            let fleet = FleetVerifiers.inProcess(time: time)
            row(
                "TOTP verification, in-memory stores, \(verifiers) concurrent verifier\(verifiers == 1 ? "" : "s")",
                try await verificationsPerSecond(fleet, count: memoryCount, verifiers: verifiers))
        }
        guard let redis else {
            rows.append(
                InfoRow(
                    group: "replay", label: "Redis rows skipped",
                    value: "no server: pass --redis redis://127.0.0.1:PORT (or set MULTIAUTH_REDIS_URL)"))
            return rows
        }
        let client = RedisClient(configuration: redis)
        defer { client.close() }
        let fleet = FleetVerifiers(redis: client, time: time)
        for verifiers in [1, 8] {
            row(
                "TOTP verification, Redis stores, \(verifiers) concurrent verifier\(verifiers == 1 ? "" : "s")",
                try await verificationsPerSecond(fleet, count: smoke ? 100 : 4_000, verifiers: verifiers))
        }
        if let timed {
            let added = Stats.median(timed.oursNanos) - Stats.median(timed.baselineNanos)
            rows.append(
                InfoRow(
                    group: "replay", label: "consumeOnce latency added to a bare SET NX round trip",
                    value: String(
                        format: "%+.1f µs (%.1f µs vs %.1f µs)", added / 1000, Stats.median(timed.oursNanos) / 1000,
                        Stats.median(timed.baselineNanos) / 1000)))
        }
        return rows
    }
}
