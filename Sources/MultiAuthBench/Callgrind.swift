import CMultiAuthBench
import Foundation
import MultiAuthSpawn

/// Instruction-count mode: each kernel runs alone in a fresh process under
/// `valgrind --tool=callgrind`. Instruction counts do not move with the machine's load, so
/// these are the ratios compared with the goals.
///
/// - A Swift kernel (`multiauth-bench --kernel NAME --iterations N`) sets up, warms up, then
///   brackets exactly its N operations with callgrind client requests (zero the counters,
///   dump them): every thread's instructions in between are counted (consumer tasks and the
///   concurrency runtime included), nothing before or after.
/// - A Python peer cannot mark its measured region, so it runs twice (`--count N` and
///   `--count 3N`) and the difference is divided by 2N: interpreter start-up and imports cancel.
enum Callgrind {
    static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/valgrind")
            || (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
                FileManager.default.isExecutableFile(atPath: "\($0)/valgrind")
            }
    }

    /// Instructions per operation of `kernel`.
    static func instructionsPerOperation(_ kernel: Kernel) throws -> Double {
        let directory = try Paths.temporaryDirectory("callgrind")
        defer { try? FileManager.default.removeItem(at: directory) }
        if let python = kernel.python {
            let small = kernel.instructionIterations
            let interpreter = try pythonExecutable()
            let first = try totalInstructions(
                [interpreter] + python + ["--count", "\(small)"], directory: directory, tag: "a")
            let second = try totalInstructions(
                [interpreter] + python + ["--count", "\(3 * small)"], directory: directory, tag: "b")
            return (second - first) / Double(2 * small)
        }
        let out = directory.appendingPathComponent("cg").path
        let executable = withoutDebugInfo(Paths.executable, in: directory)
        try runValgrind(
            [executable, "--kernel", kernel.name, "--iterations", "\(kernel.instructionIterations)"], outFile: out
        )
        // The client request's dump is part 1; the dump at exit is the rest of the run.
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("cg") }
        guard let part = files.first(where: { $0.hasSuffix(".1") }) else {
            throw BenchError("callgrind wrote no dump for \(kernel.name) (files: \(files))")
        }
        let total = try instructions(in: directory.appendingPathComponent(part).path)
        return total / Double(kernel.instructionIterations)
    }

    /// A copy of `executable` without debug information (`strip --strip-debug`, which changes no
    /// instruction), or `executable` itself when `strip` is missing or fails. Valgrind 3.19
    /// cannot read the DWARF 5 that Swift 6.3's release builds carry ("unhandled dwarf2 abbrev
    /// form code 0x25") and stops before the program runs.
    static func withoutDebugInfo(_ executable: String, in directory: URL) -> String {
        let copy = directory.appendingPathComponent("multiauth-bench-stripped").path
        let completed = try? SpawnedProcess.run(
            "/usr/bin/env", arguments: ["strip", "--strip-debug", "-o", copy, executable])
        guard completed?.termination == .exited(0), FileManager.default.isExecutableFile(atPath: copy) else {
            return executable
        }
        return copy
    }

    /// The Python interpreter itself (`sys.executable`): `python3` on the PATH may be a shim
    /// script that valgrind would measure instead.
    static func pythonExecutable() throws -> String {
        let (status, output) = try ChildProcess.run(
            "/usr/bin/env", ["python3", "-c", "import sys; print(sys.executable)"])
        let path = output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0, !path.isEmpty else { throw BenchError("cannot find the python3 interpreter") }
        return path
    }

    /// Instructions of a whole run of `command` (collection on from the start).
    private static func totalInstructions(_ command: [String], directory: URL, tag: String) throws -> Double {
        let out = directory.appendingPathComponent("py-\(tag)").path
        try runValgrind(command, outFile: out)
        return try instructions(in: out)
    }

    private static func runValgrind(_ command: [String], outFile: String) throws {
        let completed = try SpawnedProcess.run(
            "/usr/bin/env",
            arguments: [
                "valgrind", "--tool=callgrind", "--callgrind-out-file=\(outFile)", "--dump-line=no",
                "--compress-strings=no", "--compress-pos=no",
            ] + command)
        guard completed.termination == .exited(0) else {
            throw BenchError(
                "valgrind \(command.dropFirst().joined(separator: " ")) failed (\(completed.termination)): "
                    + String(decoding: completed.standardError.suffix(600), as: UTF8.self))
        }
    }

    /// The `Ir` total of a callgrind output file (its `totals:` or `summary:` line).
    static func instructions(in path: String) throws -> Double {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for line in text.split(separator: "\n").reversed() where line.hasPrefix("totals:") || line.hasPrefix("summary:")
        {
            if let value = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) { return value }
        }
        throw BenchError("no instruction total in \(path)")
    }

    /// `--kernel NAME --iterations N`: the child side of ``instructionsPerOperation(_:)``.
    static func runKernel(_ kernel: Kernel, iterations: Int) async throws {
        guard let make = kernel.make else { throw BenchError("\(kernel.name) is not a Swift kernel") }
        let runner = try await make()
        // Warm-up outside the counted region: lazy statics, caches, first allocations.
        if kernel.warmUp { _ = try await runner.run(max(1, min(iterations, kernel.batch) / 4)) }
        mab_callgrind_zero()
        _ = try await runner.run(iterations)
        mab_callgrind_dump()
        runner.close()
    }
}
