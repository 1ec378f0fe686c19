/// Ends a conformance check: a failed assertion (``ConformanceResult/Status/failed``) or, with
/// `isSkip`, a check the provider does not support. The detail is secret-free by construction:
/// it names fields, counts and error codes, never values.
public struct ConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// What failed, or why the check was skipped.
    public var detail: String
    /// Whether this ends the check as skipped rather than failed.
    public var isSkip: Bool

    /// A failed assertion.
    public init(_ detail: String) {
        self.detail = detail
        self.isSkip = false
    }

    /// A skip with its reason.
    public static func skip(_ reason: String) -> ConformanceFailure {
        var failure = ConformanceFailure(reason)
        failure.isSkip = true
        return failure
    }

    /// The detail.
    public var description: String { detail }
}
