/// An RSA (2,048 to 8,192 bits) or P-256 public key that verifies signatures.
///
/// Import it from a JWK (RFC 7517 §4, RFC 7518 §6.2/§6.3), from DER or PEM
/// SubjectPublicKeyInfo (RFC 5280 §4.1.2.7; Truecaller's `/v1/key` serves base64 DER), or
/// take it from a generated ``PrivateKey``. Instances are immutable and safe to share.
public final class PublicKey: Sendable, CustomStringConvertible {
    let handle: KeyHandle

    init(handle: KeyHandle) { self.handle = handle }

    /// RSA or P-256.
    public var keyType: KeyType { handle.keyType }

    /// The largest RSA modulus accepted, in bits, on every import path: a bigger key costs
    /// quadratically more per verification and no issuer needs one (RFC 8725 §3.5 asks for
    /// keys of appropriate, not unbounded, size; Docs/Security.md, "Keys and signatures").
    public static let maximumRSABits = 8_192
    /// The largest RSA public exponent accepted: 2³² (in practice `e` is 65,537). A longer
    /// exponent only makes each verification slower.
    public static let maximumRSAExponentBytes = 4

    /// An RSA public key from its big-endian modulus and public exponent.
    ///
    /// - Parameters:
    ///   - modulus: `n`, big-endian, 256 bytes or more (2048 bits minimum).
    ///   - exponent: `e`, big-endian, 1...8 bytes (usually `01 00 01`); it must be odd and at
    ///     least 3 (with `e = 1` a "signature" is its own message and anyone can forge one;
    ///     an even `e` is never a valid RSA exponent, RFC 8017 §3.1).
    /// - Throws: ``CryptoError/invalidKey`` for a short, over-long (above ``maximumRSABits``)
    ///   or malformed key, or an exponent that is even, below 3 or above 2³².
    public convenience init(rsaModulus modulus: [UInt8], exponent: [UInt8]) throws {
        self.init(
            handle: try Self.checked(
                KeyHandle.rsaPublic(modulus: Self.trimmed(modulus), exponent: Self.trimmed(exponent))))
    }

    /// A P-256 public key from its affine coordinates.
    ///
    /// - Parameters:
    ///   - x: the x coordinate, 32 bytes big-endian.
    ///   - y: the y coordinate, 32 bytes big-endian.
    /// - Throws: ``CryptoError/invalidKey`` for wrong lengths or a point not on the curve.
    public convenience init(p256X x: [UInt8], y: [UInt8]) throws {
        self.init(handle: try KeyHandle.p256Public(x: x, y: y))
    }

    /// A public key from DER SubjectPublicKeyInfo bytes.
    ///
    /// - Parameters:
    ///   - der: one SubjectPublicKeyInfo structure, no trailing bytes.
    ///   - minimumRSABits: the smallest RSA modulus accepted, in bits; 2048 by default
    ///     (RFC 7518 §3.3). Lower it only where a provider's published key is known to be
    ///     smaller and must still be accepted (Truecaller's `/v1/key` sample is RSA-1024,
    ///     Docs/Providers/Truecaller.md, "One-tap profile verification"); never below 1024.
    /// - Throws: ``CryptoError/invalidKey`` for anything but one RSA (≥ `minimumRSABits`, public
    ///   exponent odd, at least 3 and below 2³², modulus at most ``maximumRSABits``) or P-256 SPKI.
    public convenience init(derRepresentation der: some Sequence<UInt8>, minimumRSABits: Int = 2048) throws {
        self.init(
            handle: try Self.checked(KeyHandle.publicKey(spki: Array(der), minimumRSABits: max(1024, minimumRSABits))))
    }

    /// A public key from a PEM `-----BEGIN PUBLIC KEY-----` block (RFC 7468 §13).
    ///
    /// - Throws: ``CryptoError/invalidKey``.
    public convenience init(pemRepresentation pem: String) throws {
        try self.init(derRepresentation: PEM.decode(pem, label: "PUBLIC KEY"))
    }

    /// A public key from a JWK: `kty: RSA` with `n`/`e`, or `kty: EC`, `crv: P-256` with
    /// `x`/`y` (all base64url).
    ///
    /// - Throws: ``CryptoError/unsupportedAlgorithm`` for another `kty` or `crv`;
    ///   ``CryptoError/invalidKey`` for missing or malformed members.
    public convenience init(jwk: JWK) throws {
        func member(_ value: String?) throws -> [UInt8] {
            guard let value, let bytes = try? Base64URL.decode(value), !bytes.isEmpty else {
                throw CryptoError.invalidKey
            }
            return bytes
        }
        switch jwk.kty {
        case "RSA":
            try self.init(rsaModulus: member(jwk.n), exponent: member(jwk.e))
        case "EC":
            guard jwk.crv == "P-256" else { throw CryptoError.unsupportedAlgorithm }
            try self.init(p256X: member(jwk.x), y: member(jwk.y))
        default:
            throw CryptoError.unsupportedAlgorithm
        }
    }

    /// The DER SubjectPublicKeyInfo encoding.
    ///
    /// - Throws: ``CryptoError/libraryFailure(_:)`` if encoding fails.
    public func derRepresentation() throws -> [UInt8] { try handle.spki() }

    /// The PEM `PUBLIC KEY` encoding, 64-character lines, ending with a newline.
    ///
    /// - Throws: ``CryptoError/libraryFailure(_:)`` if encoding fails.
    public func pemRepresentation() throws -> String { PEM.encode(try derRepresentation(), label: "PUBLIC KEY") }

    /// This key as a JWK (RFC 7517 §4) with `use: sig`.
    ///
    /// - Parameters:
    ///   - keyID: the `kid` to publish, or `nil`.
    ///   - algorithm: the `alg` to publish, or `nil`; must fit the key type.
    /// - Throws: ``CryptoError/unsupportedAlgorithm`` when `algorithm` does not fit the key.
    public func jwk(keyID: String? = nil, algorithm: SignatureAlgorithm? = nil) throws -> JWK {
        if let algorithm, algorithm.keyType != keyType { throw CryptoError.unsupportedAlgorithm }
        switch keyType {
        case .rsa:
            let (modulus, exponent) = try handle.rsaComponents()
            return JWK(
                kty: "RSA", kid: keyID, alg: algorithm?.rawValue, use: "sig",
                n: Base64URL.encode(modulus), e: Base64URL.encode(exponent))
        case .p256:
            let (x, y) = try handle.p256Coordinates()
            return JWK(
                kty: "EC", kid: keyID, alg: algorithm?.rawValue, use: "sig", crv: "P-256",
                x: Base64URL.encode(x), y: Base64URL.encode(y))
        }
    }

    /// Checks `signature` over `message` with `algorithm`.
    ///
    /// - Parameters:
    ///   - signature: RSASSA-PKCS1-v1_5 bytes (RFC 8017 §8.2), or for ES256 the raw 64-byte
    ///     `r || s` of JWS (RFC 7518 §3.4); a high `s` (above half the group order, the
    ///     other encoding of the same signature) is read as its low-`s` twin `n − s`, so both
    ///     encodings verify alike (Docs/Security.md, "Keys and signatures").
    ///   - message: the signed bytes (for Truecaller: the UTF-8 bytes of the base64 payload
    ///     string, not the decoded JSON).
    ///   - algorithm: the algorithm; its key type must be this key's.
    /// - Returns: `false` for a wrong signature or an algorithm that does not fit this key.
    public func isValidSignature(
        _ signature: some Sequence<UInt8>, for message: some Sequence<UInt8>,
        algorithm: SignatureAlgorithm
    ) -> Bool {
        guard algorithm.keyType == keyType else { return false }
        return verifies(Array(signature), message: Array(message), algorithm: algorithm)
    }

    /// Verifies `signature` over `message`, throwing when it does not verify.
    ///
    /// - Throws: ``CryptoError/unsupportedAlgorithm`` when `algorithm` does not fit this key
    ///   type; ``CryptoError/signatureInvalid`` when the signature is wrong (an ES256 high
    ///   `s` is normalised first; see ``isValidSignature(_:for:algorithm:)``).
    public func verify(
        _ signature: some Sequence<UInt8>, for message: some Sequence<UInt8>,
        algorithm: SignatureAlgorithm
    ) throws {
        guard algorithm.keyType == keyType else { throw CryptoError.unsupportedAlgorithm }
        guard verifies(Array(signature), message: Array(message), algorithm: algorithm) else {
            throw CryptoError.signatureInvalid
        }
    }

    /// The backend check, after mapping a high-`s` ECDSA signature to its low-`s` twin so
    /// every backend sees the same canonical form.
    private func verifies(_ signature: [UInt8], message: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        let canonical = keyType == .p256 ? ECDSASignature.normalizedLowS(signature) : signature
        return handle.verify(canonical, message: message, digest: algorithm.digest)
    }

    /// `handle`, after checking an RSA key's public exponent is odd, at least 3 and below
    /// 2³², and its modulus at most ``maximumRSABits`` bits.
    ///
    /// - Throws: ``CryptoError/invalidKey``.
    static func checked(_ handle: KeyHandle) throws -> KeyHandle {
        guard handle.keyType == .rsa else { return handle }
        let components = try handle.rsaComponents()
        let exponent = components.exponent.drop(while: { $0 == 0 })
        guard let last = exponent.last, last & 1 == 1, exponent.count > 1 || last >= 3,
            exponent.count <= maximumRSAExponentBytes
        else {
            throw CryptoError.invalidKey
        }
        let modulus = components.modulus.drop(while: { $0 == 0 })
        let bits = modulus.first.map { (modulus.count - 1) * 8 + (8 - $0.leadingZeroBitCount) } ?? 0
        guard bits <= maximumRSABits else { throw CryptoError.invalidKey }
        return handle
    }

    /// The key type only; key material is not printed.
    public var description: String { "PublicKey(\(keyType.rawValue))" }

    /// Big-endian integers may carry leading zero bytes (e.g. from DER); strip them.
    private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        Array(bytes.drop(while: { $0 == 0 }))
    }
}
