/// Namespace for the `MultiAuthConformance` module; see DESIGN.md §1 for what it holds.
public enum MultiAuthConformanceModule {
    /// The module's name, for diagnostics.
    public static let name = "MultiAuthConformance"
}
