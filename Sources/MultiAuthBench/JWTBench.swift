import CMultiAuthCrypto
import Foundation
import MultiAuthCrypto
import MultiAuthTestKeys

/// Server-side JWT verification through `JWKSCache` (parse, `kid` lookup in the cached set,
/// signature, claims `exp`/`nbf`/`iss`/`aud`), against the raw libcrypto signature check of
/// the same token with a pre-loaded key and the signing input and signature decoded ahead of
/// time: the floor is `SHA256()` of the signing input and `EVP_PKEY_verify` on a context
/// prepared once for the key (``RawVerifier/Mode/preparedContext``, the goal's baseline);
/// a new `EVP_MD_CTX` with `EVP_DigestVerifyInit` + `EVP_DigestVerify` per token (the former
/// floor, ``RawVerifier/Mode/digestVerifyPerToken``) is an informational row. Also against
/// PyJWT verifying the same tokens with the same key set (kid lookup, signature, claims).
enum JWTBench {
    static let issuer = "https://issuer.bench.example"
    static let audience = "bench-client"

    /// A key set with an RSA and a P-256 key plus two decoys, and one token per algorithm.
    struct Fixture: Sendable {
        let jwks: Data
        let rs256: String
        let es256: String
        let rsaKey: PublicKey
        let ecKey: PublicKey
    }

    /// The repository's committed test keys (no key generation, which is slow under callgrind);
    /// every process signs its own tokens (valid for a day from now), which cost the same to verify.
    static let fixture: Fixture = {
        do {
            let rsa = TestKeys.rsaA
            let ec = TestKeys.p256A
            let decoyRSA = TestKeys.rsaB
            let now = Date().timeIntervalSince1970.rounded(.down)
            let claims: [String: JSONValue] = [
                "iss": .string(issuer), "sub": .string("user-1"), "aud": .string(audience),
                "iat": .number(now), "nbf": .number(now - 60), "exp": .number(now + 86_400),
                "email": .string("ada@example.com"),
            ]
            let set = JWKSet(keys: [
                try decoyRSA.publicKey.jwk(keyID: "rsa-old", algorithm: .rs256),
                try rsa.publicKey.jwk(keyID: "rsa-1", algorithm: .rs256),
                try ec.publicKey.jwk(keyID: "ec-1", algorithm: .es256),
                try decoyRSA.publicKey.jwk(keyID: "rsa-next", algorithm: .rs256),
            ])
            return Fixture(
                jwks: try set.jsonData(),
                rs256: try JWT.sign(claims: claims, with: rsa, algorithm: .rs256, keyID: "rsa-1"),
                es256: try JWT.sign(claims: claims, with: ec, algorithm: .es256, keyID: "ec-1"),
                rsaKey: rsa.publicKey, ecKey: ec.publicKey)
        } catch {
            fatalError("JWT bench fixture: \(error)")
        }
    }()

    static func token(_ algorithm: SignatureAlgorithm) -> String { algorithm == .rs256 ? fixture.rs256 : fixture.es256 }

    static func ours(_ algorithm: SignatureAlgorithm) -> Kernel {
        Kernel(
            "jwt.\(algorithm.rawValue.lowercased()).ours", batch: algorithm == .rs256 ? 2_000 : 1_000, instructions: 200
        ) {
            let jwks = fixture.jwks
            let cache = JWKSCache { jwks }
            let token = token(algorithm)
            return Kernel.timedAsync { count in
                let now = Date()
                for _ in 0..<count {
                    let jwt = try await cache.verify(token, at: now, issuer: issuer, audience: .expected(audience))
                    blackHole(jwt)
                }
            }
        }
    }

    /// The raw libcrypto check of the algorithm's token in `mode`: `jwt.<alg>.raw` for the
    /// per-token `EVP_DigestVerify` (the name the former floor had), `jwt.<alg>.raw.prepared`
    /// for the prepared context.
    static func raw(_ algorithm: SignatureAlgorithm, _ mode: RawVerifier.Mode) -> Kernel {
        let suffix = mode == .preparedContext ? ".prepared" : ""
        return Kernel(
            "jwt.\(algorithm.rawValue.lowercased()).raw\(suffix)", batch: algorithm == .rs256 ? 2_000 : 1_000,
            instructions: 200
        ) {
            let verifier = try RawVerifier(
                token: token(algorithm), key: algorithm == .rs256 ? fixture.rsaKey : fixture.ecKey, mode: mode)
            return Kernel.timed { count in
                for _ in 0..<count { precondition(verifier.verify()) }
            }
        }
    }

    static func pyjwt(_ algorithm: SignatureAlgorithm) -> Kernel {
        Kernel(
            "jwt.\(algorithm.rawValue.lowercased()).pyjwt", batch: 500, instructions: 100,
            python: [
                Paths.script("bench_pyjwt.py"), "--fixture-json", fixtureJSON, "--algorithm", algorithm.rawValue,
            ])
    }

    /// The tokens and key set for the Python peer, as JSON passed on its command line (a few
    /// kilobytes): no file is written, so no run leaves one behind.
    static let fixtureJSON: String = {
        let object: [String: Any] = [
            "jwks": String(decoding: fixture.jwks, as: UTF8.self), "RS256": fixture.rs256, "ES256": fixture.es256,
            "issuer": issuer, "audience": audience,
        ]
        return String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }()

    static let comparisons: [Comparison] = [SignatureAlgorithm.rs256, .es256].flatMap { algorithm in
        [
            Comparison(
                group: "JWT \(algorithm.rawValue)",
                label: "JWKSCache.verify vs raw SHA256 + EVP_PKEY_verify, prepared context",
                ours: ours(algorithm), baseline: raw(algorithm, .preparedContext), goal: .atMost(1.15)),
            Comparison(
                group: "JWT \(algorithm.rawValue)",
                label: "JWKSCache.verify vs raw EVP_DigestVerify, new context per token",
                ours: ours(algorithm), baseline: raw(algorithm, .digestVerifyPerToken), goal: .none),
            Comparison(
                group: "JWT \(algorithm.rawValue)",
                label: "JWKSCache.verify vs PyJWT (kid lookup + decode with claims)",
                ours: ours(algorithm), baseline: pyjwt(algorithm), goal: .fasterBy(5), judgedOnTime: true),
        ]
    }
}

/// A floor: one libcrypto signature check of a token whose signing input and signature are
/// decoded (ES256: converted to DER) ahead of time, with a pre-loaded `EVP_PKEY`.
final class RawVerifier {
    /// How the check reaches libcrypto.
    enum Mode: Sendable {
        /// `SHA256()` of the signing input, then `EVP_PKEY_verify` on one `EVP_PKEY_CTX`
        /// prepared once (`EVP_PKEY_verify_init`, PKCS #1 v1.5 padding for RSA, signature
        /// digest SHA-256) and reused for every token: the least work libcrypto needs per
        /// token, the goal's floor.
        case preparedContext
        /// A new `EVP_MD_CTX` per token with `EVP_DigestVerifyInit` + `EVP_DigestVerify` (the
        /// former floor; it re-fetches the algorithm and re-sets the context every time).
        case digestVerifyPerToken
    }

    private let pkey: OpaquePointer
    private let message: [UInt8]
    private let signature: [UInt8]
    private let mode: Mode
    /// The prepared context of ``Mode/preparedContext`` (`nil` in the other mode). One
    /// verifier is only ever used by one thread at a time, as a kernel runs its batches in turn.
    private let context: OpaquePointer?

    /// Decodes `token` and loads `key` (as the DER SubjectPublicKeyInfo libcrypto reads);
    /// in ``Mode/preparedContext`` also prepares the context.
    init(token: String, key: PublicKey, mode: Mode) throws {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { throw BenchError("not a JWS") }
        message = Array("\(parts[0]).\(parts[1])".utf8)
        var signature = try Base64URL.decode(String(parts[2]))
        if key.keyType == .p256 { signature = Self.der(rawECDSA: signature) }
        self.signature = signature
        self.mode = mode
        let der = try key.derRepresentation()
        guard
            let pkey = der.withUnsafeBufferPointer({ buffer -> OpaquePointer? in
                var cursor = buffer.baseAddress
                return d2i_PUBKEY(nil, &cursor, buffer.count)
            })
        else { throw BenchError("d2i_PUBKEY") }
        self.pkey = pkey
        guard mode == .preparedContext else {
            context = nil
            return
        }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            EVP_PKEY_free(pkey)
            throw BenchError("EVP_PKEY_CTX_new_from_pkey")
        }
        let ready =
            EVP_PKEY_verify_init(context) == 1
            && (key.keyType != .rsa || EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1)
            && EVP_PKEY_CTX_set_signature_md(context, EVP_sha256()) == 1
        guard ready else {
            EVP_PKEY_CTX_free(context)
            EVP_PKEY_free(pkey)
            throw BenchError("EVP_PKEY_verify_init")
        }
        self.context = context
    }

    deinit {
        if let context { EVP_PKEY_CTX_free(context) }
        EVP_PKEY_free(pkey)
    }

    /// One check of the token's signature.
    func verify() -> Bool {
        switch mode {
        case .preparedContext:
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
                SHA256(message, message.count, digest.baseAddress) != nil
                    && EVP_PKEY_verify(context, signature, signature.count, digest.baseAddress, 32) == 1
            }
        case .digestVerifyPerToken:
            guard let context = EVP_MD_CTX_new() else { return false }
            defer { EVP_MD_CTX_free(context) }
            return EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pkey) == 1
                && EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
        }
    }

    /// `r || s` (32 bytes each) as a DER `ECDSA-Sig-Value` (two positive INTEGERs).
    static func der(rawECDSA raw: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        return [0x30, UInt8(body.count)] + body
    }
}
