// `multiauth-bench`: speed and memory of MultiAuth against baselines measured side by side in
// the same run. Run it in release: `swift run -c release multiauth-bench [--json] [--repeats N]`.
import Foundation

#if DEBUG
FileHandle.standardError.write(Data("multiauth-bench: this is a debug build; numbers are meaningless. Use: swift run -c release multiauth-bench\n".utf8))
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print("""
        Usage: swift run -c release multiauth-bench [--json] [--repeats N] [--only GROUP]

        Measures the event bus, TOTP verification, FileSessionStore, memory and cold start,
        each against a baseline measured in the same run, and prints a table (or JSON lines).
        Every figure is the median of N repeats (default 5).

        Groups: bus, totp, store, memory, cold, flow
        """)
    exit(0)
}
let json = arguments.contains("--json")
var repeats = 5
if let index = arguments.firstIndex(of: "--repeats"), index + 1 < arguments.count, let value = Int(arguments[index + 1]), value > 0 {
    repeats = value
}
let only: String? = arguments.firstIndex(of: "--only").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }

func wanted(_ group: String) -> Bool { only == nil || only == group }

var rows: [BenchRow] = []
// Memory first, so the other benchmarks' freed buffers do not count in its RSS.
let memoryRows = wanted("memory") ? MemoryBench.run() : []
if wanted("bus") { rows += await EventBusBench.run(repeats: repeats) }
if wanted("totp") { rows += try TOTPBench.run(repeats: repeats) }
if wanted("store") { rows += try await StoreBench.run(repeats: repeats) }
if wanted("cold") { rows += try await ColdStartBench.run(repeats: repeats) }
if wanted("flow") { rows += try await FlowBench.run(repeats: repeats) }
rows += memoryRows

func format(_ value: Double) -> String {
    if value >= 100_000 { return String(format: "%.3g", value) }
    if value >= 100 { return String(format: "%.0f", value) }
    return String(format: "%.2f", value)
}

if json {
    for row in rows {
        var object: [String: Any] = ["group": row.group, "name": row.name, "value": row.value, "unit": row.unit]
        if let baseline = row.baseline { object["baseline"] = baseline }
        if let goal = row.goal { object["goal"] = goal }
        if let met = row.met { object["met"] = met }
        if let label = row.ratioLabel { object["ratio"] = label }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }
} else {
    let header = ["group", "measure", "value", "unit", "vs baseline", "goal", ""]
    let table = rows.map { row in
        [row.group, row.name, format(row.value), row.unit, row.ratioLabel ?? "", row.goal ?? "", row.met.map { $0 ? "met" : "MISSED" } ?? ""]
    }
    var widths = header.map(\.count)
    for line in table { for (index, cell) in line.enumerated() { widths[index] = max(widths[index], cell.count) } }
    func render(_ cells: [String]) -> String {
        cells.enumerated().map { index, cell in
            index == 2 ? String(repeating: " ", count: widths[index] - cell.count) + cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
        }.joined(separator: "  ")
    }
    print(render(header))
    print(widths.map { String(repeating: "─", count: $0) }.joined(separator: "  "))
    for line in table { print(render(line)) }
    print("\n\(repeats) repeats per figure; \(ProcessInfo.processInfo.activeProcessorCount) cores.")
}
