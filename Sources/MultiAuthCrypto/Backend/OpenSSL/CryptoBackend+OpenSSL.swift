#if !canImport(CryptoKit)
import CMultiAuthCrypto

/// The libcrypto (OpenSSL 3) implementation of the digest, HMAC, random and comparison
/// primitives. The Apple build has a CryptoKit twin with the same interface.
enum CryptoBackend {
    /// The libcrypto message digest for `algorithm` (a static object; never freed).
    static func evpMD(_ algorithm: DigestAlgorithm) -> OpaquePointer {
        switch algorithm {
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        case .sha512: EVP_sha512()
        }
    }

    static func digest(_ data: [UInt8], _ algorithm: DigestAlgorithm) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: algorithm.byteCount)
        var length: UInt32 = 0
        let ok = data.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, evpMD(algorithm), nil)
            }
        }
        // EVP_Digest only fails on allocation failure or a broken provider; neither is recoverable.
        precondition(ok == 1 && Int(length) == algorithm.byteCount, "libcrypto EVP_Digest failed")
        return out
    }

    /// Writes the `algorithm` digest of `message` to `out` (``DigestAlgorithm/byteCount``
    /// bytes) with libcrypto's one-shot `SHA1()`, `SHA256()` or `SHA512()`.
    ///
    /// - Returns: `false` when libcrypto fails (its error queue is cleared) or `out` is too small.
    static func oneShotDigest(
        _ message: UnsafeBufferPointer<UInt8>, _ algorithm: DigestAlgorithm, into out: UnsafeMutableBufferPointer<UInt8>
    ) -> Bool {
        guard out.count >= algorithm.byteCount, let target = out.baseAddress else { return false }
        let written =
            switch algorithm {
            case .sha1: SHA1(message.baseAddress, message.count, target)
            case .sha256: SHA256(message.baseAddress, message.count, target)
            case .sha512: SHA512(message.baseAddress, message.count, target)
            }
        guard written != nil else {
            clearErrors()
            return false
        }
        return true
    }

    static func hmac(key: [UInt8], message: [UInt8], _ algorithm: DigestAlgorithm) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: algorithm.byteCount)
        var length: UInt32 = 0
        // HMAC() rejects a NULL key pointer even with length 0, so an empty key points at a dummy byte.
        var empty: UInt8 = 0
        let result = withUnsafeMutablePointer(to: &empty) { dummy in
            key.withUnsafeBufferPointer { keyBuffer in
                message.withUnsafeBufferPointer { input in
                    out.withUnsafeMutableBufferPointer { output in
                        CMultiAuthCrypto.HMAC(
                            evpMD(algorithm), keyBuffer.baseAddress ?? UnsafePointer(dummy), Int32(keyBuffer.count),
                            input.baseAddress ?? UnsafePointer(dummy), input.count, output.baseAddress, &length)
                    }
                }
            }
        }
        precondition(result != nil && Int(length) == algorithm.byteCount, "libcrypto HMAC failed")
        return out
    }

    static func randomBytes(_ count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard ok == 1 else {
            ERR_clear_error()
            throw CryptoError.libraryFailure("RAND_bytes")
        }
        return out
    }

    /// Compares equal-length buffers with `CRYPTO_memcmp`.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        precondition(a.count == b.count)
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, x.count) == 0 }
        }
    }

    /// Empties this thread's libcrypto error queue after a failed call, so stale errors never
    /// pile up or leak into a later, unrelated failure.
    static func clearErrors() { ERR_clear_error() }

    /// Whether this thread's libcrypto error queue holds an error (a test seam: every failure
    /// path clears it).
    static var hasPendingErrors: Bool { ERR_peek_error() != 0 }
}
#endif
