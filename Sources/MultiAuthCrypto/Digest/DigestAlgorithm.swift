/// A hash function from the SHA family (FIPS 180-4), as used by HMAC, HOTP/TOTP and RSA
/// signatures.
///
/// The raw values are the spellings of the Key URI Format `algorithm` parameter
/// (`SHA1`, `SHA256`, `SHA512`).
public enum DigestAlgorithm: String, Sendable, Hashable, CaseIterable, Codable {
    /// SHA-1: 20-byte digest. Only for HMAC in HOTP/TOTP (RFC 4226 §5.2), never for signatures.
    case sha1 = "SHA1"
    /// SHA-256: 32-byte digest.
    case sha256 = "SHA256"
    /// SHA-512: 64-byte digest.
    case sha512 = "SHA512"

    /// The digest length in bytes (20, 32 or 64).
    public var byteCount: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha512: 64
        }
    }

    /// Parses an algorithm name case-insensitively, accepting `SHA1`, `SHA-1`, `sha256`, ….
    ///
    /// - Parameter name: the name as written in a URI or configuration.
    /// - Throws: ``CryptoError/unsupportedAlgorithm`` for anything else.
    public init(name: String) throws {
        switch name.uppercased() {
        case "SHA1", "SHA-1": self = .sha1
        case "SHA256", "SHA-256": self = .sha256
        case "SHA512", "SHA-512": self = .sha512
        default: throw CryptoError.unsupportedAlgorithm
        }
    }
}
