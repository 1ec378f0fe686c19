#if canImport(CryptoKit)
import CryptoKit
import Foundation
import Security

/// An RSA `SecKey` or a CryptoKit P-256 key, public or private.
///
/// Sendable without the compiler's check: `SecKey` is an immutable, thread-safe CF object; the CryptoKit keys
/// are value types that are never mutated.
// @unchecked: holds a `SecKey` (an immutable CF object) or an immutable CryptoKit key (see above).
final class KeyHandle: @unchecked Sendable {
    private enum Storage {
        case rsa(SecKey)
        case p256Public(P256.Signing.PublicKey)
        case p256Private(P256.Signing.PrivateKey)
    }

    private let storage: Storage
    let keyType: KeyType
    let isPrivate: Bool

    private init(_ storage: Storage, isPrivate: Bool) {
        self.storage = storage
        self.isPrivate = isPrivate
        switch storage {
        case .rsa: keyType = .rsa
        case .p256Public, .p256Private: keyType = .p256
        }
    }

    // MARK: Import

    /// A public RSA `SecKey` from PKCS#1 DER, at least `minimumBits` bits (2048 by default).
    private static func rsaKey(pkcs1: [UInt8], minimumBits: Int = 2048) throws -> KeyHandle {
        let attributes: [CFString: Any] = [
            kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPublic,
        ]
        guard let key = SecKeyCreateWithData(Data(pkcs1) as CFData, attributes as CFDictionary, nil),
            SecKeyGetBlockSize(key) * 8 >= minimumBits
        else {
            throw CryptoError.invalidKey
        }
        return KeyHandle(.rsa(key), isPrivate: false)
    }

    static func rsaPublic(modulus: [UInt8], exponent: [UInt8]) throws -> KeyHandle {
        guard !modulus.isEmpty, !exponent.isEmpty, exponent.count <= 8 else { throw CryptoError.invalidKey }
        return try rsaKey(pkcs1: DER.rsaPublicKey(modulus: modulus, exponent: exponent))
    }

    static func p256Public(x: [UInt8], y: [UInt8]) throws -> KeyHandle {
        guard x.count == 32, y.count == 32 else { throw CryptoError.invalidKey }
        // CryptoKit rejects points that are not on the curve.
        guard let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y) else {
            throw CryptoError.invalidKey
        }
        return KeyHandle(.p256Public(key), isPrivate: false)
    }

    static func publicKey(spki der: [UInt8], minimumRSABits: Int = 2048) throws -> KeyHandle {
        switch DER.publicKeyInfo(der) {
        case .rsa(let pkcs1)?:
            return try rsaKey(pkcs1: pkcs1, minimumBits: minimumRSABits)
        case .ec?:
            guard let key = try? P256.Signing.PublicKey(derRepresentation: der) else { throw CryptoError.invalidKey }
            return KeyHandle(.p256Public(key), isPrivate: false)
        case nil:
            throw CryptoError.invalidKey
        }
    }

    /// A private key from PKCS #1 `RSAPrivateKey` DER (`type` `.rsa`, at least 2048 bits) or
    /// SEC 1 `ECPrivateKey` DER on P-256 (`type` `.p256`).
    static func privateKey(der: [UInt8], type: KeyType) throws -> KeyHandle {
        switch type {
        case .rsa:
            let attributes: [CFString: Any] = [
                kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPrivate,
            ]
            guard let key = SecKeyCreateWithData(Data(der) as CFData, attributes as CFDictionary, nil),
                SecKeyGetBlockSize(key) * 8 >= 2048
            else {
                throw CryptoError.invalidKey
            }
            return KeyHandle(.rsa(key), isPrivate: true)
        case .p256:
            guard let key = try? P256.Signing.PrivateKey(derRepresentation: der) else { throw CryptoError.invalidKey }
            return KeyHandle(.p256Private(key), isPrivate: true)
        }
    }

    /// A P-256 private key from its 32-byte big-endian scalar (1 ≤ d < n).
    static func p256Private(scalar: [UInt8]) throws -> KeyHandle {
        guard scalar.count == 32, let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar) else {
            throw CryptoError.invalidKey
        }
        return KeyHandle(.p256Private(key), isPrivate: true)
    }

    static func generate(_ type: KeyType, rsaBits: Int) throws -> KeyHandle {
        switch type {
        case .rsa:
            let attributes: [CFString: Any] = [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits: rsaBits]
            guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, nil) else {
                throw CryptoError.libraryFailure("SecKeyCreateRandomKey")
            }
            return KeyHandle(.rsa(key), isPrivate: true)
        case .p256:
            return KeyHandle(.p256Private(P256.Signing.PrivateKey()), isPrivate: true)
        }
    }

    // MARK: Export

    /// The public RSA key's PKCS#1 DER.
    private func rsaPKCS1() throws -> [UInt8] {
        guard case .rsa(let key) = storage else { throw CryptoError.invalidKey }
        guard let publicKey = isPrivate ? SecKeyCopyPublicKey(key) : key,
            let data = SecKeyCopyExternalRepresentation(publicKey, nil) as Data?
        else {
            throw CryptoError.libraryFailure("SecKeyCopyExternalRepresentation")
        }
        return Array(data)
    }

    private var p256PublicKey: P256.Signing.PublicKey? {
        switch storage {
        case .p256Public(let key): key
        case .p256Private(let key): key.publicKey
        case .rsa: nil
        }
    }

    func spki() throws -> [UInt8] {
        if let key = p256PublicKey { return Array(key.derRepresentation) }
        return DER.subjectPublicKeyInfo(rsaPublicKey: try rsaPKCS1())
    }

    func publicHandle() throws -> KeyHandle {
        isPrivate ? try KeyHandle.publicKey(spki: spki()) : self
    }

    func rsaComponents() throws -> (modulus: [UInt8], exponent: [UInt8]) {
        guard let components = DER.rsaComponents(pkcs1: try rsaPKCS1()) else { throw CryptoError.invalidKey }
        return components
    }

    func p256Coordinates() throws -> (x: [UInt8], y: [UInt8]) {
        guard let key = p256PublicKey else { throw CryptoError.invalidKey }
        let point = Array(key.x963Representation)
        guard point.count == 65, point[0] == 0x04 else { throw CryptoError.invalidKey }
        return (Array(point[1...32]), Array(point[33...64]))
    }

    // MARK: Signatures

    private static func rsaAlgorithm(_ digest: DigestAlgorithm) -> SecKeyAlgorithm? {
        switch digest {
        case .sha256: SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA256
        case .sha512: SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA512
        case .sha1: nil
        }
    }

    func verify(_ signature: [UInt8], message: [UInt8], digest: DigestAlgorithm) -> Bool {
        switch storage {
        case .rsa(let key):
            guard let algorithm = Self.rsaAlgorithm(digest),
                let publicKey = isPrivate ? SecKeyCopyPublicKey(key) : key
            else { return false }
            return SecKeyVerifySignature(publicKey, algorithm, Data(message) as CFData, Data(signature) as CFData, nil)
        case .p256Public, .p256Private:
            guard digest == .sha256, let key = p256PublicKey,
                let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
            else { return false }
            return key.isValidSignature(parsed, for: Data(message))
        }
    }

    func sign(_ message: [UInt8], digest: DigestAlgorithm) throws -> [UInt8] {
        switch storage {
        case .rsa(let key) where isPrivate:
            guard let algorithm = Self.rsaAlgorithm(digest),
                let signature = SecKeyCreateSignature(key, algorithm, Data(message) as CFData, nil) as Data?
            else {
                throw CryptoError.libraryFailure("SecKeyCreateSignature")
            }
            return Array(signature)
        case .p256Private(let key):
            guard digest == .sha256 else { throw CryptoError.unsupportedAlgorithm }
            do {
                return Array(try key.signature(for: Data(message)).rawRepresentation)
            } catch {
                throw CryptoError.libraryFailure("P256.Signing.PrivateKey.signature")
            }
        default:
            throw CryptoError.invalidKey
        }
    }
}
#endif
