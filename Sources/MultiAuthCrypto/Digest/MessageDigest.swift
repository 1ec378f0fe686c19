/// One-shot SHA-1, SHA-256 and SHA-512 digests (FIPS 180-4), computed by libcrypto on Linux
/// and CryptoKit on Apple platforms.
public enum MessageDigest {
    /// Hashes `data` with `algorithm`.
    ///
    /// - Parameters:
    ///   - data: the message bytes.
    ///   - algorithm: the hash function.
    /// - Returns: the digest, ``DigestAlgorithm/byteCount`` bytes long.
    public static func hash(_ data: some Sequence<UInt8>, algorithm: DigestAlgorithm) -> [UInt8] {
        let bytes = Array(data)
        return CryptoBackend.digest(bytes, algorithm)
    }

    /// The SHA-1 digest (20 bytes) of `data`.
    public static func sha1(_ data: some Sequence<UInt8>) -> [UInt8] { hash(data, algorithm: .sha1) }

    /// The SHA-256 digest (32 bytes) of `data`.
    public static func sha256(_ data: some Sequence<UInt8>) -> [UInt8] { hash(data, algorithm: .sha256) }

    /// The SHA-512 digest (64 bytes) of `data`.
    public static func sha512(_ data: some Sequence<UInt8>) -> [UInt8] { hash(data, algorithm: .sha512) }
}
