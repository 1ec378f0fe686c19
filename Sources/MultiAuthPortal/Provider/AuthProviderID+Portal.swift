import MultiAuth

extension AuthProviderID {
    /// Portal-style redirect + TOTP provider.
    ///
    /// The id `PortalProvider` registers under by default; its string form, `"portal"`, keys the
    /// session store and must not change.
    public static let portal: AuthProviderID = "portal"
}
