import MultiAuth

extension AuthProviderID {
    /// Dynamic-style email/SMS OTP provider.
    ///
    /// The id `DynamicProvider` registers under by default; its string form, `"dynamic"`, keys the
    /// session store and must not change.
    public static let dynamic: AuthProviderID = "dynamic"
}
