import Foundation

/// The results of a conformance run: one ``ConformanceResult`` per check, renderable as an
/// aligned text table or as JSON.
public struct ConformanceReport: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The provider id the checks ran against.
    public var provider: String
    /// The results, in the order the checks ran.
    public var results: [ConformanceResult]

    /// Creates a report.
    public init(provider: String, results: [ConformanceResult]) {
        self.provider = provider
        self.results = results
    }

    /// The checks that passed.
    public var passed: [ConformanceResult] { results.filter { $0.status == .passed } }
    /// The checks that failed.
    public var failed: [ConformanceResult] { results.filter { $0.status == .failed } }
    /// The checks that were skipped (never counted as passed).
    public var skipped: [ConformanceResult] { results.filter { $0.status == .skipped } }
    /// Whether no check failed (skipped checks are allowed but reported).
    public var isConforming: Bool { failed.isEmpty }

    /// The result of check `id` (e.g. `"C07"`), if it ran.
    public func result(for id: String) -> ConformanceResult? { results.first { $0.id == id } }

    /// The result of `check`, if it ran.
    public func result(for check: ConformanceCheck) -> ConformanceResult? { result(for: check.rawValue) }

    /// An aligned table, one line per check (`ID  STATUS  TITLE  DETAIL`), then a summary line,
    /// e.g. `reference: 20 checks, 19 passed, 0 failed, 1 skipped`. Titles wider than
    /// `titleWidth` characters are cut with `…`.
    public func renderTable(titleWidth: Int = 60) -> String {
        let rows = results.map { result -> [String] in
            let title =
                result.title.count > titleWidth ? String(result.title.prefix(titleWidth - 1)) + "…" : result.title
            return [result.id, result.status.rawValue, title, result.detail ?? ""]
        }
        let header = ["ID", "STATUS", "TITLE", "DETAIL"]
        let widths = (0..<3).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ row: [String]) -> String {
            let padded = (0..<3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
            return (padded + [row[3]]).joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        let summary =
            "\(provider): \(results.count) checks, \(passed.count) passed, \(failed.count) failed, \(skipped.count) skipped"
        return ([line(header)] + rows.map(line) + [summary]).joined(separator: "\n")
    }

    /// The report as JSON (`{"provider": …, "results": [{"id", "title", "status", "detail"}]}`),
    /// keys sorted.
    /// - Throws: `EncodingError` (not expected for this type).
    public func jsonData(prettyPrinted: Bool = true) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            prettyPrinted
            ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// The table (``renderTable(titleWidth:)``).
    public var description: String { renderTable() }
}
