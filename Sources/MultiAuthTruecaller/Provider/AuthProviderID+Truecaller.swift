import MultiAuth

extension AuthProviderID {
    /// Truecaller-style verification provider.
    ///
    /// The id `TruecallerProvider` registers under by default; its string form, `"truecaller"`, keys the
    /// session store and must not change.
    public static let truecaller: AuthProviderID = "truecaller"
}
