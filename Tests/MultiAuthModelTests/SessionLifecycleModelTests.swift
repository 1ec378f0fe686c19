import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

/// The model-based randomized test of the session lifecycle (Docs/Reliability.md, "Session
/// lifecycle"): random schedules of sign-ins (code and duplicate magic-link deliveries),
/// sign-outs (remote revocation sometimes lost), refreshes, `validSession`, restores, server
/// revocations and clock jumps, with random latency, offline, 429 and 503 faults, run by two
/// `AuthClient`s sharing one store; after every schedule the invariants are checked against the
/// reference model (``ModelStore``). One operation in four is of the newer kinds: a sign-in,
/// refresh, `validSession` or sign-out whose task is cancelled (before the call, before the
/// request, after the answer), a store fault on the next save / conditional save / conditional
/// remove of one client, a slow save, a delayed sign-out, a magic link tapped late, or a
/// provider answer rewritten to name another user or provider (``ModelHooks``). Seeded: a
/// failure prints the seed and the schedule; `MULTIAUTH_MODEL_SEED=<n>` reruns one schedule (the
/// interleaving of its concurrent operations may still vary from run to run),
/// `MULTIAUTH_MODEL_SCHEDULES=<n>` changes the count, `MULTIAUTH_MODEL_STRICT=1` fails on the
/// known failures too (``ModelWorld/KnownFailure``).
@Suite(.timeLimit(.minutes(10)))
struct SessionLifecycleModelTests {
    static let environment = ProcessInfo.processInfo.environment
    static let baseSeed = UInt64(environment["MULTIAUTH_MODEL_BASE_SEED"] ?? "") ?? 13_000_000
    static let memorySchedules = Int(environment["MULTIAUTH_MODEL_SCHEDULES"] ?? "") ?? 10_000
    static let fileSchedules = max(1, memorySchedules / 10)

    /// `MULTIAUTH_MODEL_STRICT=1`: violations of the known failure (``ModelWorld/KnownFailure``)
    /// fail too.
    static let strict = environment["MULTIAUTH_MODEL_STRICT"] != "0"

    struct Summary {
        var schedules = 0
        var failures: [(seed: UInt64, schedule: String, violations: [String])] = []
        /// Schedules whose only violations are of the known failure.
        var known: [(seed: UInt64, schedule: String, violations: [String])] = []
        /// Observations that are not violations, by kind.
        var notes: [String: Int] = [:]
        /// Coverage: how often each fault or cancellation fired.
        var stats: [String: Int] = [:]

        /// Files one schedule's result.
        mutating func add(seed: UInt64, schedule: String, results: [String]) {
            schedules += 1
            for note in results where note.hasPrefix(ModelWorld.notePrefix) {
                notes[
                    SessionLifecycleModelTests.kind(of: String(note.dropFirst(ModelWorld.notePrefix.count))), default: 0
                ] +=
                    1
            }
            for stat in results where stat.hasPrefix(ModelWorld.statPrefix) {
                stats[String(stat.dropFirst(ModelWorld.statPrefix.count)), default: 0] += 1
            }
            let violations = results.filter {
                !$0.hasPrefix(ModelWorld.notePrefix) && !$0.hasPrefix(ModelWorld.statPrefix)
            }
            let real = violations.filter { strict || !$0.hasPrefix(ModelWorld.knownPrefix) }
            if !real.isEmpty {
                failures.append((seed, schedule, real))
            } else if !violations.isEmpty {
                known.append((seed, schedule, violations))
            }
        }
    }

    /// Runs `count` schedules from `firstSeed`, `parallel` at a time.
    static func runSchedules(
        count: Int, firstSeed: UInt64, store: ModelStoreKind, mutations: ClientMutations = ClientMutations(),
        stopAtFirstFailure: Bool = false, parallel: Int = 8
    ) async throws -> Summary {
        var summary = Summary()
        if let only = environment["MULTIAUTH_MODEL_SEED"].flatMap(UInt64.init) {
            let schedule = ModelSchedule(seed: only)
            let violations = try await ModelWorld(schedule: schedule, storeKind: store, mutations: mutations).run()
            summary.add(seed: only, schedule: schedule.description, results: violations)
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
                        try await ModelWorld(schedule: schedule, storeKind: store, mutations: mutations).run()
                    )
                }
            }
            for _ in 0..<min(parallel, count) { add() }
            while let (seed, schedule, violations) = try await group.next() {
                let failuresBefore = summary.failures.count
                summary.add(seed: seed, schedule: schedule, results: violations)
                if summary.failures.count > failuresBefore {
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

    /// The violations of `summary` by kind (numbers, names and operation labels left out),
    /// most frequent first.
    static func kinds(_ summary: Summary) -> [(kind: String, count: Int, firstSeed: UInt64)] {
        var counts: [String: (Int, UInt64)] = [:]
        for failure in summary.failures + summary.known {
            for violation in Set(failure.violations.map(kind(of:))) {
                let (count, seed) = counts[violation] ?? (0, failure.seed)
                counts[violation] = (count + 1, min(seed, failure.seed))
            }
        }
        return counts.map { ($0.key, $0.value.0, $0.value.1) }.sorted { $0.count > $1.count }
    }

    static func kind(of violation: String) -> String {
        var text = violation
        if text.hasPrefix("round "), let colon = text.range(of: "): ") ?? text.range(of: ": ") {
            text = String(text[colon.upperBound...])
        }
        text = text.replacingOccurrences(
            of: #" \((last events|events):[^)]*\)"#, with: "", options: .regularExpression)
        for pattern in [#"u\d+/[0-9a-f-]{1,6}"#, #"intruder-\d+/[0-9a-f-]{1,6}"#, #"\.\.[0-9a-f-]{1,6}"#, #"\d+"#] {
            text = text.replacingOccurrences(of: pattern, with: "#", options: .regularExpression)
        }
        return text
    }

    /// Prints the counts, the violations by kind and the notes.
    static func printSummary(_ label: String, _ summary: Summary) {
        print(
            "\(label): \(summary.schedules) schedules, \(summary.failures.count) violating, \(summary.known.count) with only the known failure"
        )
        for kind in kinds(summary).prefix(12) { print("  \(kind.count)× (first seed \(kind.firstSeed)): \(kind.kind)") }
        for (note, count) in summary.notes.sorted(by: { $0.value > $1.value }) { print("  note \(count)×: \(note)") }
        print(
            "  fired: "
                + summary.stats.sorted(by: { $0.key < $1.key }).map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    }

    static func report(_ summary: Summary) -> String {
        summary.failures.prefix(3).map { failure in
            "seed \(failure.seed) (rerun with MULTIAUTH_MODEL_SEED=\(failure.seed)):\n  \(failure.schedule)\n  "
                + failure.violations.prefix(5).joined(separator: "\n  ")
        }.joined(separator: "\n")
    }

    @Test func tenThousandSchedulesInMemoryHoldEveryInvariant() async throws {
        let summary = try await Self.runSchedules(count: Self.memorySchedules, firstSeed: Self.baseSeed, store: .memory)
        Self.printSummary("model (memory)", summary)
        #expect(summary.schedules == (Self.environment["MULTIAUTH_MODEL_SEED"] == nil ? Self.memorySchedules : 1))
        #expect(summary.failures.isEmpty, "\(Self.report(summary))")
    }

    @Test func schedulesOnFileStoresHoldEveryInvariant() async throws {
        let summary = try await Self.runSchedules(
            count: Self.fileSchedules, firstSeed: Self.baseSeed &+ 1_000_000, store: .file, parallel: 4)
        Self.printSummary("model (file)", summary)
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

    /// Mutation checks of the newer kinds of operations (cancellations, store faults, foreign
    /// answers): with the guard of each rule off, the model finds a violation; the number of
    /// schedules it took is printed. The F7 ordering mutations (`signOutReadsOutsideTurn`,
    /// `noAbandonBeforeSave`) need a sign-out to land in a narrow window of a save; the random
    /// schedules reached it once in 10,000 runs and in another run not at all (it depends on how
    /// the machine schedules tasks), so they are left to the exhaustive exploration, which reaches
    /// them in every run (`theExplorationCatchesTheMutation`).
    @Test(arguments: [
        ("noUnsavedRefresh", ClientMutations(noUnsavedRefresh: true)),
        ("noRefreshIdentityCheck", ClientMutations(noRefreshIdentityCheck: true)),
        ("noSessionProviderCheck", ClientMutations(noSessionProviderCheck: true)),
        ("discardAnswerOnCancel", ClientMutations(discardAnswerOnCancel: true)),
    ])
    func theCheckerCatchesEachNewerMutation(name: String, mutations: ClientMutations) async throws {
        let offset: UInt64 =
            switch name {
            case "noUnsavedRefresh": 4_000_000
            case "noRefreshIdentityCheck": 5_000_000
            case "noSessionProviderCheck": 6_000_000
            case "discardAnswerOnCancel": 7_000_000
            default: 8_000_000
            }
        let summary = try await Self.runSchedules(
            count: Self.memorySchedules, firstSeed: Self.baseSeed &+ offset, store: .memory, mutations: mutations,
            stopAtFirstFailure: true)
        print("mutation \(name): first violation after \(summary.schedules) schedules: \(Self.report(summary))")
        #expect(!summary.failures.isEmpty, "\(name): no violation in \(summary.schedules) schedules")
    }
}
