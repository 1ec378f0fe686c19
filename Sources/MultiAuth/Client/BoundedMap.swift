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

    /// Sets `value` for `key` (a new key goes to the back of the order).
    /// - Returns: The oldest entry, when keeping `key` pushed it out.
    @discardableResult
    mutating func set(_ value: Value, for key: Key) -> (key: Key, value: Value)? {
        if values.updateValue(value, forKey: key) == nil { order.append(key) }
        guard order.count > capacity else { return nil }
        let oldest = order.removeFirst()
        return values.removeValue(forKey: oldest).map { (oldest, $0) }
    }
}
