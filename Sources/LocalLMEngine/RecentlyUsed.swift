/// A map that keeps at most `capacity` values, dropping the least recently used one to make room.
/// The engine keeps compiled grammars in one: schemas and tool sets come from requests, so an
/// unbounded map would grow with every new schema a server is sent.
package struct RecentlyUsed<Value> {
    package let capacity: Int
    private var values: [String: (value: Value, used: UInt64)] = [:]
    private var clock: UInt64 = 0

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    package var count: Int { values.count }

    /// The value for `key`, marked as just used.
    package mutating func value(for key: String) -> Value? {
        guard let found = values[key] else { return nil }
        clock += 1
        values[key] = (found.value, clock)
        return found.value
    }

    /// Stores `value` under `key`; when full, the least recently used other key is dropped.
    package mutating func insert(_ value: Value, for key: String) {
        clock += 1
        if values[key] == nil, values.count >= capacity,
           let oldest = values.min(by: { $0.value.used < $1.value.used })?.key {
            values[oldest] = nil
        }
        values[key] = (value, clock)
    }
}

extension RecentlyUsed: Sendable where Value: Sendable {}
