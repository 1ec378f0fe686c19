import Foundation

/// One version of a JWK Set, imported: every key with its libcrypto key (or the reason it could
/// not be imported), indexed by `kid`.
///
/// Built once per fetched key set (``JWKSCache``) or per call (``JWKSet/verifySignature(of:algorithms:)``),
/// then only read: a token's candidates are found by one dictionary lookup on its `kid`
/// (RFC 7515 §4.1.4, RFC 7517 §4.5), or, for a token without a `kid`, by a scan of the set in
/// document order. The imported keys (``PublicKey``, each owning its `EVP_PKEY`) are freed
/// with the last reference to the set.
///
/// Concurrency: immutable and `Sendable`; any number of tasks verify with one instance at once
/// (OpenSSL 3 allows concurrent verification with one `EVP_PKEY`).
package final class ImportedKeySet: Sendable {
    /// The keys in document order, each with its imported key or import error.
    let entries: [JWKSet.ResolvedKey]
    /// For each `kid`, the entries that carry it, in document order. A key without a `kid` is
    /// only in ``entries``: it never matches a token that names one.
    private let entriesByKeyID: [String: [JWKSet.ResolvedKey]]

    /// Imports every key of `keys` (`JWKSet.resolve(_:)`) and indexes them by `kid`.
    ///
    /// Linear in the number of keys; one import (`EVP_PKEY` built from `n`/`e` or `x`/`y`) each.
    init(importing keys: [JWK]) {
        let entries = JWKSet.resolve(keys)
        var byKeyID: [String: [JWKSet.ResolvedKey]] = [:]
        for entry in entries {
            if let kid = entry.jwk.kid { byKeyID[kid, default: []].append(entry) }
        }
        self.entries = entries
        self.entriesByKeyID = byKeyID
    }

    /// The number of keys in the set (imported or refused).
    package var count: Int { entries.count }

    /// The imported keys, in document order (refused keys left out), for tests that check
    /// when they are freed.
    package var importedKeys: [PublicKey] { entries.compactMap { try? $0.key.get() } }

    /// The keys a token naming `keyID` may select: those with that `kid`, or every key when the
    /// token has none.
    private func selectable(keyID: String?) -> [JWKSet.ResolvedKey] {
        guard let keyID else { return entries }
        return entriesByKeyID[keyID] ?? []
    }

    /// Whether a token naming `keyID` has an imported candidate under `algorithm`: a key of the
    /// algorithm's type that fits it (``JWK/fits(_:)``) and has the token's `kid`.
    func hasCandidates(keyID: String?, algorithm: SignatureAlgorithm) -> Bool {
        selectable(keyID: keyID).contains { entry in
            guard case .success(let key) = entry.key else { return false }
            return key.keyType == algorithm.keyType && entry.jwk.fits(algorithm)
        }
    }

    /// Verifies `jwt` with its candidates, at most ``JWKSet/maximumCandidateKeys`` of them in
    /// document order.
    ///
    /// - Returns: the key that verified.
    /// - Throws: ``CryptoError/keyTooSmall(bits:required:)`` when there is no candidate but a
    ///   matching key was refused for its size (the first such key's error);
    ///   ``CryptoError/keyNotFound`` when there is no candidate otherwise;
    ///   ``CryptoError/signatureInvalid`` when candidates exist but none verifies.
    func verify(_ jwt: JWT, algorithm: SignatureAlgorithm) throws -> JWK {
        var tried = 0
        var tooSmall: CryptoError?
        for entry in selectable(keyID: jwt.keyID) where entry.jwk.fits(algorithm) {
            switch entry.key {
            case .success(let key) where key.keyType == algorithm.keyType:
                guard tried < JWKSet.maximumCandidateKeys else { throw CryptoError.signatureInvalid }
                tried += 1
                if key.isValidSignature(jwt.signature, for: jwt.signingInput, algorithm: algorithm) {
                    return entry.jwk
                }
            case .failure(let error):
                if tooSmall == nil, case .keyTooSmall = error { tooSmall = error }
            default:
                break
            }
        }
        if tried > 0 { throw CryptoError.signatureInvalid }
        throw tooSmall ?? CryptoError.keyNotFound
    }
}
