import Foundation

/// The outcome of one store conformance check.
public struct StoreConformanceResult: Sendable, Codable, Hashable, CustomStringConvertible {
    /// Whether a check passed, failed or was skipped.
    public enum Status: String, Sendable, Codable, Hashable {
        /// Every assertion held.
        case passed
        /// An assertion failed; ``StoreConformanceResult/detail`` names the first one.
        case failed
        /// The subject cannot provide what the check needs; never counted as passed.
        case skipped
    }

    /// The check id, e.g. `"S02"`.
    public var id: String
    /// The check's title.
    public var title: String
    /// The outcome.
    public var status: Status
    /// The first failed assertion or the skip reason; `nil` when passed. Never a key's source.
    public var detail: String?

    /// Creates a result.
    public init(id: String, title: String, status: Status, detail: String? = nil) {
        self.id = id
        self.title = title
        self.status = status
        self.detail = detail
    }

    /// e.g. `S02 failed: round 1: 7 of 32 racers were accepted`.
    public var description: String { "\(id) \(status.rawValue)" + (detail.map { ": \($0)" } ?? "") }
}

/// The results of a store conformance run: one result per check, as a text table or JSON, for
/// any test framework (or none).
public struct StoreConformanceReport: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The subject's name, e.g. `redis`.
    public var subject: String
    /// The results, in check order.
    public var results: [StoreConformanceResult]

    /// Creates a report.
    public init(subject: String, results: [StoreConformanceResult]) {
        self.subject = subject
        self.results = results
    }

    /// The checks that failed.
    public var failed: [StoreConformanceResult] { results.filter { $0.status == .failed } }
    /// The checks that were skipped.
    public var skipped: [StoreConformanceResult] { results.filter { $0.status == .skipped } }
    /// Whether no check failed (skipped ones are listed, not failed).
    public var isConforming: Bool { failed.isEmpty }

    /// The result of `check`, if it ran.
    public func result(for check: StoreConformanceCheck) -> StoreConformanceResult? {
        results.first { $0.id == check.rawValue }
    }

    /// One line per check (`ID  STATUS  TITLE  DETAIL`) and a summary line.
    public func renderTable() -> String {
        let lines = results.map { result in
            [result.id, result.status.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0), result.title]
                .joined(separator: "  ") + (result.detail.map { "  (\($0))" } ?? "")
        }
        let passed = results.count - failed.count - skipped.count
        return
            (lines + [
                "\(subject): \(results.count) checks, \(passed) passed, \(failed.count) failed, \(skipped.count) skipped"
            ]).joined(separator: "\n")
    }

    /// The report as JSON, keys sorted.
    ///
    /// - Throws: `EncodingError` (not expected for this type).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    /// The table.
    public var description: String { renderTable() }
}
