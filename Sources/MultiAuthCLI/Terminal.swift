import Foundation

/// Output helpers: standard output and error, aligned tables.
enum Terminal {
    /// Writes `text` and a newline to standard output.
    static func out(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes `text` and a newline to standard error.
    static func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Renders rows as left-aligned columns separated by two spaces (the last column is not padded).
    static func table(_ rows: [[String]], header: [String]? = nil) -> String {
        let all = (header.map { [$0] } ?? []) + rows
        guard let columns = all.map(\.count).max(), columns > 0 else { return "" }
        var widths = Array(repeating: 0, count: columns)
        for row in all {
            for (index, cell) in row.enumerated() where index < columns - 1 {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func render(_ row: [String]) -> String {
            row.enumerated().map { index, cell in
                index < row.count - 1 ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) : cell
            }.joined(separator: "  ")
        }
        var lines = all.map(render)
        if header != nil {
            lines.insert(widths.prefix(columns - 1).map { String(repeating: "─", count: $0) }.joined(separator: "  ")
                + "  " + String(repeating: "─", count: max(4, all.map { $0.last?.count ?? 0 }.max() ?? 0)), at: 1)
        }
        return lines.joined(separator: "\n")
    }

    /// JSON for one value, keys sorted, on one line.
    static func jsonLine(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
