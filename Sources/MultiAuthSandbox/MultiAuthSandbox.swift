/// Namespace for the `MultiAuthSandbox` module; see DESIGN.md §1 for what it holds.
public enum MultiAuthSandboxModule {
    /// The module's name, for diagnostics.
    public static let name = "MultiAuthSandbox"
}
