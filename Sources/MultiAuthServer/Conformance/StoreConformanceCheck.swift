/// The checks of the store conformance kit, named by what they check; each keeps its id
/// (`"S01"` … `"S11"`, the raw value) for reports and the docs (Docs/Server.md, "The store
/// conformance kit").
public enum StoreConformanceCheck: String, CaseIterable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// S01: A single-use key is accepted once.
    case consumeOnceAcceptsOnce = "S01"
    /// S02: Concurrent uses of one key: exactly one is accepted.
    case consumeOnceIsAtomic = "S02"
    /// S03: A use is remembered for its TTL and no longer.
    case consumeOnceHonoursTTL = "S03"
    /// S04: A TOTP step only moves forward, compared exactly over all of `UInt64`.
    case advanceOnlyMovesForward = "S04"
    /// S05: Concurrent advances to one step: exactly one is accepted.
    case advanceIsAtomic = "S05"
    /// S06: A step is remembered for its TTL and no longer.
    case advanceHonoursTTL = "S06"
    /// S07: The limiter counts within its window, reports remaining attempts and retry-after.
    case limiterCountsWithinWindow = "S07"
    /// S08: Concurrent hits: exactly `limit` are allowed, each remaining count once.
    case limiterIsAtomic = "S08"
    /// S09: Keys and namespaces are independent.
    case keysAreIndependent = "S09"
    /// S10: Invalid arguments are refused before the store and record nothing.
    case invalidArgumentsAreRefused = "S10"
    /// S11: A store that cannot answer throws `StoreUnavailableError`, never an answer.
    case unavailableStoreFailsClosed = "S11"

    /// The check's one-line title.
    public var title: String {
        switch self {
        case .consumeOnceAcceptsOnce: "consumeOnce: the first use is accepted, the second refused, another key accepted"
        case .consumeOnceIsAtomic: "consumeOnce under concurrency: exactly one of the racers is accepted, every round"
        case .consumeOnceHonoursTTL: "consumeOnce: remembered for its TTL, forgotten after it"
        case .advanceOnlyMovesForward: "advance: newer steps accepted, the same or older refused, exact over UInt64"
        case .advanceIsAtomic: "advance under concurrency: exactly one racer per step is accepted, every round"
        case .advanceHonoursTTL: "advance: the step is remembered for its TTL, forgotten after it"
        case .limiterCountsWithinWindow:
            "limiter: limit hits allowed with remaining counting down, then refused with retry-after"
        case .limiterIsAtomic: "limiter under concurrency: exactly limit hits allowed, each remaining value once"
        case .keysAreIndependent: "keys and namespaces do not affect each other"
        case .invalidArgumentsAreRefused:
            "a TTL, window or limit out of range is refused before the store, recording nothing"
        case .unavailableStoreFailsClosed:
            "a store that cannot answer throws StoreUnavailableError, never true or false"
        }
    }

    /// The id.
    public var description: String { rawValue }

    /// Orders checks by id.
    public static func < (lhs: StoreConformanceCheck, rhs: StoreConformanceCheck) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
