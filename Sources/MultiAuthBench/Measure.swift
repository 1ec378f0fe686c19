import Foundation

/// Timing helpers: every figure is a median over repeated runs in one process.
enum Measure {
    static let clock = ContinuousClock()

    /// Runs `body` (which performs `operations` operations) `repeats` times and returns the
    /// median nanoseconds per operation.
    static func nanosPerOperation(repeats: Int, operations: Int, _ body: () throws -> Void) rethrows -> Double {
        var samples: [Double] = []
        for _ in 0..<repeats {
            let elapsed = try clock.measure(body)
            samples.append(elapsed.nanoseconds / Double(operations))
        }
        return median(samples)
    }

    /// The async variant of ``nanosPerOperation(repeats:operations:_:)``.
    static func nanosPerOperation(repeats: Int, operations: Int, _ body: () async throws -> Void) async rethrows -> Double {
        var samples: [Double] = []
        for _ in 0..<repeats {
            let start = clock.now
            try await body()
            samples.append((clock.now - start).nanoseconds / Double(operations))
        }
        return median(samples)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// The `p`-th percentile (0...100) of `values`.
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let index = min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count - 1)).rounded())))
        return sorted[index]
    }

    /// Resident set size of this process in bytes (Linux `/proc/self/statm`; 0 elsewhere).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

extension Duration {
    /// The duration in nanoseconds, as a `Double`.
    var nanoseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}

/// One row of the report.
struct BenchRow {
    var group: String
    var name: String
    var value: Double
    var unit: String
    var baseline: Double?
    var ratioLabel: String?
    var goal: String?
    var met: Bool?
}
