#if canImport(CryptoKit)
import CryptoKit
import Foundation

/// A CryptoKit HMAC key; immutable, so it needs no lock.
///
/// Sendable without the compiler's check: `SymmetricKey` is immutable but not marked `Sendable` in every SDK.
// @unchecked: `SymmetricKey` is immutable but not `Sendable` in every SDK (see above).
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

    /// Calls `body` with each counter in `counters` (8 bytes, big-endian) and its MAC.
    func forEachCounterMAC(_ counters: ClosedRange<UInt64>, _ body: (UInt64, UnsafeRawBufferPointer) -> Void) {
        for counter in counters {
            withUnsafeBytes(of: counter.bigEndian) { input in withMAC(of: input) { body(counter, $0) } }
        }
    }
}
#endif
