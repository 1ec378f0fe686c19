import MultiAuth

extension AuthProviderID {
    /// OTPLESS-style headless provider.
    ///
    /// The id `OTPlessProvider` registers under by default; its string form, `"otpless"`, keys the
    /// session store and must not change.
    public static let otpless: AuthProviderID = "otpless"
}
