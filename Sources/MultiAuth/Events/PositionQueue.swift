import Foundation

/// A FIFO of buffer positions: an array with a moving head, compacted when half is consumed.
struct PositionQueue {
    private var items: [Int] = []
    private var head = 0

    /// Positions queued (stale ones included).
    var count: Int { items.count - head }

    /// The oldest queued position.
    var first: Int? { head < items.count ? items[head] : nil }

    /// Whether nothing is queued.
    var isEmpty: Bool { head == items.count }

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
