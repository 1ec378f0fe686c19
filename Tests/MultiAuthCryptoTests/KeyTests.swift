import Foundation
import MultiAuthTestKeys
import Testing

@testable import MultiAuthCrypto

@Suite("RSA and P-256 keys: import, export, sign, verify")
struct KeyTests {
    static let rsa = Result<PrivateKey, any Error>.success(TestKeys.rsaA)
    static let p256 = Result<PrivateKey, any Error>.success(TestKeys.p256A)

    @Test("RSA sign/verify round trip with RS256 and RS512; tampering fails")
    func rsaRoundTrip() throws {
        let key = try Self.rsa.get()
        #expect(key.keyType == .rsa && key.publicKey.keyType == .rsa)
        let message = Array("payload".utf8)
        for algorithm in [SignatureAlgorithm.rs256, .rs512] {
            let signature = try key.signature(for: message, algorithm: algorithm)
            #expect(signature.count == 256)
            #expect(key.publicKey.isValidSignature(signature, for: message, algorithm: algorithm))
            try key.publicKey.verify(signature, for: message, algorithm: algorithm)
            var tampered = signature
            tampered[17] ^= 0x01
            #expect(!key.publicKey.isValidSignature(tampered, for: message, algorithm: algorithm))
            #expect(!key.publicKey.isValidSignature(signature, for: Array("payloaD".utf8), algorithm: algorithm))
            #expect(throws: CryptoError.signatureInvalid) {
                try key.publicKey.verify(tampered, for: message, algorithm: algorithm)
            }
        }
        let rs256 = try key.signature(for: message, algorithm: .rs256)
        #expect(!key.publicKey.isValidSignature(rs256, for: message, algorithm: .rs512))
        #expect(throws: CryptoError.unsupportedAlgorithm) { try key.signature(for: message, algorithm: .es256) }
        #expect(!key.publicKey.isValidSignature(rs256, for: message, algorithm: .es256))
    }

    @Test("ES256 round trip with raw r||s signatures; tampering and wrong lengths fail")
    func es256RoundTrip() throws {
        let key = try Self.p256.get()
        let message = Array("header.payload".utf8)
        let signature = try key.signature(for: message, algorithm: .es256)
        #expect(signature.count == 64)
        #expect(key.publicKey.isValidSignature(signature, for: message, algorithm: .es256))
        var tampered = signature
        tampered[40] ^= 0x80
        #expect(!key.publicKey.isValidSignature(tampered, for: message, algorithm: .es256))
        #expect(!key.publicKey.isValidSignature(signature.dropLast(), for: message, algorithm: .es256))
        #expect(!key.publicKey.isValidSignature([UInt8](repeating: 0, count: 64), for: message, algorithm: .es256))
        #expect(throws: CryptoError.unsupportedAlgorithm) { try key.signature(for: message, algorithm: .rs256) }
    }

    @Test("PEM SPKI import verifies a peer's RS512 signature over a base64 payload string")
    func pemImport() throws {
        let key = try PublicKey(pemRepresentation: PeerFixtures.rsaPEM)
        #expect(key.keyType == .rsa)
        let signature = try Base64.decode(PeerFixtures.rs512SignatureBase64)
        try key.verify(signature, for: Array(PeerFixtures.rs512Message.utf8), algorithm: .rs512)
        #expect(throws: CryptoError.signatureInvalid) {
            try key.verify(signature, for: Array((PeerFixtures.rs512Message + "x").utf8), algorithm: .rs512)
        }
        #expect(!key.isValidSignature(signature, for: Array(PeerFixtures.rs512Message.utf8), algorithm: .rs256))
        // DER and PEM export round-trip to the same key.
        let der = try key.derRepresentation()
        #expect(try PublicKey(derRepresentation: der).derRepresentation() == der)
        #expect(
            try key.pemRepresentation().filter { !$0.isWhitespace } == PeerFixtures.rsaPEM.filter { !$0.isWhitespace })
    }

    @Test("malformed and unsupported keys are rejected")
    func badKeys() throws {
        #expect(throws: CryptoError.invalidKey) { try PublicKey(pemRepresentation: "not a key") }
        #expect(throws: CryptoError.invalidKey) { try PublicKey(derRepresentation: [0x30, 0x03, 0x02, 0x01, 0x01]) }
        let der = try PublicKey(pemRepresentation: PeerFixtures.rsaPEM).derRepresentation()
        #expect(throws: CryptoError.invalidKey) { try PublicKey(derRepresentation: der + [0]) }
        #expect(throws: CryptoError.invalidKey) { try PublicKey(derRepresentation: der.dropLast()) }
        // A 1024-bit RSA modulus is below RFC 7518's 2048-bit minimum.
        #expect(throws: CryptoError.invalidKey) {
            try PublicKey(rsaModulus: [0xC1] + [UInt8](repeating: 0x5A, count: 127), exponent: [1, 0, 1])
        }
        // A point that is not on the curve.
        #expect(throws: CryptoError.invalidKey) {
            try PublicKey(p256X: [UInt8](repeating: 1, count: 32), y: [UInt8](repeating: 2, count: 32))
        }
        #expect(throws: CryptoError.invalidKey) { try PublicKey(p256X: [1], y: [2]) }
        #expect(throws: CryptoError.unsupportedAlgorithm) { try PublicKey(jwk: JWK(kty: "oct")) }
        #expect(throws: CryptoError.unsupportedAlgorithm) {
            try PublicKey(jwk: JWK(kty: "EC", crv: "P-384", x: "AA", y: "AA"))
        }
        #expect(throws: CryptoError.invalidKey) { try PublicKey(jwk: JWK(kty: "RSA", n: "AQAB")) }
        #expect(throws: CryptoError.invalidKey) {
            try PrivateKey.generateRSA(bits: 1024)  // hygiene: refused before generating
        }
    }

    @Test("committed PEM private keys import and sign; public keys, other labels and bad DER are invalidKey")
    func privateKeyPEMImport() throws {
        let rsa = try PrivateKey(pemRepresentation: TestKeys.rsaAPEM)
        let p256 = try PrivateKey(pemRepresentation: TestKeys.p256APEM)
        #expect(rsa.keyType == .rsa && p256.keyType == .p256)
        let message = Array("fixture".utf8)
        #expect(
            rsa.publicKey.isValidSignature(
                try rsa.signature(for: message, algorithm: .rs256), for: message, algorithm: .rs256))
        #expect(
            p256.publicKey.isValidSignature(
                try p256.signature(for: message, algorithm: .es256), for: message, algorithm: .es256))
        // Two different fixtures are two different keys.
        #expect(try TestKeys.rsaA.publicKey.derRepresentation() != TestKeys.rsaB.publicKey.derRepresentation())
        #expect(throws: CryptoError.invalidKey) { try PrivateKey(pemRepresentation: PeerFixtures.rsaPEM) }
        let swapped = TestKeys.p256APEM.replacingOccurrences(of: "EC PRIVATE KEY", with: "RSA PRIVATE KEY")
        #expect(throws: CryptoError.invalidKey) { try PrivateKey(pemRepresentation: swapped) }
        #expect(throws: CryptoError.invalidKey) {
            try PrivateKey(pemRepresentation: "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----")
        }
        #expect(throws: CryptoError.invalidKey) { try PrivateKey(pemRepresentation: "") }
    }

    @Test("JWK import matches PEM import; generated keys export as JWKs that import again")
    func jwkImportExport() throws {
        let set = try JWKSet(jsonData: Data(PeerFixtures.jwks.utf8))
        #expect(set.keys.count == 2)
        let fromJWK = try PublicKey(jwk: set.keys[0])
        let fromPEM = try PublicKey(pemRepresentation: PeerFixtures.rsaPEM)
        #expect(try fromJWK.derRepresentation() == fromPEM.derRepresentation())
        #expect(try fromJWK.jwk(keyID: "rsa-1").n == set.keys[0].n)
        #expect(try fromJWK.jwk().e == "AQAB")
        let ec = try PublicKey(jwk: set.keys[1])
        #expect(ec.keyType == .p256)
        let exported = try ec.jwk(keyID: "ec-1", algorithm: .es256)
        #expect(
            exported.x == set.keys[1].x && exported.y == set.keys[1].y && exported.crv == "P-256"
                && exported.alg == "ES256")

        for key in [try Self.rsa.get(), try Self.p256.get()] {
            let jwk = try key.publicKey.jwk(keyID: "k")
            let imported = try PublicKey(jwk: jwk)
            #expect(try imported.derRepresentation() == key.publicKey.derRepresentation())
            let algorithm: SignatureAlgorithm = key.keyType == .rsa ? .rs256 : .es256
            let signature = try key.signature(for: [1, 2, 3], algorithm: algorithm)
            #expect(imported.isValidSignature(signature, for: [1, 2, 3], algorithm: algorithm))
        }
        #expect(throws: CryptoError.unsupportedAlgorithm) { try Self.p256.get().publicKey.jwk(algorithm: .rs256) }
    }

    @Test("descriptions never show key material")
    func redaction() throws {
        let key = try Self.p256.get()
        #expect(key.description == "PrivateKey(P-256, <redacted>)")
        #expect(key.publicKey.description == "PublicKey(P-256)")
    }
}

@Suite("DER helpers used by the Apple backend agree with libcrypto")
struct DERTests {
    @Test("SPKI → PKCS#1 → (n, e) matches the JWK; re-encoding gives the same SPKI bytes")
    func rsaRoundTrip() throws {
        let key = try PublicKey(pemRepresentation: PeerFixtures.rsaPEM)
        let spki = try key.derRepresentation()
        guard case .rsa(let pkcs1)? = DER.publicKeyInfo(spki) else {
            Issue.record("not an RSA SPKI")
            return
        }
        let components = try #require(DER.rsaComponents(pkcs1: pkcs1))
        let jwk = try key.jwk()
        #expect(Base64URL.encode(components.modulus) == jwk.n)
        #expect(Base64URL.encode(components.exponent) == jwk.e)
        #expect(DER.rsaPublicKey(modulus: components.modulus, exponent: components.exponent) == pkcs1)
        #expect(DER.subjectPublicKeyInfo(rsaPublicKey: pkcs1) == spki)
    }

    @Test("EC SPKI is recognised; garbage and trailing bytes are not")
    func others() throws {
        let ec = try TestKeys.p256B.publicKey.derRepresentation()
        #expect(DER.publicKeyInfo(ec) == .ec)
        #expect(DER.publicKeyInfo(ec + [0]) == nil)
        #expect(DER.publicKeyInfo([0x30, 0x81, 0x01, 0x00]) == nil)
        #expect(DER.publicKeyInfo([]) == nil)
        #expect(DER.rsaComponents(pkcs1: [0x30, 0x03, 0x02, 0x01, 0x01]) == nil)
        #expect(DER.unsignedInteger([0x80]) == [0x02, 0x02, 0x00, 0x80])
        #expect(DER.unsignedInteger([0x00, 0x01]) == [0x02, 0x01, 0x01])
        #expect(DER.encode(tag: 0x04, [UInt8](repeating: 7, count: 300)).prefix(4) == [0x04, 0x82, 0x01, 0x2C])
    }
}
