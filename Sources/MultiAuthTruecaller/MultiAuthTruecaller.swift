/// Namespace for the `MultiAuthTruecaller` module; see DESIGN.md §1 for what it holds.
public enum MultiAuthTruecallerModule {
    /// The module's name, for diagnostics.
    public static let name = "MultiAuthTruecaller"
}
