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
    private let cache = Mutex<[UInt64: MaskEntry]>([:])

    /// Frames of the stack a cache key covers; two covers a terminal inside a small rule
    /// (a character class) plus the repetition that calls it.
    static let keyDepth = 2
    static let slotBits: UInt64 = 21
    static let slotMask: UInt64 = (1 << 21) - 1
    static let rootMark: UInt64 = (1 << 21) - 1

    public init(grammar: CompiledGrammar, tokens: TokenTable) {
        self.grammar = grammar
        self.tokens = tokens
    }

    /// Cached entries so far (for benchmarks and tests).
    public var cachedStateCount: Int { cache.withLock { $0.count } }

    func entry(for key: UInt64) -> MaskEntry {
        if let e = cache.withLock({ $0[key] }) { return e }
        let e = computeEntry(key)
        cache.withLock { $0[key] = e }
        return e
    }

    /// The key of a stack whose top node is `n` in `pool`.
    static func key(of n: Int32, in pool: StackPool) -> UInt64 {
        var key = UInt64(pool.pos[Int(n)] + 1)
        var q = pool.parent[Int(n)]
        var slot: UInt64 = 1
        while slot <= UInt64(keyDepth) {
            if q == StackPool.root {
                key |= rootMark << (slotBits * slot)
                break
            }
            if slot == UInt64(keyDepth) { break }
            guard q >= 0 else { break }
            key |= UInt64(pool.pos[Int(q)] + 1) << (slotBits * slot)
            q = pool.parent[Int(q)]
            slot += 1
        }
        return key
    }

    private func computeEntry(_ key: UInt64) -> MaskEntry {
        let g = grammar
        let trie = tokens.trie
        var pool = StackPool()
        // Rebuild the known frames; below them is either the real root or the unknown.
        var frames: [Int32] = []
        var bottomParent = StackPool.bottom
        for slot in 0...UInt64(Self.keyDepth) {
            let v = (key >> (Self.slotBits * slot)) & Self.slotMask
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
        struct Frame { var node: Int32; var range: Range<Int>; var escapedAbove: Bool; var edge: Int32 }
        var dfs: [Frame] = [Frame(node: 0, range: 0..<1, escapedAbove: false, edge: trie.childStart[0])]
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
                dfs.append(Frame(node: Int32(child), range: range, escapedAbove: escaped, edge: trie.childStart[child]))
            } else {
                if escaped { addRange(trie.tokensEnd[child], trie.subtreeEnd[child], to: &uncertain) }
                pool.sets.removeSubrange(mark...)
            }
        }
        return MaskEntry(accepted: accepted, uncertain: uncertain, tokens: tokens)
    }
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
