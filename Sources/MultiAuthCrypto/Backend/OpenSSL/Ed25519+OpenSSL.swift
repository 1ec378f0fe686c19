#if !canImport(CryptoKit)
import CMultiAuthCrypto

/// Ed25519 (RFC 8032 §5.1) through libcrypto's `ED25519` keys, for COSE `EdDSA` (RFC 9053
/// §2.2). The Apple build has a CryptoKit twin (`Curve25519.Signing`) with this interface.
enum Ed25519Backend {
    /// Whether `signature` (64 bytes) is a valid Ed25519 signature of `message` under the
    /// 32-byte public key `publicKey`.
    static func verify(publicKey: [UInt8], signature: [UInt8], message: [UInt8]) -> Bool {
        guard publicKey.count == 32, signature.count == 64,
            let pkey = EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, publicKey, publicKey.count)
        else {
            CryptoBackend.clearErrors()
            return false
        }
        defer { EVP_PKEY_free(pkey) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        // Ed25519 hashes internally: no message digest is given (RFC 8032 §5.1.6).
        let ok =
            EVP_DigestVerifyInit(context, nil, nil, nil, pkey) == 1
            && EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
        if !ok { CryptoBackend.clearErrors() }
        return ok
    }

    /// The 32-byte public key of the private key `seed` (RFC 8032 §5.1.5).
    static func publicKey(seed: [UInt8]) throws -> [UInt8] {
        let pkey = try privateKey(seed)
        defer { EVP_PKEY_free(pkey) }
        var out = [UInt8](repeating: 0, count: 32)
        var length = out.count
        guard EVP_PKEY_get_raw_public_key(pkey, &out, &length) == 1, length == 32 else {
            CryptoBackend.clearErrors()
            throw CryptoError.libraryFailure("EVP_PKEY_get_raw_public_key")
        }
        return out
    }

    /// The 64-byte signature of `message` under the private key `seed` (RFC 8032 §5.1.6;
    /// deterministic).
    static func sign(seed: [UInt8], message: [UInt8]) throws -> [UInt8] {
        let pkey = try privateKey(seed)
        defer { EVP_PKEY_free(pkey) }
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.libraryFailure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = signature.count
        guard EVP_DigestSignInit(context, nil, nil, nil, pkey) == 1,
            EVP_DigestSign(context, &signature, &length, message, message.count) == 1, length == 64
        else {
            CryptoBackend.clearErrors()
            throw CryptoError.libraryFailure("EVP_DigestSign")
        }
        return signature
    }

    private static func privateKey(_ seed: [UInt8]) throws -> OpaquePointer {
        guard seed.count == 32 else { throw CryptoError.invalidKey }
        guard let pkey = EVP_PKEY_new_raw_private_key_ex(nil, "ED25519", nil, seed, seed.count) else {
            CryptoBackend.clearErrors()
            throw CryptoError.libraryFailure("EVP_PKEY_new_raw_private_key_ex")
        }
        return pkey
    }
}

/// X.509 certificates through libcrypto's `d2i_X509` (RFC 5280 §4.1): the public key of an
/// attestation certificate. The Apple build has a Security.framework twin.
enum CertificateBackend {
    /// The subject public key of the DER certificate `der` (one certificate, no trailing
    /// bytes) as a ``PublicKey``.
    ///
    /// - Throws: ``CryptoError/invalidKey`` when `der` is not one certificate or its key is not
    ///   RSA (2048 bits or more) or P-256.
    static func publicKey(certificate der: [UInt8]) throws -> PublicKey {
        guard !der.isEmpty else { throw CryptoError.invalidKey }
        let certificate: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            guard let certificate = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                X509_free(certificate)
                return nil
            }
            return certificate
        }
        guard let certificate else {
            CryptoBackend.clearErrors()
            throw CryptoError.invalidKey
        }
        defer { X509_free(certificate) }
        guard let pkey = X509_get_pubkey(certificate) else {
            CryptoBackend.clearErrors()
            throw CryptoError.invalidKey
        }
        return PublicKey(handle: try KeyHandle(owning: pkey, isPrivate: false))
    }
}

extension KeyHandle {
    /// A P-256 private key from its 32-byte big-endian scalar (1 ≤ d < n), imported as a SEC 1
    /// `ECPrivateKey` (RFC 5915 §3); libcrypto computes the public point.
    static func p256Private(scalar: [UInt8]) throws -> KeyHandle {
        guard scalar.count == 32 else { throw CryptoError.invalidKey }
        // ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING, [0] prime256v1 }
        let curve: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
        let der = DER.encode(
            tag: 0x30, [0x02, 0x01, 0x01] + DER.encode(tag: 0x04, scalar) + DER.encode(tag: 0xA0, curve))
        return try privateKey(der: der, type: .p256)
    }
}
#endif
