/// Cryptographically secure random bytes from the system's generator (`RAND_bytes` on Linux,
/// `SecRandomCopyBytes` on Apple platforms).
public enum SecureRandom {
    /// Returns `count` random bytes.
    ///
    /// - Parameter count: the number of bytes, 0 or more.
    /// - Throws: ``CryptoError/libraryFailure(_:)`` if the generator is not seeded or fails;
    ///   never returns weak bytes instead.
    public static func bytes(count: Int) throws -> [UInt8] {
        precondition(count >= 0, "count must not be negative")
        return try CryptoBackend.randomBytes(count)
    }
}
