#if canImport(CryptoKit)
import CryptoKit
import Foundation

/// A CryptoKit HMAC key; immutable, so it needs no lock.
///
/// `@unchecked Sendable`: `SymmetricKey` is immutable but not marked `Sendable` in every SDK.
final class MACContext: @unchecked Sendable {
    private let key: SymmetricKey
    private let algorithm: DigestAlgorithm

    init(key: [UInt8], algorithm: DigestAlgorithm) throws {
        self.key = SymmetricKey(data: key)
        self.algorithm = algorithm
    }

    /// Calls `body` with the MAC of `input`.
    func withMAC<R>(of input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        CryptoBackend.mac(input, key: key, algorithm).withUnsafeBytes(body)
    }
}
#endif
