/// Namespace for the `MultiAuthDynamic` module; see DESIGN.md §1 for what it holds.
public enum MultiAuthDynamicModule {
    /// The module's name, for diagnostics.
    public static let name = "MultiAuthDynamic"
}
