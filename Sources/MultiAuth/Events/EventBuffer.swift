import Foundation

/// One subscriber's bounded event buffer and its overflow policy (Docs/Events.md, "Buffers and
/// overflow"). Not thread-safe: its ``EventSubscriber`` guards it with a lock.
///
/// Events are kept in publish order. When an append makes the buffer hold more than
/// `capacity` events, one event is dropped, chosen in this order:
/// 1. a **superseded state event**: a state event of a provider that has a newer state event in
///    the buffer (in the order they were superseded);
/// 2. the **oldest flow event** (any event that is not a state event, the new one included);
/// 3. when every buffered event is the latest state event of a distinct provider, nothing
///    until the buffer holds twice `capacity`; then the oldest event.
///
/// So a lagging subscriber keeps the latest state event of every provider, then the newest flow
/// events; ``gap`` counts what was dropped since the subscriber last took an event.
///
/// Every operation is O(1) amortised: dropped events leave holes that are skipped on reading
/// and compacted away once they outnumber the live events; the candidates for dropping are
/// kept in two queues of positions (flow events, superseded state events) and the latest
/// state event of each provider in a dictionary, so nothing scans the buffer per publish.
struct EventBuffer {
    /// The most events kept before the overflow policy drops one (at least 1).
    let capacity: Int
    /// `slots[i]` holds the event at position `base + i`; `nil` once delivered or dropped.
    private var slots: [AuthEvent?] = []
    /// The position of `slots[0]`. Positions only grow, so stale ones in the queues are detectable.
    private var base = 0
    /// The index in `slots` of the oldest undelivered event (a live slot whenever `count > 0`).
    private var read = 0
    /// Dropped slots at or after `read`.
    private var holes = 0
    /// Events buffered (undelivered, not dropped).
    private(set) var count = 0
    /// Positions of buffered flow events, oldest first (may hold stale positions).
    private var flows = PositionQueue()
    /// Positions of superseded state events, in the order they were superseded (may hold stale positions).
    private var superseded = PositionQueue()
    /// Per provider, the position of its newest buffered state event (`initialState` excluded).
    private var latestState: [AuthProviderID?: Int] = [:]
    /// Events dropped since the last ``takeGap()``.
    private(set) var gap = 0
    /// The timestamp of the newest event dropped since the last ``takeGap()``.
    private(set) var gapTimestamp = Date(timeIntervalSince1970: 0)
    /// Events dropped since the buffer was created.
    private(set) var totalDropped = 0
    /// Slots and positions visited or moved so far (beyond the one event each call handles):
    /// the tests' measure that every operation is O(1) amortised.
    private(set) var work = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Appends `event`, then applies the overflow policy if the buffer is over capacity.
    mutating func append(_ event: AuthEvent) {
        register(event, at: base + slots.count)
        slots.append(event)
        count += 1
        if count > capacity { makeRoom() }
    }

    /// Removes and returns the oldest buffered event.
    mutating func popFirst() -> AuthEvent? {
        guard count > 0, let event = slots[read] else { return nil }
        slots[read] = nil
        let position = base + read
        read += 1
        count -= 1
        if event.kind.isStateEvent, latestState[event.provider] == position { latestState[event.provider] = nil }
        skipHoles()
        compactIfNeeded()
        return event
    }

    /// Returns the number of events dropped since the last call and the newest one's timestamp,
    /// and starts counting again.
    mutating func takeGap() -> (count: Int, timestamp: Date) {
        defer { gap = 0 }
        return (gap, gapTimestamp)
    }

    /// Drops everything (the subscriber was cancelled); ``totalDropped`` is kept.
    mutating func removeAll() {
        let dropped = totalDropped
        self = EventBuffer(capacity: capacity)
        totalDropped = dropped
    }

    // MARK: Policy

    /// Records `event` (at `position`) in the drop candidates.
    private mutating func register(_ event: AuthEvent, at position: Int) {
        switch event.kind {
        case .initialState:
            break  // the one snapshot a subscriber gets: never superseded
        case let kind where kind.isStateEvent:
            if let previous = latestState.updateValue(position, forKey: event.provider) { superseded.append(previous) }
        default:
            flows.append(position)
        }
    }

    private mutating func makeRoom() {
        if let position = takeSuperseded() ?? takeFlow() {
            drop(at: position)
        } else if count > capacity * 2 {
            // Every buffered event is the latest state of a distinct provider: a hard bound.
            drop(at: base + read)
        }
    }

    /// The first still-buffered superseded state event, popping stale positions.
    private mutating func takeSuperseded() -> Int? {
        while let position = superseded.popFirst() {
            work += 1
            if isLive(position) { return position }
        }
        return nil
    }

    /// The oldest still-buffered flow event, popping stale positions.
    private mutating func takeFlow() -> Int? {
        while let position = flows.popFirst() {
            work += 1
            if isLive(position) { return position }
        }
        return nil
    }

    private mutating func drop(at position: Int) {
        let index = position - base
        guard let event = slots[index] else { return }
        if event.kind.isStateEvent, latestState[event.provider] == position { latestState[event.provider] = nil }
        slots[index] = nil
        count -= 1
        gap += 1
        totalDropped += 1
        if event.timestamp > gapTimestamp || gap == 1 { gapTimestamp = event.timestamp }
        if index == read {
            read += 1
            skipHoles()
        } else {
            holes += 1
        }
        compactIfNeeded()
    }

    /// Moves `read` past dropped slots (so `slots[read]` is live whenever `count > 0`).
    private mutating func skipHoles() {
        while read < slots.count, slots[read] == nil {
            work += 1
            read += 1
            holes -= 1
        }
    }

    /// Reclaims delivered slots at the front (cheap: no renumbering), rebuilds the buffer when
    /// dropped slots outnumber live events, and prunes stale positions from the queues once
    /// they outnumber live events: each is O(count) at most once per `count` operations.
    private mutating func compactIfNeeded() {
        if count == 0 {
            base += slots.count
            slots.removeAll(keepingCapacity: true)
            read = 0
            holes = 0
            flows.removeAll()
            superseded.removeAll()
            latestState.removeAll(keepingCapacity: true)
            return
        }
        if holes > 32, holes > count {
            rebuild()
        } else if read > 32, read * 2 > slots.count {
            work += slots.count - read
            slots.removeFirst(read)
            base += read
            read = 0
        }
        if flows.count > 2 * count + 64 || superseded.count > 2 * count + 64 {
            let (slots, base, read) = (self.slots, self.base, self.read)
            func isStale(_ position: Int) -> Bool {
                let index = position - base
                return index < read || index >= slots.count || slots[index] == nil
            }
            work += flows.count + superseded.count
            flows.removeAll(where: isStale)
            superseded.removeAll(where: isStale)
        }
    }

    /// Whether `position` holds a buffered event.
    private func isLive(_ position: Int) -> Bool {
        let index = position - base
        return index >= read && index < slots.count && slots[index] != nil
    }

    /// Moves the live events to a new array without holes, renumbering their positions; the
    /// queues keep their order (so superseded events still go in the order they were superseded).
    private mutating func rebuild() {
        work += slots.count - read + flows.count + superseded.count + latestState.count
        let newBase = base + slots.count
        var moved = [Int](repeating: -1, count: slots.count)  // old index → new position
        var rebuilt: [AuthEvent?] = []
        rebuilt.reserveCapacity(Swift.max(count, capacity) + 1)
        for index in read..<slots.count {
            guard let event = slots[index] else { continue }
            moved[index] = newBase + rebuilt.count
            rebuilt.append(event)
        }
        let (oldBase, oldRead) = (base, read)
        func renumber(_ position: Int) -> Int? {
            let index = position - oldBase
            guard index >= oldRead, index < moved.count, moved[index] >= 0 else { return nil }
            return moved[index]
        }
        flows.renumber(renumber)
        superseded.renumber(renumber)
        latestState = latestState.compactMapValues(renumber)
        slots = rebuilt
        base = newBase
        read = 0
        holes = 0
    }
}

/// A FIFO of buffer positions: an array with a moving head, compacted when half is consumed.
struct PositionQueue {
    private var items: [Int] = []
    private var head = 0

    /// Positions queued (stale ones included).
    var count: Int { items.count - head }

    mutating func append(_ position: Int) { items.append(position) }

    mutating func popFirst() -> Int? {
        guard head < items.count else { return nil }
        let position = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return position
    }

    /// Removes the positions for which `shouldRemove` is true, keeping the order of the rest.
    mutating func removeAll(where shouldRemove: (Int) -> Bool) {
        items = items[head...].filter { !shouldRemove($0) }
        head = 0
    }

    /// Maps every position through `transform`, dropping those it maps to `nil`; order is kept.
    mutating func renumber(_ transform: (Int) -> Int?) {
        items = items[head...].compactMap(transform)
        head = 0
    }

    mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
        head = 0
    }
}
