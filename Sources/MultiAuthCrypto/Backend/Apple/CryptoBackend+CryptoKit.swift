#if canImport(CryptoKit)
import CryptoKit
import Foundation
import Security

/// The CryptoKit/Security implementation of the digest, HMAC, random and comparison
/// primitives; the Linux build has a libcrypto twin with the same interface.
enum CryptoBackend {
    static func digest(_ data: [UInt8], _ algorithm: DigestAlgorithm) -> [UInt8] {
        switch algorithm {
        case .sha1: Array(Insecure.SHA1.hash(data: data))
        case .sha256: Array(SHA256.hash(data: data))
        case .sha512: Array(SHA512.hash(data: data))
        }
    }

    static func hmac(key: [UInt8], message: [UInt8], _ algorithm: DigestAlgorithm) -> [UInt8] {
        mac(message, key: SymmetricKey(data: key), algorithm)
    }

    /// HMAC with a prepared key; `message` is any byte collection CryptoKit accepts.
    static func mac(_ message: some DataProtocol, key: SymmetricKey, _ algorithm: DigestAlgorithm) -> [UInt8] {
        switch algorithm {
        case .sha1: Array(CryptoKit.HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
        case .sha256: Array(CryptoKit.HMAC<SHA256>.authenticationCode(for: message, using: key))
        case .sha512: Array(CryptoKit.HMAC<SHA512>.authenticationCode(for: message, using: key))
        }
    }

    static func randomBytes(_ count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        let status = out.withUnsafeMutableBytes { SecRandomCopyBytes(kSecRandomDefault, $0.count, $0.baseAddress!) }
        guard status == errSecSuccess else { throw CryptoError.libraryFailure("SecRandomCopyBytes") }
        return out
    }

    /// Compares equal-length buffers without an early exit.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        precondition(a.count == b.count)
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
#endif
