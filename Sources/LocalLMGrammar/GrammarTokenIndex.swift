import LocalLMSync

/// A compiled grammar joined to a vocabulary, with the per-state token caches that make masks
/// cheap. Immutable from the outside and shared by every sequence using this grammar; the cache
/// fills lazily (or all at once with `precompute`) behind a lock.
///
/// The cache is keyed by the top `keyDepth` frames of a matcher stack. For a key, a walk of the
/// token trie sorts every token into: accepted (some path consumes it without leaving the known
/// frames), rejected (every path dies inside them), or uncertain (a path pops below the known
/// frames with bytes left). A mask ORs the accepted set and checks only the uncertain tokens
/// against the real stack — the idea XGrammar calls context-independent tokens.
public final class GrammarTokenIndex: Sendable {
    public let grammar: CompiledGrammar
    public let tokens: TokenTable
    private let cache = SanitizableMutex<[MaskKey: MaskEntry]>([:])

    /// Frames of the stack a cache key covers. Three covers a terminal inside a small rule (a
    /// character), the repetition that calls it (which may count, as in `maxLength`), and what
    /// follows the repetition (the closing quote), so few tokens stay uncertain.
    static let keyDepth = 3
    static let rootMark: UInt32 = .max

    public init(grammar: CompiledGrammar, tokens: TokenTable) {
        self.grammar = grammar
        self.tokens = tokens
    }

    /// Cached entries so far (for benchmarks and tests).
    public var cachedStateCount: Int { cache.withLock { $0.count } }

    func entry(for key: MaskKey) -> MaskEntry {
        if let e = cache.withLock({ $0[key] }) { return e }
        // Another grammar over this vocabulary may have computed the same entry.
        let signature = signature(of: key)
        if let signature, let e = tokens.sharedEntries.entry(signature) {
            cache.withLock { $0[key] = e }
            return e
        }
        let e = computeEntry(key)
        cache.withLock { $0[key] = e }
        if let signature { tokens.sharedEntries.store(signature, e) }
        return e
    }

    /// Fills the cache for every state reachable from the start, so no mask pays for a cold entry.
    /// Explores single stacks (at most `maxStacks`; recursive grammars have unboundedly many, but
    /// their keys repeat). Returns the number of cached states. Safe to call while matchers run.
    @discardableResult
    public func precompute(maxStacks: Int = 20_000) -> Int {
        let g = grammar
        var pool = StackPool()
        let (start, _) = pool.start(g)
        var frontier = Array(pool.sets[start])
        pool.sets.removeAll()
        var seen = Set(frontier)
        var keys = Set<MaskKey>()
        var head = 0  // breadth first: shallow states before deep recursion
        while head < frontier.count {
            let n = frontier[head]
            head += 1
            keys.insert(Self.key(of: n, in: pool))
            guard seen.count < maxStacks, let byte = g.terminals[Int(pool.pos[Int(n)])].bytes.first else { continue }
            // Successors do not depend on which byte of the terminal was taken.
            pool.sets = [n]
            let (next, _) = pool.advance(g, 0..<1, byte)
            for s in pool.sets[next] where !seen.contains(s) {
                seen.insert(s)
                frontier.append(s)
            }
        }
        for k in keys { _ = entry(for: k) }
        return cachedStateCount
    }

    /// The key of a stack whose top node is `n` in `pool`: its top `keyDepth` positions (+1; 0 =
    /// no frame), and `rootMark` where the stack ends (then the key knows the whole stack).
    static func key(of n: Int32, in pool: StackPool) -> MaskKey {
        var slots: (UInt32, UInt32, UInt32, UInt32) = (UInt32(pool.pos[Int(n)] + 1), 0, 0, 0)
        var q = pool.parent[Int(n)]
        for slot in 1...keyDepth {
            let v: UInt32
            if q == StackPool.root { v = rootMark } else if slot == keyDepth || q < 0 { break } else { v = UInt32(pool.pos[Int(q)] + 1) }
            switch slot {
            case 1: slots.1 = v
            case 2: slots.2 = v
            default: slots.3 = v
            }
            if v == rootMark { break }
            q = pool.parent[Int(q)]
        }
        return MaskKey(lo: UInt64(slots.0) | UInt64(slots.1) << 32, hi: UInt64(slots.2) | UInt64(slots.3) << 32)
    }

    private func computeEntry(_ key: MaskKey) -> MaskEntry {
        let g = grammar
        let trie = tokens.trie
        var pool = StackPool()
        // Rebuild the known frames; below them is either the real root or the unknown.
        var frames: [Int32] = []
        var bottomParent = StackPool.bottom
        for v in key.slots {
            if v == 0 { break }
            if v == Self.rootMark { bottomParent = StackPool.root; break }
            frames.append(Int32(v) - 1)
        }
        var q = bottomParent
        for p in frames.reversed() { q = pool.node(p, q) }

        let dfa = StackSetDFA(grammar: g)
        let startSet = dfa.intern([q], &pool)

        // Ranges of `trie.order`; depth-first order makes neighbours touch, so they merge.
        var accepted = TokenRanges()
        var uncertain = TokenRanges()
        // Pre-order scan of the trie, keeping the stack set and "a path escaped above" at each depth
        // of the current path; a subtree no stack can enter is skipped in one jump.
        let levels = trie.maxDepth + 1
        let setAt = UnsafeMutablePointer<Int32>.allocate(capacity: levels)
        let escapedAt = UnsafeMutablePointer<Bool>.allocate(capacity: levels)
        defer { setAt.deallocate(); escapedAt.deallocate() }
        setAt[0] = startSet
        escapedAt[0] = false
        let nodeCount = trie.nodeCount
        trie.byte.withUnsafeBufferPointer { byteOf in
        trie.depth.withUnsafeBufferPointer { depthOf in
        trie.skip.withUnsafeBufferPointer { skipOf in
        trie.tokenStart.withUnsafeBufferPointer { tokenStart in
            var i = 1
            var table = dfa.table  // re-read after `fill`, which may grow it
            while i < nodeCount {
                let d = Int(depthOf[i])
                let set = setAt[d &- 1]
                let escapedAbove = escapedAt[d &- 1]
                let byte = byteOf[i]
                var v = table[Int(set) &* 256 &+ Int(byte)]
                if v < 0 {
                    v = dfa.fill(set, byte, &pool)
                    table = dfa.table
                }
                if v == 0 {
                    // No stack takes this byte: the whole subtree dies here (uncertain if a path escaped above).
                    let after = Int(skipOf[i])
                    if escapedAbove { uncertain.add(tokenStart[i], tokenStart[after]) }
                    i = after
                    continue
                }
                let next = (v >> 2) &- 1
                let escapedHere = v & 2 != 0
                if next >= 0 || v & 3 != 0 {
                    accepted.add(tokenStart[i], tokenStart[i &+ 1])
                } else if escapedAbove {
                    uncertain.add(tokenStart[i], tokenStart[i &+ 1])
                }
                let escaped = escapedAbove || escapedHere
                if next >= 0 {
                    setAt[d] = next
                    escapedAt[d] = escaped
                    i &+= 1
                } else {
                    let after = Int(skipOf[i])
                    if escaped { uncertain.add(tokenStart[i &+ 1], tokenStart[after]) }
                    i = after
                }
            }
        }
        }
        }
        }
        return MaskEntry(accepted: accepted, uncertain: uncertain, order: trie.order, tokens: tokens)
    }
}

/// The stack sets met during one entry's trie walk, interned, with each set's transition on each
/// byte computed once: a lazily built DFA. String content, where almost every token is allowed,
/// keeps returning to the same few sets, so most trie nodes cost one table read.
final class StackSetDFA {
    let grammar: CompiledGrammar
    private var members: [[Int32]] = []
    private var index: [[Int32]: Int32] = [:]
    /// Per set, 256 entries: -1 not computed yet, else (next set + 1) << 2 | escaped << 1 | accepting
    /// (0: no stack takes the byte).
    private(set) var table: UnsafeMutablePointer<Int32>
    private var capacity = 16

    init(grammar: CompiledGrammar) {
        self.grammar = grammar
        table = .allocate(capacity: capacity * 256)
    }

    deinit { table.deallocate() }

    func intern(_ m: [Int32], _ pool: inout StackPool) -> Int32 {
        if let id = index[m] { return id }
        let id = Int32(members.count)
        if members.count == capacity {
            let bigger = UnsafeMutablePointer<Int32>.allocate(capacity: capacity * 2 * 256)
            bigger.moveInitialize(from: table, count: capacity * 256)
            table.deallocate()
            table = bigger
            capacity *= 2
        }
        (table + members.count * 256).initialize(repeating: -1, count: 256)
        members.append(m)
        index[m] = id
        return id
    }

    /// Computes and stores the transition of `set` on `byte`.
    func fill(_ set: Int32, _ byte: UInt8, _ pool: inout StackPool) -> Int32 {
        let m = members[Int(set)]
        pool.sets = m
        let (r, flags) = pool.advance(grammar, 0..<m.count, byte)
        let next = Array(pool.sets[r]).sorted()
        let id: Int32 = next.isEmpty ? -1 : intern(next, &pool)
        let v = (id + 1) << 2 | (flags.accepting ? 1 : 0) | (flags.escaped ? 2 : 0)
        table[Int(set) * 256 + Int(byte)] = v
        return v
    }
}

/// Ranges of the trie's token order, merged where they touch.
struct TokenRanges {
    var ranges: [Range<Int32>] = []
    var count = 0

    @inline(__always)
    mutating func add(_ a: Int32, _ b: Int32) {
        guard a < b else { return }
        count += Int(b - a)
        if let last = ranges.last, last.upperBound == a {
            ranges[ranges.count - 1] = last.lowerBound..<b
        } else {
            ranges.append(a..<b)
        }
    }
}

/// The top frames of a stack, packed: four 32-bit slots.
struct MaskKey: Hashable, Sendable, Comparable {
    var lo: UInt64
    var hi: UInt64
    var slots: [UInt32] { [UInt32(truncatingIfNeeded: lo), UInt32(lo >> 32), UInt32(truncatingIfNeeded: hi), UInt32(hi >> 32)] }
    static func < (a: MaskKey, b: MaskKey) -> Bool { (a.lo, a.hi) < (b.lo, b.hi) }
}

/// What one cache key knows: tokens accepted whatever lies below, and tokens that need the real stack.
struct MaskEntry: Sendable {
    /// Accepted ids as a bitset when many, else as a list (ORing a short list is cheaper).
    let acceptedWords: [UInt64]
    let acceptedList: [Int32]
    /// Uncertain ids in trie order, with each one's common prefix length with the previous one.
    let uncertain: [Int32]
    let uncertainPrefix: [Int32]

    init(accepted: TokenRanges, uncertain ranges: TokenRanges, order: [Int32], tokens: TokenTable) {
        let words = tokens.maskWordCount
        if accepted.count >= words {
            var bits = [UInt64](repeating: 0, count: words)
            for r in accepted.ranges {
                for k in r { let t = order[Int(k)]; bits[Int(t) >> 6] |= 1 << UInt64(t & 63) }
            }
            acceptedWords = bits
            acceptedList = []
        } else {
            acceptedWords = []
            acceptedList = accepted.ranges.flatMap { order[Int($0.lowerBound)..<Int($0.upperBound)] }
        }
        let uncertain = ranges.ranges.flatMap { order[Int($0.lowerBound)..<Int($0.upperBound)] }
        self.uncertain = uncertain
        var prefix: [Int32] = []
        prefix.reserveCapacity(uncertain.count)
        var previous: [UInt8] = []
        for t in uncertain {
            let bytes = tokens.tokenBytes[Int(t)]
            var n = 0
            while n < bytes.count && n < previous.count && bytes[n] == previous[n] { n += 1 }
            prefix.append(Int32(n))
            previous = bytes
        }
        uncertainPrefix = prefix
    }
}
