import Foundation

/// What a user needs to add an authenticator (TOTP) on first sign-in: the otpauth URI (with the
/// secret) to show as a QR code or link.
///
/// The URI contains the shared secret: `description` and the mirror never show it.
public struct TOTPEnrollment: Sendable, Codable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The `otpauth://totp/…` Key URI, secret included. Treat as secret.
    public var otpauthURI: String
    /// The issuer to display, if known.
    public var issuer: String?
    /// The account name to display, if known.
    public var account: String?

    /// Creates an enrollment.
    public init(otpauthURI: String, issuer: String? = nil, account: String? = nil) {
        self.otpauthURI = otpauthURI
        self.issuer = issuer
        self.account = account
    }

    /// `TOTPEnrollment(issuer: …, account: …, uri: <redacted>)`.
    public var description: String {
        "TOTPEnrollment(issuer: \(issuer ?? "-"), account: \(account ?? "-"), uri: <redacted>)"
    }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// A mirror without the URI.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["issuer": issuer as Any, "account": account as Any, "otpauthURI": "<redacted>"],
            displayStyle: .struct)
    }
}
