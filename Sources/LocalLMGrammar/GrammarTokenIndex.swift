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
        let e = composedEntry(key) ?? computeEntry(key)
        cache.withLock { $0[key] = e }
        if let signature { tokens.sharedEntries.store(signature, e) }
        return e
    }

    /// A shorter key's signature at most this long describes shared structure (a string's content,
    /// a character class, whitespace) worth computing once and extending.
    static let maxComposableSignatureWords = 512
    /// Extending an entry re-checks its uncertain tokens; beyond this many a full walk is cheaper.
    static let maxComposableUncertain = 16_384

    /// The entry of `key` built from the entry of its top frames without the lowest one, when that
    /// describes shared structure: its accepted tokens stay accepted and its rejected ones rejected
    /// whatever lies below, so only its (few) uncertain tokens are run again with the lowest frame
    /// known. A string's content inside a schema-specific object thus costs a re-check of the
    /// tokens that close the string, not a walk of the whole vocabulary. Nil when not worth it.
    private func composedEntry(_ key: MaskKey) -> MaskEntry? {
        var slots = key.slots
        var known = 0
        while known < slots.count && slots[known] != 0 && slots[known] != Self.rootMark { known += 1 }
        guard known >= 2 else { return nil }
        // The top `known - 1` frames over the unknown.
        for i in (known - 1)..<slots.count { slots[i] = 0 }
        let shorter = MaskKey(lo: UInt64(slots[0]) | UInt64(slots[1]) << 32, hi: UInt64(slots[2]) | UInt64(slots[3]) << 32)
        let isCached = cache.withLock { $0[shorter] != nil }
        if !isCached {
            guard let signature = signature(of: shorter), signature.count <= Self.maxComposableSignatureWords else { return nil }
        }
        let base = entry(for: shorter)
        guard base.uncertain.count <= Self.maxComposableUncertain else { return nil }
        return extend(base, to: key)
    }

    /// Runs `base`'s uncertain tokens (in trie order, sharing prefixes) on the stack `key` describes,
    /// sorting each as the trie walk would: accepted, still uncertain, or rejected.
    private func extend(_ base: MaskEntry, to key: MaskKey) -> MaskEntry {
        var pool = StackPool()
        let dfa = StackSetDFA(grammar: grammar)
        let startSet = dfa.intern([Self.stack(of: key, in: &pool)], &pool)
        let levels = tokens.trie.maxDepth + 1
        var setAt = [Int32](repeating: -1, count: levels)
        var escapedAt = [Bool](repeating: false, count: levels)
        setAt[0] = startSet
        var valid = 0  // setAt[0...valid] hold the previous token's path
        var accepted: [Int32] = []
        var uncertain: [Int32] = []
        for (k, t) in base.uncertain.enumerated() {
            let bytes = tokens.tokenBytes[Int(t)]
            var d = min(Int(base.uncertainPrefix[k]), valid)
            while d < bytes.count {
                let set = setAt[d], escapedAbove = escapedAt[d]
                var v = dfa.table[Int(set) * 256 + Int(bytes[d])]
                if v < 0 { v = dfa.fill(set, bytes[d], &pool) }
                let next = (v >> 2) - 1
                if v == 0 {
                    if escapedAbove { uncertain.append(t) }
                    break
                }
                if d == bytes.count - 1 {
                    accepted.append(t)  // some path took the last byte (alive, accepting or escaped)
                    break
                }
                if next < 0 {
                    if escapedAbove || v & 2 != 0 { uncertain.append(t) }
                    break
                }
                setAt[d + 1] = next
                escapedAt[d + 1] = escapedAbove || v & 2 != 0
                d += 1
            }
            valid = min(d, levels - 1)
        }
        return MaskEntry(extending: base, accepting: accepted, uncertain: uncertain, tokens: tokens)
    }

    /// The stack a key describes, rebuilt in `pool`: its known frames over the real root (when the
    /// key reaches it) or over the unknown.
    static func stack(of key: MaskKey, in pool: inout StackPool) -> Int32 {
        var frames: [Int32] = []
        var bottomParent = StackPool.bottom
        for v in key.slots {
            if v == 0 { break }
            if v == Self.rootMark { bottomParent = StackPool.root; break }
            frames.append(Int32(v) - 1)
        }
        var q = bottomParent
        for p in frames.reversed() { q = pool.node(p, q) }
        return q
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
        let q = Self.stack(of: key, in: &pool)

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
        uncertainPrefix = Self.commonPrefixes(uncertain, tokens)
    }

    /// `base`'s accepted tokens and `more` (ids), with `uncertain` ids in trie order.
    init(extending base: MaskEntry, accepting more: [Int32], uncertain: [Int32], tokens: TokenTable) {
        let words = tokens.maskWordCount
        if !base.acceptedWords.isEmpty || base.acceptedList.count + more.count >= words {
            var bits = base.acceptedWords.isEmpty ? [UInt64](repeating: 0, count: words) : base.acceptedWords
            for t in base.acceptedList { bits[Int(t) >> 6] |= 1 << UInt64(t & 63) }
            for t in more { bits[Int(t) >> 6] |= 1 << UInt64(t & 63) }
            acceptedWords = bits
            acceptedList = []
        } else {
            acceptedWords = []
            acceptedList = base.acceptedList + more
        }
        self.uncertain = uncertain
        uncertainPrefix = Self.commonPrefixes(uncertain, tokens)
    }

    /// Each token's common prefix length (in bytes) with the one before it.
    static func commonPrefixes(_ ids: [Int32], _ tokens: TokenTable) -> [Int32] {
        var prefix: [Int32] = []
        prefix.reserveCapacity(ids.count)
        var previous: [UInt8] = []
        for t in ids {
            let bytes = tokens.tokenBytes[Int(t)]
            var n = 0
            while n < bytes.count && n < previous.count && bytes[n] == previous[n] { n += 1 }
            prefix.append(Int32(n))
            previous = bytes
        }
        return prefix
    }
}
