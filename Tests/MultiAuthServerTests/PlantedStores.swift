import Foundation
import MultiAuthCrypto
import MultiAuthSandboxRuntime

/// Deliberately broken stores: each flaw must make the store conformance kit fail the check
/// that is about it (a kit check that no broken store fails would be a test that cannot fail).
final class PlantedStore: ReplayStore, AttemptLimiter, @unchecked Sendable {
    enum Flaw: Sendable {
        /// Reads, suspends, then writes: the classic non-atomic check-then-set.
        case checkThenSet
        /// Ignores TTLs and windows: remembers forever.
        case neverExpires
        /// Compares steps as `Double` (loses exactness past 2^53).
        case doubleSteps
        /// Pretends to answer when its backend is down (accepts everything).
        case failOpen
        /// Skips the argument checks (a zero TTL is used as is).
        case acceptsBadArguments
        /// Keys by namespace only: every identifier of a namespace collides.
        case namespaceOnly
    }

    let flaw: Flaw
    let clock: ManualClock
    private let lock = NSLock()
    private var used: [String: Duration] = [:]
    private var steps: [String: (step: UInt64, deadline: Duration)] = [:]
    private var counters: [String: (count: Int, deadline: Duration)] = [:]

    init(_ flaw: Flaw, clock: ManualClock) {
        self.flaw = flaw
        self.clock = clock
    }

    private var now: Duration { clock.now.offset }

    private func name(_ key: StoreKey) -> String { flaw == .namespaceOnly ? key.namespace : key.storageKey }

    private func deadline(_ ttl: Duration) -> Duration {
        flaw == .neverExpires ? .seconds(Int64.max / 2) : now + ttl
    }

    private func checked(_ duration: Duration, _ name: String) throws {
        if flaw != .acceptsBadArguments { _ = try ReplayStoreLimits.milliseconds(duration, name: name) }
    }

    func consumeOnce(key: StoreKey, ttl: Duration) async throws -> Bool {
        try checked(ttl, "ttl")
        if flaw == .failOpen { return true }
        let name = name(key)
        if flaw == .checkThenSet {
            let seen = lock.withLock { used[name].map { $0 > now } ?? false }
            await Task.yield()  // the store's round trip between the read and the write
            if seen { return false }
            lock.withLock { used[name] = deadline(ttl) }
            return true
        }
        return lock.withLock {
            if let until = used[name], until > now { return false }
            used[name] = deadline(ttl)
            return true
        }
    }

    func advance(key: StoreKey, to step: UInt64, ttl: Duration) async throws -> Bool {
        try checked(ttl, "ttl")
        if flaw == .failOpen { return true }
        let name = name(key)
        func newer(_ last: (step: UInt64, deadline: Duration)?) -> Bool {
            guard let last, last.deadline > now else { return true }
            return flaw == .doubleSteps ? Double(step) > Double(last.step) : step > last.step
        }
        if flaw == .checkThenSet {
            let isNewer = lock.withLock { newer(steps[name]) }
            await Task.yield()
            if !isNewer { return false }
            lock.withLock { steps[name] = (step, deadline(ttl)) }
            return true
        }
        return lock.withLock {
            guard newer(steps[name]) else { return false }
            steps[name] = (step, deadline(ttl))
            return true
        }
    }

    func hit(key: StoreKey, limit: Int, window: Duration) async throws -> AttemptDecision {
        if flaw != .acceptsBadArguments { try ReplayStoreLimits.check(limit: limit) }
        try checked(window, "window")
        if flaw == .failOpen { return AttemptDecision(allowed: true, remaining: limit, retryAfter: .zero) }
        let name = name(key)
        func next(_ current: (count: Int, deadline: Duration)?) -> (count: Int, deadline: Duration) {
            guard let current, current.deadline > now else { return (1, deadline(window)) }
            return (current.count + 1, current.deadline)
        }
        let entry: (count: Int, deadline: Duration)
        if flaw == .checkThenSet {
            let read = lock.withLock { counters[name] }
            await Task.yield()
            entry = next(read)
            lock.withLock { counters[name] = entry }
        } else {
            entry = lock.withLock {
                let entry = next(counters[name])
                counters[name] = entry
                return entry
            }
        }
        let left = flaw == .neverExpires ? window : entry.deadline - now
        return AttemptDecision(allowed: entry.count <= limit, remaining: limit - entry.count, retryAfter: left)
    }
}

/// A store whose backend is down: every call throws `StoreUnavailableError` (until `heal()`),
/// delegating to an inner store once healed.
final class OutageStore: ReplayStore, AttemptLimiter, @unchecked Sendable {
    let inner: any ReplayStore
    let innerLimiter: any AttemptLimiter
    private let lock = NSLock()
    private var down = true
    private(set) var calls = 0

    init(inner: any ReplayStore, limiter: any AttemptLimiter) {
        self.inner = inner
        self.innerLimiter = limiter
    }

    func heal() { lock.withLock { down = false } }
    func fail() { lock.withLock { down = true } }

    private func check() throws {
        try lock.withLock {
            calls += 1
            if down { throw StoreUnavailableError(.unreachable, "planted outage", retryAfter: .milliseconds(250)) }
        }
    }

    func consumeOnce(key: StoreKey, ttl: Duration) async throws -> Bool {
        try check()
        return try await inner.consumeOnce(key: key, ttl: ttl)
    }

    func advance(key: StoreKey, to step: UInt64, ttl: Duration) async throws -> Bool {
        try check()
        return try await inner.advance(key: key, to: step, ttl: ttl)
    }

    func hit(key: StoreKey, limit: Int, window: Duration) async throws -> AttemptDecision {
        try check()
        return try await innerLimiter.hit(key: key, limit: limit, window: window)
    }
}
