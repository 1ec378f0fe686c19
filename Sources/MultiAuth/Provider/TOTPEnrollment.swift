import Foundation

/// What a user needs to add an authenticator (TOTP) on first sign-in: the otpauth URI (with the
/// secret) to show as a QR code or link.
///
/// The URI contains the shared secret, so it is a ``Secret``: every rendering shows
/// `<redacted>` in its place.
public struct TOTPEnrollment: Sendable, Codable, Hashable {
    /// The `otpauth://totp/…` Key URI, secret included; read it with ``Secret/reveal()``.
    public var otpauthURI: Secret
    /// The issuer to display, if known.
    public var issuer: String?
    /// The account name to display, if known.
    public var account: String?

    /// Creates an enrollment.
    public init(otpauthURI: Secret, issuer: String? = nil, account: String? = nil) {
        self.otpauthURI = otpauthURI
        self.issuer = issuer
        self.account = account
    }
}
