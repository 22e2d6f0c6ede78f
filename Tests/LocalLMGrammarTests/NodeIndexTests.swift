import Testing
@testable import LocalLMGrammar

/// The stack pool's open-addressing index agrees with `Dictionary` under random inserts, lookups
/// and removals (the pool removes the newest nodes when a mask computation or failed accept
/// truncates it), with keys chosen to collide in their home slots.
@Suite struct NodeIndexTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func agreesWithDictionary(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var index = NodeIndex()
        var reference: [Int64: Int32] = [:]
        var order: [Int64] = []
        for step in 0..<40_000 {
            let r = rng.next() % 10
            if r < 6 {
                // Few positions and parents, so many keys share probe runs.
                let k = Int64(rng.next() % 300) << 32 | Int64(rng.next() % 64)
                if reference[k] == nil {
                    index.insert(k, Int32(step))
                    reference[k] = Int32(step)
                    order.append(k)
                }
            } else if r < 8, !order.isEmpty {
                let drop = Int(rng.next() % UInt64(min(order.count, 50)))
                for _ in 0..<drop where !order.isEmpty {
                    // Mostly the newest (as truncation does), sometimes any.
                    let k = rng.next() % 4 == 0 ? order.remove(at: Int(rng.next() % UInt64(order.count))) : order.removeLast()
                    index.remove(k)
                    reference[k] = nil
                }
            } else {
                let k = Int64(rng.next() % 300) << 32 | Int64(rng.next() % 64)
                #expect(index[k] == reference[k])
            }
        }
        #expect(index.count == reference.count)
        for (k, v) in reference { #expect(index[k] == v) }
    }

    /// The closure's visited set agrees with `Set` across many closures (cleared between them),
    /// growing inside one, with colliding keys (root and bottom parents included).
    @Test(arguments: [1, 2, 3] as [UInt64])
    func visitSetAgreesWithSet(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var visited = VisitSet()
        var reference = Set<Int64>()
        for _ in 0..<300 {
            visited.clear()
            reference.removeAll()
            // Mostly small closures, some far larger than the table so far.
            let steps = rng.next() % 8 == 0 ? 3_000 : Int(rng.next() % 200)
            for _ in 0..<steps {
                let q = Int64(rng.next() % 70) - 2
                let k = Int64(rng.next() % 200) << 32 | Int64(UInt32(bitPattern: Int32(q)))
                #expect(visited.insert(k) == reference.insert(k).inserted)
            }
        }
    }

    /// The DFA's set index agrees with `Dictionary` over random sets (many of one length, sharing
    /// prefixes, the empty set among them), across growth, with its own hash and with a hash of
    /// four values (so most lookups meet other sets with the same hash and must compare members).
    @Test(arguments: [(1, false), (2, false), (3, true), (4, true)] as [(UInt64, Bool)])
    func setIndexAgreesWithDictionary(seed: UInt64, fewHashes: Bool) {
        var rng = SplitMix64(seed: seed)
        var index = SetIndex()
        var reference: [[Int32]: Int32] = [:]
        for _ in 0..<6_000 {
            let count = Int(rng.next() % 6)
            var m: [Int32] = []
            for _ in 0..<count { m.append(Int32(rng.next() % 5) + (m.last ?? -1) + 1) }
            m.withUnsafeBufferPointer { buf in
                let hash = fewHashes ? SetIndex.hash(buf) % 4 : SetIndex.hash(buf)
                let found = index.find(buf, hash: hash)
                #expect(found == reference[m])
                if found == nil {
                    let id = index.append(buf, hash: hash)
                    #expect(Int(id) == reference.count)
                    reference[m] = id
                }
            }
        }
        #expect(index.count == reference.count)
        #expect(reference.count > 1_000)
        for (m, id) in reference { #expect(Array(index.words[index.range(id)]) == m) }
    }

    /// A stack-set DFA made with room for thousands of sets from the start (as a walker's DFA is
    /// remade after it filled one) computes the same transitions, set for set, as one that grows
    /// from the default size, over more sets than several doublings hold.
    @Test func dfaMadeLargeMatchesOneThatGrows() throws {
        let grammar = try CompiledGrammar(jsonSchema: #"{"type":"array","items":{"type":"object"}}"#)
        var pool = StackPool()
        let (r, _) = pool.start(grammar)
        let start = Array(pool.sets[r]).sorted()
        let growing = StackSetDFA(grammar: grammar)
        let large = StackSetDFA(grammar: grammar, capacity: 3_000)
        #expect(growing.capacity == 16)
        #expect(large.capacity == 4_096)
        #expect(growing.intern(start, &pool) == large.intern(start, &pool))
        // Breadth first over sets and bytes: JSON nests without end, so the sets keep coming.
        var frontier: [Int32] = [0], head = 0, compared = 0
        while head < frontier.count, growing.setCount < 2_500 {
            let set = frontier[head]
            head += 1
            for b in 0...255 {
                let v = growing.fill(set, UInt8(b), &pool)
                #expect(large.fill(set, UInt8(b), &pool) == v)
                compared += 1
                let next = (v >> 2) - 1
                if next >= Int32(frontier.count) { frontier.append(next) }
            }
        }
        #expect(growing.setCount == large.setCount)
        #expect(growing.setCount > 1_000)
        #expect(growing.capacity > 1_000)
        #expect(compared > 100_000)
    }
}
