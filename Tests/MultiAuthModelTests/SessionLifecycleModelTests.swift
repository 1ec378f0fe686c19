import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

/// The model-based randomized test of the session lifecycle (Docs/Reliability.md, "Session
/// lifecycle"): random schedules of sign-ins (code and duplicate magic-link deliveries),
/// sign-outs (remote revocation sometimes lost), refreshes, `validSession`, restores, server
/// revocations and clock jumps, with random latency, offline, 429 and 503 faults, run by two
/// `AuthClient`s sharing one store; after every schedule the invariants are checked against the
/// reference model (``ModelStore``). Seeded: a failure prints the seed and the schedule;
/// `MULTIAUTH_MODEL_SEED=<n>` reruns one schedule, `MULTIAUTH_MODEL_SCHEDULES=<n>` changes the
/// count.
@Suite(.timeLimit(.minutes(10)))
struct SessionLifecycleModelTests {
    static let environment = ProcessInfo.processInfo.environment
    static let baseSeed = UInt64(environment["MULTIAUTH_MODEL_BASE_SEED"] ?? "") ?? 13_000_000
    static let memorySchedules = Int(environment["MULTIAUTH_MODEL_SCHEDULES"] ?? "") ?? 10_000
    static let fileSchedules = max(1, memorySchedules / 10)

    struct Summary {
        var schedules = 0
        var failures: [(seed: UInt64, schedule: String, violations: [String])] = []
    }

    /// Runs `count` schedules from `firstSeed`, `parallel` at a time.
    static func runSchedules(
        count: Int, firstSeed: UInt64, store: ModelStoreKind, mutations: ClientMutations = ClientMutations(),
        stopAtFirstFailure: Bool = false, parallel: Int = 8
    ) async throws -> Summary {
        var summary = Summary()
        if let only = environment["MULTIAUTH_MODEL_SEED"].flatMap(UInt64.init) {
            let schedule = ModelSchedule(seed: only)
            let violations = try await ModelRun(schedule: schedule, storeKind: store, mutations: mutations).run()
            summary.schedules = 1
            if !violations.isEmpty { summary.failures.append((only, schedule.description, violations)) }
            return summary
        }
        var next = 0
        try await withThrowingTaskGroup(of: (UInt64, String, [String]).self) { group in
            func add() {
                let seed = firstSeed &+ UInt64(next)
                next += 1
                group.addTask {
                    let schedule = ModelSchedule(seed: seed)
                    return (
                        seed, schedule.description,
                        try await ModelRun(schedule: schedule, storeKind: store, mutations: mutations).run()
                    )
                }
            }
            for _ in 0..<min(parallel, count) { add() }
            while let (seed, schedule, violations) = try await group.next() {
                summary.schedules += 1
                if !violations.isEmpty {
                    summary.failures.append((seed, schedule, violations))
                    if stopAtFirstFailure {
                        group.cancelAll()
                        break
                    }
                }
                if next < count { add() }
            }
        }
        return summary
    }

    static func report(_ summary: Summary) -> String {
        summary.failures.prefix(3).map { failure in
            "seed \(failure.seed) (rerun with MULTIAUTH_MODEL_SEED=\(failure.seed)):\n  \(failure.schedule)\n  "
                + failure.violations.prefix(5).joined(separator: "\n  ")
        }.joined(separator: "\n")
    }

    @Test func tenThousandSchedulesInMemoryHoldEveryInvariant() async throws {
        let summary = try await Self.runSchedules(count: Self.memorySchedules, firstSeed: Self.baseSeed, store: .memory)
        print("model (memory): \(summary.schedules) schedules, \(summary.failures.count) violating")
        #expect(summary.schedules == (Self.environment["MULTIAUTH_MODEL_SEED"] == nil ? Self.memorySchedules : 1))
        #expect(summary.failures.isEmpty, "\(Self.report(summary))")
    }

    @Test func schedulesOnFileStoresHoldEveryInvariant() async throws {
        let summary = try await Self.runSchedules(
            count: Self.fileSchedules, firstSeed: Self.baseSeed &+ 1_000_000, store: .file, parallel: 4)
        print("model (file): \(summary.schedules) schedules, \(summary.failures.count) violating")
        #expect(summary.failures.isEmpty, "\(Self.report(summary))")
    }

    /// Mutation check: without the conditional write, the model test finds a stale refresh
    /// result landing or a newer session removed.
    @Test func theCheckerCatchesUnconditionalWrites() async throws {
        let summary = try await Self.runSchedules(
            count: Self.memorySchedules, firstSeed: Self.baseSeed &+ 2_000_000, store: .memory,
            mutations: ClientMutations(unconditionalWrites: true), stopAtFirstFailure: true)
        print(
            "mutation unconditionalWrites: first violation after \(summary.schedules) schedules: \(Self.report(summary))"
        )
        #expect(!summary.failures.isEmpty, "no violation in \(summary.schedules) schedules")
    }

    /// Mutation check: without redirect single-flight, duplicate deliveries spend a grant twice.
    @Test func theCheckerCatchesRedirectsWithoutSingleFlight() async throws {
        let summary = try await Self.runSchedules(
            count: Self.memorySchedules, firstSeed: Self.baseSeed &+ 3_000_000, store: .memory,
            mutations: ClientMutations(noRedirectSingleFlight: true), stopAtFirstFailure: true)
        print(
            "mutation noRedirectSingleFlight: first violation after \(summary.schedules) schedules: \(Self.report(summary))"
        )
        #expect(!summary.failures.isEmpty, "no violation in \(summary.schedules) schedules")
    }
}
