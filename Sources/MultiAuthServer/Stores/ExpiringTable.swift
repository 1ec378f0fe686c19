import Foundation
import MultiAuthCrypto

/// Elapsed time on an injected clock, as a `Duration` since the store was made: the in-memory
/// stores' notion of "now" (a `ManualClock` in tests, `ContinuousClock` in production).
struct ElapsedClock: Sendable {
    let elapsed: @Sendable () -> Duration
    /// Sleeps for a duration on the same clock (throws `CancellationError` when cancelled).
    let sleep: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleep = { try await clock.sleep(for: $0) }
    }
}

/// A bounded map of keys to values that expire, with a min-heap of deadlines so expired
/// entries are dropped in O(log n) each, never by scanning the whole table.
///
/// Not thread-safe: its owner serialises access (one `Locked` box per store).
struct ExpiringTable<Value> {
    fileprivate struct Entry {
        var value: Value
        var deadline: Duration
    }

    private var entries: [String: Entry] = [:]
    /// Deadlines with their keys; an item whose deadline no longer matches its entry is stale
    /// (the entry was rewritten) and is skipped when it reaches the top.
    private var heap: [(deadline: Duration, key: String)] = []
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { entries.count }

    /// Drops every entry whose deadline is at or before `now`.
    mutating func removeExpired(now: Duration) {
        while let top = heap.first, top.deadline <= now {
            popTop()
            if let entry = entries[top.key], entry.deadline == top.deadline { entries[top.key] = nil }
        }
    }

    /// The live value of `key` at `now`, or `nil`.
    func value(_ key: String, now: Duration) -> Value? {
        guard let entry = entries[key], entry.deadline > now else { return nil }
        return entry.value
    }

    /// The remaining lifetime of `key` at `now`, or `nil` when absent or expired.
    func remaining(_ key: String, now: Duration) -> Duration? {
        guard let entry = entries[key], entry.deadline > now else { return nil }
        return entry.deadline - now
    }

    /// Stores `value` for `key` until `deadline`.
    ///
    /// - Throws: ``StoreUnavailableError`` (`capacityExhausted`) when `key` is new and the table
    ///   holds `capacity` live entries; nothing changes.
    mutating func set(_ key: String, _ value: Value, deadline: Duration) throws {
        if entries[key] == nil, entries.count >= capacity {
            throw StoreUnavailableError(
                .capacityExhausted, "the in-memory store holds \(capacity) unexpired entries")
        }
        entries[key] = Entry(value: value, deadline: deadline)
        push((deadline, key))
        // Rewritten entries leave stale heap items behind; rebuild when they dominate.
        if heap.count > 2 * capacity + 64 { rebuild() }
    }

    /// Rewrites the value of a live `key`, keeping its deadline.
    mutating func update(_ key: String, _ value: Value) {
        entries[key]?.value = value
    }

    private mutating func rebuild() {
        heap = entries.map { (deadline: $0.value.deadline, key: $0.key) }
        guard heap.count > 1 else { return }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    private mutating func push(_ item: (deadline: Duration, key: String)) {
        heap.append(item)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popTop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

extension ExpiringTable: Sendable where Value: Sendable {}

extension ExpiringTable.Entry: Sendable where Value: Sendable {}
