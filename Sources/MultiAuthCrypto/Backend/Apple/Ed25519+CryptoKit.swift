#if canImport(CryptoKit)
import CryptoKit
import Foundation
import Security

/// Ed25519 (RFC 8032 §5.1) through CryptoKit's `Curve25519.Signing`, for COSE `EdDSA`
/// (RFC 9053 §2.2); the twin of the libcrypto backend.
enum Ed25519Backend {
    /// Whether `signature` (64 bytes) is a valid Ed25519 signature of `message` under the
    /// 32-byte public key `publicKey`.
    static func verify(publicKey: [UInt8], signature: [UInt8], message: [UInt8]) -> Bool {
        guard publicKey.count == 32, signature.count == 64,
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey)
        else { return false }
        return key.isValidSignature(Data(signature), for: Data(message))
    }

    /// The 32-byte public key of the private key `seed` (RFC 8032 §5.1.5).
    static func publicKey(seed: [UInt8]) throws -> [UInt8] {
        Array(try privateKey(seed).publicKey.rawRepresentation)
    }

    /// The 64-byte signature of `message` under the private key `seed` (RFC 8032 §5.1.6).
    static func sign(seed: [UInt8], message: [UInt8]) throws -> [UInt8] {
        do {
            return Array(try privateKey(seed).signature(for: Data(message)))
        } catch {
            throw CryptoError.libraryFailure("Curve25519.Signing.PrivateKey.signature")
        }
    }

    private static func privateKey(_ seed: [UInt8]) throws -> Curve25519.Signing.PrivateKey {
        guard seed.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else {
            throw CryptoError.invalidKey
        }
        return key
    }
}

/// X.509 certificates through Security.framework (RFC 5280 §4.1): the public key of an
/// attestation certificate; the twin of the libcrypto backend.
enum CertificateBackend {
    /// The subject public key of the DER certificate `der` as a ``PublicKey``.
    ///
    /// - Throws: ``CryptoError/invalidKey`` when `der` is not a certificate or its key is not
    ///   RSA (2048 bits or more) or P-256.
    static func publicKey(certificate der: [UInt8]) throws -> PublicKey {
        guard let certificate = SecCertificateCreateWithData(nil, Data(der) as CFData),
            let key = SecCertificateCopyKey(certificate),
            let data = SecKeyCopyExternalRepresentation(key, nil) as Data?
        else {
            throw CryptoError.invalidKey
        }
        let bytes = Array(data)
        // Security exports an EC public key as the X9.63 point, an RSA one as PKCS #1.
        if bytes.count == 65, bytes[0] == 0x04 {
            return try PublicKey(p256X: Array(bytes[1...32]), y: Array(bytes[33...64]))
        }
        guard let components = DER.rsaComponents(pkcs1: bytes) else { throw CryptoError.invalidKey }
        return try PublicKey(rsaModulus: components.modulus, exponent: components.exponent)
    }
}

#endif
