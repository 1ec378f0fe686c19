import CMultiAuthCrypto
import Foundation
import MultiAuthCrypto
import MultiAuthTestKeys

/// Server-side JWT verification through `JWKSCache` (parse, `kid` lookup in the cached set,
/// signature, claims `exp`/`nbf`/`iss`/`aud`), against the raw libcrypto signature check of
/// the same token (`EVP_DigestVerifyInit` + `EVP_DigestVerify` on the pre-decoded signing
/// input and signature with a pre-loaded key), and against PyJWT verifying the same tokens
/// with the same key set (kid lookup, signature, claims).
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

    static func raw(_ algorithm: SignatureAlgorithm) -> Kernel {
        Kernel(
            "jwt.\(algorithm.rawValue.lowercased()).raw", batch: algorithm == .rs256 ? 2_000 : 1_000, instructions: 200
        ) {
            let verifier = try RawVerifier(
                token: token(algorithm), key: algorithm == .rs256 ? fixture.rsaKey : fixture.ecKey)
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
                label: "JWKSCache.verify (kid lookup + claims) vs raw EVP_DigestVerify",
                ours: ours(algorithm), baseline: raw(algorithm), goal: .atMost(1.15)),
            Comparison(
                group: "JWT \(algorithm.rawValue)",
                label: "JWKSCache.verify vs PyJWT (kid lookup + decode with claims)",
                ours: ours(algorithm), baseline: pyjwt(algorithm), goal: .fasterBy(5), judgedOnTime: true),
        ]
    }
}

/// The floor: one libcrypto signature check of a token whose signing input and signature are
/// decoded (ES256: converted to DER) ahead of time, with a pre-loaded `EVP_PKEY`.
final class RawVerifier: @unchecked Sendable {
    private let pkey: OpaquePointer
    private let message: [UInt8]
    private let signature: [UInt8]

    init(token: String, key: PublicKey) throws {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { throw BenchError("not a JWS") }
        message = Array("\(parts[0]).\(parts[1])".utf8)
        var signature = try Base64URL.decode(String(parts[2]))
        if key.keyType == .p256 { signature = Self.der(rawECDSA: signature) }
        self.signature = signature
        let der = try key.derRepresentation()
        guard
            let pkey = der.withUnsafeBufferPointer({ buffer -> OpaquePointer? in
                var cursor = buffer.baseAddress
                return d2i_PUBKEY(nil, &cursor, buffer.count)
            })
        else { throw BenchError("d2i_PUBKEY") }
        self.pkey = pkey
    }

    deinit { EVP_PKEY_free(pkey) }

    func verify() -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        return EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pkey) == 1
            && EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
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
