import Synchronization

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
    private let cache = Mutex<[MaskKey: MaskEntry]>([:])

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
        let e = computeEntry(key)
        cache.withLock { $0[key] = e }
        return e
    }

    /// Fills the cache for every state reachable from the start, so no mask pays for a cold entry.
    /// Explores single stacks (at most `maxStacks`; recursive grammars have unboundedly many, but
    /// their keys repeat). Returns the number of cached states. Safe to call while matchers run.
    @discardableResult
    public func precompute(maxStacks: Int = 200_000) -> Int {
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
        pool.sets = [q]

        var accepted: [Int32] = []
        var uncertain: [Int32] = []
        func addRange(_ a: Int32, _ b: Int32, to list: inout [Int32]) {
            if a < b { list.append(contentsOf: trie.order[Int(a)..<Int(b)]) }
        }
        // Depth-first over the trie: (node, stack-set range, a path escaped above, next edge).
        struct Frame { var node: Int32; var range: Range<Int>; var escapedAbove: Bool; var edge: Int32; var next: ByteSet }
        var dfs: [Frame] = [Frame(node: 0, range: 0..<1, escapedAbove: false, edge: trie.childStart[0], next: pool.nextBytes(g, 0..<1))]
        while !dfs.isEmpty {
            let top = dfs[dfs.count - 1]
            let node = Int(top.node)
            if top.edge >= trie.childStart[node + 1] {
                dfs.removeLast()
                pool.sets.removeSubrange(top.range.lowerBound...)
                continue
            }
            dfs[dfs.count - 1].edge += 1
            let e = Int(top.edge)
            let child = Int(trie.edgeChild[e])
            let byte = trie.edgeByte[e]
            if !dfs[dfs.count - 1].next.contains(byte) {
                // No stack takes this byte: the whole subtree dies here (uncertain if a path escaped above).
                if top.escapedAbove { addRange(trie.tokensStart[child], trie.subtreeEnd[child], to: &uncertain) }
                continue
            }
            let mark = pool.sets.count
            let (range, flags) = pool.advance(g, top.range, byte)
            let alive = !range.isEmpty
            if alive || flags.escaped || flags.accepting {
                addRange(trie.tokensStart[child], trie.tokensEnd[child], to: &accepted)
            } else if top.escapedAbove {
                addRange(trie.tokensStart[child], trie.tokensEnd[child], to: &uncertain)
            }
            let escaped = top.escapedAbove || flags.escaped
            if alive {
                dfs.append(Frame(node: Int32(child), range: range, escapedAbove: escaped, edge: trie.childStart[child],
                                 next: pool.nextBytes(g, range)))
            } else {
                if escaped { addRange(trie.tokensEnd[child], trie.subtreeEnd[child], to: &uncertain) }
                pool.sets.removeSubrange(mark...)
            }
        }
        return MaskEntry(accepted: accepted, uncertain: uncertain, tokens: tokens)
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

    init(accepted: [Int32], uncertain: [Int32], tokens: TokenTable) {
        let words = tokens.maskWordCount
        if accepted.count >= words {
            var bits = [UInt64](repeating: 0, count: words)
            for t in accepted { bits[Int(t) >> 6] |= 1 << UInt64(t & 63) }
            acceptedWords = bits
            acceptedList = []
        } else {
            acceptedWords = []
            acceptedList = accepted
        }
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
