import Foundation
import MultiAuth
import MultiAuthSpawn
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Two OS processes (`MultiAuthStoreHammer`) hammer one `FileSessionStore` directory with saves,
/// conditional removals and compare-and-set "refreshes" of shared and own providers; one of
/// them is killed with SIGKILL at seeded random points and restarted (Docs/Reliability.md,
/// "Session stores"). Everything is counted in operations, never timed.
@Suite(.timeLimit(.minutes(10)))  // hang guard only
struct TwoProcessStoreTests {
    @Test func twoProcessesWithRandomKillsTearNoFileAndLoseNoUpdate() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["MULTIAUTH_HAMMER_SEED"].flatMap(UInt64.init) ?? 20_261_201
        let kills = environment["MULTIAUTH_HAMMER_KILLS"].flatMap(Int.init) ?? 16
        let hammer = try #require(
            HammerRun.locate(),
            "MultiAuthStoreHammer is not next to the test bundle (swift build --build-tests builds it)")
        let run = HammerRun(hammer: hammer, seed: seed, kills: kills)
        let outcome = try await run.onThread()
        let seedNote = Comment(rawValue: "seed \(seed); MULTIAUTH_HAMMER_SEED=\(seed) repeats the schedule")
        print(
            "two-process store test: seed \(seed), \(outcome.killed) SIGKILLs, operations \(outcome.operationsA) (survivor) + "
                + "\(outcome.operationsB) (killed one), \(outcome.acknowledged.count) acknowledged counter CAS, final counter "
                + "\(outcome.finalCounter.map(String.init) ?? "none"), \(outcome.leftoversFoundAtOpen) leftover temp files deleted "
                + "at open, \(outcome.violations.count) violations")

        #expect(outcome.violations.isEmpty, "\(outcome.violations.prefix(10))")
        #expect(outcome.killed == kills, seedNote)
        #expect(outcome.operationsA > 0 && outcome.operationsB > 0, seedNote)
        #expect(
            outcome.temporaryFilesAfterOpen == 0, "leftover temporary files survived opening the store; \(seedNote)")

        // No lost update: every acknowledged compare-and-set is counted, each value once; at
        // most one unacknowledged success per kill (killed after the write, before the log line).
        let final = try #require(outcome.finalCounter, seedNote)
        #expect(
            Set(outcome.acknowledged).count == outcome.acknowledged.count,
            "a counter value was written twice; \(seedNote)")
        #expect(final >= outcome.acknowledged.count, "lost update; \(seedNote)")
        #expect(final <= outcome.acknowledged.count + outcome.killed, seedNote)
        #expect((outcome.acknowledged.max() ?? 0) <= final, seedNote)

        // The survivor's own session is exactly its last acknowledged write; the killed worker's
        // is the last acknowledged write of its final (unkilled) incarnation.
        #expect(outcome.stored["own-0"] == outcome.lastOwn[0], seedNote)
        #expect(outcome.lastOwn[1] != nil, seedNote)
        #expect(outcome.stored["own-1"] == outcome.lastOwn[1], seedNote)
    }
}

/// One two-process run: worker 0 runs until told to stop; worker 1 is started `kills` times
/// and killed with SIGKILL after a seeded number of finished operations (1–40), then runs
/// once more to completion; finally `verify` opens the store and loads everything.
struct HammerRun: Sendable {
    let hammer: URL
    let seed: UInt64
    let kills: Int

    struct HammerOutcome: Sendable {
        var violations: [String] = []
        var acknowledged: [Int] = []
        var finalCounter: Int?
        var stored: [String: String] = [:]
        /// The last acknowledged own-session write per worker (a seq, or "none" after a removal),
        /// from its runs that were not killed.
        var lastOwn: [Int: String] = [:]
        var killed = 0
        var operationsA = 0
        var operationsB = 0
        var leftoversFoundAtOpen = 0
        var temporaryFilesAfterOpen = 0
    }

    /// The hammer binary, built next to the test bundle.
    static func locate() -> URL? {
        var directories: [URL] = []
        if let executable = Bundle.main.executableURL { directories.append(executable.deletingLastPathComponent()) }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return directories.map { $0.appendingPathComponent("MultiAuthStoreHammer") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs on a thread of its own: it blocks on pipes and child processes.
    func onThread() async throws -> HammerOutcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try self.run() }) }.start()
        }
    }

    func run() throws -> HammerOutcome {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multiauth-hammer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let store = root.appendingPathComponent("sessions").path
        let stop = root.appendingPathComponent("stop").path
        var outcome = HammerOutcome()
        var random = SplitMix64(seed: seed)

        /// A hammer process; its standard output is a pipe when `progress` (one line per finished operation).
        func process(worker: Int, incarnation: Int, operations: Int, progress: Bool) throws -> (SpawnedProcess, String)
        {
            let log = root.appendingPathComponent("log-\(worker)-\(incarnation)").path
            let arguments =
                [
                    "run", "--directory", store, "--worker", "\(worker)", "--incarnation", "\(incarnation)",
                    "--seed", "\(seed &+ UInt64(worker * 1000 + incarnation))", "--operations", "\(operations)",
                    "--stop", stop, "--log", log,
                ] + (progress ? ["--progress"] : [])
            // Standard error is /dev/null, not the test runner's pipe: a hammer must never keep
            // `swift test` waiting.
            let process = try SpawnedProcess(
                executable: hammer.path, arguments: arguments, standardOutput: progress ? .pipe : .null)
            return (process, log)
        }

        let (survivor, survivorLog) = try process(worker: 0, incarnation: 0, operations: 0, progress: false)
        var killedLogs: [String] = []
        for incarnation in 1...max(kills, 1) where kills > 0 {
            let (victim, log) = try process(worker: 1, incarnation: incarnation, operations: 0, progress: true)
            let progress = try #require(victim.standardOutput)
            let killAfter = Int(random.next() % 40) + 1
            var finished = 0
            while finished < killAfter {
                let data = progress.availableData
                if data.isEmpty { break }  // the victim exited on its own: reported below
                finished += data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            }
            victim.send(SIGKILL)
            let ended = victim.wait()
            try? progress.close()
            if ended == .signalled(SIGKILL) {
                outcome.killed += 1
            } else {
                outcome.violations.append("incarnation \(incarnation) ended by itself (\(ended))")
            }
            outcome.operationsB += finished
            killedLogs.append(log)
        }
        let (last, lastLog) = try process(worker: 1, incarnation: kills + 1, operations: 150, progress: false)
        let lastEnded = last.wait()
        _ = FileManager.default.createFile(atPath: stop, contents: nil)
        let survivorEnded = survivor.wait()
        for (name, ended) in [("survivor", survivorEnded), ("final run", lastEnded)] where ended != .exited(0) {
            outcome.violations.append("\(name) ended with \(ended)")
        }

        // Logs: acknowledged writes, violations, leftovers found at open, operation counts.
        for (log, worker, completed) in [(survivorLog, 0, true), (lastLog, 1, true)]
            + killedLogs.map({ ($0, 1, false) })
        {
            for line in try Self.lines(log) {
                let fields = line.split(separator: " ").map(String.init)
                switch fields.first {
                case "cas": if let value = Int(fields[1]) { outcome.acknowledged.append(value) }
                case "own": if completed { outcome.lastOwn[worker] = fields[1] }
                case "V": outcome.violations.append("worker \(worker): " + line)
                case "start": outcome.leftoversFoundAtOpen += Int(fields[2]) ?? 0
                case "end":
                    if worker == 0 {
                        outcome.operationsA += Int(fields[2]) ?? 0
                    } else {
                        outcome.operationsB += Int(fields[2]) ?? 0
                    }
                default: break
                }
            }
        }

        // Verify: a fresh process opens the store (deleting leftovers) and loads every provider.
        let verify = try SpawnedProcess.run(hammer.path, arguments: ["verify", "--directory", store])
        if verify.termination != .exited(0) {
            outcome.violations.append("verify ended with \(verify.termination)")
        }
        let data = verify.standardOutput
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasSuffix(" .") {
            let fields = line.dropLast(2).split(separator: " ").map(String.init)
            if fields.first == "V" {
                outcome.violations.append("verify: " + fields.joined(separator: " "))
            } else if fields.count == 2 {
                outcome.stored[fields[0]] = fields[1]
            }
        }
        outcome.finalCounter = outcome.stored["counter"].flatMap(Int.init)
        outcome.temporaryFilesAfterOpen = try FileManager.default.contentsOfDirectory(atPath: store)
            .filter { $0.contains(".session.json.tmp-") }.count
        return outcome
    }

    /// The complete lines of a log (each ends with " ."; a line cut by SIGKILL is dropped).
    static func lines(_ path: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasSuffix(" .") }.map { String($0.dropLast(2)) }
    }
}
