import Foundation
import MultiAuthTestKeys
import Testing

@testable import MultiAuthCrypto

#if !canImport(CryptoKit)
import CMultiAuthCrypto
#endif

// Breaker of the JWT verification rework (prepared `EVP_PKEY_CTX` pools per key and digest,
// one-shot SHA-256/512, hand-built DER for ES256 `r || s`, `alg`/`kid` read once while
// parsing): hostile signatures never verify and never spoil a pooled context for the next
// caller; the pool's verdict equals libcrypto's per-token `EVP_DigestVerify` (the code it
// replaced); many tasks verifying with the keys of one set while the set is refetched (new
// key handles, old ones released mid-flight) get exactly the answers of a sequential run.

@Suite("breaker: prepared verify contexts", .timeLimit(.minutes(10)))
struct BreakerPerfVerifyTests {
    /// The P-256 group order n, big-endian.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// `value` + `delta` as a 32-byte big-endian number (wrapping).
    static func add(_ value: [UInt8], _ delta: Int) -> [UInt8] {
        var result = value
        var carry = delta
        for index in stride(from: 31, through: 0, by: -1) where carry != 0 {
            let sum = Int(result[index]) + carry
            result[index] = UInt8(truncatingIfNeeded: sum)
            carry = sum >> 8
        }
        return result
    }

    /// `n - value` (32 bytes, big-endian; `value` < n).
    static func negate(_ value: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in stride(from: 31, through: 0, by: -1) {
            var difference = Int(order[index]) - Int(value[index]) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 256 }
            result[index] = UInt8(difference)
        }
        return result
    }

    /// Raw ES256 signatures that must never verify (named), built around a valid `signature`.
    static func hostileES256(_ signature: [UInt8]) -> [(String, [UInt8])] {
        let r = Array(signature[..<32])
        let s = Array(signature[32...])
        let zero = [UInt8](repeating: 0, count: 32)
        let ones = [UInt8](repeating: 0xFF, count: 32)
        var cases: [(String, [UInt8])] = [
            ("all zero", zero + zero), ("all 0xFF", ones + ones), ("r = 0", zero + s), ("s = 0", r + zero),
            ("r = n", order + s), ("s = n", r + order), ("r = n + 1", add(order, 1) + s),
            ("s = n + 1", r + add(order, 1)), ("r = n - 1", add(order, -1) + s), ("s = n - 1", r + add(order, -1)),
            ("r = 0xFF…", ones + s), ("s = 0xFF…", r + ones), ("r, s swapped", s + r), ("s = 1", r + add(zero, 1)),
            ("r = 1", add(zero, 1) + s), ("63 bytes", Array(signature.dropLast())),
            ("65 bytes", signature + [0]), ("empty", []), ("one byte", [0x30]),
            ("DER of the signature", KeyHandleDER.der(signature)),
        ]
        // r + n and s + n overflow 256 bits for most values; where they fit they are other
        // encodings of r and s that ECDSA must refuse.
        for (name, half, isR) in [("r + n", r, true), ("s + n", s, false)] {
            var sum = half
            var carry = 0
            for index in stride(from: 31, through: 0, by: -1) {
                let total = Int(sum[index]) + Int(order[index]) + carry
                sum[index] = UInt8(truncatingIfNeeded: total)
                carry = total >> 8
            }
            if carry == 0 { cases.append((name, isR ? sum + s : r + sum)) }
        }
        var flipped = signature
        flipped[63] ^= 1
        cases.append(("last bit flipped", flipped))
        flipped = signature
        flipped[0] ^= 0x80
        cases.append(("first bit flipped", flipped))
        return cases
    }

    /// RSA signatures (for a 2048-bit key) that must never verify, built around a valid one.
    static func hostileRS256(_ signature: [UInt8]) -> [(String, [UInt8])] {
        var cases: [(String, [UInt8])] = [
            ("empty", []), ("one byte", [1]), ("255 bytes", Array(signature.dropFirst())),
            ("257 bytes, leading zero", [0] + signature), ("257 bytes, trailing zero", signature + [0]),
            ("512 bytes", signature + signature), ("all zero", [UInt8](repeating: 0, count: 256)),
            ("all 0xFF (above the modulus)", [UInt8](repeating: 0xFF, count: 256)),
            ("one", [UInt8](repeating: 0, count: 255) + [1]), ("reversed", signature.reversed()),
        ]
        var flipped = signature
        flipped[128] ^= 0x10
        cases.append(("a middle bit flipped", flipped))
        return cases
    }

    #if !canImport(CryptoKit)
    /// The verdict of the code the pool replaced: a fresh `EVP_MD_CTX` and `EVP_DigestVerify`
    /// (DER from libcrypto's `ECDSA_SIG` for P-256). `nil` bytes (a raw ES256 that is not 64
    /// bytes) are `false`, as before.
    static func reference(_ handle: KeyHandle, _ signature: [UInt8], _ message: [UInt8], _ digest: DigestAlgorithm)
        -> Bool
    {
        let encoded: [UInt8]
        switch handle.keyType {
        case .rsa: encoded = signature
        case .p256:
            guard let der = KeyHandle.derSignature(fromRaw: signature) else { return false }
            encoded = der
        }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let ok =
            EVP_DigestVerifyInit(context, nil, CryptoBackend.evpMD(digest), nil, handle.pkey) == 1
            && EVP_DigestVerify(context, encoded, encoded.count, message, message.count) == 1
        if !ok { ERR_clear_error() }
        return ok
    }

    @Test(
        "a hostile ES256 signature never verifies, agrees with EVP_DigestVerify, and leaves the pool serving the next valid check"
    )
    func hostileES256SignaturesDoNotSpoilThePool() throws {
        let key = TestKeys.p256B
        let publicKey = try PublicKey(derRepresentation: key.publicKey.derRepresentation())
        let pool = publicKey.handle.verifyPool(.sha256)
        for message in [[UInt8](), Array("header.payload".utf8), [UInt8](repeating: 0x61, count: 70_000)] {
            let signature = try key.signature(for: message, algorithm: .es256)
            #expect(publicKey.isValidSignature(signature, for: message, algorithm: .es256))
            // The high-S twin of a valid signature is the same signature (Docs/Security.md).
            let twin = Array(signature[..<32]) + Self.negate(Array(signature[32...]))
            #expect(publicKey.isValidSignature(twin, for: message, algorithm: .es256), "high-S twin")
            for (name, hostile) in Self.hostileES256(signature) {
                let verdict = publicKey.isValidSignature(hostile, for: message, algorithm: .es256)
                #expect(!verdict, "\(name) verified")
                let canonical = ECDSASignature.normalizedLowS(hostile)
                #expect(
                    verdict == Self.reference(publicKey.handle, canonical, message, .sha256),
                    "\(name): the pool and EVP_DigestVerify disagree")
                #expect(!CryptoBackend.hasPendingErrors, "\(name) left an error queued")
                #expect(publicKey.isValidSignature(signature, for: message, algorithm: .es256), "after \(name)")
                #expect(pool.idleCount <= VerifyContextPool.capacity)
            }
        }
    }

    @Test(
        "an RS256/RS512 signature of the wrong length or value never verifies and leaves the pool serving the next valid check"
    )
    func hostileRSASignaturesDoNotSpoilThePool() throws {
        let key = TestKeys.rsaB
        let publicKey = try PublicKey(derRepresentation: key.publicKey.derRepresentation())
        for algorithm in [SignatureAlgorithm.rs256, .rs512] {
            let pool = publicKey.handle.verifyPool(algorithm.digest)
            for message in [[UInt8](), Array("a.b".utf8), [UInt8](repeating: 0, count: 65_537)] {
                let signature = try key.signature(for: message, algorithm: algorithm)
                #expect(publicKey.isValidSignature(signature, for: message, algorithm: algorithm))
                for (name, hostile) in Self.hostileRS256(signature) {
                    let verdict = publicKey.isValidSignature(hostile, for: message, algorithm: algorithm)
                    #expect(!verdict, "\(algorithm) \(name) verified")
                    #expect(verdict == Self.reference(publicKey.handle, hostile, message, algorithm.digest))
                    #expect(!CryptoBackend.hasPendingErrors, "\(name) left an error queued")
                    #expect(publicKey.isValidSignature(signature, for: message, algorithm: algorithm), "after \(name)")
                    #expect(pool.idleCount <= VerifyContextPool.capacity)
                }
                // RS256 signature checked as RS512 and the reverse: never valid.
                let other: SignatureAlgorithm = algorithm == .rs256 ? .rs512 : .rs256
                #expect(!publicKey.isValidSignature(signature, for: message, algorithm: other))
            }
        }
    }

    @Test("random tampering of RS256, RS512 and ES256 signatures: the pool's verdict is EVP_DigestVerify's")
    func randomTamperingMatchesTheReference() throws {
        var random = SystemRandomNumberGenerator()
        for (key, algorithm) in [
            (TestKeys.rsaA, SignatureAlgorithm.rs256), (TestKeys.rsaC, .rs512), (TestKeys.p256A, .es256),
        ] {
            let publicKey = try PublicKey(derRepresentation: key.publicKey.derRepresentation())
            for round in 0..<60 {
                let message = (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255) }
                var signature = try key.signature(for: message, algorithm: algorithm)
                if round % 3 != 0 {
                    let index = Int.random(in: 0..<signature.count, using: &random)
                    signature[index] ^= UInt8.random(in: 1...255, using: &random)
                }
                let verdict = publicKey.isValidSignature(signature, for: message, algorithm: algorithm)
                let canonical = algorithm == .es256 ? ECDSASignature.normalizedLowS(signature) : signature
                #expect(verdict == Self.reference(publicKey.handle, canonical, message, algorithm.digest))
                #expect(verdict == (round % 3 == 0))
            }
        }
    }
    #endif

    // MARK: - Concurrent verification while the set is refetched

    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// The outcome of one verification as text (`ok <sub>` or the error).
    static func outcome(_ cache: JWKSCache, _ token: String) async -> String {
        do {
            let jwt = try await cache.verify(token, at: now, audience: .anyAudience)
            return "ok \(jwt.claims.subject ?? "-")"
        } catch {
            return "\(error)"
        }
    }

    /// A token with the header `header` (JSON text), the claims of `claimsOf` and the signature
    /// of `signatureOf`.
    static func splice(header: String, claimsOf: String, signatureOf: String) -> String {
        let claims = claimsOf.split(separator: ".", omittingEmptySubsequences: false)[1]
        let signature = signatureOf.split(separator: ".", omittingEmptySubsequences: false)[2]
        return Base64URL.encode(Array(header.utf8)) + "." + claims + "." + signature
    }

    /// Valid, tampered, truncated, wrong-`alg`, wrong-`kid` and unknown-`kid` tokens for the keys
    /// of one set.
    static func tokens() throws -> [String] {
        let keys: [(PrivateKey, String, SignatureAlgorithm)] = [
            (TestKeys.rsaA, "a", .rs256), (TestKeys.rsaB, "b", .rs512), (TestKeys.p256A, "c", .es256),
            (TestKeys.p256B, "d", .es256), (TestKeys.rsaC, "e", .rs256),
        ]
        var tokens: [String] = []
        var valid: [String] = []
        for (key, kid, algorithm) in keys {
            for subject in 0..<2 {
                let token = try JWT.sign(
                    claims: ["sub": .string("\(kid)-\(subject)"), "exp": .number(1_800_000_000)], with: key,
                    algorithm: algorithm, keyID: kid)
                valid.append(token)
                tokens.append(token)
                var characters = Array(token)
                characters[characters.count - 3] = characters[characters.count - 3] == "A" ? "B" : "A"
                tokens.append(String(characters))  // tampered signature
                tokens.append(String(token.dropLast(8)))  // truncated signature
                tokens.append(String(token[..<(token.lastIndex(of: ".")!)]) + ".")  // no signature
            }
        }
        // Another key's signature under a kid, alg confusion, an unknown kid, `none`, `HS256`.
        tokens.append(splice(header: #"{"alg":"RS256","kid":"a"}"#, claimsOf: valid[0], signatureOf: valid[8]))
        tokens.append(splice(header: #"{"alg":"ES256","kid":"c"}"#, claimsOf: valid[4], signatureOf: valid[6]))
        tokens.append(splice(header: #"{"alg":"RS256","kid":"c"}"#, claimsOf: valid[4], signatureOf: valid[4]))
        tokens.append(splice(header: #"{"alg":"ES256","kid":"a"}"#, claimsOf: valid[0], signatureOf: valid[4]))
        tokens.append(splice(header: #"{"alg":"RS512","kid":"a"}"#, claimsOf: valid[0], signatureOf: valid[0]))
        tokens.append(splice(header: #"{"alg":"RS256","kid":"b"}"#, claimsOf: valid[2], signatureOf: valid[2]))
        tokens.append(splice(header: #"{"alg":"ES256"}"#, claimsOf: valid[6], signatureOf: valid[6]))
        tokens.append(splice(header: #"{"alg":"RS256"}"#, claimsOf: valid[0], signatureOf: valid[0]))
        tokens.append(splice(header: #"{"alg":"none","kid":"a"}"#, claimsOf: valid[0], signatureOf: valid[0]))
        tokens.append(splice(header: #"{"alg":"HS256","kid":"a"}"#, claimsOf: valid[0], signatureOf: valid[0]))
        tokens.append(splice(header: #"{"alg":"ES256","kid":"zz"}"#, claimsOf: valid[4], signatureOf: valid[4]))
        return tokens
    }

    @Test(
        "24 tasks verify valid, tampered, truncated and wrong-alg tokens of five keys while the set is refetched 60 times: every answer is the sequential one"
    )
    func concurrentVerificationDuringRefetches() async throws {
        let set = JWKSet(keys: [
            try TestKeys.rsaA.publicKey.jwk(keyID: "a", algorithm: .rs256),
            try TestKeys.rsaB.publicKey.jwk(keyID: "b", algorithm: .rs512),
            try TestKeys.p256A.publicKey.jwk(keyID: "c", algorithm: .es256),
            try TestKeys.p256B.publicKey.jwk(keyID: "d", algorithm: .es256),
            try TestKeys.rsaC.publicKey.jwk(keyID: "e", algorithm: .rs256),
        ])
        let document = try set.jsonData()
        let tokens = try Self.tokens()
        // The sequential answers, from a cache of its own.
        let baselineCache = JWKSCache { document }
        var answers: [String] = []
        for token in tokens { answers.append(await Self.outcome(baselineCache, token)) }
        let expected = answers
        #expect(expected.filter { $0.hasPrefix("ok") }.count == 10)

        // Interval 0: the unknown kid "zz" refetches, importing new handles each time.
        let cache = JWKSCache(minimumRefetchInterval: 0) { document }
        let unknown = tokens.count - 1
        let wrong = await withTaskGroup(of: [String].self) { group in
            for task in 0..<24 {
                group.addTask {
                    var wrong: [String] = []
                    for round in 0..<120 {
                        let index = (task * 31 + round * 7) % tokens.count
                        let result = await Self.outcome(cache, tokens[index])
                        if result != expected[index] { wrong.append("token \(index): \(result) ≠ \(expected[index])") }
                    }
                    return wrong
                }
            }
            group.addTask {
                var wrong: [String] = []
                for _ in 0..<60 {
                    let result = await Self.outcome(cache, tokens[unknown])
                    if result != expected[unknown] { wrong.append("refetch: \(result)") }
                    await Task.yield()
                }
                return wrong
            }
            var all: [String] = []
            for await part in group { all += part }
            return all
        }
        #expect(wrong == [])
        #expect(await cache.fetchCount > 10)
    }
}

/// libcrypto's DER of a raw `r || s` (the reference encoder), or the raw bytes when it refuses.
enum KeyHandleDER {
    static func der(_ raw: [UInt8]) -> [UInt8] {
        #if !canImport(CryptoKit)
        KeyHandle.derSignature(fromRaw: raw) ?? raw
        #else
        ECDSASignature.der(fromRaw: raw) ?? raw
        #endif
    }
}
