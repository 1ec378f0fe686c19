import Foundation
import MultiAuthServer

/// The bench's command line (see `main.swift` for why it runs off the main thread).
enum BenchMain {
    static let usage = """
        Usage: swift run -c release multiauth-bench [options]

          --repeats N          pairs of batches per row in time mode (default 15)
          --only GROUP         totp, jwt, jwks, phone, flow, store, bus, replay, serve, memory (repeatable)
          --redis URL          a Redis for the replay rows (redis://127.0.0.1:PORT; or MULTIAUTH_REDIS_URL)
          --time-only          skip the instruction-count mode
          --instructions-only  skip the time mode
          --smoke              a tiny, fast run (CI): 3 repeats of small batches, no instructions
          --json               JSON lines instead of tables

        Time mode interleaves ours and the baseline batch by batch and reports the median of the
        per-pair ratios with its interquartile range. Instruction mode (needs valgrind) runs each
        side alone under callgrind; its ratios are compared with the goals. The machine's load
        average is printed with every table.
        """

    static let allComparisons: [(group: String, rows: [Comparison])] = [
        ("totp", TOTPBench.comparisons), ("jwt", JWTBench.comparisons), ("phone", PhoneBench.comparisons),
        ("flow", FlowBench.comparisons), ("store", StoreBench.comparisons), ("bus", EventBusBench.comparisons),
        ("serve", ServeBench.comparisons),
    ]
    static let allKernels: [Kernel] =
        allComparisons.flatMap { $0.rows.flatMap { [$0.ours, $0.baseline] } } + [PhoneBench.first]

    /// Runs the command; returns the exit status. `processEntry` is the monotonic clock at the
    /// start of `main.swift`.
    static func run(_ arguments: [String], processEntry: UInt64) async throws -> Int32 {
        // The first statement of the task: the cold-start child reports main → here (the
        // concurrency runtime starting its first task) as a step of its own.
        let taskEntry = Clock.nanoseconds()
        if let status = try await runChildMode(arguments, processEntry: processEntry, taskEntry: taskEntry) {
            return status
        }

        let json = arguments.contains("--json")
        let smoke = arguments.contains("--smoke")
        let repeats = smoke ? 3 : max(3, value(after: "--repeats", in: arguments).flatMap { Int($0) } ?? 15)
        let groups = Set(
            arguments.indices.filter { arguments[$0] == "--only" && $0 + 1 < arguments.count }.map { arguments[$0 + 1] }
        )
        let wanted = { (group: String) in groups.isEmpty || groups.contains(group) }
        let timeMode = !arguments.contains("--instructions-only")
        let instructionMode = !smoke && !arguments.contains("--time-only") && Callgrind.isAvailable
        Report.scale = smoke ? 0.02 : 1

        if let url = value(after: "--redis", in: arguments)
            ?? ProcessInfo.processInfo.environment["MULTIAUTH_REDIS_URL"],
            !url.isEmpty
        {
            ReplayBench.redis = try RedisConfiguration(url: url)
        }
        let comparisons =
            allComparisons.filter { wanted($0.group) }.flatMap(\.rows)
            + (wanted("replay") ? ReplayBench.comparisons : [])
        let report = Report(json: json)
        // Memory first, so the other benchmarks' freed buffers do not count in its RSS.
        let memoryRows = wanted("memory") && !smoke ? MemoryBench.run() : []
        report.header(
            repeats: repeats, instructions: instructionMode,
            valgrindMissing: !smoke && !arguments.contains("--time-only") && !Callgrind.isAvailable)

        let timed = timeMode ? try await timeRows(comparisons, repeats: repeats, report: report) : [:]
        let counted = instructionMode ? try instructionRows(comparisons, report: report) : [:]
        let info = try await infoRows(
            wanted: wanted, timeMode: timeMode, instructionMode: instructionMode, smoke: smoke, repeats: repeats,
            timed: timed, memoryRows: memoryRows)
        if !info.isEmpty { report.infoRows(info) }
        report.goals(comparisons, timed: timed, counted: counted, info: info, instructionMode: instructionMode)
        return 0
    }

    /// The value after `flag` in `arguments`, if any.
    private static func value(after flag: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    // MARK: - Child modes

    /// Child modes: one kernel under callgrind; one first parse, one cold start, one first JSON
    /// decode or just the clock in a fresh process; and `--help`. Returns the exit status, or
    /// `nil` when the arguments ask for the tables.
    private static func runChildMode(
        _ arguments: [String], processEntry: UInt64, taskEntry: UInt64
    ) async throws -> Int32? {
        if let name = value(after: "--kernel", in: arguments) {
            guard let kernel = allKernels.first(where: { $0.name == name }),
                let iterations = value(after: "--iterations", in: arguments).flatMap({ Int($0) })
            else {
                FileHandle.standardError.write(Data("unknown kernel \(name)\n".utf8))
                return 2
            }
            try await Callgrind.runKernel(kernel, iterations: iterations)
            return 0
        }
        if let name = value(after: "--enqueues", in: arguments) {
            guard let kernel = allKernels.first(where: { $0.name == name }),
                let iterations = value(after: "--iterations", in: arguments).flatMap({ Int($0) })
            else {
                FileHandle.standardError.write(Data("unknown kernel \(name)\n".utf8))
                return 2
            }
            print(try await Enqueues.perOperation(kernel, iterations: iterations))
            return 0
        }
        if let directory = value(after: "--cold-start", in: arguments) {
            try await ColdStartBench.childFirstElement(
                directory: directory, processEntry: processEntry, taskEntry: taskEntry)
            return 0
        }
        if arguments.contains("--first-decode") {
            print(ColdStartBench.childFirstDecodes().map(String.init).joined(separator: " "))
            return 0
        }
        if arguments.contains("--process-start") {
            print(processEntry, processEntry)
            return 0
        }
        if arguments.contains("--first-parse") {
            print(PhoneBench.firstParseNanoseconds())
            return 0
        }
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        return nil
    }

    // MARK: - Tables

    /// Time mode: every comparison's interleaved batches, by `ours/baseline` name.
    private static func timeRows(
        _ comparisons: [Comparison], repeats: Int, report: Report
    ) async throws -> [String: InterleavedResult] {
        var timed: [String: InterleavedResult] = [:]
        report.section("time: interleaved batches, median of per-pair ratios [interquartile range]")
        for comparison in comparisons {
            let result = try await Interleave.measure(comparison, repeats: repeats)
            timed[comparison.ours.name + "/" + comparison.baseline.name] = result
            report.timeRow(comparison, result)
        }
        return timed
    }

    /// Instruction mode: each kernel's instructions per operation under callgrind, by name.
    private static func instructionRows(_ comparisons: [Comparison], report: Report) throws -> [String: Double] {
        var counted: [String: Double] = [:]
        report.section("instructions: each side alone under callgrind, per operation")
        // Network round trips are kernel and server time, invisible to callgrind.
        for comparison in comparisons where comparison.group != "replay" {
            for kernel in [comparison.ours, comparison.baseline] where counted[kernel.name] == nil {
                counted[kernel.name] = try Callgrind.instructionsPerOperation(kernel)
            }
            report.instructionRow(
                comparison, ours: counted[comparison.ours.name]!, baseline: counted[comparison.baseline.name]!)
        }
        return counted
    }

    /// The information rows (scaling, serve, enqueues, first parse, replay, memory, cold start)
    /// of the wanted groups.
    private static func infoRows(
        wanted: (String) -> Bool, timeMode: Bool, instructionMode: Bool, smoke: Bool, repeats: Int,
        timed: [String: InterleavedResult], memoryRows: [InfoRow]
    ) async throws -> [InfoRow] {
        var info: [InfoRow] = []
        if wanted("jwks") && timeMode { info += try await JWKSScalingBench.infoRows(repeats: repeats, smoke: smoke) }
        if wanted("store") && timeMode { info += try await StoreScalingBench.infoRows(repeats: repeats, smoke: smoke) }
        for comparison in ServeBench.comparisons {
            if let result = timed[comparison.ours.name + "/" + comparison.baseline.name] {
                info.append(ServeBench.info(result))
            }
        }
        if wanted("flow") { info += try Enqueues.rows(FlowBench.comparisons, iterations: smoke ? 20 : 400) }
        if wanted("phone") && !smoke {
            info.append(try FirstParse.row(instructions: instructionMode))
        }
        if wanted("replay") {
            let timedReplay = ReplayBench.comparisons.first.flatMap { timed[$0.ours.name + "/" + $0.baseline.name] }
            info += try await ReplayBench.infoRows(smoke: smoke, timed: timedReplay)
        }
        if wanted("memory") && !smoke {
            info += memoryRows
            info += try await ColdStartBench.run(repeats: 5)
        }
        return info
    }
}
