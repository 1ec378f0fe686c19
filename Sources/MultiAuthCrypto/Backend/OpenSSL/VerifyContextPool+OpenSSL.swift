#if !canImport(CryptoKit)
import CMultiAuthCrypto
import Foundation
import MultiAuthLocking

/// Prepared libcrypto verify contexts for one public key and one digest, reused across
/// signature checks.
///
/// A context is an `EVP_PKEY_CTX` on the key after `EVP_PKEY_verify_init`, with its padding
/// (RSA: PKCS #1 v1.5) and signature digest set, so a check is one `EVP_PKEY_verify` of the
/// message's digest: no per-check context allocation, algorithm fetch or parameter setting.
///
/// Concurrency: an `EVP_PKEY_CTX` must never be used by two threads at once, so each check
/// takes an idle context off a stack under the lock of `idle`, verifies with it *without* the lock, and
/// puts it back. When the stack is empty (first use, or more concurrent checks than idle
/// contexts) a new context is prepared; at most ``capacity`` idle contexts are kept, extras
/// are freed. Any number of threads verify with one pool at once, each on its own context; the
/// lock is held only for a pop or a push. A context whose check failed with an error (not just
/// a signature that does not verify) is freed rather than reused.
// @unchecked: the key and the idle contexts are C pointers (`OpaquePointer`, not `Sendable`);
// the key is never modified after init, and each context is used by one thread at a time.
final class VerifyContextPool: @unchecked Sendable {
    /// The most idle contexts kept: enough for as many concurrent checks as a server has cores
    /// to reuse contexts; a burst beyond it prepares (and then frees) a few more.
    static let capacity = 8

    /// The key, with a reference of the pool's own (`EVP_PKEY_up_ref`), released on deinit.
    private let pkey: OpaquePointer
    /// RSA (PKCS #1 v1.5 padding is set) or P-256.
    private let keyType: KeyType
    /// The digest the contexts expect (its length is checked by `EVP_PKEY_verify`).
    private let digest: DigestAlgorithm
    /// Idle prepared contexts, owned by the pool; the lock is never held during a signature
    /// check.
    private let idle: Locked<[OpaquePointer]>

    /// A pool for `pkey` (which gains a reference for the pool's lifetime) and `digest`; no
    /// context is prepared until the first check.
    init(pkey: OpaquePointer, keyType: KeyType, digest: DigestAlgorithm) {
        EVP_PKEY_up_ref(pkey)
        self.pkey = pkey
        self.keyType = keyType
        self.digest = digest
        var contexts: [OpaquePointer] = []
        contexts.reserveCapacity(Self.capacity)
        idle = Locked(contexts)
    }

    deinit {
        for context in idle.withLock({ $0 }) { EVP_PKEY_CTX_free(context) }
        EVP_PKEY_free(pkey)
    }

    /// The number of idle contexts (a test seam).
    var idleCount: Int { idle.withLock { $0.count } }

    /// Checks `signature` (RSA: PKCS #1 v1.5 bytes; P-256: DER `ECDSA-Sig-Value`) over the
    /// message whose ``digest`` is `messageDigest`, with a context of the pool.
    ///
    /// - Returns: `true` only when `EVP_PKEY_verify` returns 1. On any other outcome this
    ///   thread's libcrypto error queue is cleared; a context that failed with an error (a
    ///   negative result, not a 0 for a wrong signature) is freed.
    func verify(signature: UnsafeBufferPointer<UInt8>, messageDigest: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let context = take() else {
            CryptoBackend.clearErrors()
            return false
        }
        let result = EVP_PKEY_verify(
            context, signature.baseAddress, signature.count, messageDigest.baseAddress, messageDigest.count)
        if result == 1 || result == 0 {
            giveBack(context)
        } else {
            EVP_PKEY_CTX_free(context)
        }
        if result != 1 { CryptoBackend.clearErrors() }
        return result == 1
    }

    /// An idle context, or a newly prepared one when there is none (`nil` if libcrypto fails).
    private func take() -> OpaquePointer? {
        if let context = idle.withLock({ $0.popLast() }) { return context }
        return prepare()
    }

    /// Returns `context` to the stack, or frees it when ``capacity`` contexts are idle already.
    private func giveBack(_ context: OpaquePointer) {
        let kept = idle.withLock { idle in
            guard idle.count < Self.capacity else { return false }
            idle.append(context)
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context) }
    }

    /// A new context on the key, initialised for verification with the padding and digest set.
    private func prepare() -> OpaquePointer? {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { return nil }
        var ok = EVP_PKEY_verify_init(context) == 1
        if ok, keyType == .rsa { ok = EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1 }
        if ok { ok = EVP_PKEY_CTX_set_signature_md(context, CryptoBackend.evpMD(digest)) == 1 }
        guard ok else {
            EVP_PKEY_CTX_free(context)
            return nil
        }
        return context
    }
}
#endif
