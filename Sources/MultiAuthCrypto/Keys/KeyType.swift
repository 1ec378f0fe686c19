/// The kinds of asymmetric key MultiAuth handles.
public enum KeyType: String, Sendable, Hashable, CaseIterable, Codable {
    /// RSA, 2048 bits or more (RFC 7518 §3.3 requires at least 2048).
    case rsa = "RSA"
    /// ECDSA on NIST P-256 (`crv: P-256`, RFC 7518 §6.2.1.1).
    case p256 = "P-256"
}
