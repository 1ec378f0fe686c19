#if !canImport(CryptoKit)
import CMultiAuthCrypto
import Foundation

/// The `EVP_MAC` HMAC implementation, fetched once per process (fetching is the slow part
/// of setting up a MAC in OpenSSL 3). Never freed: it lives as long as the process.
private final class HMACImplementation: @unchecked Sendable {
    // EVP_MAC objects are immutable and reference-counted; sharing one across threads is
    // what OpenSSL's fetch cache does itself.
    let mac: OpaquePointer?
    init() { mac = EVP_MAC_fetch(nil, "HMAC", nil) }
    static let shared = HMACImplementation()
}

/// A keyed `EVP_MAC_CTX` for HMAC, re-initialised (not re-keyed) for every MAC.
///
/// `@unchecked Sendable`: the context is mutable, so every use holds `lock`.
final class MACContext: @unchecked Sendable {
    private let context: OpaquePointer
    private let lock = NSLock()
    private let outputSize: Int

    init(key: [UInt8], algorithm: DigestAlgorithm) throws {
        guard let mac = HMACImplementation.shared.mac, let context = EVP_MAC_CTX_new(mac) else {
            CryptoBackend.clearErrors()
            throw CryptoError.libraryFailure("EVP_MAC_CTX_new")
        }
        let digestName =
            switch algorithm {
            case .sha1: CName.sha1
            case .sha256: CName.sha256
            case .sha512: CName.sha512
            }
        // OSSL_PARAM holds the name pointers until EVP_MAC_init reads them: static strings.
        var params = [OSSL_PARAM_construct_utf8_string(CName.digest, digestName, 0), OSSL_PARAM_construct_end()]
        let ok = key.withUnsafeBufferPointer { keyBuffer in
            EVP_MAC_init(context, keyBuffer.baseAddress, keyBuffer.count, &params)
        }
        guard ok == 1 else {
            EVP_MAC_CTX_free(context)
            CryptoBackend.clearErrors()
            throw CryptoError.libraryFailure("EVP_MAC_init")
        }
        self.context = context
        self.outputSize = algorithm.byteCount
    }

    deinit { EVP_MAC_CTX_free(context) }

    /// Calls `body` with the MAC of `input`; the buffer is stack memory valid only in `body`.
    func withMAC<R>(of input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { output in
            var length = 0
            lock.lock()
            // A NULL key re-initialises the context with the key it already holds.
            let ok =
                EVP_MAC_init(context, nil, 0, nil) == 1
                && EVP_MAC_update(context, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count) == 1
                && EVP_MAC_final(context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, 64) == 1
            lock.unlock()
            precondition(ok && length == outputSize, "libcrypto EVP_MAC failed")
            return body(UnsafeRawBufferPointer(rebasing: output[0..<length]))
        }
    }

    /// Calls `body` with each counter in `counters` (8 bytes, big-endian) and its MAC, taking
    /// the lock once for all of them (a TOTP window's HMACs).
    func forEachCounterMAC(_ counters: ClosedRange<UInt64>, _ body: (UInt64, UnsafeRawBufferPointer) -> Void) {
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { output in
            let out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
            lock.lock()
            defer { lock.unlock() }
            for counter in counters {
                var message = counter.bigEndian
                var length = 0
                let ok = withUnsafeBytes(of: &message) { input in
                    EVP_MAC_init(context, nil, 0, nil) == 1
                        && EVP_MAC_update(context, input.baseAddress?.assumingMemoryBound(to: UInt8.self), 8) == 1
                        && EVP_MAC_final(context, out, &length, 64) == 1
                }
                precondition(ok && length == outputSize, "libcrypto EVP_MAC failed")
                body(counter, UnsafeRawBufferPointer(rebasing: output[0..<length]))
            }
        }
    }
}
#endif
