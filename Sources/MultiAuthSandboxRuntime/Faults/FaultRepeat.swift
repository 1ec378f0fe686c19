/// How many times a ``FaultPlan`` rule fires before it is used up.
public enum FaultRepeat: Sendable, Hashable {
    /// Fires for the first matching request only.
    case once
    /// Fires for the first `n` matching requests.
    case times(Int)
    /// Fires for every matching request until removed.
    case always
}
