import Foundation

/// One subscriber's bounded event buffer and its overflow policy (Docs/Events.md, "Buffers and
/// overflow"). Not thread-safe: its ``EventSubscriber`` guards it with the bus's lock.
///
/// Events are delivered in publish order. When an append makes the buffer hold more than
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
/// Every operation is O(1) amortised, and the common overflow — a flood of flow events for a
/// subscriber that does not read — is one assignment:
/// - flow events live in a ring (oldest first), so dropping the oldest one and taking the new
///   one overwrite a single slot;
/// - state events live in their own list, where a dropped one leaves a hole (a cleared flag)
///   that reading skips and compaction removes once holes outnumber live events; superseded
///   ones wait in a queue of positions, and the latest state of each provider is in a
///   dictionary, so nothing scans the buffer per publish;
/// - delivery merges the two by sequence number.
struct EventBuffer {
    /// The most events kept before the overflow policy drops one (at least 1).
    let capacity: Int

    // Flow events: a ring of `ring.count` slots holding `flowCount` events from `flowStart`.
    // Slots outside that range hold stale copies (delivered, dropped or padding) until reused.
    private var ring: [AuthEvent] = []
    private var flowStart = 0
    private var flowCount = 0

    // State events (initial states included): `states[i]` is at position `base + i`, buffered
    // while `flags[i]` has ``live``.
    private var states: [AuthEvent] = []
    private var flags: [UInt8] = []
    /// The position of `states[0]`. Positions only grow, so stale ones in the queue are detectable.
    private var base = 0
    /// The index of the oldest undelivered state event (live whenever `stateCount > 0`).
    private var read = 0
    /// Dropped state slots at or after `read`.
    private var holes = 0
    /// State events buffered.
    private var stateCount = 0
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

    private static let live: UInt8 = 1
    /// A state event other than `initialState` (so it may be superseded).
    private static let supersedable: UInt8 = 2

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Events buffered (undelivered, not dropped).
    var count: Int { flowCount + stateCount }

    /// Appends `event`, then applies the overflow policy if the buffer is over capacity.
    mutating func append(_ event: AuthEvent) {
        if event.kind.isStateEvent {
            appendState(event)
            if count > capacity { makeRoom() }
            return
        }
        if count >= capacity, flowCount > 0, superseded.isEmpty || peekSuperseded() == nil {
            // Full, and the oldest flow event is the one to drop: the new one takes its place.
            replaceOldestFlow(with: event)
            return
        }
        pushFlow(event)
        if count > capacity { makeRoom() }
    }

    /// Removes and returns the oldest buffered event.
    mutating func popFirst() -> AuthEvent? {
        if flowCount > 0, stateCount == 0 || ring[flowStart].sequence < states[read].sequence {
            let event = ring[flowStart]
            advanceFlowStart()
            return event
        }
        guard stateCount > 0 else { return nil }
        let event = states[read]
        let flag = flags[read]
        flags[read] = 0
        let position = base + read
        read += 1
        stateCount -= 1
        if flag & Self.supersedable != 0, latestState[event.provider] == position { latestState[event.provider] = nil }
        skipHoles()
        compactStates()
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

    private mutating func makeRoom() {
        if let position = peekSuperseded() {
            _ = superseded.popFirst()
            dropState(at: position, isSuperseded: true)
        } else if flowCount > 0 {
            recordDrop(ring[flowStart].timestamp)
            advanceFlowStart()
        } else if count > capacity * 2 {
            // Every buffered event is the latest state of a distinct provider: a hard bound.
            dropState(at: base + read)
        }
    }

    private mutating func recordDrop(_ timestamp: Date) {
        gap += 1
        totalDropped += 1
        if gap == 1 || timestamp > gapTimestamp { gapTimestamp = timestamp }
    }

    // MARK: Flow ring

    private mutating func advanceFlowStart() {
        flowStart += 1
        if flowStart == ring.count { flowStart = 0 }
        flowCount -= 1
    }

    private mutating func replaceOldestFlow(with event: AuthEvent) {
        recordDrop(ring[flowStart].timestamp)
        if flowCount == ring.count {
            // A full ring: the newest slot is the oldest one's.
            ring[flowStart] = event
            flowStart += 1
            if flowStart == ring.count { flowStart = 0 }
        } else {
            advanceFlowStart()
            pushFlow(event)
        }
    }

    private mutating func pushFlow(_ event: AuthEvent) {
        if flowCount == ring.count { growRing(with: event) }
        var tail = flowStart + flowCount
        if tail >= ring.count { tail -= ring.count }
        ring[tail] = event
        flowCount += 1
    }

    /// Makes room for one more flow event: the buffered ones in order, then padding copies,
    /// doubling the ring (so the copying is O(1) amortised).
    private mutating func growRing(with event: AuthEvent) {
        let size = Swift.max(8, Swift.min(2 * ring.count, capacity + 1), flowCount + 1)
        var grown: [AuthEvent] = []
        grown.reserveCapacity(size)
        for offset in 0..<flowCount {
            var index = flowStart + offset
            if index >= ring.count { index -= ring.count }
            grown.append(ring[index])
        }
        while grown.count < size { grown.append(event) }
        work += size
        ring = grown
        flowStart = 0
    }

    // MARK: State list

    private mutating func appendState(_ event: AuthEvent) {
        let position = base + states.count
        var flag = Self.live
        if case .initialState = event.kind {
            // The one snapshot a subscriber gets: never superseded.
        } else {
            flag |= Self.supersedable
            if let previous = latestState.updateValue(position, forKey: event.provider) { superseded.append(previous) }
        }
        states.append(event)
        flags.append(flag)
        stateCount += 1
    }

    /// Whether state `position` is still buffered.
    private func isLive(_ position: Int) -> Bool {
        let index = position - base
        return index >= read && index < flags.count && flags[index] & Self.live != 0
    }

    /// The first still-buffered superseded state event (stale positions are popped).
    private mutating func peekSuperseded() -> Int? {
        while let position = superseded.first {
            if isLive(position) { return position }
            work += 1
            _ = superseded.popFirst()
        }
        return nil
    }

    /// Drops state `position`; `isSuperseded` when it is known not to be its provider's latest.
    private mutating func dropState(at position: Int, isSuperseded: Bool = false) {
        let index = position - base
        let flag = flags[index]
        guard flag & Self.live != 0 else { return }
        if !isSuperseded, flag & Self.supersedable != 0 {
            let provider = states[index].provider
            if latestState[provider] == position { latestState[provider] = nil }
        }
        recordDrop(states[index].timestamp)
        flags[index] = 0
        stateCount -= 1
        if index == read {
            read += 1
            skipHoles()
        } else {
            holes += 1
        }
        compactStates()
    }

    /// Moves `read` past dropped slots (so `flags[read]` is live whenever `stateCount > 0`).
    private mutating func skipHoles() {
        while read < flags.count, flags[read] & Self.live == 0 {
            work += 1
            read += 1
            holes -= 1
        }
    }

    /// Releases delivered and dropped state slots at the front (no renumbering), rebuilds the
    /// list when dropped slots outnumber live events, and prunes stale positions from the
    /// queue once they outnumber live events: each is O(stateCount) at most once per
    /// stateCount operations.
    private mutating func compactStates() {
        if stateCount == 0 {
            if !states.isEmpty {
                base += states.count
                states.removeAll(keepingCapacity: true)
                flags.removeAll(keepingCapacity: true)
                read = 0
                holes = 0
                superseded.removeAll()
            }
            if !latestState.isEmpty { latestState.removeAll(keepingCapacity: true) }
            return
        }
        if holes > 32, holes > stateCount {
            rebuild()
        } else if read > 64, read > 2 * (states.count - read) {
            work += states.count - read
            states.removeFirst(read)
            flags.removeFirst(read)
            base += read
            read = 0
        }
        if superseded.count > 2 * stateCount + 64 {
            let (flags, base, read) = (self.flags, self.base, self.read)
            work += superseded.count
            superseded.removeAll { position in
                let index = position - base
                return index < read || index >= flags.count || flags[index] & Self.live == 0
            }
        }
    }

    /// Moves the live state events to new arrays without holes, renumbering their positions;
    /// the queue keeps its order (superseded events still go in the order they were superseded).
    private mutating func rebuild() {
        work += states.count - read + superseded.count + latestState.count
        let newBase = base + states.count
        var moved = [Int](repeating: -1, count: states.count)  // old index → new position
        var keptStates: [AuthEvent] = []
        var keptFlags: [UInt8] = []
        keptStates.reserveCapacity(stateCount + 1)
        keptFlags.reserveCapacity(stateCount + 1)
        for index in read..<states.count where flags[index] & Self.live != 0 {
            moved[index] = newBase + keptStates.count
            keptStates.append(states[index])
            keptFlags.append(flags[index])
        }
        let (oldBase, oldRead) = (base, read)
        func renumber(_ position: Int) -> Int? {
            let index = position - oldBase
            guard index >= oldRead, index < moved.count, moved[index] >= 0 else { return nil }
            return moved[index]
        }
        superseded.renumber(renumber)
        latestState = latestState.compactMapValues(renumber)
        states = keptStates
        flags = keptFlags
        base = newBase
        read = 0
        holes = 0
    }
}
