import CMultiAuthCrypto
import Foundation

/// A row that is not a comparison: an absolute figure with an optional goal.
struct InfoRow {
    var group: String
    var label: String
    var value: String
    var goal: String?
    var met: Bool?
}

/// Prints tables (or JSON lines) and the goals.
final class Report {
    /// Batch sizes are multiplied by this (0.02 in `--smoke`).
    nonisolated(unsafe) static var scale = 1.0

    let json: Bool
    init(json: Bool) { self.json = json }

    private func emit(_ object: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        print(String(decoding: data, as: UTF8.self))
    }

    func header(repeats: Int, instructions: Bool, valgrindMissing: Bool) {
        let openssl = String(cString: OpenSSL_version(OPENSSL_VERSION))
        let date = ISO8601DateFormatter().string(from: Date())
        if json {
            emit([
                "type": "run", "date": date, "cores": ProcessInfo.processInfo.activeProcessorCount, "load": Load.text,
                "openssl": openssl, "repeats": repeats, "instructions": instructions,
            ])
            return
        }
        print("multiauth-bench \(date)")
        print("\(ProcessInfo.processInfo.activeProcessorCount) cores, \(openssl); \(Load.text) at start")
        if valgrindMissing {
            print("valgrind not found: instruction counts skipped (install valgrind for the figures the goals use)")
        }
    }

    func section(_ title: String) {
        if json { return }
        print("\n== \(title) — \(Load.text)")
    }

    private static func nanos(_ value: Double) -> String {
        if value >= 1_000_000 { return String(format: "%.2f ms", value / 1_000_000) }
        if value >= 10_000 { return String(format: "%.1f µs", value / 1_000) }
        if value >= 1_000 { return String(format: "%.2f µs", value / 1_000) }
        return String(format: "%.0f ns", value)
    }

    private static func count(_ value: Double) -> String {
        if value >= 1_000_000 { return String(format: "%.2f M", value / 1_000_000) }
        if value >= 10_000 { return String(format: "%.1f k", value / 1_000) }
        if value >= 1_000 { return String(format: "%.2f k", value / 1_000) }
        return String(format: "%.0f", value)
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    func timeRow(_ comparison: Comparison, _ result: InterleavedResult) {
        let goal = comparison.goal
        let ours = Stats.median(result.oursNanos)
        let base = Stats.median(result.baselineNanos)
        if json {
            emit([
                "type": "time", "group": comparison.group, "label": comparison.label, "ours": comparison.ours.name,
                "baseline": comparison.baseline.name, "oursNanos": ours, "baselineNanos": base, "ratio": result.median,
                "ratioQ1": result.lowerQuartile, "ratioQ3": result.upperQuartile, "pairs": result.ratios.count,
                "loadBefore": result.loadBefore ?? -1, "loadAfter": result.loadAfter ?? -1,
            ])
            return
        }
        // For "faster by" goals the quartiles swap when inverted.
        let spread =
            if case .fasterBy = goal {
                String(format: "[%.1f–%.1f]", 1 / result.upperQuartile, 1 / result.lowerQuartile)
            } else {
                String(format: "[%.3f–%.3f]", result.lowerQuartile, result.upperQuartile)
            }
        print(
            Self.pad(comparison.group, 11) + Self.pad(comparison.label, 70) + Self.pad("ours " + Self.nanos(ours), 16)
                + Self.pad("base " + Self.nanos(base), 16) + Self.pad(goal.format(result.median) + " " + spread, 30)
                + String(format: "load %.1f→%.1f", result.loadBefore ?? -1, result.loadAfter ?? -1))
    }

    func instructionRow(_ comparison: Comparison, ours: Double, baseline: Double) {
        let ratio = ours / baseline
        if json {
            emit([
                "type": "instructions", "group": comparison.group, "label": comparison.label,
                "ours": comparison.ours.name,
                "baseline": comparison.baseline.name, "oursInstructions": ours, "baselineInstructions": baseline,
                "ratio": ratio,
            ])
            return
        }
        print(
            Self.pad(comparison.group, 11) + Self.pad(comparison.label, 70) + Self.pad("ours " + Self.count(ours), 16)
                + Self.pad("base " + Self.count(baseline), 16) + comparison.goal.format(ratio))
    }

    func infoRows(_ rows: [InfoRow]) {
        if json {
            for row in rows {
                var object: [String: Any] = [
                    "type": "info", "group": row.group, "label": row.label, "value": row.value,
                ]
                if let goal = row.goal { object["goal"] = goal }
                if let met = row.met { object["met"] = met }
                emit(object)
            }
            return
        }
        print("\n== absolute figures — \(Load.text)")
        for row in rows {
            print(
                Self.pad(row.group, 11) + Self.pad(row.label, 70) + Self.pad(row.value, 46)
                    + (row.goal.map { "goal \($0)" } ?? ""))
        }
    }

    /// Every goal with the figure it is judged on and whether it is met.
    func goals(
        _ comparisons: [Comparison], timed: [String: InterleavedResult], counted: [String: Double], info: [InfoRow],
        instructionMode: Bool
    ) {
        var lines: [(String, Bool?)] = []
        for comparison in comparisons {
            if case .none = comparison.goal { continue }
            let key = comparison.ours.name + "/" + comparison.baseline.name
            let useTime = comparison.judgedOnTime || !instructionMode
            let timeRatio = timed[key]?.median
            var instructionRatio: Double?
            if let ours = counted[comparison.ours.name], let base = counted[comparison.baseline.name] {
                instructionRatio = ours / base
            }
            guard let ratio = useTime ? timeRatio : instructionRatio else { continue }
            let met = comparison.goal.met(ratio)
            let timeName = comparison.label.contains("CPU time") ? "CPU time" : "time"
            var figures: [String] = []
            if let instructionRatio { figures.append("instructions \(comparison.goal.format(instructionRatio))") }
            if let timeRatio { figures.append("\(timeName) \(comparison.goal.format(timeRatio))") }
            let basis = useTime ? timeName : "instructions"
            lines.append(
                (
                    "\(comparison.group): \(comparison.label) — \(figures.joined(separator: ", ")); goal \(comparison.goal.text) on \(basis)",
                    met
                ))
            if json {
                emit([
                    "type": "goal", "group": comparison.group, "label": comparison.label, "basis": basis,
                    "ratio": ratio,
                    "goal": comparison.goal.text, "met": met ?? NSNull(),
                ])
            }
        }
        for row in info where row.goal != nil {
            // Absolute figures are times (with their instruction counts alongside).
            lines.append(("\(row.group): \(row.label): \(row.value), goal \(row.goal!)", row.met))
        }
        if json { return }
        print("\n== goals")
        for (line, met) in lines { print((met == true ? "met     " : met == false ? "MISSED  " : "        ") + line) }
        var notes: [String] = []
        for comparison in comparisons { if let note = comparison.note, !notes.contains(note) { notes.append(note) } }
        for note in notes { print("note: \(note)") }
        if !instructionMode {
            print("note: without instruction counts, goals are judged on the time ratios (they move with load).")
        }
        print("\nfinished; \(Load.text)")
    }
}

/// The first phone parse of a process: timed in fresh child processes, counted under callgrind.
enum FirstParse {
    static func row(instructions: Bool) throws -> InfoRow {
        var samples: [Double] = []
        for _ in 0..<15 {
            let output = try ChildProcess.run(Paths.executable, ["--first-parse"]).output
            guard let value = Double(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw BenchError("--first-parse printed \(output)")
            }
            samples.append(value)
        }
        let median = Stats.median(samples)
        var value = String(
            format: "p50 %.3f ms [%.3f–%.3f] over 15 processes", median / 1e6, Stats.quantile(samples, 0.25) / 1e6,
            Stats.quantile(samples, 0.75) / 1e6)
        if instructions {
            let count = try Callgrind.instructionsPerOperation(PhoneBench.first)
            value += String(format: ", %.2f M instructions", count / 1e6)
        }
        return InfoRow(
            group: "phone", label: "first parse in a fresh process (metadata built on first use)", value: value,
            goal: "< 1 ms", met: median < 1e6)
    }
}
