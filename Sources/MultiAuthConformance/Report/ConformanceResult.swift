/// The outcome of one conformance check.
public struct ConformanceResult: Sendable, Codable, Hashable, CustomStringConvertible {
    /// Whether a check passed, failed or was skipped.
    public enum Status: String, Sendable, Codable, Hashable {
        /// Every assertion of the check held.
        case passed
        /// An assertion failed; ``ConformanceResult/detail`` names the first one.
        case failed
        /// The provider (or its harness) does not support what the check needs;
        /// ``ConformanceResult/detail`` gives the reason. Never counted as passed.
        case skipped
    }

    /// The check id, e.g. `"C02"`.
    public var id: String
    /// The check's one-line title.
    public var title: String
    /// The outcome.
    public var status: Status
    /// The first failed assertion, or the skip reason; `nil` when passed. Secret-free.
    public var detail: String?

    /// Creates a result.
    public init(id: String, title: String, status: Status, detail: String? = nil) {
        self.id = id
        self.title = title
        self.status = status
        self.detail = detail
    }

    /// Whether the check passed.
    public var passed: Bool { status == .passed }

    /// e.g. `C04 failed: wrong code: expected invalidCode, got generic`.
    public var description: String { "\(id) \(status)" + (detail.map { ": \($0)" } ?? "") }
}
