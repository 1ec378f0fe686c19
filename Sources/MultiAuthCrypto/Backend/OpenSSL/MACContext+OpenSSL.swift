#if !canImport(CryptoKit)
import CMultiAuthCrypto

/// An HMAC key (RFC 2104) as its two precomputed hash states: the state after the block
/// `K XOR ipad` and the state after `K XOR opad`, absorbed once when the key is created.
///
/// Each MAC copies both states into stack contexts and hashes only the message and the inner
/// digest (for an 8-byte HOTP counter, two compression-function blocks), so a MAC neither
/// re-keys nor allocates. The states are never written after `init`: any number of threads may
/// compute MACs with one key at the same time, with no lock.
///
/// Sendable without the compiler's check: the C states are immutable from `init` to `deinit`, which erases
/// and frees them.
// @unchecked: owns C hash states, immutable from `init` to `deinit` (see above).
final class MACContext: @unchecked Sendable {
    private let state: UnsafeMutablePointer<cmultiauth_hmac_key>
    private let outputSize: Int

    /// Absorbs `key` (any length, including 0; a key longer than the hash's block is hashed
    /// first, RFC 2104 §2).
    ///
    /// - Throws: ``CryptoError/libraryFailure(_:)`` if memory or libcrypto fails.
    init(key: [UInt8], algorithm: DigestAlgorithm) throws {
        let created = key.withUnsafeBufferPointer { keyBuffer in
            cmultiauth_hmac_key_new(Int32(algorithm.byteCount), keyBuffer.baseAddress, keyBuffer.count)
        }
        guard let created else {
            CryptoBackend.clearErrors()
            throw CryptoError.libraryFailure("HMAC key set-up")
        }
        self.state = created
        self.outputSize = algorithm.byteCount
    }

    deinit { cmultiauth_hmac_key_free(state) }

    /// Calls `body` with the MAC of `input`; the buffer is stack memory valid only in `body`.
    @inline(__always)
    func withMAC<R>(of input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { output in
            let length = cmultiauth_hmac_key_mac(
                state, input.baseAddress, input.count, output.baseAddress?.assumingMemoryBound(to: UInt8.self))
            precondition(Int(length) == outputSize, "libcrypto SHA failed")
            return body(UnsafeRawBufferPointer(rebasing: output[0..<outputSize]))
        }
    }

    /// Calls `body` with each counter in `counters` (8 bytes, big-endian) and its MAC, in
    /// ascending order (a TOTP window's HMACs).
    @inline(__always)
    func forEachCounterMAC(_ counters: ClosedRange<UInt64>, _ body: (UInt64, UnsafeRawBufferPointer) -> Void) {
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { output in
            let out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
            let mac = UnsafeRawBufferPointer(rebasing: output[0..<outputSize])
            for counter in counters {
                var message = counter.bigEndian
                let length = cmultiauth_hmac_key_mac(state, &message, 8, out)
                precondition(Int(length) == outputSize, "libcrypto SHA failed")
                body(counter, mac)
            }
        }
    }
}
#endif
