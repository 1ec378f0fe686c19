/// What Truecaller's access-token check returns for a valid token (Docs/Providers/Truecaller.md):
/// the verified number and its country.
///
/// Personal data: the mirror, and so every rendering, shows the country and the number's last
/// four digits only.
public struct TruecallerPhoneNumberDetail: Sendable, Hashable, CustomReflectable {
    /// The number as digits with the country calling code and no `+`, e.g. `"919876543210"`
    /// (the wire sends a JSON number).
    public var phoneNumber: String
    /// The upper-case ISO 3166-1 alpha-2 country code, e.g. `"IN"`.
    public var countryCode: String

    /// Creates a detail.
    public init(phoneNumber: String, countryCode: String) {
        self.phoneNumber = phoneNumber
        self.countryCode = countryCode
    }

    /// The number in E.164 form: `"+"` followed by ``phoneNumber``.
    public var e164: String { "+" + phoneNumber }

    /// A mirror with the country and `••••3210`, the last four digits; Swift's default
    /// `description` is built from it.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["countryCode": countryCode, "phoneNumber": "••••" + String(phoneNumber.suffix(4))],
            displayStyle: .struct)
    }
}
