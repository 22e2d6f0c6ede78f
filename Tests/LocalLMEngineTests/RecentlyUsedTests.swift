import Testing
@testable import LocalLMEngine

/// The engine's grammar cache keeps at most its capacity, dropping the least recently used key,
/// compared here with a plain list kept in order of use.
@Suite struct RecentlyUsedTests {
    @Test func dropsTheLeastRecentlyUsed() {
        var cache = RecentlyUsed<Int>(capacity: 2)
        cache.insert(1, for: "a")
        cache.insert(2, for: "b")
        #expect(cache.value(for: "a") == 1)   // "b" is now the least recently used
        cache.insert(3, for: "c")
        #expect(cache.count == 2)
        #expect(cache.value(for: "b") == nil)
        #expect(cache.value(for: "a") == 1)
        #expect(cache.value(for: "c") == 3)
        cache.insert(4, for: "c")             // replacing a key drops nothing
        #expect(cache.count == 2 && cache.value(for: "a") == 1 && cache.value(for: "c") == 4)
    }

    @Test func matchesAnOrderedListOnRandomUse() {
        var rng = SystemRandomNumberGenerator()
        for capacity in [1, 3, 8] {
            var cache = RecentlyUsed<Int>(capacity: capacity)
            var order: [(String, Int)] = []   // least recently used first
            for step in 0..<2_000 {
                let key = "k\(Int.random(in: 0..<12, using: &rng))"
                if Bool.random(using: &rng) {
                    let expected = order.firstIndex { $0.0 == key }.map { order.remove(at: $0) }
                    if let expected { order.append(expected) }
                    #expect(cache.value(for: key) == expected?.1)
                } else {
                    if let i = order.firstIndex(where: { $0.0 == key }) {
                        order.remove(at: i)
                    } else if order.count == capacity {
                        order.removeFirst()
                    }
                    order.append((key, step))
                    cache.insert(step, for: key)
                }
                #expect(cache.count == order.count)
            }
        }
    }
}
