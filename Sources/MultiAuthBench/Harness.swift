import Foundation

/// One measured operation after its set-up: `run(n)` performs the operation `n` times and
/// returns the nanoseconds that took, timed by whoever does the work (this process, or a peer
/// process for the Python baselines, so pipe traffic is never counted). Not `Sendable`: a runner
/// stays in the task that made it, so the C-pointer floors it captures need no `@unchecked`.
struct Runner {
    let run: (Int) async throws -> Double
    /// Ends whatever the runner holds (a peer process); called once when a row is done.
    var close: () -> Void = {}
}

/// Something that can be measured: in this process (`make`) or as a Python peer.
struct Kernel: Sendable {
    /// A unique name, e.g. `"totp.ours"`; `--kernel NAME` runs it alone (instruction mode).
    let name: String
    /// Operations per timed batch: enough for a batch to take several milliseconds.
    let batch: Int
    /// Operations counted under callgrind (enough to make one-off costs negligible).
    let instructionIterations: Int
    /// Builds the runner (set-up is not measured). `nil` for a Python peer.
    let make: (@Sendable () async throws -> Runner)?
    /// The Python peer: script and arguments, started with `--serve` (time mode) or `--count N`.
    let python: [String]?
    /// Whether callgrind mode runs a few operations before counting (not for a first-use cost).
    var warmUp = true

    init(
        _ name: String, batch: Int, instructions: Int, warmUp: Bool = true,
        make: @escaping @Sendable () async throws -> Runner
    ) {
        self.name = name
        self.batch = batch
        self.instructionIterations = instructions
        self.make = make
        self.python = nil
        self.warmUp = warmUp
    }

    init(_ name: String, batch: Int, instructions: Int, python: [String]) {
        self.name = name
        self.batch = batch
        self.instructionIterations = instructions
        self.make = nil
        self.python = python
    }

    /// A runner whose operation is synchronous; `body(n)` performs `n` operations.
    static func timed(_ body: @escaping (Int) throws -> Void) -> Runner {
        Runner { count in
            let start = Clock.nanoseconds()
            try body(count)
            return Double(Clock.nanoseconds() - start)
        }
    }

    /// A runner whose operation is asynchronous.
    static func timedAsync(_ body: @escaping @Sendable (Int) async throws -> Void) -> Runner {
        Runner { count in
            let start = Clock.nanoseconds()
            try await body(count)
            return Double(Clock.nanoseconds() - start)
        }
    }
}

/// The clocks of the bench (never used by the library).
enum Clock {
    /// Monotonic wall time.
    static func nanoseconds() -> UInt64 { read(CLOCK_MONOTONIC) }

    /// CPU time of the whole process, user and system (every thread).
    static func cpuNanoseconds() -> UInt64 { read(CLOCK_PROCESS_CPUTIME_ID) }

    private static func read(_ clock: clockid_t) -> UInt64 {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

/// What a comparison's goal asks of the ratio ours / baseline.
enum Goal: Sendable {
    /// ours / baseline ≤ limit (e.g. TOTP ≤ 1.1× three raw HMACs).
    case atMost(Double)
    /// baseline / ours ≥ factor (e.g. ≥ 20× faster than pyotp).
    case fasterBy(Double)
    /// No goal: printed for information.
    case none

    /// The figure the goal is about, from the ratio ours / baseline.
    func figure(_ ratio: Double) -> Double {
        if case .fasterBy = self { return 1 / ratio }
        return ratio
    }

    func met(_ ratio: Double) -> Bool? {
        switch self {
        case .atMost(let limit): ratio <= limit
        case .fasterBy(let factor): 1 / ratio >= factor
        case .none: nil
        }
    }

    var text: String {
        switch self {
        case .atMost(let limit): String(format: "≤ %g×", limit)
        case .fasterBy(let factor): String(format: "≥ %g× faster", factor)
        case .none: ""
        }
    }

    /// How a figure is printed: `1.07×` or `23.4× faster`.
    func format(_ ratio: Double) -> String {
        if case .fasterBy = self { return String(format: "%.1f× faster", 1 / ratio) }
        return String(format: "%.3f×", ratio)
    }
}

/// A row of the report: our operation against a baseline doing the same work.
struct Comparison: Sendable {
    let group: String
    let label: String
    let ours: Kernel
    let baseline: Kernel
    let goal: Goal
    /// Which measurement the goal is judged on (instructions unless the operation's cost is
    /// mostly outside user space, where callgrind cannot see it).
    var judgedOnTime = false
    /// Why, printed under the table when set.
    var note: String?
}

/// Statistics of repeated measurements.
enum Stats {
    static func quantile(_ values: [Double], _ q: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let position = q * Double(sorted.count - 1)
        let low = Int(position.rounded(.down))
        let high = min(sorted.count - 1, low + 1)
        return sorted[low] + (sorted[high] - sorted[low]) * (position - Double(low))
    }

    static func median(_ values: [Double]) -> Double { quantile(values, 0.5) }
}

/// The machine's load average (Linux `/proc/loadavg`): 1, 5 and 15 minutes.
enum Load {
    static func average() -> (one: Double, five: Double, fifteen: Double)? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ").prefix(3).compactMap { Double($0) }
        guard fields.count == 3 else { return nil }
        return (fields[0], fields[1], fields[2])
    }

    static var text: String {
        guard let load = average() else { return "load average unavailable" }
        return String(
            format: "load average %.2f %.2f %.2f (1/5/15 min) on %d cores", load.one, load.five, load.fifteen,
            ProcessInfo.processInfo.activeProcessorCount)
    }
}

/// Time mode: ours and the baseline measured in alternating batches.
struct InterleavedResult {
    /// ours / baseline per pair of batches.
    var ratios: [Double]
    var oursNanos: [Double]
    var baselineNanos: [Double]
    var loadBefore: Double?
    var loadAfter: Double?

    var median: Double { Stats.median(ratios) }
    var lowerQuartile: Double { Stats.quantile(ratios, 0.25) }
    var upperQuartile: Double { Stats.quantile(ratios, 0.75) }
}

enum Interleave {
    /// Measures `repeats` pairs of batches; the order inside a pair alternates, so neither side
    /// always runs first, and a change of machine load lands on both sides of a pair.
    static func measure(_ comparison: Comparison, repeats: Int) async throws -> InterleavedResult {
        let ours = try await runner(for: comparison.ours)
        let baseline = try await runner(for: comparison.baseline)
        defer {
            ours.close()
            baseline.close()
        }
        let oursBatch = max(1, Int(Double(comparison.ours.batch) * Report.scale))
        let baselineBatch = max(1, Int(Double(comparison.baseline.batch) * Report.scale))
        // Warm-up: one batch each, not recorded.
        _ = try await ours.run(oursBatch)
        _ = try await baseline.run(baselineBatch)
        var result = InterleavedResult(ratios: [], oursNanos: [], baselineNanos: [], loadBefore: Load.average()?.one)
        for index in 0..<repeats {
            let a: Double
            let b: Double
            if index % 2 == 0 {
                a = try await ours.run(oursBatch) / Double(oursBatch)
                b = try await baseline.run(baselineBatch) / Double(baselineBatch)
            } else {
                b = try await baseline.run(baselineBatch) / Double(baselineBatch)
                a = try await ours.run(oursBatch) / Double(oursBatch)
            }
            result.oursNanos.append(a)
            result.baselineNanos.append(b)
            result.ratios.append(a / b)
        }
        result.loadAfter = Load.average()?.one
        return result
    }

    static func runner(for kernel: Kernel) async throws -> Runner {
        if let make = kernel.make { return try await make() }
        guard let python = kernel.python else { throw BenchError("kernel \(kernel.name) has nothing to run") }
        return try PythonPeer.start(python)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Keeps a computed value alive so the optimiser cannot drop the work that produced it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
