/// A credential public key read from its COSE_Key (RFC 9052 §7): EC2 P-256 for ES256
/// (RFC 9053 §7.1.1), OKP Ed25519 for EdDSA (RFC 9053 §7.2), RSA for RS256 (RFC 8230 §4).
///
/// WebAuthn requires the `alg` member (W3C WebAuthn Level 3 §6.5.1.1); the key type and curve
/// must fit it. Verification goes to libcrypto (CryptoKit/Security on Apple platforms).
struct COSEKey {
    private enum Material {
        case publicKey(PublicKey)
        case ed25519([UInt8])
    }

    let algorithm: COSEAlgorithm
    private let material: Material

    /// Reads a COSE_Key from its CBOR bytes (one map, nothing after it).
    ///
    /// - Throws: ``WebAuthnError`` `unsupportedAlgorithm` (an `alg`, `kty` or `crv` other than
    ///   the three pairs above) or `malformed` (missing or mistyped members, a bad key).
    init(bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do {
            value = try CBORValue(decoding: bytes)
        } catch {
            throw WebAuthnError(.malformed, "credential public key: \(error)")
        }
        try self.init(cbor: value)
    }

    init(cbor value: CBORValue) throws(WebAuthnError) {
        guard case .map = value, let kty = value[int: 1]?.intValue else {
            throw WebAuthnError(.malformed, "COSE key lacks kty")
        }
        guard let algValue = value[int: 3]?.intValue else { throw WebAuthnError(.malformed, "COSE key lacks alg") }
        guard let algorithm = COSEAlgorithm(rawValue: algValue) else {
            throw WebAuthnError(.unsupportedAlgorithm, "COSE algorithm is not supported")
        }
        self.algorithm = algorithm
        func member(_ label: Int, count: Int? = nil) throws(WebAuthnError) -> [UInt8] {
            guard let bytes = value[int: label]?.byteString, !bytes.isEmpty, count == nil || bytes.count == count
            else { throw WebAuthnError(.malformed, "COSE key member \(label) is missing or malformed") }
            return bytes
        }
        switch algorithm {
        case .es256:
            // EC2 (2), crv P-256 (1), x and y as 32-byte strings (a compressed `y` is refused).
            guard kty == 2, value[int: -1]?.intValue == 1 else {
                throw WebAuthnError(.unsupportedAlgorithm, "ES256 needs an EC2 P-256 key")
            }
            let x = try member(-2, count: 32)
            let y = try member(-3, count: 32)
            guard let key = try? PublicKey(p256X: x, y: y) else {
                throw WebAuthnError(.malformed, "EC2 point is not on P-256")
            }
            material = .publicKey(key)
        case .edDSA:
            // OKP (1), crv Ed25519 (6), x the 32-byte public key.
            guard kty == 1, value[int: -1]?.intValue == 6 else {
                throw WebAuthnError(.unsupportedAlgorithm, "EdDSA needs an OKP Ed25519 key")
            }
            material = .ed25519(try member(-2, count: 32))
        case .rs256:
            guard kty == 3 else { throw WebAuthnError(.unsupportedAlgorithm, "RS256 needs an RSA key") }
            let modulus = try member(-1)
            let exponent = try member(-2)
            guard modulus.count <= 1_025, let key = try? PublicKey(rsaModulus: modulus, exponent: exponent) else {
                throw WebAuthnError(.malformed, "RSA key is not usable (2048 to 8192 bits, odd e ≥ 3)")
            }
            material = .publicKey(key)
        }
    }

    /// Whether `signature` is this key's signature of `message`: DER `Ecdsa-Sig-Value` for
    /// ES256 (W3C WebAuthn Level 3 §6.5.5), 64 bytes for EdDSA, PKCS #1 v1.5 for RS256.
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        switch (algorithm, material) {
        case (.es256, .publicKey(let key)):
            guard let raw = ECDSASignature.raw(fromDER: signature) else { return false }
            return key.isValidSignature(raw, for: message, algorithm: .es256)
        case (.rs256, .publicKey(let key)):
            return key.isValidSignature(signature, for: message, algorithm: .rs256)
        case (.edDSA, .ed25519(let key)):
            return Ed25519Backend.verify(publicKey: key, signature: signature, message: message)
        default:
            return false
        }
    }
}

/// COSE_Key encodings for the software authenticator and the tests (RFC 9052 §7, RFC 9053
/// §7.1/§7.2, RFC 8230 §4), in CTAP2 canonical CBOR.
package enum COSEKeyEncoder {
    /// An EC2 P-256 ES256 key from its 32-byte coordinates.
    package static func es256(x: [UInt8], y: [UInt8]) -> [UInt8] {
        CBOREncoder.encode(
            .map([.int(1): .int(2), .int(3): .int(-7), .int(-1): .int(1), .int(-2): .bytes(x), .int(-3): .bytes(y)]))
    }

    /// An OKP Ed25519 EdDSA key from its 32-byte public key.
    package static func edDSA(x: [UInt8]) -> [UInt8] {
        CBOREncoder.encode(.map([.int(1): .int(1), .int(3): .int(-8), .int(-1): .int(6), .int(-2): .bytes(x)]))
    }

    /// An RSA RS256 key from its big-endian modulus and exponent.
    package static func rs256(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        CBOREncoder.encode(
            .map([.int(1): .int(3), .int(3): .int(-257), .int(-1): .bytes(modulus), .int(-2): .bytes(exponent)]))
    }
}

/// Package access to the signing primitives the software authenticator needs.
package enum WebAuthnSigning {
    /// The DER `Ecdsa-Sig-Value` form of a raw 64-byte `r || s` (RFC 3279 §2.2.3).
    package static func derECDSASignature(fromRaw raw: [UInt8]) -> [UInt8]? { ECDSASignature.der(fromRaw: raw) }

    /// The Ed25519 public key of a 32-byte seed (RFC 8032 §5.1.5).
    ///
    /// - Throws: ``CryptoError/invalidKey`` or ``CryptoError/libraryFailure(_:)``.
    package static func ed25519PublicKey(seed: [UInt8]) throws -> [UInt8] { try Ed25519Backend.publicKey(seed: seed) }

    /// The Ed25519 signature of `message` under a 32-byte seed (RFC 8032 §5.1.6).
    ///
    /// - Throws: ``CryptoError/invalidKey`` or ``CryptoError/libraryFailure(_:)``.
    package static func ed25519Sign(seed: [UInt8], message: [UInt8]) throws -> [UInt8] {
        try Ed25519Backend.sign(seed: seed, message: message)
    }

    /// The P-256 group order `n`, big-endian (SEC 2 §2.4.2), for deriving private scalars.
    package static var p256Order: [UInt8] { ECDSASignature.p256Order }
}
