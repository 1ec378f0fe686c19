/// A public-key signature algorithm, named as in JWS (RFC 7518 §3.1).
///
/// Only asymmetric algorithms exist here: there is no `none` and no HMAC `HS*` value, so a
/// public key can never be used as an HMAC secret (no algorithm confusion).
public enum SignatureAlgorithm: String, Sendable, Hashable, CaseIterable, Codable {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3).
    case rs256 = "RS256"
    /// RSASSA-PKCS1-v1_5 with SHA-512 (RFC 7518 §3.3); Truecaller's `SHA512withRSA`.
    case rs512 = "RS512"
    /// ECDSA on P-256 with SHA-256 (RFC 7518 §3.4); signatures are raw `r || s`, 64 bytes.
    case es256 = "ES256"

    /// The hash function applied to the message before signing.
    public var digest: DigestAlgorithm {
        switch self {
        case .rs256, .es256: .sha256
        case .rs512: .sha512
        }
    }

    /// The key type this algorithm needs.
    public var keyType: KeyType {
        switch self {
        case .rs256, .rs512: .rsa
        case .es256: .p256
        }
    }
}
