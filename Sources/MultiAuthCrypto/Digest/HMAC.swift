/// One-shot HMAC (RFC 2104) over SHA-1, SHA-256 or SHA-512.
///
/// For many MACs under one key (HOTP/TOTP windows) use ``HMACKey``, which sets the key up
/// once.
public enum HMAC {
    /// Computes the HMAC of `message` under `key`.
    ///
    /// - Parameters:
    ///   - message: the message bytes.
    ///   - key: the key bytes; any length, including 0 (RFC 2104 §2).
    ///   - algorithm: the hash function.
    /// - Returns: the MAC, ``DigestAlgorithm/byteCount`` bytes long.
    public static func authenticationCode(
        for message: some Sequence<UInt8>, key: some Sequence<UInt8>, algorithm: DigestAlgorithm
    ) -> [UInt8] {
        CryptoBackend.hmac(key: Array(key), message: Array(message), algorithm)
    }

    /// Checks `mac` against the HMAC of `message` under `key` in constant time.
    ///
    /// - Returns: `true` when `mac` has the full digest length and equals the computed MAC.
    public static func isValidAuthenticationCode(
        _ mac: some Sequence<UInt8>, for message: some Sequence<UInt8>, key: some Sequence<UInt8>,
        algorithm: DigestAlgorithm
    ) -> Bool {
        ConstantTime.equals(Array(mac), authenticationCode(for: message, key: key, algorithm: algorithm))
    }
}
