import Foundation
import MultiAuthTestKeys
import Testing

@testable import MultiAuthCrypto

/// The allocation-free `r || s` → DER conversion that ES256 verification uses, against
/// libcrypto's `ECDSA_SIG` + `i2d_ECDSA_SIG` (Linux) and the `DER` helpers (every platform).
@Suite("ECDSA r||s to DER: the direct encoder agrees with libcrypto and the DER helpers")
struct ECDSADEREncodingTests {
    /// The direct encoder's output, or `nil` when it refuses.
    static func direct(_ raw: [UInt8], room: Int = ECDSASignature.maximumDERLength) -> [UInt8]? {
        var out = [UInt8](repeating: 0xEE, count: room)
        let length = raw.withUnsafeBufferPointer { raw in
            out.withUnsafeMutableBufferPointer { ECDSASignature.writeDER(fromRaw: raw, into: $0) }
        }
        return length.map { Array(out[..<$0]) }
    }

    /// One 32-byte half: `zeros` leading zero bytes, then `first` (if any room is left), then
    /// `fill`.
    static func half(zeros: Int, first: UInt8, fill: UInt8) -> [UInt8] {
        guard zeros < 32 else { return [UInt8](repeating: 0, count: 32) }
        return [UInt8](repeating: 0, count: zeros) + [first] + [UInt8](repeating: fill, count: 31 - zeros)
    }

    /// Halves covering every branch: no, one, several and all-but-one leading zero bytes, a zero
    /// value, the high bit set or clear on the first significant byte (also after zeros), and a
    /// zero byte inside the value.
    static let halves: [[UInt8]] = {
        var halves: [[UInt8]] = []
        for zeros in [0, 1, 2, 16, 30, 31, 32] {
            for first: UInt8 in [0x01, 0x7F, 0x80, 0xFF] {
                for fill: UInt8 in [0x00, 0x5A, 0xFF] {
                    halves.append(half(zeros: zeros, first: first, fill: fill))
                }
            }
        }
        return halves
    }()

    /// The edge-case halves paired every way, plus seeded random signatures.
    static var cases: [[UInt8]] {
        var cases: [[UInt8]] = []
        for r in halves {
            for s in halves { cases.append(r + s) }
        }
        var generator = SplitMix64(state: 0xDE5_1C0D)
        for _ in 0..<500 {
            var raw = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Random leading zero runs in either half.
            let zeros = Int.random(in: 0...3, using: &generator)
            for index in 0..<zeros * 4 where index < 32 {
                raw[Int.random(in: 0...1, using: &generator) * 32 + index] = 0
            }
            cases.append(raw)
        }
        return cases
    }

    @Test("every edge case and random signature encodes like the DER helpers")
    func matchesDERHelpers() throws {
        for raw in Self.cases {
            let expected = try #require(ECDSASignature.der(fromRaw: raw))
            #expect(Self.direct(raw) == expected, "raw \(raw)")
            #expect(expected.count <= ECDSASignature.maximumDERLength)
        }
    }

    #if !canImport(CryptoKit)
    @Test("every edge case and random signature encodes like libcrypto's i2d_ECDSA_SIG")
    func matchesLibcrypto() throws {
        for raw in Self.cases {
            let expected = try #require(KeyHandle.derSignature(fromRaw: raw))
            #expect(Self.direct(raw) == expected, "raw \(raw)")
        }
        // Spot checks of the shapes: zero is `02 01 00`; a high bit gets a `00` prefix.
        let zero = [UInt8](repeating: 0, count: 64)
        #expect(Self.direct(zero) == [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00])
        let high = [UInt8](repeating: 0xFF, count: 64)
        #expect(Self.direct(high)?.count == 72)
        #expect(Self.direct(high)?.prefix(5) == [0x30, 0x46, 0x02, 0x21, 0x00])
    }
    #endif

    @Test("another length or too little room is refused")
    func refusals() {
        for count in [0, 1, 32, 63, 65, 128] {
            #expect(Self.direct([UInt8](repeating: 0x11, count: count)) == nil)
        }
        #expect(Self.direct([UInt8](repeating: 0x11, count: 64), room: ECDSASignature.maximumDERLength - 1) == nil)
    }
}

/// Many tasks verifying with one key at once: each check takes its own prepared libcrypto
/// context, so results never mix and the pool stays bounded.
@Suite("prepared verify contexts under concurrency", .timeLimit(.minutes(10)))
struct VerifyContextConcurrencyTests {
    static let issuer = "https://issuer.example"

    /// A token per subject, signed by `key`, and a cache serving its public key as `kid` "k".
    static func fixture(_ key: PrivateKey, algorithm: SignatureAlgorithm, subjects: Int) throws
        -> (cache: JWKSCache, tokens: [String])
    {
        let document = try JWKSet(keys: [key.publicKey.jwk(keyID: "k", algorithm: algorithm)]).jsonData()
        let tokens = try (0..<subjects).map { index in
            try JWT.sign(
                claims: [
                    "sub": .string("user-\(index)"), "iss": .string(issuer), "aud": .string("client"),
                    "exp": .number(1_700_003_600),
                ], with: key, algorithm: algorithm, keyID: "k")
        }
        return (JWKSCache { document }, tokens)
    }

    /// `token` with one signature bit flipped (still valid base64url of the same length).
    static func flippedSignature(_ token: String) -> String {
        var characters = Array(token)
        let index = characters.count - 5
        characters[index] = characters[index] == "A" ? "B" : "A"
        return String(characters)
    }

    /// `token`'s header and signature around `other`'s claims.
    static func swappedClaims(_ token: String, _ other: String) -> String {
        let parts = token.split(separator: ".")
        let otherParts = other.split(separator: ".")
        return [parts[0], otherParts[1], parts[2]].joined(separator: ".")
    }

    @Test(
        "8 tasks × 200 verifications with one shared cache and key: every result right",
        arguments: [SignatureAlgorithm.rs256, .es256])
    func sharedKey(_ algorithm: SignatureAlgorithm) async throws {
        let key = algorithm == .rs256 ? TestKeys.rsaA : TestKeys.p256A
        let (cache, tokens) = try Self.fixture(key, algorithm: algorithm, subjects: 4)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let wrong = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<200 {
                        let subject = (task + round) % tokens.count
                        let token = tokens[subject]
                        let candidate: String
                        let valid: Bool
                        switch (task * 7 + round) % 4 {
                        case 0: (candidate, valid) = (Self.flippedSignature(token), false)
                        case 1:
                            (candidate, valid) = (
                                Self.swappedClaims(token, tokens[(subject + 1) % tokens.count]), false
                            )
                        default: (candidate, valid) = (token, true)
                        }
                        do {
                            let jwt = try await cache.verify(
                                candidate, at: now, issuer: Self.issuer, audience: .expected("client"))
                            if !valid || jwt.claims.subject != "user-\(subject)" { wrong += 1 }
                        } catch CryptoError.signatureInvalid {
                            if valid { wrong += 1 }
                        }
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(wrong == 0)
        #expect(await cache.fetchCount == 1)
        #if !canImport(CryptoKit)
        let imported = try #require(cache.currentKeys?.importedKeys.first)
        let idle = imported.handle.verifyPool(algorithm.digest).idleCount
        #expect((1...VerifyContextPool.capacity).contains(idle))
        #endif
    }

    #if !canImport(CryptoKit)
    @Test("more threads than the pool keeps: every result right, at most the capacity stays idle")
    func overCapacity() throws {
        let key = TestKeys.p256A
        let message = Array("header.payload".utf8)
        let signature = try key.signature(for: message, algorithm: .es256)
        var flipped = signature
        flipped[40] ^= 0x01
        let tampered = flipped
        let publicKey = try PublicKey(derRepresentation: key.publicKey.derRepresentation())
        let wrong = VerifyCounter()
        DispatchQueue.concurrentPerform(iterations: 24) { index in
            for round in 0..<20 {
                let valid = (index + round) % 3 != 0
                if publicKey.isValidSignature(valid ? signature : tampered, for: message, algorithm: .es256) != valid {
                    wrong.increment()
                }
            }
        }
        #expect(wrong.value == 0)
        let idle = publicKey.handle.verifyPool(.sha256).idleCount
        #expect((1...VerifyContextPool.capacity).contains(idle))
    }

    @Test("a context that fails with an error is freed; a wrong signature keeps it; the error queue is clean")
    func failedContexts() throws {
        // Public keys of their own (other tests verify with the shared test keys concurrently).
        let rsa = TestKeys.rsaA
        let rsaPublic = try PublicKey(derRepresentation: rsa.publicKey.derRepresentation())
        let message = Array("payload".utf8)
        let good = try rsa.signature(for: message, algorithm: .rs256)
        let pool = rsaPublic.handle.verifyPool(.sha256)
        #expect(pool.idleCount == 0)
        #expect(rsaPublic.isValidSignature(good, for: message, algorithm: .rs256))
        #expect(pool.idleCount == 1)
        var bad = good
        bad[0] ^= 0x01
        #expect(!rsaPublic.isValidSignature(bad, for: message, algorithm: .rs256))
        #expect(!rsaPublic.isValidSignature(Array(good.prefix(100)), for: message, algorithm: .rs256))
        #expect(pool.idleCount == 1)
        #expect(!CryptoBackend.hasPendingErrors)

        // A P-256 context given bytes that are not DER fails with an error (-1), not a 0.
        let ec = TestKeys.p256A
        let ecPublic = try PublicKey(derRepresentation: ec.publicKey.derRepresentation())
        let ecPool = ecPublic.handle.verifyPool(.sha256)
        let ecSignature = try ec.signature(for: message, algorithm: .es256)
        #expect(ecPublic.isValidSignature(ecSignature, for: message, algorithm: .es256))
        #expect(ecPool.idleCount == 1)
        let digest = [UInt8](repeating: 0x42, count: 32)
        let garbage: [UInt8] = [0x30, 0x03, 0x02, 0x05, 0x01]
        let verified = garbage.withUnsafeBufferPointer { signature in
            digest.withUnsafeBufferPointer { ecPool.verify(signature: signature, messageDigest: $0) }
        }
        #expect(!verified)
        #expect(ecPool.idleCount == 0)
        #expect(!CryptoBackend.hasPendingErrors)
        #expect(ecPublic.isValidSignature(ecSignature, for: message, algorithm: .es256))
        #expect(ecPool.idleCount == 1)
    }
    #endif
}

/// A thread-safe count for checks made on many threads.
final class VerifyCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    /// Adds one.
    func increment() { lock.withLock { count += 1 } }

    /// The count so far.
    var value: Int { lock.withLock { count } }
}
