import Foundation
import Testing
@testable import MultiAuthCrypto
import MultiAuthTestKeys

@Suite("JWKSCache: caching, refetch once on an unknown kid, rate limits", .timeLimit(.minutes(10)))
struct JWKSCacheTests {
    /// A fake issuer endpoint: serves the current key set and counts requests.
    final class Issuer: @unchecked Sendable {
        private let lock = NSLock()
        private var documents: [Data]
        private(set) var requests = 0
        var failure: (any Error)?

        init(_ sets: JWKSet...) throws { documents = try sets.map { try $0.jsonData() } }

        func serve() throws -> Data {
            lock.lock()
            defer { lock.unlock() }
            requests += 1
            if let failure { throw failure }
            // Serve the sets in order; the last one stays current.
            return documents.count > 1 ? documents.removeFirst() : documents[0]
        }
    }

    struct Unreachable: Error, Equatable {}

    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    static let oldKey = Result<PrivateKey, any Error>.success(TestKeys.rsaA)
    static let newKey = Result<PrivateKey, any Error>.success(TestKeys.p256A)

    static func token(_ key: PrivateKey, kid: String, exp: Double = 1_700_003_600) throws -> String {
        try JWT.sign(claims: ["sub": .string("u"), "exp": .number(exp), "iss": .string("https://issuer.example")],
                     with: key, algorithm: key.keyType == .rsa ? .rs256 : .es256, keyID: kid)
    }

    static func sets() throws -> (old: JWKSet, rotated: JWKSet) {
        let old = JWKSet(keys: [try oldKey.get().publicKey.jwk(keyID: "old", algorithm: .rs256)])
        let rotated = JWKSet(keys: old.keys + [try newKey.get().publicKey.jwk(keyID: "new", algorithm: .es256)])
        return (old, rotated)
    }

    @Test("fetches once, then serves from the cache")
    func caches() async throws {
        let issuer = try Issuer(try Self.sets().old)
        let cache = JWKSCache { try issuer.serve() }
        let token = try Self.token(Self.oldKey.get(), kid: "old")
        for offset in 0..<5 {
            let jwt = try await cache.verify(token, at: Self.t0 + Double(offset), issuer: "https://issuer.example")
            #expect(jwt.claims.subject == "u")
        }
        #expect(issuer.requests == 1)
        #expect(await cache.fetchCount == 1)
        #expect(try await cache.keySet(at: Self.t0).keys.map(\.kid) == ["old"])
    }

    @Test("an unknown kid triggers exactly one refetch, which finds the rotated key")
    func refetchOnce() async throws {
        let (old, rotated) = try Self.sets()
        let issuer = try Issuer(old, rotated)
        let cache = JWKSCache(minimumRefetchInterval: 30) { try issuer.serve() }
        _ = try await cache.verify(try Self.token(Self.oldKey.get(), kid: "old"), at: Self.t0)
        #expect(issuer.requests == 1)
        let jwt = try await cache.verify(try Self.token(Self.newKey.get(), kid: "new"), at: Self.t0 + 60)
        #expect(jwt.keyID == "new")
        #expect(issuer.requests == 2)
        // The rotated set is cached now.
        _ = try await cache.verify(try Self.token(Self.newKey.get(), kid: "new"), at: Self.t0 + 61)
        #expect(issuer.requests == 2)
    }

    @Test("a kid that is still unknown after the refetch fails, and refetches are rate-limited")
    func unknownKid() async throws {
        let issuer = try Issuer(try Self.sets().old)
        let cache = JWKSCache(minimumRefetchInterval: 30) { try issuer.serve() }
        let stranger = try Self.token(Self.newKey.get(), kid: "stranger")
        // First use: the initial fetch counts as this call's fetch, so no second one.
        await #expect(throws: CryptoError.keyNotFound) { try await cache.verify(stranger, at: Self.t0) }
        #expect(issuer.requests == 1)
        // Within the minimum interval: no refetch.
        await #expect(throws: CryptoError.keyNotFound) { try await cache.verify(stranger, at: Self.t0 + 10) }
        #expect(issuer.requests == 1)
        // After it: exactly one refetch per call, never a loop.
        await #expect(throws: CryptoError.keyNotFound) { try await cache.verify(stranger, at: Self.t0 + 31) }
        #expect(issuer.requests == 2)
        await #expect(throws: CryptoError.keyNotFound) { try await cache.verify(stranger, at: Self.t0 + 32) }
        #expect(issuer.requests == 2)
    }

    @Test("with no minimum interval every unknown kid refetches exactly once")
    func refetchEveryTime() async throws {
        let issuer = try Issuer(try Self.sets().old)
        let cache = JWKSCache(minimumRefetchInterval: 0) { try issuer.serve() }
        _ = try await cache.keySet(at: Self.t0)
        let stranger = try Self.token(Self.newKey.get(), kid: "stranger")
        for round in 1...3 {
            await #expect(throws: CryptoError.keyNotFound) { try await cache.verify(stranger, at: Self.t0) }
            #expect(issuer.requests == 1 + round)
        }
    }

    @Test("a bad signature on a known key never refetches")
    func badSignatureNoRefetch() async throws {
        let issuer = try Issuer(try Self.sets().old)
        let cache = JWKSCache(minimumRefetchInterval: 0) { try issuer.serve() }
        let forger = TestKeys.rsaB
        let forged = try Self.token(forger, kid: "old")
        await #expect(throws: CryptoError.signatureInvalid) { try await cache.verify(forged, at: Self.t0) }
        await #expect(throws: CryptoError.signatureInvalid) { try await cache.verify(forged, at: Self.t0 + 100) }
        #expect(issuer.requests == 1)
    }

    @Test("alg none and HS256 are rejected before any fetch")
    func rejectsBeforeFetch() async throws {
        let issuer = try Issuer(try Self.sets().old)
        let cache = JWKSCache { try issuer.serve() }
        let claims = Base64URL.encode(Array(#"{"sub":"admin"}"#.utf8))
        for alg in ["none", "HS256"] {
            let token = Base64URL.encode(Array(#"{"alg":"\#(alg)","kid":"old"}"#.utf8)) + "." + claims + ".AAAA"
            await #expect(throws: CryptoError.unsupportedAlgorithm) { try await cache.verify(token, at: Self.t0) }
        }
        #expect(issuer.requests == 0)
    }

    @Test("claims are checked after the signature: expiry with leeway")
    func claimsChecked() async throws {
        let issuer = try Issuer(try Self.sets().old)
        let cache = JWKSCache { try issuer.serve() }
        let token = try Self.token(Self.oldKey.get(), kid: "old", exp: 1_700_000_300)
        _ = try await cache.verify(token, at: Self.t0 + 359, leeway: 60)
        await #expect(throws: CryptoError.expired) { try await cache.verify(token, at: Self.t0 + 360, leeway: 60) }
        await #expect(throws: CryptoError.issuerMismatch) { try await cache.verify(token, at: Self.t0, issuer: "https://other.example") }
    }

    @Test("the set is refreshed after maximumAge")
    func maximumAge() async throws {
        let (old, rotated) = try Self.sets()
        let issuer = try Issuer(old, rotated)
        let cache = JWKSCache(maximumAge: 600) { try issuer.serve() }
        let token = try Self.token(Self.oldKey.get(), kid: "old")
        _ = try await cache.verify(token, at: Self.t0)
        _ = try await cache.verify(token, at: Self.t0 + 600)
        #expect(issuer.requests == 1)
        _ = try await cache.verify(token, at: Self.t0 + 601)
        #expect(issuer.requests == 2)
    }

    @Test("fetch errors reach the caller and are not cached")
    func fetchErrors() async throws {
        let issuer = try Issuer(try Self.sets().old)
        issuer.failure = Unreachable()
        let cache = JWKSCache { try issuer.serve() }
        let token = try Self.token(Self.oldKey.get(), kid: "old")
        await #expect(throws: Unreachable.self) { try await cache.verify(token, at: Self.t0) }
        issuer.failure = nil
        _ = try await cache.verify(token, at: Self.t0 + 1)
        #expect(issuer.requests == 2)
        let broken = JWKSCache { Data("<html>".utf8) }
        await #expect(throws: CryptoError.malformedKeySet) { try await broken.verify(token, at: Self.t0) }
    }

    @Test("concurrent first uses share one fetch")
    func coalesces() async throws {
        let (old, _) = try Self.sets()
        let issuer = try Issuer(old)
        let gate = Gate()
        let cache = JWKSCache {
            await gate.wait()
            return try issuer.serve()
        }
        let token = try Self.token(Self.oldKey.get(), kid: "old")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { _ = try await cache.verify(token, at: Self.t0) }
            }
            // Let every caller reach the cache before the fetch completes.
            while await cache.fetchCount == 0 { await Task.yield() }
            for _ in 0..<50 { await Task.yield() }
            await gate.open()
            try await group.waitForAll()
        }
        #expect(issuer.requests == 1)
        #expect(await cache.fetchCount == 1)
    }
}

/// Holds fetches until opened.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        waiters.forEach { $0.resume() }
        waiters.removeAll()
    }
}
