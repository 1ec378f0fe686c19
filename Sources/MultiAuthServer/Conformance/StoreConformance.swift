import Foundation
import MultiAuthCrypto
import MultiAuthLocking

/// What the store conformance kit runs against: a replay store and an attempt limiter, a way to
/// observe or move time, and optionally instances that cannot reach their backend.
public struct StoreConformanceSubject: Sendable {
    /// How the kit checks TTLs and windows.
    public enum Time: Sendable {
        /// The stores run on a clock the kit may move (a `ManualClock`): expiry is observed by
        /// advancing it.
        case manual(advance: @Sendable (Duration) async -> Void)
        /// The stores run on a server's clock the kit cannot move (Redis): the remaining TTL of
        /// a key is read instead (`PTTL`), and checked against bounds that hold under load.
        case server(remainingTTL: @Sendable (StoreKey) async throws -> Duration?)
    }

    /// Instances of the same implementation that cannot answer (e.g. a client pointed at a
    /// closed port), for ``StoreConformanceCheck/unavailableStoreFailsClosed``.
    public struct Unavailable: Sendable {
        /// A replay store that cannot reach its backend.
        public var replayStore: any ReplayStore
        /// An attempt limiter that cannot reach its backend.
        public var attemptLimiter: any AttemptLimiter

        /// Creates the pair.
        public init(replayStore: any ReplayStore, attemptLimiter: any AttemptLimiter) {
            self.replayStore = replayStore
            self.attemptLimiter = attemptLimiter
        }
    }

    /// A name for the report, e.g. `redis`.
    public var name: String
    /// The replay store under test.
    public var replayStore: any ReplayStore
    /// The attempt limiter under test.
    public var attemptLimiter: any AttemptLimiter
    /// How time is checked.
    public var time: Time
    /// Failing instances, or `nil` (the failure check is then skipped, and says so).
    public var unavailable: Unavailable?

    /// Creates a subject.
    ///
    /// - Parameters:
    ///   - name: a name for the report.
    ///   - replayStore: the replay store under test.
    ///   - attemptLimiter: the attempt limiter under test.
    ///   - time: how TTLs are checked.
    ///   - unavailable: failing instances of the same implementation, or `nil`.
    public init(
        name: String, replayStore: any ReplayStore, attemptLimiter: any AttemptLimiter, time: Time,
        unavailable: Unavailable? = nil
    ) {
        self.name = name
        self.replayStore = replayStore
        self.attemptLimiter = attemptLimiter
        self.time = time
        self.unavailable = unavailable
    }
}

/// The store conformance kit: the same checks for every ``/MultiAuthCrypto/ReplayStore`` and
/// ``/MultiAuthCrypto/AttemptLimiter`` implementation — single use under concurrency, steps only
/// advancing, TTL expiry, the limiter's window and retry-after, argument checks and failing
/// closed (Docs/Server.md, "The store conformance kit").
///
/// Framework-agnostic: ``run(_:checks:rounds:racers:)`` returns a ``StoreConformanceReport``;
/// assert on ``StoreConformanceReport/isConforming`` in any test framework. Every check uses
/// fresh random keys (namespace `conformance.*`), so it can run against a shared server.
///
/// A check-then-set implementation (read, then write in a second step) fails S02, S05 and S08:
/// their racers start together from one gate, every round.
public enum StoreConformance {
    struct Failure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// Runs `checks` against `subject`.
    ///
    /// - Parameters:
    ///   - subject: the stores and how to check time.
    ///   - checks: the checks to run; all by default.
    ///   - rounds: rounds of each concurrency check; 25 by default.
    ///   - racers: concurrent calls per round, 2 or more; 16 by default.
    /// - Returns: one result per check, in check order.
    public static func run(
        _ subject: StoreConformanceSubject, checks: [StoreConformanceCheck] = StoreConformanceCheck.allCases,
        rounds: Int = 25, racers: Int = 16
    ) async -> StoreConformanceReport {
        let run = Run(subject: subject, rounds: max(1, rounds), racers: max(2, racers))
        var results: [StoreConformanceResult] = []
        for check in checks.sorted() {
            var result = StoreConformanceResult(id: check.rawValue, title: check.title, status: .passed)
            do {
                if let skip = try await run.perform(check) {
                    result.status = .skipped
                    result.detail = skip
                }
            } catch let failure as Failure {
                result.status = .failed
                result.detail = failure.message
            } catch let error as StoreUnavailableError {
                result.status = .failed
                result.detail = "the store could not answer: \(error)"
            } catch {
                result.status = .failed
                result.detail = "unexpected error: \(error)"
            }
            results.append(result)
        }
        return StoreConformanceReport(subject: subject.name, results: results)
    }
}

/// One kit run's state and checks.
private struct Run: Sendable {
    let subject: StoreConformanceSubject
    let rounds: Int
    let racers: Int
    var store: any ReplayStore { subject.replayStore }
    var limiter: any AttemptLimiter { subject.attemptLimiter }

    func key(_ name: String) throws -> StoreKey {
        try store.keyspace.key("conformance." + name, try SecureRandom.bytes(count: 16))
    }

    func limiterKey(_ name: String) throws -> StoreKey {
        try limiter.keyspace.key("conformance." + name, try SecureRandom.bytes(count: 16))
    }

    func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw StoreConformance.Failure(message()) }
    }

    /// Runs `racers` calls of `body` that start together from one gate.
    func race<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> T) async throws -> [T] {
        let gate = StartGate(count: count)
        return try await withThrowingTaskGroup(of: T.self) { group in
            for index in 0..<count {
                group.addTask {
                    await gate.arrive()
                    return try await body(index)
                }
            }
            var results: [T] = []
            for try await result in group { results.append(result) }
            return results
        }
    }

    /// `nil` when the check ran; a skip reason otherwise.
    func perform(_ check: StoreConformanceCheck) async throws -> String? {
        switch check {
        case .consumeOnceAcceptsOnce: try await consumeOnceAcceptsOnce()
        case .consumeOnceIsAtomic: try await consumeOnceIsAtomic()
        case .consumeOnceHonoursTTL: try await consumeOnceHonoursTTL()
        case .advanceOnlyMovesForward: try await advanceOnlyMovesForward()
        case .advanceIsAtomic: try await advanceIsAtomic()
        case .advanceHonoursTTL: try await advanceHonoursTTL()
        case .limiterCountsWithinWindow: try await limiterCountsWithinWindow()
        case .limiterIsAtomic: try await limiterIsAtomic()
        case .keysAreIndependent: try await keysAreIndependent()
        case .invalidArgumentsAreRefused: try await invalidArgumentsAreRefused()
        case .unavailableStoreFailsClosed: return try await unavailableStoreFailsClosed()
        }
        return nil
    }

    func consumeOnceAcceptsOnce() async throws {
        let first = try key("once")
        try expect(try await store.consumeOnce(key: first, ttl: .seconds(600)), "the first use was refused")
        try expect(!(try await store.consumeOnce(key: first, ttl: .seconds(600))), "a second use was accepted")
        try expect(!(try await store.consumeOnce(key: first, ttl: .seconds(600))), "a third use was accepted")
        try expect(try await store.consumeOnce(key: try key("once"), ttl: .seconds(600)), "another key was refused")
    }

    func consumeOnceIsAtomic() async throws {
        for round in 1...rounds {
            let key = try key("race")
            let store = self.store
            let accepted = try await race(racers) { _ in try await store.consumeOnce(key: key, ttl: .seconds(600)) }
            let count = accepted.filter { $0 }.count
            try expect(count == 1, "round \(round): \(count) of \(racers) racers were accepted")
        }
    }

    func consumeOnceHonoursTTL() async throws {
        let key = try key("ttl")
        switch subject.time {
        case .manual(let advance):
            try expect(try await store.consumeOnce(key: key, ttl: .seconds(10)), "the first use was refused")
            await advance(.milliseconds(9_999))
            try expect(!(try await store.consumeOnce(key: key, ttl: .seconds(10))), "forgotten before its TTL ended")
            await advance(.milliseconds(2))
            try expect(try await store.consumeOnce(key: key, ttl: .seconds(10)), "still remembered after its TTL")
            // A TTL under a millisecond's precision is rounded up, never down.
            let short = try self.key("ttl")
            try expect(try await store.consumeOnce(key: short, ttl: .microseconds(1_500)), "the first use was refused")
            await advance(.milliseconds(1))
            try expect(!(try await store.consumeOnce(key: short, ttl: .seconds(10))), "a 1.5 ms TTL was rounded down")
        case .server(let remainingTTL):
            try expect(try await store.consumeOnce(key: key, ttl: .seconds(600)), "the first use was refused")
            let left = try await remainingTTL(key)
            // Bounds that hold unless five minutes pass between the write and the read.
            try expect(
                left.map { $0 > .seconds(300) && $0 <= .seconds(600) } == true,
                "the remaining TTL is \(left.map { "\($0)" } ?? "none"), not in (300 s, 600 s]")
            try expect(!(try await store.consumeOnce(key: key, ttl: .seconds(600))), "a second use was accepted")
        }
    }

    func advanceOnlyMovesForward() async throws {
        let ttl = Duration.seconds(600)
        let key = try key("step")
        try expect(try await store.advance(key: key, to: 5, ttl: ttl), "the first step was refused")
        try expect(!(try await store.advance(key: key, to: 5, ttl: ttl)), "the same step was accepted twice")
        try expect(!(try await store.advance(key: key, to: 4, ttl: ttl)), "an older step was accepted")
        try expect(try await store.advance(key: key, to: 6, ttl: ttl), "a newer step was refused")
        let zero = try self.key("step")
        try expect(try await store.advance(key: zero, to: 0, ttl: ttl), "step 0 on a new key was refused")
        try expect(!(try await store.advance(key: zero, to: 0, ttl: ttl)), "step 0 was accepted twice")
        // Exact comparison where a double would round (2^53 + 1) and across the 10-digit split.
        let wide = try self.key("step")
        let sequence: [(UInt64, Bool)] = [
            (9_999_999_999, true), (10_000_000_000, true), (9_999_999_999, false), (1 << 53, true),
            ((1 << 53) + 1, true), (1 << 53, false), ((1 << 53) + 1, false), (UInt64.max - 1, true),
            (UInt64.max, true), (UInt64.max, false), (UInt64.max - 1, false),
        ]
        for (step, expected) in sequence {
            let accepted = try await store.advance(key: wide, to: step, ttl: ttl)
            try expect(accepted == expected, "advance to \(step) answered \(accepted), expected \(expected)")
        }
    }

    func advanceIsAtomic() async throws {
        let store = self.store
        for round in 1...rounds {
            let key = try key("steprace")
            let accepted = try await race(racers) { _ in
                try await store.advance(key: key, to: 1_000, ttl: .seconds(600))
            }
            let count = accepted.filter { $0 }.count
            try expect(count == 1, "round \(round): \(count) of \(racers) racers advanced to the same step")
            // Mixed steps: each accepted at most once; the newest exactly once.
            let mixed = try self.key("steprace")
            let outcomes = try await race(racers) { index in
                (
                    step: UInt64(2_000 + index % 4),
                    accepted: try await store.advance(key: mixed, to: UInt64(2_000 + index % 4), ttl: .seconds(600))
                )
            }
            for step in UInt64(2_000)...2_003 {
                let wins = outcomes.filter { $0.step == step && $0.accepted }.count
                try expect(wins <= 1, "round \(round): step \(step) was accepted \(wins) times")
                if step == 2_003 { try expect(wins == 1, "round \(round): the newest step was accepted \(wins) times") }
            }
        }
    }

    func advanceHonoursTTL() async throws {
        let key = try key("stepttl")
        switch subject.time {
        case .manual(let advance):
            try expect(try await store.advance(key: key, to: 7, ttl: .seconds(30)), "the first step was refused")
            await advance(.milliseconds(29_999))
            try expect(!(try await store.advance(key: key, to: 7, ttl: .seconds(30))), "forgotten before its TTL ended")
            await advance(.milliseconds(2))
            try expect(try await store.advance(key: key, to: 7, ttl: .seconds(30)), "still remembered after its TTL")
            // Advancing renews the TTL from now.
            await advance(.seconds(20))
            try expect(try await store.advance(key: key, to: 8, ttl: .seconds(30)), "a newer step was refused")
            await advance(.seconds(20))
            try expect(!(try await store.advance(key: key, to: 8, ttl: .seconds(30))), "the renewed TTL was not kept")
        case .server(let remainingTTL):
            try expect(try await store.advance(key: key, to: 7, ttl: .seconds(600)), "the first step was refused")
            let left = try await remainingTTL(key)
            try expect(
                left.map { $0 > .seconds(300) && $0 <= .seconds(600) } == true,
                "the remaining TTL is \(left.map { "\($0)" } ?? "none"), not in (300 s, 600 s]")
            try expect(!(try await store.advance(key: key, to: 7, ttl: .seconds(600))), "the same step was accepted")
        }
    }

    func limiterCountsWithinWindow() async throws {
        let key = try limiterKey("window")
        let window = Duration.seconds(60)
        for expected in [2, 1, 0] {
            let decision = try await limiter.hit(key: key, limit: 3, window: window)
            try expect(
                decision.allowed && decision.remaining == expected,
                "hit \(3 - expected) of 3: \(decision), expected allowed with \(expected) remaining")
        }
        let refused = try await limiter.hit(key: key, limit: 3, window: window)
        try expect(!refused.allowed && refused.remaining == 0, "the fourth hit of 3: \(refused)")
        try expect(
            refused.retryAfter > .zero && refused.retryAfter <= window,
            "retry-after \(refused.retryAfter) is not in (0, 60 s]")
        switch subject.time {
        case .manual(let advance):
            await advance(.seconds(30))
            let later = try await limiter.hit(key: key, limit: 3, window: window)
            try expect(!later.allowed, "allowed again inside the window")
            try expect(
                later.retryAfter <= .seconds(30) && later.retryAfter > .seconds(29),
                "retry-after \(later.retryAfter) after 30 s of a 60 s window (the window must not move)")
            await advance(.milliseconds(30_001))
            let fresh = try await limiter.hit(key: key, limit: 3, window: window)
            try expect(fresh.allowed && fresh.remaining == 2, "after the window: \(fresh), expected a new window")
        case .server:
            try expect(refused.retryAfter > .seconds(30), "retry-after \(refused.retryAfter) is far below the window")
        }
    }

    func limiterIsAtomic() async throws {
        let limit = max(1, racers / 4)
        let limiter = self.limiter
        for round in 1...rounds {
            let key = try limiterKey("race")
            let decisions = try await race(racers) { _ in
                try await limiter.hit(key: key, limit: limit, window: .seconds(600))
            }
            let allowed = decisions.filter(\.allowed)
            try expect(allowed.count == limit, "round \(round): \(allowed.count) hits allowed with limit \(limit)")
            try expect(
                allowed.map(\.remaining).sorted() == Array(0..<limit),
                "round \(round): the allowed hits saw remaining counts \(allowed.map(\.remaining).sorted())")
        }
    }

    func keysAreIndependent() async throws {
        let identifier = try SecureRandom.bytes(count: 16)
        let a = try store.keyspace.key("conformance.a", identifier)
        let b = try store.keyspace.key("conformance.b", identifier)
        try expect(a.storageKey != b.storageKey, "two namespaces gave the same key")
        try expect(try await store.consumeOnce(key: a, ttl: .seconds(600)), "key a was refused")
        try expect(
            try await store.consumeOnce(key: b, ttl: .seconds(600)),
            "the same identifier in another namespace was refused")
        try expect(try await store.consumeOnce(key: try key("a"), ttl: .seconds(600)), "another identifier was refused")
        let stepA = try key("stepa")
        let stepB = try key("stepb")
        try expect(try await store.advance(key: stepA, to: 50, ttl: .seconds(600)), "step on key a was refused")
        try expect(
            try await store.advance(key: stepB, to: 10, ttl: .seconds(600)), "an older step on another key was refused")
        let limitA = try limiterKey("a")
        let limitB = try limiterKey("b")
        _ = try await limiter.hit(key: limitA, limit: 1, window: .seconds(600))
        try expect(
            !(try await limiter.hit(key: limitA, limit: 1, window: .seconds(600))).allowed, "the limit did not hold")
        try expect(
            try await limiter.hit(key: limitB, limit: 1, window: .seconds(600)).allowed, "another key was limited")
    }

    func invalidArgumentsAreRefused() async throws {
        func refused(_ name: String, _ body: () async throws -> Void) async throws {
            do {
                try await body()
                throw StoreConformance.Failure("an invalid \(name) was accepted")
            } catch CryptoError.invalidParameter(let parameter) {
                try expect(parameter == name, "an invalid \(name) was refused as invalid \(parameter)")
            }
        }
        let key = try key("args")
        for ttl in [Duration.zero, .seconds(-1), ReplayStoreLimits.maximumTTL + .seconds(1)] {
            try await refused("ttl") { _ = try await store.consumeOnce(key: key, ttl: ttl) }
            try await refused("ttl") { _ = try await store.advance(key: key, to: 3, ttl: ttl) }
        }
        try expect(try await store.consumeOnce(key: key, ttl: .seconds(600)), "a refused call recorded a use")
        let steps = try self.key("args")
        try expect(try await store.advance(key: steps, to: 3, ttl: .seconds(600)), "a refused call recorded a step")
        let limited = try limiterKey("args")
        try await refused("limit") { _ = try await limiter.hit(key: limited, limit: 0, window: .seconds(60)) }
        try await refused("window") { _ = try await limiter.hit(key: limited, limit: 3, window: .zero) }
        let decision = try await limiter.hit(key: limited, limit: 3, window: .seconds(60))
        try expect(decision.remaining == 2, "refused hits were counted: \(decision)")
    }

    func unavailableStoreFailsClosed() async throws -> String? {
        guard let unavailable = subject.unavailable else {
            return "the subject provides no instance that cannot reach its backend"
        }
        func failsClosed(_ name: String, _ body: () async throws -> Any) async throws {
            do {
                let answer = try await body()
                throw StoreConformance.Failure("\(name) on an unavailable store answered \(answer)")
            } catch is StoreUnavailableError {
                return
            } catch let failure as StoreConformance.Failure {
                throw failure
            } catch {
                throw StoreConformance.Failure("\(name) threw \(type(of: error)), not StoreUnavailableError")
            }
        }
        let key = try key("down")
        try await failsClosed("consumeOnce") {
            try await unavailable.replayStore.consumeOnce(key: key, ttl: .seconds(60))
        }
        try await failsClosed("advance") {
            try await unavailable.replayStore.advance(key: key, to: 1, ttl: .seconds(60))
        }
        try await failsClosed("hit") {
            try await unavailable.attemptLimiter.hit(key: key, limit: 5, window: .seconds(60))
        }
        return nil
    }
}

/// A gate that opens when `count` tasks have arrived, so racers start together.
final class StartGate: Sendable {
    private struct State {
        var waiting: [CheckedContinuation<Void, Never>] = []
        var opened = false
    }

    private let count: Int
    private let state = Locked(State())

    init(count: Int) { self.count = count }

    func arrive() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // The continuations to resume now: this one if the gate is open, every waiter if this
            // arrival opens it, none while it stays shut.
            let ready: [CheckedContinuation<Void, Never>] = state.withLock { state in
                if state.opened { return [continuation] }
                state.waiting.append(continuation)
                guard state.waiting.count >= count else { return [] }
                state.opened = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiter in ready { waiter.resume() }
        }
    }
}
