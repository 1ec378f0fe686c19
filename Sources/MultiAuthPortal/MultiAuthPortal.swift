/// Namespace for the `MultiAuthPortal` module; see DESIGN.md §1 for what it holds.
public enum MultiAuthPortalModule {
    /// The module's name, for diagnostics.
    public static let name = "MultiAuthPortal"
}
