#if !canImport(CryptoKit)
import CMultiAuthCrypto

/// An owned libcrypto `EVP_PKEY` (RSA or P-256, public or private), freed on deinit.
///
/// Sendable without the compiler's check: the key is never modified after creation, and OpenSSL 3 allows
/// concurrent signing and verification with one `EVP_PKEY` (each signing uses its own
/// `EVP_MD_CTX`; each check takes a prepared `EVP_PKEY_CTX` of its own from
/// ``VerifyContextPool``).
// @unchecked: owns a C pointer (`EVP_PKEY`), immutable after creation (see above).
final class KeyHandle: @unchecked Sendable {
    let pkey: OpaquePointer
    let keyType: KeyType
    let isPrivate: Bool
    /// Prepared verify contexts, one pool per ``DigestAlgorithm`` (indexed by
    /// ``poolIndex(_:)``); each holds its own reference to `pkey`.
    private let verifyPools: [VerifyContextPool]

    /// Takes ownership of `pkey`; frees it and throws if it is not RSA ≥ `minimumRSABits`
    /// bits (2048 unless a caller opts into a legacy size) or P-256.
    init(owning pkey: OpaquePointer, isPrivate: Bool, minimumRSABits: Int = 2048) throws {
        if EVP_PKEY_is_a(pkey, "RSA") == 1, EVP_PKEY_get_bits(pkey) >= minimumRSABits {
            keyType = .rsa
        } else if EVP_PKEY_is_a(pkey, "EC") == 1, Self.groupName(pkey) == "prime256v1" {
            keyType = .p256
        } else {
            EVP_PKEY_free(pkey)
            throw CryptoError.invalidKey
        }
        self.pkey = pkey
        self.isPrivate = isPrivate
        let keyType = self.keyType
        verifyPools = [DigestAlgorithm.sha1, .sha256, .sha512].map {
            VerifyContextPool(pkey: pkey, keyType: keyType, digest: $0)
        }
    }

    deinit { EVP_PKEY_free(pkey) }

    /// The position of `digest`'s pool in `verifyPools`.
    private static func poolIndex(_ digest: DigestAlgorithm) -> Int {
        switch digest {
        case .sha1: 0
        case .sha256: 1
        case .sha512: 2
        }
    }

    /// The pool of prepared verify contexts for `digest` (a test seam).
    func verifyPool(_ digest: DigestAlgorithm) -> VerifyContextPool { verifyPools[Self.poolIndex(digest)] }

    private static func groupName(_ pkey: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pkey, "group", &buffer, buffer.count, &length) == 1 else {
            CryptoBackend.clearErrors()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: Import

    /// Builds a public key from `OSSL_PARAM`s with `EVP_PKEY_fromdata`.
    ///
    /// `OSSL_PARAM_BLD` keeps the *pointers* it is given until `OSSL_PARAM_BLD_to_param`, so
    /// names must be static strings (``CName``) and values must outlive this call.
    private static func fromData(type: String, build: (OpaquePointer) -> Bool) throws -> KeyHandle {
        guard let builder = OSSL_PARAM_BLD_new() else { throw CryptoError.libraryFailure("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard build(builder), let params = OSSL_PARAM_BLD_to_param(builder) else {
            CryptoBackend.clearErrors()
            throw CryptoError.invalidKey
        }
        defer { OSSL_PARAM_free(params) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
            CryptoBackend.clearErrors()
            throw CryptoError.libraryFailure("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &pkey, cmultiauth_selection_public_key(), params) == 1,
            let pkey
        else {
            CryptoBackend.clearErrors()
            throw CryptoError.invalidKey
        }
        return try KeyHandle(owning: pkey, isPrivate: false)
    }

    /// An RSA public key from its big-endian modulus and exponent (JWK `n`, `e`).
    static func rsaPublic(modulus: [UInt8], exponent: [UInt8]) throws -> KeyHandle {
        guard !modulus.isEmpty, !exponent.isEmpty, exponent.count <= 8 else { throw CryptoError.invalidKey }
        guard let n = BN_bin2bn(modulus, Int32(modulus.count), nil) else {
            throw CryptoError.libraryFailure("BN_bin2bn")
        }
        defer { BN_free(n) }
        guard let e = BN_bin2bn(exponent, Int32(exponent.count), nil) else {
            throw CryptoError.libraryFailure("BN_bin2bn")
        }
        defer { BN_free(e) }
        return try fromData(type: "RSA") { builder in
            OSSL_PARAM_BLD_push_BN(builder, CName.n, n) == 1 && OSSL_PARAM_BLD_push_BN(builder, CName.e, e) == 1
        }
    }

    /// A P-256 public key from its 32-byte affine coordinates (JWK `x`, `y`); the point must
    /// lie on the curve.
    static func p256Public(x: [UInt8], y: [UInt8]) throws -> KeyHandle {
        guard x.count == 32, y.count == 32 else { throw CryptoError.invalidKey }
        let point: [UInt8] = [0x04] + x + y
        let handle = try point.withUnsafeBufferPointer { point in
            try fromData(type: "EC") { builder in
                OSSL_PARAM_BLD_push_utf8_string(builder, CName.group, CName.prime256v1, 0) == 1
                    && OSSL_PARAM_BLD_push_octet_string(builder, CName.pub, point.baseAddress, point.count) == 1
            }
        }
        // Decoding the point checks it is on the curve; check the whole key once more.
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, handle.pkey, nil) else {
            throw CryptoError.libraryFailure("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_public_check(context) == 1 else {
            CryptoBackend.clearErrors()
            throw CryptoError.invalidKey
        }
        return handle
    }

    /// A public key from DER SubjectPublicKeyInfo (RFC 5280 §4.1.2.7).
    static func publicKey(spki der: [UInt8], minimumRSABits: Int = 2048) throws -> KeyHandle {
        let pkey = try decodeWhole(der) { cursor, length in d2i_PUBKEY(nil, &cursor, length) }
        return try KeyHandle(owning: pkey, isPrivate: false, minimumRSABits: minimumRSABits)
    }

    /// Decodes `der` with an OpenSSL `d2i_…` call that must consume all of it: trailing bytes
    /// after the structure mean it is not one key.
    /// - Throws: ``CryptoError/invalidKey`` for empty input, a decoding failure or trailing
    ///   bytes (the OpenSSL error queue is cleared).
    private static func decodeWhole(
        _ der: [UInt8], _ decode: (inout UnsafePointer<UInt8>?, Int) -> OpaquePointer?
    ) throws -> OpaquePointer {
        guard !der.isEmpty else { throw CryptoError.invalidKey }
        let pkey: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            let key = decode(&cursor, buffer.count)
            guard let key, cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                if let key { EVP_PKEY_free(key) }
                return nil
            }
            return key
        }
        guard let pkey else {
            CryptoBackend.clearErrors()
            throw CryptoError.invalidKey
        }
        return pkey
    }

    /// A private key from PKCS #1 `RSAPrivateKey` DER (`type` `.rsa`) or SEC 1 `ECPrivateKey`
    /// DER (`type` `.p256`); the whole input must be the one structure.
    static func privateKey(der: [UInt8], type: KeyType) throws -> KeyHandle {
        let pkey = try decodeWhole(der) { cursor, length in
            d2i_PrivateKey(type == .rsa ? EVP_PKEY_RSA : EVP_PKEY_EC, nil, &cursor, length)
        }
        let handle = try KeyHandle(owning: pkey, isPrivate: true)
        guard handle.keyType == type else { throw CryptoError.invalidKey }
        return handle
    }

    /// A fresh key pair: RSA with `rsaBits` bits, or P-256.
    static func generate(_ type: KeyType, rsaBits: Int) throws -> KeyHandle {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type == .rsa ? "RSA" : "EC", nil) else {
            throw CryptoError.libraryFailure("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else {
            CryptoBackend.clearErrors()
            throw CryptoError.libraryFailure("EVP_PKEY_keygen_init")
        }
        let configured =
            switch type {
            case .rsa: EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(rsaBits))
            case .p256: EVP_PKEY_CTX_set_group_name(context, "P-256")
            }
        var pkey: OpaquePointer?
        guard configured == 1, EVP_PKEY_generate(context, &pkey) == 1, let pkey else {
            CryptoBackend.clearErrors()
            throw CryptoError.libraryFailure("EVP_PKEY_generate")
        }
        return try KeyHandle(owning: pkey, isPrivate: true)
    }

    // MARK: Export

    /// The DER SubjectPublicKeyInfo of the public half.
    func spki() throws -> [UInt8] {
        let length = i2d_PUBKEY(pkey, nil)
        guard length > 0 else {
            CryptoBackend.clearErrors()
            throw CryptoError.libraryFailure("i2d_PUBKEY")
        }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(pkey, &cursor)
        }
        guard written == length else { throw CryptoError.libraryFailure("i2d_PUBKEY") }
        return der
    }

    /// The public half as its own handle (for a private key; a public key returns itself).
    func publicHandle() throws -> KeyHandle {
        isPrivate ? try KeyHandle.publicKey(spki: spki()) : self
    }

    /// The RSA modulus and public exponent, big-endian without leading zeros.
    func rsaComponents() throws -> (modulus: [UInt8], exponent: [UInt8]) {
        guard keyType == .rsa else { throw CryptoError.invalidKey }
        return (try bigNumber("n"), try bigNumber("e"))
    }

    private func bigNumber(_ name: String) throws -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pkey, name, &number) == 1, let number else {
            CryptoBackend.clearErrors()
            throw CryptoError.libraryFailure("EVP_PKEY_get_bn_param")
        }
        defer { BN_free(number) }
        var bytes = [UInt8](repeating: 0, count: (Int(BN_num_bits(number)) + 7) / 8)
        let written = BN_bn2bin(number, &bytes)
        guard Int(written) == bytes.count else { throw CryptoError.libraryFailure("BN_bn2bin") }
        return bytes
    }

    /// The P-256 public point's 32-byte affine coordinates.
    func p256Coordinates() throws -> (x: [UInt8], y: [UInt8]) {
        guard keyType == .p256 else { throw CryptoError.invalidKey }
        var point = [UInt8](repeating: 0, count: 65)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(pkey, "encoded-pub-key", &point, point.count, &length) == 1,
            length == 65, point[0] == 0x04
        else {
            CryptoBackend.clearErrors()
            throw CryptoError.libraryFailure("EVP_PKEY_get_octet_string_param")
        }
        return (Array(point[1...32]), Array(point[33...64]))
    }

    // MARK: Signatures

    /// Verifies `signature` (RSA PKCS#1 v1.5 bytes, or raw `r || s` for P-256) over `message`.
    ///
    /// The message is hashed with libcrypto's one-shot `SHA256()`/`SHA512()` into a stack
    /// buffer, a raw ECDSA signature is DER-encoded into another
    /// (``ECDSASignature/writeDER(fromRaw:into:)``), and the check is one `EVP_PKEY_verify` on
    /// a prepared context of the key's ``VerifyContextPool`` (no lock held meanwhile).
    /// - Returns: `false` for a wrong signature, a raw ECDSA signature that is not 64 bytes, or
    ///   a libcrypto failure (its error queue is cleared).
    func verify(_ signature: [UInt8], message: [UInt8], digest: DigestAlgorithm) -> Bool {
        let pool = verifyPool(digest)
        let keyType = self.keyType
        return withUnsafeTemporaryAllocation(
            of: UInt8.self, capacity: Self.digestScratch + ECDSASignature.maximumDERLength
        ) { scratch -> Bool in
            let hash = UnsafeMutableBufferPointer(rebasing: scratch[0..<digest.byteCount])
            guard message.withUnsafeBufferPointer({ CryptoBackend.oneShotDigest($0, digest, into: hash) }) else {
                return false
            }
            let messageDigest = UnsafeBufferPointer(hash)
            switch keyType {
            case .rsa:
                return signature.withUnsafeBufferPointer {
                    pool.verify(signature: $0, messageDigest: messageDigest)
                }
            case .p256:
                let der = UnsafeMutableBufferPointer(rebasing: scratch[Self.digestScratch...])
                guard
                    let length = signature.withUnsafeBufferPointer({ ECDSASignature.writeDER(fromRaw: $0, into: der) })
                else { return false }
                return pool.verify(
                    signature: UnsafeBufferPointer(rebasing: der[0..<length]), messageDigest: messageDigest)
            }
        }
    }

    /// Room for the longest digest (SHA-512) at the start of ``verify(_:message:digest:)``'s
    /// stack buffer; the DER signature follows it.
    private static var digestScratch: Int { 64 }

    /// Signs `message`: RSA PKCS#1 v1.5, or ECDSA returned as raw `r || s` (64 bytes).
    func sign(_ message: [UInt8], digest: DigestAlgorithm) throws -> [UInt8] {
        guard isPrivate else { throw CryptoError.invalidKey }
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.libraryFailure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        var length = 0
        guard EVP_DigestSignInit(context, nil, CryptoBackend.evpMD(digest), nil, pkey) == 1,
            EVP_DigestSign(context, nil, &length, message, message.count) == 1
        else {
            CryptoBackend.clearErrors()
            throw CryptoError.libraryFailure("EVP_DigestSign")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            CryptoBackend.clearErrors()
            throw CryptoError.libraryFailure("EVP_DigestSign")
        }
        signature.removeSubrange(length...)
        switch keyType {
        case .rsa: return signature
        case .p256:
            guard let raw = Self.rawSignature(fromDER: signature) else {
                throw CryptoError.libraryFailure("d2i_ECDSA_SIG")
            }
            return raw
        }
    }

    /// JWS `r || s` (RFC 7518 §3.4) to the DER `ECDSA-Sig-Value`, through libcrypto's
    /// `ECDSA_SIG` and `i2d_ECDSA_SIG`: the reference that tests hold
    /// ``ECDSASignature/writeDER(fromRaw:into:)`` (which verification uses) against.
    static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        guard let r = BN_bin2bn(raw, 32, nil) else { return nil }
        guard let s = raw.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + 32, 32, nil) }) else {
            BN_free(r)
            return nil
        }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }

    /// DER `ECDSA-Sig-Value` to JWS `r || s`, each left-padded to 32 bytes.
    static func rawSignature(fromDER der: [UInt8]) -> [UInt8]? {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { return nil }
        defer { ECDSA_SIG_free(signature) }
        var raw = [UInt8](repeating: 0, count: 64)
        let ok = raw.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(ECDSA_SIG_get0_r(signature), buffer.baseAddress, 32) == 32
                && BN_bn2binpad(ECDSA_SIG_get0_s(signature), buffer.baseAddress! + 32, 32) == 32
        }
        return ok ? raw : nil
    }
}

/// NUL-terminated C strings with static storage, for OpenSSL parameters that keep the
/// pointer beyond the call (a Swift `String` argument is only valid during the call).
enum CName {
    static var n: UnsafeMutablePointer<CChar> { pointer("n") }
    static var e: UnsafeMutablePointer<CChar> { pointer("e") }
    static var group: UnsafeMutablePointer<CChar> { pointer("group") }
    static var pub: UnsafeMutablePointer<CChar> { pointer("pub") }
    static var prime256v1: UnsafeMutablePointer<CChar> { pointer("prime256v1") }
    static var digest: UnsafeMutablePointer<CChar> { pointer("digest") }
    static var sha1: UnsafeMutablePointer<CChar> { pointer("SHA1") }
    static var sha256: UnsafeMutablePointer<CChar> { pointer("SHA256") }
    static var sha512: UnsafeMutablePointer<CChar> { pointer("SHA512") }

    private static func pointer(_ string: StaticString) -> UnsafeMutablePointer<CChar> {
        // A string literal's UTF-8 is NUL-terminated and lives in the binary for the whole run.
        UnsafeMutableRawPointer(mutating: UnsafeRawPointer(string.utf8Start)).assumingMemoryBound(to: CChar.self)
    }
}
#endif
