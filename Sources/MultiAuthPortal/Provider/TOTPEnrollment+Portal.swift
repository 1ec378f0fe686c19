import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthQR

extension TOTPEnrollment {
    /// The base32 secret of the enrollment link, as the Portal SDK reads it (PortalSwift `TotpQrCode`):
    /// the last `secret` query parameter, percent-decoded, upper-cased, only `A–Z 2–7` with
    /// optional trailing `=` (and decodable, RFC 4648 §6); `nil` when absent or invalid.
    ///
    /// A ``/MultiAuth/Secret``: show it (`reveal()`) only to the user enrolling, never log it.
    public var totpSecret: Secret? {
        guard let query = otpauthURI.reveal().split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        var raw: Substring?
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0] == "secret" { raw = parts[1] }
        }
        guard let raw, let decoded = String(raw).removingPercentEncoding else { return nil }
        let secret = decoded.uppercased()
        let body = secret.prefix { $0 != "=" }
        guard !body.isEmpty, secret.dropFirst(body.count).allSatisfy({ $0 == "=" }),
            body.utf8.allSatisfy({ (65...90).contains($0) || (50...55).contains($0) }),
            (try? Base32.decode(body)) != nil
        else { return nil }
        return Secret(secret)
    }

    /// The enrollment link parsed strictly as a Key URI (``/MultiAuthCrypto/OTPAuthURI``): issuer,
    /// account, secret, algorithm, digits and period for an authenticator.
    /// - Throws: The ``/MultiAuthCrypto/CryptoError`` of `OTPAuthURI(parsing:)` (invalid URI,
    ///   percent escape, base32, algorithm, digits or period).
    public func parsedURI() throws -> OTPAuthURI {
        try OTPAuthURI(parsing: otpauthURI.reveal())
    }

    /// The enrollment link as a QR code (ISO/IEC 18004, byte mode, error-correction level M),
    /// for an authenticator app to scan; render it with ``/MultiAuthQR/QRCode/svg(moduleSize:quietZone:)`` or
    /// ``/MultiAuthQR/QRCode/terminalString(quietZone:darkOnLight:)`` (module `MultiAuthQR`; 4-module
    /// quiet zone by default).
    /// - Throws: `AuthError` `.unsupported` with provider code `totpQrUnavailable` when the link
    ///   is empty or too long for a version 40 symbol.
    public func qrCode() throws -> QRCode {
        do {
            return try QRCode(encoding: otpauthURI.reveal())
        } catch {
            throw AuthError(
                .unsupported, "the enrollment link cannot be shown as a QR code", provider: .portal,
                providerCode: "totpQrUnavailable")
        }
    }
}
