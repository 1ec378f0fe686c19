/// A dictionary that keeps at most `capacity` entries, forgetting the oldest inserted key
/// first. `AuthClient` uses it for what it remembers per flow, redirect and refresh, so memory
/// stays bounded however long the client lives.
struct BoundedMap<Key: Hashable, Value> {
    let capacity: Int
    private var values: [Key: Value] = [:]
    private var order: [Key] = []

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The value for `key`, if remembered.
    subscript(key: Key) -> Value? { values[key] }

    /// The remembered values.
    var allValues: Dictionary<Key, Value>.Values { values.values }

    /// The remembered entries (a copy: the map may change while they are visited).
    var entries: [Key: Value] { values }

    /// Sets `value` for `key` (a new key goes to the back of the order).
    /// - Returns: The oldest entry, when keeping `key` pushed it out.
    @discardableResult
    mutating func set(_ value: Value, for key: Key) -> (key: Key, value: Value)? {
        if values.updateValue(value, forKey: key) == nil { order.append(key) }
        guard order.count > capacity else { return nil }
        let oldest = order.removeFirst()
        return values.removeValue(forKey: oldest).map { (oldest, $0) }
    }

    /// Forgets every entry whose value matches `shouldRemove`.
    mutating func removeAll(where shouldRemove: (Value) -> Bool) {
        let doomed = Set(values.filter { shouldRemove($0.value) }.map(\.key))
        guard !doomed.isEmpty else { return }
        for key in doomed { values[key] = nil }
        order.removeAll { doomed.contains($0) }
    }

    /// Forgets `key`.
    mutating func remove(_ key: Key) {
        guard values.removeValue(forKey: key) != nil else { return }
        order.removeAll { $0 == key }
    }

    /// The number of remembered entries.
    var count: Int { values.count }
}
