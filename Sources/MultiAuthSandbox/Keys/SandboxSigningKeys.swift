import Foundation
import MultiAuthCrypto
import MultiAuthLocking

/// The sandbox backends' RSA signing keys, generated once per process and shared.
///
/// RSA key generation takes tens to hundreds of milliseconds and its time grows with the
/// machine's load, so a backend created with its default key does not generate one: it takes
/// slot 0 of this cache, and a key rotation takes the next slot. Each slot's key is generated
/// on first use and then lives as long as the process; two backends made the same way sign
/// with the same key (pass a key explicitly where a test needs distinct ones).
///
/// The keys are generated rather than fixed on purpose: a sandbox key is never the same in two
/// processes, so nothing can come to trust it by accident. The repository's own tests sign
/// with committed fixture keys instead (`Tests/MultiAuthTestKeys`).
///
/// Thread-safe: the cache is a `Locked` table; a slot being generated makes concurrent callers of the same
/// process wait for it rather than generate twice.
package enum SandboxSigningKeys {
    /// The generated keys by `"<bits>/<slot>"`, only touched inside `keys.withLock`.
    private static let keys = Locked([String: PrivateKey]())

    /// The RSA key of `slot` with a `bits`-bit modulus, generated on first use.
    /// - Parameters:
    ///   - bits: the modulus size, 2048 (default) to 8192.
    ///   - slot: which key, 0 (default) for a backend's first key, 1, 2, … for rotations.
    /// - Throws: `CryptoError.invalidKey` for a size out of range; `CryptoError.libraryFailure`
    ///   if generation fails (nothing is cached then).
    package static func rsa(bits: Int = 2048, slot: Int = 0) throws -> PrivateKey {
        let name = "\(bits)/\(slot)"
        return try keys.withLock { keys in
            if let key = keys[name] { return key }
            let key = try PrivateKey.generateRSA(bits: bits)
            keys[name] = key
            return key
        }
    }
}
