/// A hash map from a stack node's (position, parent) key to its id: open addressing with linear
/// probing and a multiplicative hash. Hash-consing looks up every (position, parent) pair a
/// closure visits, so this is on the hot path of every cold mask; Swift's `Dictionary` hashes
/// each key with SipHash, several times slower for one 64-bit key.
struct NodeIndex {
    /// A key and its value side by side: a lookup in a large index costs one cache miss, not two.
    private struct Slot {
        var key: Int64
        var value: Int32
    }
    private var slots: [Slot]
    private var mask: Int
    private(set) var count = 0
    private static let empty = Int64.min

    init() {
        slots = [Slot](repeating: Slot(key: Self.empty, value: 0), count: 64)
        mask = 63
    }

    /// A key's home slot (a multiplicative hash of the whole key).
    @inline(__always)
    static func slot(_ k: Int64, mask: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: k) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    @inline(__always)
    private func slot(_ k: Int64) -> Int { Self.slot(k, mask: mask) }

    subscript(_ k: Int64) -> Int32? {
        var i = slot(k)
        while true {
            let kk = slots[i].key
            if kk == k { return slots[i].value }
            if kk == Self.empty { return nil }
            i = (i &+ 1) & mask
        }
    }

    /// Inserts a key that is not present.
    mutating func insert(_ k: Int64, _ v: Int32) {
        if (count + 1) * 2 > slots.count { grow() }
        place(Slot(key: k, value: v))
        count += 1
    }

    /// Puts `s` in the first empty slot of its probe run.
    private mutating func place(_ s: Slot) {
        var i = slot(s.key)
        while slots[i].key != Self.empty { i = (i &+ 1) & mask }
        slots[i] = s
    }

    /// Removes `k` if present (backward-shift deletion keeps every probe run unbroken).
    mutating func remove(_ k: Int64) {
        var i = slot(k)
        while slots[i].key != k {
            if slots[i].key == Self.empty { return }
            i = (i &+ 1) & mask
        }
        var j = i
        while true {
            j = (j &+ 1) & mask
            let kj = slots[j].key
            if kj == Self.empty { break }
            let home = slot(kj)
            // Move kj back into the hole at i unless its home lies cyclically in (i, j].
            let inRange = i <= j ? (home > i && home <= j) : (home > i || home <= j)
            if !inRange {
                slots[i] = slots[j]
                i = j
            }
        }
        slots[i].key = Self.empty
        count -= 1
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(key: Self.empty, value: 0), count: old.count * 2)
        mask = slots.count - 1
        for s in old where s.key != Self.empty { place(s) }
    }
}

/// The (position, parent) pairs one closure has visited: open addressing like `NodeIndex`, with a
/// round number per slot so that starting a new closure clears nothing. A closure visits rule
/// references and rule ends on its way to terminals; deduplicating them here, rather than by
/// making each pair a stack node, keeps the pool to the stacks it needs (terminal tops and the
/// frames below them).
struct VisitSet {
    private var keys = [Int64](repeating: 0, count: 64)
    private var rounds = [UInt32](repeating: 0, count: 64)
    private var mask = 63
    private var count = 0
    private var round: UInt32 = 1

    /// Forgets every pair.
    mutating func clear() {
        count = 0
        round &+= 1
        if round == 0 {
            for i in rounds.indices { rounds[i] = 0 }
            round = 1
        }
    }

    @inline(__always)
    private func slot(_ k: Int64) -> Int { NodeIndex.slot(k, mask: mask) }

    /// Adds `k`; false when it was there already.
    @inline(__always)
    mutating func insert(_ k: Int64) -> Bool {
        var i = slot(k)
        while rounds[i] == round {
            if keys[i] == k { return false }
            i = (i &+ 1) & mask
        }
        if (count + 1) * 2 > keys.count {
            grow()
            return insert(k)
        }
        keys[i] = k
        rounds[i] = round
        count += 1
        return true
    }

    private mutating func grow() {
        let oldKeys = keys, oldRounds = rounds, current = round
        keys = [Int64](repeating: 0, count: oldKeys.count * 2)
        rounds = [UInt32](repeating: 0, count: oldKeys.count * 2)
        mask = keys.count - 1
        count = 0
        round = 1
        for (i, k) in oldKeys.enumerated() where oldRounds[i] == current {
            var j = slot(k)
            while rounds[j] == round { j = (j &+ 1) & mask }
            keys[j] = k
            rounds[j] = round
            count += 1
        }
    }
}

/// An array used as a dictionary key, hashed once with a cheap multiplicative mix (Swift's
/// `Hasher` then only sees one word): stack sets and signatures are long, and SipHash over every
/// element on each lookup showed in profiles of cold masks.
struct HashedWords<Element: FixedWidthInteger & Sendable>: Hashable, Sendable {
    let words: [Element]
    private let hash: UInt64

    init(_ words: [Element]) {
        self.words = words
        hash = Self.mix(words)
    }

    /// The hash of `words`: each word xored in, multiplied and folded.
    static func mix(_ words: some Collection<Element>) -> UInt64 {
        var h: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(words.count)
        for w in words {
            h = (h ^ UInt64(truncatingIfNeeded: w)) &* 0x9E37_79B9_7F4A_7C15
            h ^= h >> 29
        }
        return h
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    static func == (a: Self, b: Self) -> Bool { a.hash == b.hash && a.words == b.words }
}

/// Stack sets interned to dense ids: every set's members one after another in one flat array,
/// and an open-addressing table of ids by a multiplicative hash of the members. A lookup hashes
/// the candidate once and compares it in place, with no array, `Hasher` or dictionary per set —
/// a DFA's every transition computed looks its set up here.
struct SetIndex {
    /// Set s holds `words[starts[s]..<starts[s + 1]]`.
    private(set) var words: [Int32] = []
    private var starts: [Int32] = [0]
    private var hashes: [UInt64] = []
    /// Set ids (−1: empty).
    private var slots: [Int32]
    private var mask: Int

    /// `capacity`: sets to make room for at first.
    init(capacity: Int = 16) {
        var room = 32
        while room < 2 * capacity { room *= 2 }
        slots = [Int32](repeating: -1, count: room)
        mask = room - 1
        hashes.reserveCapacity(capacity)
        starts.reserveCapacity(capacity + 1)
    }

    var count: Int { hashes.count }

    /// Where set `s`'s members lie in `words`.
    @inline(__always)
    func range(_ s: Int32) -> Range<Int> { Int(starts[Int(s)])..<Int(starts[Int(s) + 1]) }

    /// `HashedWords`'s mix, over a buffer.
    @inline(__always)
    static func hash(_ m: UnsafeBufferPointer<Int32>) -> UInt64 { HashedWords<Int32>.mix(m) }

    /// The id of the set with members `m`, whose hash is `hash`; nil when not interned.
    func find(_ m: UnsafeBufferPointer<Int32>, hash: UInt64) -> Int32? {
        var i = home(hash)
        return words.withUnsafeBufferPointer { flat in
            while true {
                let s = slots[i]
                if s < 0 { return nil }
                if hashes[Int(s)] == hash {
                    let r = range(s)
                    if r.count == m.count {
                        var k = 0
                        while k < m.count && flat[r.lowerBound + k] == m[k] { k += 1 }
                        if k == m.count { return s }
                    }
                }
                i = (i + 1) & mask
            }
        }
    }

    /// Adds the set `m` (not interned yet; `hash` its hash) and returns its id.
    mutating func append(_ m: UnsafeBufferPointer<Int32>, hash: UInt64) -> Int32 {
        let id = Int32(hashes.count)
        if 2 * (hashes.count + 1) > slots.count { grow() }
        words.append(contentsOf: m)
        starts.append(Int32(words.count))
        hashes.append(hash)
        place(id)
        return id
    }

    /// A hash's home slot.
    @inline(__always)
    private func home(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> 32) & mask }

    private mutating func place(_ id: Int32) {
        var i = home(hashes[Int(id)])
        while slots[i] >= 0 { i = (i + 1) & mask }
        slots[i] = id
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: 2 * slots.count)
        mask = slots.count - 1
        for id in 0..<Int32(hashes.count) { place(id) }
    }
}
