/// Comparisons whose running time does not depend on where two byte strings differ.
public enum ConstantTime {
    /// Compares two byte strings in time that depends only on their lengths.
    ///
    /// Uses `CRYPTO_memcmp` on Linux. Strings of different lengths are unequal (the length
    /// itself is not secret).
    /// - Returns: `true` when both have the same length and the same bytes.
    public static func equals(_ lhs: some Sequence<UInt8>, _ rhs: some Sequence<UInt8>) -> Bool {
        let a = Array(lhs)
        let b = Array(rhs)
        guard a.count == b.count else { return false }
        return CryptoBackend.constantTimeEquals(a, b)
    }
}
