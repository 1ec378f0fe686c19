/// Namespace for the `MultiAuthCrypto` module; see DESIGN.md §1 for what it holds.
public enum MultiAuthCryptoModule {
    /// The module's name, for diagnostics.
    public static let name = "MultiAuthCrypto"
}
