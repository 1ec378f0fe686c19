/// Namespace for the `MultiAuthHTTP` module; see DESIGN.md §1 for what it holds.
public enum MultiAuthHTTPModule {
    /// The module's name, for diagnostics.
    public static let name = "MultiAuthHTTP"
}
