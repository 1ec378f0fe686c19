/// Identifies a rule added to a ``FaultPlan``, for ``FaultPlan/remove(_:)``.
public struct FaultRuleID: Hashable, Sendable {
    let rawValue: UInt64
}
