import Foundation
import MultiAuthTestKeys
import Testing

@testable import MultiAuthCrypto

/// Key hygiene (Docs/Security.md, "Keys and signatures"): RSA moduli above 8,192 bits and
/// public exponents of 2³² or more are refused on every import path, so a JWKS of 16,384-bit
/// keys with a 64-bit exponent (about 45 ms per key per verification before) costs nothing.
@Suite("Key size limits: RSA modulus at most 8,192 bits, exponent below 2^32", .timeLimit(.minutes(10)))
struct KeySizeLimitTests {
    /// An odd modulus of exactly `bits` bits (not a product of primes: import does not check,
    /// and no signature is verified).
    static func modulus(bits: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xA5, count: (bits + 7) / 8)
        let spare = bytes.count * 8 - bits
        bytes[0] = 0xFF >> spare
        bytes[0] |= 0x80 >> spare
        bytes[bytes.count - 1] |= 1
        return bytes
    }

    static func imports(_ modulus: [UInt8], _ exponent: [UInt8]) -> [(String, () throws -> PublicKey)] {
        [
            ("modulus/exponent", { try PublicKey(rsaModulus: modulus, exponent: exponent) }),
            (
                "JWK",
                {
                    try PublicKey(
                        jwk: JWK(kty: "RSA", kid: "k", n: Base64URL.encode(modulus), e: Base64URL.encode(exponent)))
                }
            ),
            (
                "DER",
                {
                    try PublicKey(
                        derRepresentation: DER.subjectPublicKeyInfo(
                            rsaPublicKey: DER.rsaPublicKey(modulus: modulus, exponent: exponent)))
                }
            ),
        ]
    }

    @Test func moduliAbove8192BitsAreRefusedOnEveryPath() throws {
        for bits in [8_193, 8_200, 16_384] {
            for (path, load) in Self.imports(Self.modulus(bits: bits), [0x01, 0x00, 0x01]) {
                #expect(throws: CryptoError.invalidKey, "\(bits) bits via \(path)") { try load() }
            }
        }
        for bits in [2_048, 4_096, 8_192] {
            for (path, load) in Self.imports(Self.modulus(bits: bits), [0x01, 0x00, 0x01]) {
                #expect(try load().keyType == .rsa, "\(bits) bits via \(path)")
            }
        }
    }

    @Test func exponentsOf2To32OrMoreAreRefusedOnEveryPath() throws {
        let modulus = Self.modulus(bits: 2_048)
        for exponent: [UInt8] in [
            [0x01, 0x00, 0x00, 0x00, 0x01], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
            [0x00, 0x01, 0x00, 0x00, 0x00, 0x01],
        ] {
            for (path, load) in Self.imports(modulus, exponent) {
                #expect(throws: CryptoError.invalidKey, "e = \(exponent) via \(path)") { try load() }
            }
        }
        for exponent: [UInt8] in [[0xFF, 0xFF, 0xFF, 0xFF], [0x00, 0x01, 0x00, 0x01]] {
            for (path, load) in Self.imports(modulus, exponent) {
                #expect(try load().keyType == .rsa, "e = \(exponent) via \(path)")
            }
        }
    }

    /// A token is checked against at most `maximumCandidateKeys` keys: the real key behind
    /// that many decoys sharing its `kid` verifies, one decoy more and it is never tried.
    @Test func atMostEightCandidateKeysAreTriedPerToken() throws {
        let key = TestKeys.rsaA
        let token = try JWT(
            parsing: JWT.sign(claims: ["sub": .string("x")], with: key, algorithm: .rs256, keyID: "shared"))
        let decoy = JWK(kty: "RSA", kid: "shared", n: Base64URL.encode(Self.modulus(bits: 2_048)), e: "AQAB")
        let real = try key.publicKey.jwk(keyID: "shared")
        let limit = JWKSet.maximumCandidateKeys
        #expect(limit == 8)
        let within = JWKSet(keys: Array(repeating: decoy, count: limit - 1) + [real])
        #expect(try within.verifySignature(of: token) == real)
        let beyond = JWKSet(keys: Array(repeating: decoy, count: limit) + [real])
        #expect(throws: CryptoError.signatureInvalid) { try beyond.verifySignature(of: token) }
    }

    /// The breaker's key set: 16,384-bit keys with a 64-bit exponent find no usable key, and the
    /// token is refused without any RSA operation on them.
    @Test func aJWKSOfHugeKeysYieldsNoUsableKey() throws {
        let n = Base64URL.encode(Self.modulus(bits: 16_384))
        let e = Base64URL.encode([0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01])
        let set = JWKSet(keys: (0..<36).map { JWK(kty: "RSA", kid: "k\($0)", n: n, e: e) })
        let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"k7"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"sub":"x"}"#.utf8))
        let jwt = try JWT(parsing: header + "." + claims + "." + Base64URL.encode([UInt8](repeating: 1, count: 2_048)))
        #expect(throws: CryptoError.keyNotFound) { try set.verifySignature(of: jwt) }
        #expect(JWKSet.resolve(set.keys).allSatisfy { (try? $0.key.get()) == nil })
    }
}
