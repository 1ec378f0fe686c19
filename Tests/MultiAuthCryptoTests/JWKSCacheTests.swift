import Foundation
import MultiAuthTestKeys
import Testing

@testable import MultiAuthCrypto

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
        try JWT.sign(
            claims: ["sub": .string("u"), "exp": .number(exp), "iss": .string("https://issuer.example")],
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
            let jwt = try await cache.verify(
                token, at: Self.t0 + Double(offset), issuer: "https://issuer.example", audience: .anyAudience)
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
        _ = try await cache.verify(try Self.token(Self.oldKey.get(), kid: "old"), at: Self.t0, audience: .anyAudience)
        #expect(issuer.requests == 1)
        let jwt = try await cache.verify(
            try Self.token(Self.newKey.get(), kid: "new"), at: Self.t0 + 60, audience: .anyAudience)
        #expect(jwt.keyID == "new")
        #expect(issuer.requests == 2)
        // The rotated set is cached now.
        _ = try await cache.verify(
            try Self.token(Self.newKey.get(), kid: "new"), at: Self.t0 + 61, audience: .anyAudience)
        #expect(issuer.requests == 2)
    }

    @Test("a kid that is still unknown after the refetch fails, and refetches are rate-limited")
    func unknownKid() async throws {
        let issuer = try Issuer(try Self.sets().old)
        let cache = JWKSCache(minimumRefetchInterval: 30) { try issuer.serve() }
        let stranger = try Self.token(Self.newKey.get(), kid: "stranger")
        // First use: the initial fetch counts as this call's fetch, so no second one.
        await #expect(throws: CryptoError.keyNotFound) {
            try await cache.verify(stranger, at: Self.t0, audience: .anyAudience)
        }
        #expect(issuer.requests == 1)
        // Within the minimum interval: no refetch.
        await #expect(throws: CryptoError.keyNotFound) {
            try await cache.verify(stranger, at: Self.t0 + 10, audience: .anyAudience)
        }
        #expect(issuer.requests == 1)
        // After it: exactly one refetch per call, never a loop.
        await #expect(throws: CryptoError.keyNotFound) {
            try await cache.verify(stranger, at: Self.t0 + 31, audience: .anyAudience)
        }
        #expect(issuer.requests == 2)
        await #expect(throws: CryptoError.keyNotFound) {
            try await cache.verify(stranger, at: Self.t0 + 32, audience: .anyAudience)
        }
        #expect(issuer.requests == 2)
    }

    @Test("with no minimum interval every unknown kid refetches exactly once")
    func refetchEveryTime() async throws {
        let issuer = try Issuer(try Self.sets().old)
        let cache = JWKSCache(minimumRefetchInterval: 0) { try issuer.serve() }
        _ = try await cache.keySet(at: Self.t0)
        let stranger = try Self.token(Self.newKey.get(), kid: "stranger")
        for round in 1...3 {
            await #expect(throws: CryptoError.keyNotFound) {
                try await cache.verify(stranger, at: Self.t0, audience: .anyAudience)
            }
            #expect(issuer.requests == 1 + round)
        }
    }

    @Test("a bad signature on a known key never refetches")
    func badSignatureNoRefetch() async throws {
        let issuer = try Issuer(try Self.sets().old)
        let cache = JWKSCache(minimumRefetchInterval: 0) { try issuer.serve() }
        let forger = TestKeys.rsaB
        let forged = try Self.token(forger, kid: "old")
        await #expect(throws: CryptoError.signatureInvalid) {
            try await cache.verify(forged, at: Self.t0, audience: .anyAudience)
        }
        await #expect(throws: CryptoError.signatureInvalid) {
            try await cache.verify(forged, at: Self.t0 + 100, audience: .anyAudience)
        }
        #expect(issuer.requests == 1)
    }

    @Test("alg none and HS256 are rejected before any fetch")
    func rejectsBeforeFetch() async throws {
        let issuer = try Issuer(try Self.sets().old)
        let cache = JWKSCache { try issuer.serve() }
        let claims = Base64URL.encode(Array(#"{"sub":"admin"}"#.utf8))
        for alg in ["none", "HS256"] {
            let token = Base64URL.encode(Array(#"{"alg":"\#(alg)","kid":"old"}"#.utf8)) + "." + claims + ".AAAA"
            await #expect(throws: CryptoError.unsupportedAlgorithm) {
                try await cache.verify(token, at: Self.t0, audience: .anyAudience)
            }
        }
        #expect(issuer.requests == 0)
    }

    @Test("claims are checked after the signature: expiry with leeway")
    func claimsChecked() async throws {
        let issuer = try Issuer(try Self.sets().old)
        let cache = JWKSCache { try issuer.serve() }
        let token = try Self.token(Self.oldKey.get(), kid: "old", exp: 1_700_000_300)
        _ = try await cache.verify(token, at: Self.t0 + 359, leeway: 60, audience: .anyAudience)
        await #expect(throws: CryptoError.expired) {
            try await cache.verify(token, at: Self.t0 + 360, leeway: 60, audience: .anyAudience)
        }
        await #expect(throws: CryptoError.issuerMismatch) {
            try await cache.verify(token, at: Self.t0, issuer: "https://other.example", audience: .anyAudience)
        }
    }

    @Test("the set is refreshed after maximumAge")
    func maximumAge() async throws {
        let (old, rotated) = try Self.sets()
        let issuer = try Issuer(old, rotated)
        let cache = JWKSCache(maximumAge: 600) { try issuer.serve() }
        let token = try Self.token(Self.oldKey.get(), kid: "old")
        _ = try await cache.verify(token, at: Self.t0, audience: .anyAudience)
        _ = try await cache.verify(token, at: Self.t0 + 600, audience: .anyAudience)
        #expect(issuer.requests == 1)
        _ = try await cache.verify(token, at: Self.t0 + 601, audience: .anyAudience)
        #expect(issuer.requests == 2)
    }

    @Test("fetch errors reach the caller; during the backoff they are served without a fetch")
    func fetchErrors() async throws {
        let issuer = try Issuer(try Self.sets().old)
        issuer.failure = Unreachable()
        let cache = JWKSCache { try issuer.serve() }
        let token = try Self.token(Self.oldKey.get(), kid: "old")
        await #expect(throws: Unreachable.self) { try await cache.verify(token, at: Self.t0, audience: .anyAudience) }
        issuer.failure = nil
        // Within the first backoff (5 s) the error is served from the cache.
        await #expect(throws: Unreachable.self) {
            try await cache.verify(token, at: Self.t0 + 4.9, audience: .anyAudience)
        }
        #expect(issuer.requests == 1)
        _ = try await cache.verify(token, at: Self.t0 + 5, audience: .anyAudience)
        #expect(issuer.requests == 2)
        let broken = JWKSCache { Data("<html>".utf8) }
        await #expect(throws: CryptoError.malformedKeySet) {
            try await broken.verify(token, at: Self.t0, audience: .anyAudience)
        }
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
                group.addTask { _ = try await cache.verify(token, at: Self.t0, audience: .anyAudience) }
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
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }
}

// MARK: Negative caching with backoff, clock steps

extension JWKSCacheTests {
    /// An issuer endpoint that fails (or serves the peer fixture JWKS) and counts requests.
    final class FlakyIssuer: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        private var down = true
        var requests: Int { lock.withLock { count } }
        func setDown(_ value: Bool) { lock.withLock { down = value } }
        func serve() throws -> Data {
            try lock.withLock {
                count += 1
                if down { throw Unreachable() }
                return Data(PeerFixtures.jwks.utf8)
            }
        }
    }

    /// The peer fixture token's valid instant.
    static let peerNow = Date(timeIntervalSince1970: 1_700_000_100)

    @Test("100 verifications against a failing issuer at one instant cost exactly 1 fetch")
    func concurrentFailuresShareOneFetch() async throws {
        let issuer = FlakyIssuer()
        let cache = JWKSCache { try issuer.serve() }
        /// 50 concurrent verifications; how many failed with the issuer's error.
        func wave() async -> Int {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        do {
                            _ = try await cache.verify(PeerFixtures.rs256Token, at: Self.peerNow, audience: "client-1")
                            return false
                        } catch { return error is Unreachable }
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        // The first wave shares one fetch (callers join the one in flight, or find its failure
        // cached); the second wave starts after the first failed, so only the negative cache
        // keeps it from fetching again.
        #expect(await wave() == 50)
        #expect(await wave() == 50)
        #expect(issuer.requests == 1)
        #expect(await cache.fetchCount == 1)
    }

    @Test("one verification a second for 100 s against a dead issuer: 5 fetches (backoff 5, 10, 20, 40 s)")
    func backoffSchedule() async throws {
        let issuer = FlakyIssuer()
        let cache = JWKSCache { try issuer.serve() }
        var fetchedAt: [Int] = []
        for second in 0..<100 {
            let before = issuer.requests
            await #expect(throws: Unreachable.self) {
                try await cache.verify(PeerFixtures.rs256Token, at: Self.peerNow + Double(second), audience: "client-1")
            }
            if issuer.requests > before { fetchedAt.append(second) }
        }
        #expect(fetchedAt == [0, 5, 15, 35, 75])
        // The issuer recovers: the next fetch after the backoff succeeds and resets it.
        issuer.setDown(false)
        await #expect(throws: Unreachable.self) {
            try await cache.verify(PeerFixtures.rs256Token, at: Self.peerNow + 154, audience: "client-1")
        }
        _ = try await cache.verify(PeerFixtures.rs256Token, at: Self.peerNow + 155, audience: "client-1")
        #expect(issuer.requests == 6)
        // The backoff is capped (300 s by default, 20 s here): a long outage is probed at that pace.
        let capped = JWKSCache(failureBackoff: 5, maximumFailureBackoff: 20) { throw Unreachable() }
        for second in stride(from: 0, to: 200, by: 1) {
            _ = try? await capped.verify(
                PeerFixtures.rs256Token, at: Self.peerNow + Double(second), audience: "client-1")
        }
        // Fetches at 0, 5, 15, 35, 55, …, 195: 3 + 9 = 12.
        #expect(await capped.fetchCount == 12)
    }

    @Test("unknown-kid refetches back off from a failing issuer too")
    func unknownKidBackoff() async throws {
        let issuer = FlakyIssuer()
        issuer.setDown(false)
        let cache = JWKSCache(minimumRefetchInterval: 0) { try issuer.serve() }
        _ = try await cache.keySet(at: Self.peerNow)
        issuer.setDown(true)
        let stranger = HostileInputTests.token(
            claims: #"{"aud":"client-1"}"#, header: #"{"alg":"RS256","kid":"stranger"}"#)
        for second in 0..<10 {
            _ = try? await cache.verify(stranger, at: Self.peerNow + Double(second), audience: "client-1")
        }
        // The initial fetch, then refetches at 0 and 5 only.
        #expect(issuer.requests == 3)
    }

    @Test("when the clock moves backwards past the fetch, the set is fetched again")
    func clockBackwards() async throws {
        let issuer = FlakyIssuer()
        issuer.setDown(false)
        let cache = JWKSCache(minimumRefetchInterval: 30, maximumAge: 3600) { try issuer.serve() }
        _ = try await cache.verify(PeerFixtures.rs256Token, at: Self.peerNow, audience: "client-1")
        _ = try await cache.verify(PeerFixtures.rs256Token, at: Self.peerNow + 10, audience: "client-1")
        #expect(issuer.requests == 1)
        // One second before the fetch: the cached set's age is unknown.
        _ = try await cache.verify(PeerFixtures.rs256Token, at: Self.peerNow - 1, audience: "client-1")
        #expect(issuer.requests == 2)
        // An unknown kid within the refetch interval does not refetch; a token checked at a
        // time before the last fetch does, once (the cache's age is unknown there).
        let stranger = HostileInputTests.token(
            claims: #"{"aud":"client-1"}"#, header: #"{"alg":"RS256","kid":"stranger"}"#)
        await #expect(throws: CryptoError.keyNotFound) {
            try await cache.verify(stranger, at: Self.peerNow - 1, audience: "client-1")
        }
        #expect(issuer.requests == 2)
        await #expect(throws: CryptoError.keyNotFound) {
            try await cache.verify(stranger, at: Self.peerNow - 100, audience: "client-1")
        }
        #expect(issuer.requests == 3)
    }
}

// MARK: Verification outside the actor: shared snapshots, keys imported once per set

extension JWKSCacheTests {
    /// A key set of `keys` (private key, `kid`) as published, each with its algorithm.
    static func publish(_ keys: [(PrivateKey, String)]) throws -> JWKSet {
        JWKSet(
            keys: try keys.map { key, kid in
                try key.publicKey.jwk(keyID: kid, algorithm: key.keyType == .rsa ? .rs256 : .es256)
            })
    }

    /// Whether a rotation was observed (a token for the new key verified); guarded by a lock.
    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }

    @Test("many tasks on one cache while the set rotates: valid tokens pass, removed keys are refused")
    func concurrentVerificationAcrossRotation() async throws {
        // Set A: k1 (RSA), k2 (P-256). Set B, fetched mid-way: k2 stays, k1 is removed, k3 added.
        let setA = try Self.publish([(TestKeys.rsaA, "k1"), (TestKeys.p256A, "k2")])
        let setB = try Self.publish([(TestKeys.p256A, "k2"), (TestKeys.rsaC, "k3")])
        let issuer = try Issuer(setA, setB)
        let cache = JWKSCache(minimumRefetchInterval: 30) { try issuer.serve() }
        let k1 = try Self.token(TestKeys.rsaA, kid: "k1")
        let k2 = try Self.token(TestKeys.p256A, kid: "k2")
        let k3 = try Self.token(TestKeys.rsaC, kid: "k3")
        let forged = try Self.token(TestKeys.p256B, kid: "k2")

        /// What one verification gave: accepted, or the error.
        @Sendable func outcome(_ token: String, at now: Date) async -> Result<String?, CryptoError> {
            do {
                return .success(try await cache.verify(token, at: now, audience: .anyAudience).keyID)
            } catch let error as CryptoError {
                return .failure(error)
            } catch {
                Issue.record("unexpected error \(error)")
                return .failure(.libraryFailure("unexpected"))
            }
        }

        // Before the rotation: every task sees set A.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for round in 0..<20 {
                        let token = [k1, k2, forged][(task + round) % 3]
                        let result = await outcome(token, at: Self.t0 + Double(round))
                        switch token {
                        case forged: #expect(result == .failure(.signatureInvalid))
                        case k1: #expect(result == .success("k1"))
                        default: #expect(result == .success("k2"))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(issuer.requests == 1)

        // 60 s later, past the refetch interval: k3 tokens (unknown in A) rotate the set while
        // other tasks keep verifying k1 and k2 tokens.
        let rotated = Flag()
        let now = Self.t0 + 60
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for round in 0..<24 {
                        let token = [k1, k2, k3, forged][(task + round) % 4]
                        let rotatedBefore = rotated.isSet
                        let result = await outcome(token, at: now)
                        switch token {
                        case k3:
                            #expect(result == .success("k3"))
                            rotated.set()
                        case k2: #expect(result == .success("k2"))
                        case forged: #expect(result == .failure(.signatureInvalid))
                        default:
                            // Before the rotation was seen, A may still answer; after it, never.
                            if rotatedBefore {
                                #expect(result == .failure(.keyNotFound))
                            } else {
                                #expect(result == .success("k1") || result == .failure(.keyNotFound))
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(rotated.isSet)
        // One fetch for A, one shared refetch for B; k1 after the rotation is within the
        // refetch interval, so it never refetches.
        #expect(issuer.requests == 2)
        #expect(await cache.fetchCount == 2)
        await #expect(throws: CryptoError.keyNotFound) {
            try await cache.verify(k1, at: now + 1, audience: .anyAudience)
        }
        #expect(cache.currentKeys?.importedKeys.count == 2)
        #expect(try await cache.keySet(at: now).keys.map(\.kid) == ["k2", "k3"])
    }

    /// Weak references to the keys of the cache's current set.
    final class WeakKey: @unchecked Sendable {
        weak var key: PublicKey?
        init(_ key: PublicKey) { self.key = key }
    }

    static func weakKeys(_ cache: JWKSCache) -> [WeakKey] {
        (cache.currentKeys?.importedKeys ?? []).map(WeakKey.init)
    }

    @Test("keys are imported once per set, reused by every verification, and freed when the set changes")
    func importedKeysAreReusedAndReleased() async throws {
        let (old, rotated) = try Self.sets()
        let issuer = try Issuer(old, rotated)
        let cache = JWKSCache(minimumRefetchInterval: 30) { try issuer.serve() }
        let token = try Self.token(Self.oldKey.get(), kid: "old")
        #expect(cache.currentKeys == nil)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<25 {
                        _ = try await cache.verify(
                            token, at: Self.t0 + Double(task + round), audience: .anyAudience)
                    }
                }
            }
            try await group.waitForAll()
        }
        // 200 verifications, one key imported once.
        #expect(await cache.keyImports == 1)
        weak let first = cache.currentKeys
        #expect(first?.count == 1)
        let oldKeys = Self.weakKeys(cache)
        #expect(oldKeys.count == 1 && oldKeys.allSatisfy { $0.key != nil })
        // The same instance serves every verification until the set changes.
        _ = try await cache.verify(token, at: Self.t0 + 40, audience: .anyAudience)
        #expect(cache.currentKeys === first)

        // A token for the new key rotates the set: both of its keys are imported, once.
        let fresh = try Self.token(Self.newKey.get(), kid: "new")
        _ = try await cache.verify(fresh, at: Self.t0 + 60, audience: .anyAudience)
        _ = try await cache.verify(fresh, at: Self.t0 + 61, audience: .anyAudience)
        _ = try await cache.verify(token, at: Self.t0 + 62, audience: .anyAudience)
        #expect(await cache.keyImports == 3)
        #expect(cache.currentKeys?.count == 2)
        // Nothing holds the old set any more: it and its libcrypto keys are freed.
        #expect(first == nil)
        #expect(oldKeys.allSatisfy { $0.key == nil })
    }

    @Test("a token without a kid still tries every fitting key; a kid only its own keys")
    func lookupByKeyIDAndFallback() async throws {
        // 100 keys: 99 decoys with other kids, the signer's key last.
        let decoys = try (0..<99).map { try TestKeys.rsaB.publicKey.jwk(keyID: "decoy-\($0)", algorithm: .rs256) }
        let real = try TestKeys.rsaA.publicKey.jwk(keyID: "real", algorithm: .rs256)
        let issuer = try Issuer(JWKSet(keys: decoys + [real]))
        let cache = JWKSCache(minimumRefetchInterval: 30) { try issuer.serve() }
        let named = try Self.token(TestKeys.rsaA, kid: "real")
        #expect(try await cache.verify(named, at: Self.t0, audience: .anyAudience).keyID == "real")
        // A token naming a decoy's kid is checked against that decoy only.
        await #expect(throws: CryptoError.signatureInvalid) {
            try await cache.verify(try Self.token(TestKeys.rsaA, kid: "decoy-7"), at: Self.t0, audience: .anyAudience)
        }
        // Without a kid: the first fitting keys in document order, at most maximumCandidateKeys.
        let anonymous = try JWT.sign(claims: ["sub": .string("u")], with: TestKeys.rsaA, algorithm: .rs256)
        await #expect(throws: CryptoError.signatureInvalid) {
            try await cache.verify(anonymous, at: Self.t0, audience: .anyAudience)
        }
        let small = try Issuer(JWKSet(keys: Array(decoys.prefix(3)) + [real]))
        let smallCache = JWKSCache { try small.serve() }
        #expect(try await smallCache.verify(anonymous, at: Self.t0, audience: .anyAudience).keyID == nil)
        #expect(issuer.requests == 1)
        #expect(await cache.keyImports == 100)
    }
}
