/// Identifies a rule added to a ``FaultPlan``, for ``FaultPlan/remove(_:)``.
public struct FaultRuleID: Hashable, Sendable {
    let rawValue: UInt64

    /// The rule's number (1, 2, …, in the order rules were added to their plan).
    package var number: UInt64 { rawValue }

    /// The id of rule `number` (test and control-API support).
    package init(number: UInt64) { rawValue = number }

    init(rawValue: UInt64) { self.rawValue = rawValue }
}
