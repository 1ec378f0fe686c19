import Foundation
import MultiAuthTestKeys
import Testing

@testable import MultiAuthCrypto

/// Adversarial tests of `JWKSCache` verifying outside its actor (published snapshot, keys
/// imported once per set, lookup by `kid`): key removal across refetches, failures and clock
/// steps; hostile key sets; `alg` confusion; fetch counts under floods; memory of old sets.
/// The last three were findings, now fixed: callers a few milliseconds apart bypassed the rate
/// limits, a NaN `now` fetched on every call, and a cancelled caller waited for a hung fetch.
@Suite("JWKSCache breaker: rotation races, hostile sets, backoff, memory", .timeLimit(.minutes(10)))
struct JWKSCacheBreakerTests {
    struct Down: Error, Equatable {}

    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    /// Holds fetches while armed; counts the fetches waiting.
    actor FetchHold {
        private var armed = false
        private var waiters: [CheckedContinuation<Void, Never>] = []
        var waiting: Int { waiters.count }
        func arm() { armed = true }
        func wait() async {
            guard armed else { return }
            await withCheckedContinuation { waiters.append($0) }
        }
        func release() {
            armed = false
            for waiter in waiters { waiter.resume() }
            waiters.removeAll()
        }
    }

    /// An issuer endpoint whose answer the test sets (read when a fetch is released); counts
    /// requests as they start.
    final class Endpoint: @unchecked Sendable {
        private enum Answer {
            case bytes(Data)
            case error(any Error)
        }
        private let lock = NSLock()
        private var answer: Answer
        private var count = 0
        let hold = FetchHold()

        init(_ set: JWKSet) throws { answer = .bytes(try set.jsonData()) }
        var requests: Int { lock.withLock { count } }
        func serve(_ set: JWKSet) throws {
            let data = try set.jsonData()
            lock.withLock { answer = .bytes(data) }
        }
        func reply(_ bytes: Data) { lock.withLock { answer = .bytes(bytes) } }
        func fail(_ error: any Error) { lock.withLock { answer = .error(error) } }
        func fetch() async throws -> Data {
            lock.withLock { count += 1 }
            await hold.wait()
            switch lock.withLock({ answer }) {
            case .bytes(let data): return data
            case .error(let error): throw error
            }
        }
    }

    /// A lock-guarded value shared between tasks.
    final class Shared<Value: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Value
        init(_ value: Value) { stored = value }
        var value: Value {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    static func jwk(_ key: PrivateKey, _ kid: String?, alg: Bool = true) throws -> JWK {
        try key.publicKey.jwk(keyID: kid, algorithm: alg ? (key.keyType == .rsa ? .rs256 : .es256) : nil)
    }

    static func set(_ keys: [(PrivateKey, String?)]) throws -> JWKSet {
        JWKSet(keys: try keys.map { try jwk($0.0, $0.1) })
    }

    static func token(_ key: PrivateKey, kid: String?, algorithm: SignatureAlgorithm? = nil) throws -> String {
        try JWT.sign(
            claims: ["sub": .string("u"), "exp": .number(1_800_000_000)], with: key,
            algorithm: algorithm ?? (key.keyType == .rsa ? .rs256 : .es256), keyID: kid)
    }

    /// A token with a hand-written header and signature.
    static func raw(header: String, signature: [UInt8] = [1, 2, 3]) -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(#"{"sub":"admin"}"#.utf8))
        return input + "." + Base64URL.encode(signature)
    }

    /// "ok <kid>" or the error, for one verification.
    static func outcome(_ cache: JWKSCache, _ token: String, at now: Date) async -> String {
        do {
            return "ok \(try await cache.verify(token, at: now, audience: .anyAudience).keyID ?? "-")"
        } catch {
            return "\(error)"
        }
    }

    static let keyNotFound = "\(CryptoError.keyNotFound)"
    static let signatureInvalid = "\(CryptoError.signatureInvalid)"
    static let unsupported = "\(CryptoError.unsupportedAlgorithm)"
    static let down = "\(Down())"

    /// The 1024-bit RSA key of LegacyRSAKeyTests as a JWK (refused by the cache: too small).
    static func legacyJWK(_ kid: String?) throws -> JWK {
        try PublicKey(derRepresentation: Base64.decode(LegacyRSAKeyTests.spki), minimumRSABits: 1024).jwk(keyID: kid)
    }
}

// MARK: A removed key after the new set is seen

extension JWKSCacheBreakerTests {
    @Test("a removed key is never accepted again: refetch limits, failures, clock steps back and forth")
    func removedKeyNeverReturns() async throws {
        let a = try Self.set([(TestKeys.rsaA, "k1"), (TestKeys.p256A, "k2")])
        let b = try Self.set([(TestKeys.p256A, "k2"), (TestKeys.rsaC, "k3")])
        let endpoint = try Endpoint(a)
        let cache = JWKSCache(minimumRefetchInterval: 30, maximumAge: 600, failureBackoff: 5) {
            try await endpoint.fetch()
        }
        let k1 = try Self.token(TestKeys.rsaA, kid: "k1")
        let k1NoKid = try Self.token(TestKeys.rsaA, kid: nil)
        let k2 = try Self.token(TestKeys.p256A, kid: "k2")
        let k3 = try Self.token(TestKeys.rsaC, kid: "k3")
        #expect(await Self.outcome(cache, k1, at: Self.t0) == "ok k1")
        #expect(await Self.outcome(cache, k1NoKid, at: Self.t0) == "ok -")
        try endpoint.serve(b)
        // The cache sees set B (k1 removed) through a k3 token.
        #expect(await Self.outcome(cache, k3, at: Self.t0 + 60) == "ok k3")
        #expect(endpoint.requests == 2)
        // Within the refetch interval: refused without a fetch; with no kid too.
        #expect(await Self.outcome(cache, k1, at: Self.t0 + 61) == Self.keyNotFound)
        #expect(await Self.outcome(cache, k1NoKid, at: Self.t0 + 61) == Self.signatureInvalid)
        #expect(endpoint.requests == 2)
        // Past the interval: one refetch, still B.
        #expect(await Self.outcome(cache, k1, at: Self.t0 + 91) == Self.keyNotFound)
        #expect(endpoint.requests == 3)
        // The issuer goes down. The clock steps back before the last fetch: the set's age is
        // unknown, the refetch fails, and the old set never comes back.
        endpoint.fail(Down())
        #expect(await Self.outcome(cache, k1, at: Self.t0 + 30) == Self.down)
        #expect(await Self.outcome(cache, k1, at: Self.t0 + 10) == Self.down)
        #expect(await Self.outcome(cache, k1NoKid, at: Self.t0 - 1) == Self.down)
        // Forward again: B (fetched at +91) answers from the snapshot.
        #expect(await Self.outcome(cache, k1, at: Self.t0 + 92) == Self.keyNotFound)
        #expect(await Self.outcome(cache, k2, at: Self.t0 + 92) == "ok k2")
        // Past maximumAge the stale set is not used, not even for k2.
        let fetches = endpoint.requests
        #expect(await Self.outcome(cache, k2, at: Self.t0 + 692) == Self.down)
        #expect(await Self.outcome(cache, k1, at: Self.t0 + 693) == Self.down)
        #expect(endpoint.requests == fetches + 1)
        // Exactly at maximumAge it still is (inclusive), with no fetch; k1 may refetch (the
        // clock stepped back past the failure, so no backoff) and the issuer is still down.
        #expect(await Self.outcome(cache, k2, at: Self.t0 + 691) == "ok k2")
        #expect(endpoint.requests == fetches + 1)
        #expect(await Self.outcome(cache, k1, at: Self.t0 + 691) == Self.down)
        #expect(endpoint.requests == fetches + 2)
        #expect(await cache.fetchCount == endpoint.requests)
    }

    @Test(
        "a refetch that fails, is malformed, too large or cancelled keeps the current set; the next good one replaces it"
    )
    func failedRefetchKeepsCurrentSet() async throws {
        let a = try Self.set([(TestKeys.rsaA, "k1")])
        let b = try Self.set([(TestKeys.rsaC, "k3")])
        let endpoint = try Endpoint(a)
        let cache = JWKSCache(minimumRefetchInterval: 0, failureBackoff: 5) { try await endpoint.fetch() }
        let k1 = try Self.token(TestKeys.rsaA, kid: "k1")
        let k3 = try Self.token(TestKeys.rsaC, kid: "k3")
        #expect(await Self.outcome(cache, k1, at: Self.t0) == "ok k1")
        endpoint.reply(Data(#"{"keys":[{"kty":"RSA","kid":"k3","n":"#.utf8))
        #expect(await Self.outcome(cache, k3, at: Self.t0 + 1) == "\(CryptoError.malformedKeySet)")
        #expect(await Self.outcome(cache, k1, at: Self.t0 + 1) == "ok k1")
        // Backing off: the error again, no fetch.
        #expect(await Self.outcome(cache, k3, at: Self.t0 + 2) == "\(CryptoError.malformedKeySet)")
        #expect(endpoint.requests == 2)
        endpoint.reply(Data(repeating: 0x20, count: JSONLimits.jwks.maximumBytes + 1))
        #expect(
            await Self.outcome(cache, k3, at: Self.t0 + 6)
                == "\(CryptoError.limitExceeded("document size", maximum: JSONLimits.jwks.maximumBytes))")
        #expect(await Self.outcome(cache, k1, at: Self.t0 + 6) == "ok k1")
        // A cancelled fetch is not remembered: each call fetches again (after the 10 s backoff).
        endpoint.fail(CancellationError())
        #expect(await Self.outcome(cache, k3, at: Self.t0 + 17) == "\(CancellationError())")
        #expect(await Self.outcome(cache, k3, at: Self.t0 + 17) == "\(CancellationError())")
        #expect(endpoint.requests == 5)
        #expect(await Self.outcome(cache, k1, at: Self.t0 + 17) == "ok k1")
        try endpoint.serve(b)
        #expect(await Self.outcome(cache, k3, at: Self.t0 + 18) == "ok k3")
        #expect(await Self.outcome(cache, k1, at: Self.t0 + 18) == Self.keyNotFound)
        #expect(endpoint.requests == 7)
    }

    @Test(
        "verifiers answer from the current set while a refetch is held; unknown kids join it; after it, the removed key is refused everywhere"
    )
    func verifiersDuringAHeldRefetch() async throws {
        let a = try Self.set([(TestKeys.rsaA, "k1"), (TestKeys.p256A, "k2")])
        let b = try Self.set([(TestKeys.p256A, "k2"), (TestKeys.rsaC, "k3")])
        let endpoint = try Endpoint(a)
        let cache = JWKSCache(minimumRefetchInterval: 30) { try await endpoint.fetch() }
        let k1 = try Self.token(TestKeys.rsaA, kid: "k1")
        let k2 = try Self.token(TestKeys.p256A, kid: "k2")
        let k3 = try Self.token(TestKeys.rsaC, kid: "k3")
        let forged = try Self.token(TestKeys.p256B, kid: "k2")
        #expect(await Self.outcome(cache, k1, at: Self.t0) == "ok k1")
        try endpoint.serve(b)
        await endpoint.hold.arm()
        let now = Self.t0 + 60
        let rotation = Task { await Self.outcome(cache, k3, at: now) }
        while await endpoint.hold.waiting == 0 { await Task.yield() }
        // The refetch is held: these all finish without it (set A).
        let during = await withTaskGroup(of: [String].self) { group in
            for task in 0..<8 {
                group.addTask {
                    var seen: [String] = []
                    for round in 0..<12 {
                        seen.append(await Self.outcome(cache, [k1, k2, forged][(task + round) % 3], at: now))
                    }
                    return seen
                }
            }
            return await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(Set(during) == ["ok k1", "ok k2", Self.signatureInvalid])
        #expect(endpoint.requests == 2)
        // Unknown kids arriving now join the held fetch (or, if late, find B within the interval).
        let strangers = Task {
            await withTaskGroup(of: String.self) { group in
                for index in 0..<32 {
                    let token = try! Self.token(TestKeys.rsaB, kid: "stranger-\(index)")
                    group.addTask { await Self.outcome(cache, token, at: now) }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        for _ in 0..<200 { await Task.yield() }
        await endpoint.hold.release()
        #expect(await rotation.value == "ok k3")
        #expect(Set(await strangers.value) == [Self.keyNotFound])
        #expect(endpoint.requests == 2)
        let after = await withTaskGroup(of: String.self) { group in
            for _ in 0..<16 { group.addTask { await Self.outcome(cache, k1, at: now) } }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(after) == [Self.keyNotFound])
        #expect(await cache.fetchCount == 2)
    }

    @Test("40 rotations under 8 concurrent checkers: once a generation is seen, the previous key is never accepted")
    func rotationStress() async throws {
        func generation(_ g: Int) throws -> JWKSet { try Self.set([(TestKeys.rsaA, "gen-\(g)")]) }
        let endpoint = try Endpoint(generation(0))
        let cache = JWKSCache(minimumRefetchInterval: 0) { try await endpoint.fetch() }
        let tokens = try (0...40).map { try Self.token(TestKeys.rsaA, kid: "gen-\($0)") }
        #expect(await Self.outcome(cache, tokens[0], at: Self.t0) == "ok gen-0")
        let seen = Shared(0)
        let done = Shared(false)
        let violations = Shared([String]())
        let retries = Shared(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    while !done.value {
                        let g = seen.value
                        if g > 0 {
                            let result = await Self.outcome(cache, tokens[g - 1], at: Self.t0)
                            if result.hasPrefix("ok") { violations.value.append("gen \(g - 1) after \(g)") }
                        }
                        await Task.yield()
                    }
                }
            }
            group.addTask {
                for g in 1...40 {
                    try? endpoint.serve(generation(g))
                    // An unknown kid refetches (interval 0); it may join a checker's refetch that
                    // read the previous generation (and keep joining it until its initiator
                    // resumes), so try until the new generation is seen.
                    var result = ""
                    var attempts = 0
                    while !result.hasPrefix("ok"), attempts < 10_000 {
                        attempts += 1
                        result = await Self.outcome(cache, tokens[g], at: Self.t0)
                        if !result.hasPrefix("ok") { await Task.yield() }
                    }
                    retries.value += attempts - 1
                    if result != "ok gen-\(g)" { violations.value.append("gen \(g): \(result)") }
                    seen.value = g
                    for _ in 0..<5 { await Task.yield() }
                }
                done.value = true
            }
        }
        #expect(violations.value == [])
        print("rotationStress: the driver's refetch joined a stale fetch \(retries.value) times")
        #expect(await Self.outcome(cache, tokens[39], at: Self.t0) == Self.keyNotFound)
    }
}

// MARK: Hostile and odd key sets

extension JWKSCacheBreakerTests {
    @Test("duplicate kids across key types, and keys without a kid")
    func duplicateKidsAndKidlessKeys() async throws {
        let set = JWKSet(keys: [
            try Self.jwk(TestKeys.rsaB, "dup"), try Self.jwk(TestKeys.p256A, "dup"), try Self.jwk(TestKeys.rsaA, "dup"),
            try Self.jwk(TestKeys.rsaC, nil), try Self.jwk(TestKeys.p256B, nil),
        ])
        let endpoint = try Endpoint(set)
        let cache = JWKSCache { try await endpoint.fetch() }
        // Both RSA keys named "dup" are tried, in order; the EC one for ES256.
        #expect(await Self.outcome(cache, try Self.token(TestKeys.rsaA, kid: "dup"), at: Self.t0) == "ok dup")
        #expect(await Self.outcome(cache, try Self.token(TestKeys.p256A, kid: "dup"), at: Self.t0) == "ok dup")
        // A kid-less key is never picked for a token naming a kid.
        #expect(
            await Self.outcome(cache, try Self.token(TestKeys.rsaC, kid: "dup"), at: Self.t0) == Self.signatureInvalid)
        #expect(
            await Self.outcome(cache, try Self.token(TestKeys.p256B, kid: "dup"), at: Self.t0) == Self.signatureInvalid)
        // A token without a kid tries every fitting key, named or not.
        #expect(await Self.outcome(cache, try Self.token(TestKeys.rsaC, kid: nil), at: Self.t0) == "ok -")
        #expect(await Self.outcome(cache, try Self.token(TestKeys.rsaA, kid: nil), at: Self.t0) == "ok -")
        #expect(await Self.outcome(cache, try Self.token(TestKeys.p256B, kid: nil), at: Self.t0) == "ok -")
        // The keys declare RS256: an RS512 token finds none.
        #expect(
            await Self.outcome(cache, try Self.token(TestKeys.rsaA, kid: "dup", algorithm: .rs512), at: Self.t0)
                == Self.keyNotFound)
        #expect(endpoint.requests == 1)
    }

    @Test("a kid naming a key of the wrong type: not found, one refetch per interval; alg confusion on a shared kid")
    func kidOfTheWrongType() async throws {
        let endpoint = try Endpoint(
            JWKSet(keys: [
                try Self.jwk(TestKeys.p256A, "ec"), try Self.jwk(TestKeys.p256A, "same"),
                try Self.jwk(TestKeys.rsaB, "same"),
            ]))
        let cache = JWKSCache(minimumRefetchInterval: 30) { try await endpoint.fetch() }
        let rsaNamingEC = try Self.token(TestKeys.rsaA, kid: "ec")
        #expect(await Self.outcome(cache, rsaNamingEC, at: Self.t0) == Self.keyNotFound)
        #expect(await Self.outcome(cache, rsaNamingEC, at: Self.t0 + 29) == Self.keyNotFound)
        #expect(endpoint.requests == 1)
        #expect(await Self.outcome(cache, rsaNamingEC, at: Self.t0 + 30) == Self.keyNotFound)
        #expect(endpoint.requests == 2)
        #expect(await Self.outcome(cache, try Self.token(TestKeys.p256A, kid: "ec"), at: Self.t0 + 31) == "ok ec")
        // RS256 token against kid "same" (EC and RSA): only the RSA key is tried.
        #expect(
            await Self.outcome(cache, try Self.token(TestKeys.rsaA, kid: "same"), at: Self.t0 + 31)
                == Self.signatureInvalid)
        #expect(await Self.outcome(cache, try Self.token(TestKeys.rsaB, kid: "same"), at: Self.t0 + 31) == "ok same")
        #expect(await Self.outcome(cache, try Self.token(TestKeys.p256A, kid: "same"), at: Self.t0 + 31) == "ok same")
        // An ES256 header over an RSA signature: the EC key says no.
        let rsaSignature = try TestKeys.rsaB.signature(for: Array("x".utf8), algorithm: .rs256)
        #expect(
            await Self.outcome(
                cache, Self.raw(header: #"{"alg":"ES256","kid":"same"}"#, signature: rsaSignature), at: Self.t0 + 31)
                == Self.signatureInvalid)
        #expect(endpoint.requests == 2)
    }

    @Test("huge, odd-Unicode and case-variant kids select exactly their key")
    func oddKids() async throws {
        let huge = String(repeating: "k", count: 30_000)
        let odd = "\u{0}\u{202E}🔑\u{FEFF}kid"
        let endpoint = try Endpoint(
            Self.set([(TestKeys.rsaA, huge), (TestKeys.rsaB, odd), (TestKeys.rsaC, "k1"), (TestKeys.rsaD, "café")]))
        let cache = JWKSCache(minimumRefetchInterval: 0) { try await endpoint.fetch() }
        #expect(await Self.outcome(cache, try Self.token(TestKeys.rsaA, kid: huge), at: Self.t0) == "ok \(huge)")
        #expect(
            await Self.outcome(cache, try Self.token(TestKeys.rsaA, kid: String(huge.dropLast()) + "K"), at: Self.t0)
                == Self.keyNotFound)
        #expect(await Self.outcome(cache, try Self.token(TestKeys.rsaB, kid: odd), at: Self.t0) == "ok \(odd)")
        #expect(
            await Self.outcome(cache, try Self.token(TestKeys.rsaB, kid: String(odd.dropFirst())), at: Self.t0)
                == Self.keyNotFound)
        #expect(await Self.outcome(cache, try Self.token(TestKeys.rsaC, kid: "K1"), at: Self.t0) == Self.keyNotFound)
        // Swift String equality is canonical equivalence, as before the change: a decomposed
        // "café" selects the precomposed key (same kid for Swift, different bytes).
        #expect(
            await Self.outcome(cache, try Self.token(TestKeys.rsaD, kid: "cafe\u{301}"), at: Self.t0)
                == "ok cafe\u{301}")
        // A token over 64 KiB is refused before any lookup or fetch.
        let before = endpoint.requests
        #expect(
            await Self.outcome(
                cache, try Self.token(TestKeys.rsaA, kid: String(repeating: "k", count: 60_000)), at: Self.t0)
                == "\(CryptoError.limitExceeded("token length", maximum: JSONLimits.jwt.maximumBytes))")
        #expect(endpoint.requests == before)
    }

    @Test("at most 8 candidates: the 8th verifies, the 9th does not; refused and other-type keys are not counted")
    func candidateCap() async throws {
        func verdict(_ keys: [JWK], _ token: String) async throws -> String {
            let endpoint = try Endpoint(JWKSet(keys: keys))
            return await Self.outcome(JWKSCache { try await endpoint.fetch() }, token, at: Self.t0)
        }
        let decoy = try Self.jwk(TestKeys.rsaB, nil)
        let real = try Self.jwk(TestKeys.rsaA, nil)
        let anonymous = try Self.token(TestKeys.rsaA, kid: nil)
        #expect(try await verdict(Array(repeating: decoy, count: 7) + [real], anonymous) == "ok -")
        #expect(try await verdict(Array(repeating: decoy, count: 8) + [real], anonymous) == Self.signatureInvalid)
        let filler =
            try Array(repeating: Self.legacyJWK(nil), count: 10)
            + Array(repeating: Self.jwk(TestKeys.p256A, nil), count: 5)
            + [JWK(kty: "RSA", n: "AQAB", e: "AQAB")]
        #expect(try await verdict(filler + Array(repeating: decoy, count: 7) + [real], anonymous) == "ok -")
        let named = try Self.jwk(TestKeys.rsaB, "dup")
        let namedReal = try Self.jwk(TestKeys.rsaA, "dup")
        let dupToken = try Self.token(TestKeys.rsaA, kid: "dup")
        #expect(try await verdict(Array(repeating: named, count: 7) + [namedReal], dupToken) == "ok dup")
        #expect(try await verdict(Array(repeating: named, count: 8) + [namedReal], dupToken) == Self.signatureInvalid)
        // Decoys under other kids do not count for a named token.
        #expect(try await verdict(Array(repeating: decoy, count: 50) + [namedReal], dupToken) == "ok dup")
    }

    @Test("keyTooSmall surfaces through the cache, fast path or not, and on refetch")
    func keyTooSmallSurfaces() async throws {
        let endpoint = try Endpoint(JWKSet(keys: [try Self.legacyJWK("legacy"), try Self.jwk(TestKeys.rsaC, "good")]))
        let cache = JWKSCache(minimumRefetchInterval: 30) { try await endpoint.fetch() }
        let tooSmall = "\(CryptoError.keyTooSmall(bits: 1024, required: 2048))"
        let legacyToken = try Self.token(TestKeys.rsaC, kid: "legacy")
        #expect(await Self.outcome(cache, try Self.token(TestKeys.rsaC, kid: "good"), at: Self.t0) == "ok good")
        #expect(await Self.outcome(cache, legacyToken, at: Self.t0 + 1) == tooSmall)
        #expect(endpoint.requests == 1)
        #expect(await Self.outcome(cache, legacyToken, at: Self.t0 + 31) == tooSmall)
        #expect(endpoint.requests == 2)
        #expect(
            await Self.outcome(cache, try Self.token(TestKeys.p256A, kid: "legacy"), at: Self.t0 + 32)
                == Self.keyNotFound)
        // Without a kid the usable key is a candidate, so the small one is not reported.
        #expect(await Self.outcome(cache, try Self.token(TestKeys.rsaC, kid: nil), at: Self.t0 + 32) == "ok -")
        #expect(
            await Self.outcome(cache, try Self.token(TestKeys.rsaA, kid: nil), at: Self.t0 + 32)
                == Self.signatureInvalid)
        let onlySmall = try Endpoint(JWKSet(keys: [try Self.legacyJWK(nil)]))
        let small = JWKSCache { try await onlySmall.fetch() }
        #expect(await Self.outcome(small, try Self.token(TestKeys.rsaC, kid: nil), at: Self.t0) == tooSmall)
    }

    @Test(
        "alg confusion: none, HS256 keyed with the RSA public key, crit, lower case, disallowed alg; no fetch for any")
    func algConfusion() async throws {
        let endpoint = try Endpoint(Self.set([(TestKeys.rsaA, "k")]))
        let cache = JWKSCache { try await endpoint.fetch() }
        let publicKey = TestKeys.rsaA.publicKey
        var forged: [String] = [
            Self.raw(header: #"{"alg":"none","kid":"k"}"#, signature: []),
            Self.raw(header: #"{"alg":"None"}"#, signature: []),
            Self.raw(header: #"{"alg":"rs256","kid":"k"}"#),
            Self.raw(header: #"{"alg":"PS256","kid":"k"}"#),
            Self.raw(header: #"{"alg":"RS256","kid":"k","crit":["b64"],"b64":false}"#),
        ]
        for secret in [
            Array(try publicKey.pemRepresentation().utf8), try publicKey.derRepresentation(),
            Array(try publicKey.jwk().n!.utf8),
        ] {
            for alg in ["HS256", "HS512"] {
                let input =
                    Base64URL.encode(Array(#"{"alg":"\#(alg)","kid":"k"}"#.utf8)) + "."
                    + Base64URL.encode(Array(#"{"sub":"admin"}"#.utf8))
                let mac = HMAC.authenticationCode(
                    for: Array(input.utf8), key: secret, algorithm: alg == "HS256" ? .sha256 : .sha512)
                forged.append(input + "." + Base64URL.encode(mac))
            }
        }
        for token in forged { #expect(await Self.outcome(cache, token, at: Self.t0) == Self.unsupported) }
        // A genuine RS256 token when only ES256 is allowed.
        await #expect(throws: CryptoError.unsupportedAlgorithm) {
            try await cache.verify(
                try Self.token(TestKeys.rsaA, kid: "k"), at: Self.t0, audience: .anyAudience, algorithms: [.es256])
        }
        #expect(endpoint.requests == 0)
        #expect(await Self.outcome(cache, try Self.token(TestKeys.rsaA, kid: "k"), at: Self.t0) == "ok k")
    }
}

// MARK: Fetch counts: floods, clock jitter, non-finite time

extension JWKSCacheBreakerTests {
    @Test("a flood of unknown kids costs one refetch per interval and does not block valid tokens")
    func unknownKidFlood() async throws {
        let endpoint = try Endpoint(Self.set([(TestKeys.rsaA, "k1")]))
        let cache = JWKSCache(minimumRefetchInterval: 30) { try await endpoint.fetch() }
        _ = try await cache.keySet(at: Self.t0)
        let valid = try Self.token(TestKeys.rsaA, kid: "k1")
        let strangers = try (0..<64).map { try Self.token(TestKeys.rsaB, kid: "x\($0)") }
        for (wave, now) in [Self.t0 + 10, Self.t0 + 40, Self.t0 + 50, Self.t0 + 75].enumerated() {
            let results = await withTaskGroup(of: (Bool, String).self) { group in
                for (index, stranger) in strangers.enumerated() {
                    group.addTask { (false, await Self.outcome(cache, stranger, at: now)) }
                    if index % 4 == 0 { group.addTask { (true, await Self.outcome(cache, valid, at: now)) } }
                }
                return await group.reduce(into: [(Bool, String)]()) { $0.append($1) }
            }
            #expect(Set(results.filter(\.0).map(\.1)) == ["ok k1"], "wave \(wave)")
            #expect(Set(results.filter { !$0.0 }.map(\.1)) == [Self.keyNotFound], "wave \(wave)")
        }
        // t0 (first fetch), t0 + 40 and t0 + 75: the waves at +10 and +50 are inside the interval.
        #expect(endpoint.requests == 3)
    }

    @Test("callers a few milliseconds apart, arriving out of order, keep the refetch interval and the failure backoff")
    func jitterKeepsRateLimits() async throws {
        let endpoint = try Endpoint(Self.set([(TestKeys.rsaA, "k1")]))
        let cache = JWKSCache(minimumRefetchInterval: 30) { try await endpoint.fetch() }
        _ = try await cache.keySet(at: Self.t0)
        let stranger = try Self.token(TestKeys.rsaB, kid: "stranger")
        // Requests that read the clock 1 ms apart reach the cache in the opposite order (normal
        // under load): each one is "before the last fetch", so each refetches.
        for step in 0..<10 {
            _ = await Self.outcome(cache, stranger, at: Self.t0 + 100 - Double(step) * 0.001)
        }
        #expect(endpoint.requests <= 2, "unknown-kid refetches: \(endpoint.requests - 1)")
        // The same against a dead issuer: the negative cache is bypassed too.
        let dead = JWKSCache { throw Down() }
        for step in 0..<10 { _ = await Self.outcome(dead, stranger, at: Self.t0 - Double(step) * 0.001) }
        let deadFetches = await dead.fetchCount
        #expect(deadFetches <= 1, "fetches against a dead issuer: \(deadFetches)")
    }

    @Test("a non-finite now is refused before any fetch and never published")
    func nonFiniteNowNeverFetches() async throws {
        let dead = JWKSCache { throw Down() }
        let token = try Self.token(TestKeys.rsaA, kid: "k1")
        var outcomes: [String] = []
        for _ in 0..<10 { outcomes.append(await Self.outcome(dead, token, at: Date(timeIntervalSince1970: .nan))) }
        let fetches = await dead.fetchCount
        #expect(fetches <= 1, "fetches: \(fetches)")
        #expect(Set(outcomes) == ["\(CryptoError.timeOutOfRange)"])
        // And one NaN call makes the next valid call refetch a fresh set.
        let endpoint = try Endpoint(Self.set([(TestKeys.rsaA, "k1")]))
        let cache = JWKSCache { try await endpoint.fetch() }
        #expect(await Self.outcome(cache, token, at: Self.t0) == "ok k1")
        _ = await Self.outcome(cache, token, at: Date(timeIntervalSince1970: .infinity))
        #expect(await Self.outcome(cache, token, at: Self.t0 + 1) == "ok k1")
        #expect(endpoint.requests == 1, "fetches: \(endpoint.requests)")
    }

    @Test("a cancelled caller stops waiting for a shared fetch that does not return")
    func cancelledCallerStopsWaiting() async throws {
        let endpoint = try Endpoint(Self.set([(TestKeys.rsaA, "k1")]))
        let cache = JWKSCache { try await endpoint.fetch() }
        let token = try Self.token(TestKeys.rsaA, kid: "k1")
        await endpoint.hold.arm()
        let caller = Task { await Self.outcome(cache, token, at: Self.t0) }
        while await endpoint.hold.waiting == 0 { await Task.yield() }
        caller.cancel()
        // A watchdog releases the fetch after many scheduler turns (no wall clock): a caller that
        // honours cancellation has returned long before.
        let releasedByWatchdog = Shared(false)
        let watchdog = Task {
            for _ in 0..<20_000 { await Task.yield() }
            releasedByWatchdog.value = true
            await endpoint.hold.release()
        }
        let result = await caller.value
        #expect(!releasedByWatchdog.value, "the cancelled caller returned only when the fetch did: \(result)")
        #expect(result == "\(CancellationError())")
        await watchdog.value
    }

    @Test("a fetch whose only caller was cancelled is still recorded: its set is used, its failure backed off")
    func aFetchOutlivesItsCancelledCaller() async throws {
        let token = try Self.token(TestKeys.rsaA, kid: "k1")
        for fails in [false, true] {
            let endpoint = try Endpoint(Self.set([(TestKeys.rsaA, "k1")]))
            if fails { endpoint.fail(Down()) }
            let cache = JWKSCache { try await endpoint.fetch() }
            await endpoint.hold.arm()
            let caller = Task { await Self.outcome(cache, token, at: Self.t0) }
            while await endpoint.hold.waiting == 0 { await Task.yield() }
            caller.cancel()
            #expect(await caller.value == "\(CancellationError())")
            await endpoint.hold.release()
            // The fetch ends on its own; wait until the cache has recorded it.
            for _ in 0..<100_000 where await cache.keyImports == 0 && !fails { await Task.yield() }
            if fails {
                var outcome = ""
                for _ in 0..<100_000 {
                    outcome = await Self.outcome(cache, token, at: Self.t0 + 1)
                    if outcome == Self.down { break }
                    await Task.yield()
                }
                #expect(outcome == Self.down)
            } else {
                #expect(await Self.outcome(cache, token, at: Self.t0 + 1) == "ok k1")
            }
            #expect(endpoint.requests == 1, "fails: \(fails)")
        }
    }
}

// MARK: Memory of imported sets (package seams)

extension JWKSCacheBreakerTests {
    final class Weak<Object: AnyObject>: @unchecked Sendable {
        weak var object: Object?
        init(_ object: Object?) { self.object = object }
    }

    @Test(
        "an old snapshot held by a verification under way keeps its answer and is freed after it; no set outlives its replacement"
    )
    func snapshotsAreFreed() async throws {
        let endpoint = try Endpoint(Self.set([(TestKeys.rsaA, "gen-0")]))
        let cache = JWKSCache(minimumRefetchInterval: 0) { try await endpoint.fetch() }
        _ = try await cache.keySet(at: Self.t0)
        var weakSets: [Weak<ImportedKeySet>] = []
        var weakKeys: [Weak<PublicKey>] = []
        do {
            // A verification that read the snapshot before the rotation.
            let held = try #require(cache.currentKeys)
            weakSets.append(Weak(held))
            weakKeys += held.importedKeys.map { Weak($0) }
            try endpoint.serve(Self.set([(TestKeys.rsaA, "gen-1")]))
            #expect(await Self.outcome(cache, try Self.token(TestKeys.rsaA, kid: "gen-1"), at: Self.t0) == "ok gen-1")
            #expect(cache.currentKeys !== held)
            let old = try JWT(parsing: Self.token(TestKeys.rsaA, kid: "gen-0"))
            #expect(try held.verify(old, algorithm: .rs256).kid == "gen-0")
            #expect(
                await Self.outcome(cache, try Self.token(TestKeys.rsaA, kid: "gen-0"), at: Self.t0) == Self.keyNotFound)
            #expect(weakSets[0].object != nil)
        }
        #expect(weakSets[0].object == nil)
        #expect(weakKeys.allSatisfy { $0.object == nil })
        // Sets that arrived through a shared (joined) fetch, and after failed refetches.
        for g in 2...20 {
            weakSets.append(Weak(cache.currentKeys))
            if g % 5 == 0 {
                endpoint.fail(Down())
                #expect(
                    await Self.outcome(
                        cache, try Self.token(TestKeys.rsaA, kid: "gen-\(g)"), at: Self.t0 + Double(g * 1000))
                        == Self.down)
                #expect(cache.currentKeys === weakSets.last?.object)
            }
            try endpoint.serve(Self.set([(TestKeys.rsaA, "gen-\(g)")]))
            await endpoint.hold.arm()
            let now = Self.t0 + Double(g * 1000 + 500)
            let token = try Self.token(TestKeys.rsaA, kid: "gen-\(g)")
            let first = Task { await Self.outcome(cache, token, at: now) }
            while await endpoint.hold.waiting == 0 { await Task.yield() }
            let second = Task { await Self.outcome(cache, token, at: now) }
            for _ in 0..<50 { await Task.yield() }
            await endpoint.hold.release()
            #expect(await first.value == "ok gen-\(g)")
            #expect(await second.value == "ok gen-\(g)")
        }
        // The tasks that hand a shared fetch's result to its waiters end just after the
        // verifications they served return: a set one of them still holds is released a few
        // scheduler turns later (a set kept for good stays alive through every turn and fails).
        for _ in 0..<10_000 where !weakSets.allSatisfy({ $0.object == nil }) { await Task.yield() }
        #expect(weakSets.allSatisfy { $0.object == nil }, "sets alive: \(weakSets.filter { $0.object != nil }.count)")
        #expect(cache.currentKeys?.count == 1)
    }
}
