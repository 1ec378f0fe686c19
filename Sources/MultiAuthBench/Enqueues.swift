import CMultiAuthBench
import Foundation

/// Jobs put on the Swift concurrency runtime's global executor per operation: each new task's
/// first run, each resumption of a suspended task, each default actor's processing job. A job
/// enqueued while a pool thread sleeps wakes it (a `futex` call and a context switch), which
/// callgrind does not count and time does; the same work done inline (an `await` that need not
/// suspend, a hop the runtime takes on the same thread) enqueues nothing. Counted by a hook on
/// the runtime's `swift_task_enqueueGlobal` in a fresh child process (`--enqueues KERNEL`).
enum Enqueues {
    /// Child side: installs the counting hook, warms `kernel` up, then runs `iterations`
    /// operations and returns the enqueues per operation.
    static func perOperation(_ kernel: Kernel, iterations: Int) async throws -> Double {
        guard let make = kernel.make else { throw BenchError("\(kernel.name) is not a Swift kernel") }
        guard mab_count_global_enqueues() == 0 else { throw BenchError("the runtime has no global enqueue hook") }
        let runner = try await make()
        _ = try await runner.run(max(1, iterations / 4))
        let before = mab_global_enqueues()
        _ = try await runner.run(iterations)
        let after = mab_global_enqueues()
        runner.close()
        return Double(after - before) / Double(iterations)
    }

    /// One row per comparison: enqueues per operation of ours and of the baseline, each counted
    /// in a child process of its own.
    static func rows(_ comparisons: [Comparison], iterations: Int) throws -> [InfoRow] {
        try comparisons.map { comparison in
            func count(_ kernel: Kernel) throws -> Double {
                let (status, output) = try ChildProcess.run(
                    Paths.executable, ["--enqueues", kernel.name, "--iterations", String(iterations)])
                guard status == 0, let value = Double(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                    throw BenchError("--enqueues \(kernel.name) exited with \(status) and printed \(output)")
                }
                return value
            }
            let ours = try count(comparison.ours)
            let baseline = try count(comparison.baseline)
            return InfoRow(
                group: comparison.group, label: "global executor enqueues per operation (ours vs baseline)",
                value: String(format: "%.2f vs %.2f", ours, baseline))
        }
    }
}
