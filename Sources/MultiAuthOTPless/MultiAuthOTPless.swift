/// Namespace for the `MultiAuthOTPless` module; see DESIGN.md §1 for what it holds.
public enum MultiAuthOTPlessModule {
    /// The module's name, for diagnostics.
    public static let name = "MultiAuthOTPless"
}
