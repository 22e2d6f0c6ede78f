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
    /// Entries by key, bounded in bytes (`maxCacheBytes`, in two generations: an entry used in
    /// every generation stays), with a count of entries filled.
    private let cache: SanitizableMutex<EntryCache>
    /// Bytes of entries one index keeps at most (both generations). An entry over Qwen2.5's
    /// vocabulary with many tokens accepted is a 19 KB bitset; a grammar meets a few hundred keys
    /// in most uses, but a large schema serving many requests could meet far more.
    static let maxCacheBytes = 32 << 20
    /// The stacks and stack-set transitions met by earlier walks: every walk starts from stacks over
    /// the unknown (or the root) and their transitions do not depend on the key, so later walks
    /// reuse them instead of recomputing closures. One walk at a time.
    private let walker: SanitizableMutex<EntryWalker>
    /// Shorter keys whose signature was too long to compose from (so it is not computed again).
    private let unsharable = SanitizableMutex<Set<MaskKey>>([])
    /// Per position: the length of the signature of a key holding only it (see `reachWords`).
    let reach = SanitizableMutex<[Int32: Int32]>([:])
    /// The grammar's signature words, written as signatures reach them (see `SignatureTemplates`).
    let templates = SanitizableMutex<SignatureTemplates?>(nil)
    /// Whole masks of states met before (see `StateMasks`); nil where tests compute every mask.
    let stateMasks: StateMasks?
    /// Whether walks take a subtree whole when its bytes keep every path alive (false where tests
    /// compare with walks that visit every node).
    let skipsSafeSubtrees: Bool
    /// Whether keys with a narrow top try a short walk before looking for shared entries (false
    /// where tests compare with indexes that always share or compose).
    let triesNarrowWalks: Bool
    /// Trie nodes a narrow walk may visit (`narrowWalkNodes` but where tests cut walks short).
    let narrowWalkNodes: Int
    /// Whether a state with many narrow keys not cached yet takes their part of its mask from one
    /// walk of their stacks together (see `stateEntry`; false where tests compare with indexes
    /// that fill every key's entry).
    let walksNewNarrowKeysTogether: Bool
    /// Whether stacks holding an open text rule's (a searched pattern's state) are keyed and
    /// filled as open text (see `openTextMark`, `openTextEntry`; false where tests compare with
    /// indexes that walk them like other stacks).
    let findsOpenText: Bool
    /// Walks of states' stacks (`stateEntry`), apart from the entry walks: their stack sets hold a
    /// matcher's full stacks, which no key's walk meets again, so they would only crowd out the
    /// sets entry walks reuse.
    private let stateWalker: SanitizableMutex<EntryWalker>

    /// Frames of the stack a cache key covers. Three covers a terminal inside a small rule (a
    /// character), the repetition that calls it (which may count, as in `maxLength`), and what
    /// follows the repetition (the closing quote), so few tokens stay uncertain.
    static let keyDepth = 3
    static let rootMark: UInt32 = .max

    public convenience init(grammar: CompiledGrammar, tokens: TokenTable) {
        self.init(grammar: grammar, tokens: tokens, storesStateMasks: true)
    }

    init(grammar: CompiledGrammar, tokens: TokenTable, storesStateMasks: Bool, skipsSafeSubtrees: Bool = true,
         cacheBytes: Int = maxCacheBytes, triesNarrowWalks: Bool = true, narrowWalkNodes: Int = narrowWalkNodes,
         walksNewNarrowKeysTogether: Bool = true, findsOpenText: Bool = true) {
        self.grammar = grammar
        self.tokens = tokens
        cache = SanitizableMutex(EntryCache(entries: TwoGenerations(bytesPerGeneration: cacheBytes / 2)))
        walker = SanitizableMutex(EntryWalker(grammar: grammar, findsOpenText: findsOpenText))
        stateMasks = storesStateMasks ? StateMasks() : nil
        self.skipsSafeSubtrees = skipsSafeSubtrees
        self.triesNarrowWalks = triesNarrowWalks
        self.narrowWalkNodes = narrowWalkNodes
        self.walksNewNarrowKeysTogether = walksNewNarrowKeysTogether
        self.findsOpenText = findsOpenText
        stateWalker = SanitizableMutex(EntryWalker(grammar: grammar, searchesText: false, findsOpenText: findsOpenText))
    }

    /// Cached entries held now (for benchmarks and tests).
    public var cachedStateCount: Int { cache.withLock { $0.entries.distinctCount } }

    /// Entries filled so far, ever (a mask that raised it met a state new to the index).
    public var filledEntryCount: Int { cache.withLock { $0.filled } }

    private func cached(_ key: MaskKey) -> MaskEntry? {
        cache.withLock { $0.entries.value(for: key) { $0.byteCount } }
    }

    /// Whether `key`'s entry is held now.
    func isCached(_ key: MaskKey) -> Bool { cached(key) != nil }

    private func store(_ e: MaskEntry, for key: MaskKey) {
        cache.withLock {
            $0.entries.insert(e, for: key, bytes: e.byteCount)
            $0.filled += 1
        }
    }

    /// Subtrees walks have taken whole so far (for tests).
    var skippedSubtrees: Int { walker.withLock { $0.skippedSubtrees } }

    /// Those of them with bytes 0x80 and above (for tests).
    var skippedTextSubtrees: Int { walker.withLock { $0.skippedTextSubtrees } }
    /// Stack sets whose text walks took within a horizon (see `StackSetDFA.aliveWithin`), for tests.
    var textSetsWithinHorizon: Int { walker.withLock { $0.textWithinHorizon } }
    /// Stack sets that held an open text rule's stacks (see `StackPool.holdsOpenText`), for tests.
    var openTextSets: Int { walker.withLock { $0.openTextSets } }
    /// Entries made from the vocabulary's open text entry (see `openTextEntry`), for tests.
    var openTextEntries: Int { walker.withLock { $0.openTextEntries } }

    /// Entries filled by a narrow walk so far (for tests).
    var narrowEntries: Int { walker.withLock { $0.narrowEntries } }

    /// Walks of states' stacks together so far (`stateEntry`; for tests).
    var stateWalks: Int { stateWalker.withLock { $0.stateWalks } }

    /// The entry of `key`; `knownSignature` is its signature when the caller has written it.
    func entry(for key: MaskKey, knownSignature: [UInt32]? = nil) -> MaskEntry {
        if let e = cached(key) { return e }
        if let e = countedEntry(key) {
            store(e, for: key)
            return e
        }
        // A narrow walk costs less than looking for the entry in other grammars.
        if knownSignature == nil, triesNarrowWalks, let e = narrowEntry(key) {
            store(e, for: key)
            return e
        }
        // Another grammar over this vocabulary may have computed the same entry.
        let signature = knownSignature ?? signature(of: key)
        if let signature, let e = tokens.sharedEntries.entry(signature) {
            store(e, for: key)
            return e
        }
        let e = openTextEntry(key) ?? composedEntry(key) ?? firstByteEntry(key) ?? computeEntry(key)
        store(e, for: key)
        if let signature { tokens.sharedEntries.store(signature, e) }
        return e
    }

    /// The entry of a key at a character of length-bounded string content (`maxLength`,
    /// `minLength`): the entry of the same key over the unbounded content (its twin frame in
    /// place of the counted one), kept to the tokens whose characters fit the position. What
    /// follows the string is the same under both, so a token's fate differs only by its count.
    private func countedEntry(_ key: MaskKey) -> MaskEntry? {
        let top = UInt32(truncatingIfNeeded: key.lo), below = UInt32(key.lo >> 32)
        guard !grammar.countedFrames.isEmpty, top != 0, below != 0, below != Self.rootMark,
              top & Self.openTextMark == 0, top & Self.groupMark != 0
                ? grammar.countedCharacterRules.contains(Int32(top & ~Self.groupMark))
                : grammar.characterStarts.contains(Int32(top) - 1),
              let frame = grammar.countedFrames[Int32(below) - 1] else { return nil }
        let twinKey = MaskKey(lo: UInt64(top) | UInt64(UInt32(frame.twin + 1)) << 32, hi: key.hi)
        let base = entry(for: twinKey)
        let longest = tokens.longestStringContent
        let maxCount = frame.max < 0 || frame.max - frame.consumed >= longest ? -1 : frame.max - frame.consumed
        let minClosing = min(frame.min - frame.consumed, longest + 1)
        return MaskEntry(fitting: base, maxCount: maxCount, minClosing: minClosing, tokens: tokens)
    }

    /// A shorter key's signature at most this long describes shared structure (a string's content,
    /// a character class, whitespace) worth computing once and extending.
    static let maxComposableSignatureWords = 1024
    /// Extending an entry re-checks its uncertain tokens; beyond this many a full walk is cheaper.
    static let maxComposableUncertain = 16_384

    /// The entry of `key` built from the entry of its top frames without the lower ones, when that
    /// describes shared structure: its accepted tokens stay accepted and its rejected ones rejected
    /// whatever lies below, so only its (few) uncertain tokens are run again with the lower frames
    /// known. A string's content inside a schema-specific object thus costs a re-check of the
    /// tokens that close the string, not a walk of the whole vocabulary. Nil when not worth it.
    private func composedEntry(_ key: MaskKey) -> MaskEntry? {
        let slots = key.slots
        var known = 0
        while known < slots.count && slots[known] != 0 && slots[known] != Self.rootMark { known += 1 }
        guard known >= 2 else { return nil }
        // The longest run of top frames (over the unknown) that is cached or describes shared
        // structure: a key of an object's member name reaches the whole object through its lower
        // frames, but its top frame alone is a string's content.
        for kept in stride(from: known - 1, through: 1, by: -1) {
            var shorterSlots = slots
            for i in kept..<shorterSlots.count { shorterSlots[i] = 0 }
            let shorter = MaskKey(lo: UInt64(shorterSlots[0]) | UInt64(shorterSlots[1]) << 32,
                                  hi: UInt64(shorterSlots[2]) | UInt64(shorterSlots[3]) << 32)
            let isCached = cached(shorter) != nil
            var known: [UInt32]?
            if !isCached {
                if unsharable.withLock({ $0.contains(shorter) }) { continue }
                known = signature(of: shorter, maxWords: Self.maxComposableSignatureWords)
                guard known != nil else {
                    unsharable.withLock { _ = $0.insert(shorter) }
                    continue
                }
            }
            let base = entry(for: shorter, knownSignature: known)
            guard base.uncertain.count <= Self.maxComposableUncertain else { continue }
            return extend(base, to: key)
        }
        return nil
    }

    /// Below this many bytes in the top terminal, a direct walk (of that many subtrees) is cheap.
    static let minFirstByteSetForSharing = 32

    /// The entry of `key` from the entry of the same frames with a top terminal that takes any
    /// byte, kept to the tokens whose first byte the real terminal takes. What follows a terminal
    /// does not depend on which of its bytes was read, so a token `b·rest` has the same fate under
    /// both when `b` is in the set. A key that begins a member name beside listed names (any
    /// character but the names' first ones, then a string's content) thus shares one walk with
    /// every such key of every schema over the vocabulary. Nil when that entry is not shared.
    private func firstByteEntry(_ key: MaskKey) -> MaskEntry? {
        guard UInt32(truncatingIfNeeded: key.lo) & (Self.groupMark | Self.openTextMark) == 0 else { return nil }
        let top = Int(key.lo & 0xFFFF_FFFF) - 1
        guard grammar.terminals.indices.contains(top) else { return nil }
        let bytes = grammar.terminals[top]
        guard bytes.count > 1,
              let general = signature(of: key, maxWords: Self.maxComposableSignatureWords, anyFirstByte: true)
        else { return nil }
        let base: MaskEntry
        if let e = tokens.sharedEntries.entry(general) {
            base = e
        } else {
            // Worth a walk of every first byte only where it is likely met again: a key of one
            // frame (a string's content, a character class) over the unknown.
            guard bytes.count >= Self.minFirstByteSetForSharing, key.lo >> 32 == 0 else { return nil }
            base = computeEntry(key, anyFirstByte: true)
            tokens.sharedEntries.store(general, base)
        }
        return MaskEntry(restricting: base, toFirstBytes: bytes, tokens: tokens)
    }

    /// Runs `base`'s uncertain tokens (in trie order, sharing prefixes) on the stack `key` describes,
    /// sorting each as the trie walk would: accepted, still uncertain, or rejected.
    private func extend(_ base: MaskEntry, to key: MaskKey) -> MaskEntry {
        walker.withLock { w in
            w.prepare()
            var pool = w.takePool()
            defer { w.pool = pool }
            return extend(base, to: key, dfa: w.dfa, pool: &pool)
        }
    }

    private func extend(_ base: MaskEntry, to key: MaskKey, dfa: StackSetDFA, pool: inout StackPool) -> MaskEntry {
        extend(base, from: dfa.intern(stacks(of: key, in: &pool), &pool), dfa: dfa, pool: &pool)
    }

    /// The entry of a key whose stacks hold an open text rule's (a pattern searched inside a
    /// string, see `StackPool.holdsOpenText`): text of any length is taken whole from them, so it
    /// is the vocabulary's open text entry (`TokenTable.openTextBase`) with the other tokens run
    /// from the key's stacks. Nil for other keys.
    private func openTextEntry(_ key: MaskKey) -> MaskEntry? {
        guard findsOpenText, !grammar.openTextRuleAt.isEmpty else { return nil }
        return walker.withLock { w in
            w.prepare()
            var pool = w.takePool()
            defer { w.pool = pool }
            let startSet = w.dfa.intern(stacks(of: key, in: &pool), &pool)
            guard w.dfa.holdsOpenText(startSet) else { return nil }
            w.openTextEntries += 1
            return extend(tokens.openTextBase.entry(tokens), from: startSet, dfa: w.dfa, pool: &pool)
        }
    }

    /// `base`'s uncertain tokens run from `startSet` (see `extend(_:to:)`).
    private func extend(_ base: MaskEntry, from startSet: Int32, dfa: StackSetDFA, pool: inout StackPool) -> MaskEntry {
        var accepted: [Int32] = []
        var uncertain: [Int32] = [], prefix: [Int32] = []
        var sincePrevious = Int32.max  // least common prefix of neighbours since the last kept token
        walkTokens(base.uncertain, prefixes: base.uncertainPrefix, from: startSet, dfa: dfa, pool: &pool) { k, outcome in
            sincePrevious = min(sincePrevious, base.uncertainPrefix[k])
            switch outcome {
            case .taken: accepted.append(base.uncertain[k])
            case .undecided:
                uncertain.append(base.uncertain[k])
                prefix.append(sincePrevious)
                sincePrevious = .max
            case .refused: break
            }
        }
        return MaskEntry(extending: base, accepting: accepted, uncertain: uncertain, prefixes: prefix, tokens: tokens)
    }

    /// What a token read from a stack set comes to (see `walkTokens`).
    enum TokenOutcome {
        /// Some path took its last byte (alive, accepting, or escaped below the known frames).
        case taken
        /// Every path died, after one had escaped: the stacks below decide.
        case undecided
        case refused
    }

    /// Reads each token of `list` (in trie order, each with its common prefix with the previous
    /// one in `prefixes`) from `startSet` through the stack-set DFA, sharing the prefix's steps,
    /// and tells `body` the index in `list` and the outcome, in order.
    @inline(__always)
    private func walkTokens(_ list: [Int32], prefixes: [Int32], from startSet: Int32, dfa: StackSetDFA,
                            pool: inout StackPool, _ body: (Int, TokenOutcome) -> Void) {
        let levels = tokens.trie.maxDepth + 1
        let setAt = UnsafeMutablePointer<Int32>.allocate(capacity: levels)
        let escapedAt = UnsafeMutablePointer<Bool>.allocate(capacity: levels)
        defer { setAt.deallocate(); escapedAt.deallocate() }
        setAt[0] = startSet
        escapedAt[0] = false
        var valid = 0  // setAt[0...valid] hold the previous token's path
        tokens.flatBytes.withUnsafeBufferPointer { flat in
        tokens.flatStart.withUnsafeBufferPointer { start in
        list.withUnsafeBufferPointer { list in
        prefixes.withUnsafeBufferPointer { prefixes in
            var table = dfa.table  // re-read after `fill`, which may grow it
            for k in 0..<list.count {
                let t = Int(list[k])
                let from = Int(start[t]), count = Int(start[t &+ 1]) &- from
                var outcome = TokenOutcome.refused
                var d = min(Int(prefixes[k]), valid)
                while d < count {
                    let set = setAt[d], escapedAbove = escapedAt[d]
                    let byte = flat[from &+ d]
                    var v = table[Int(set) &* 256 &+ Int(byte)]
                    if v < 0 {
                        v = dfa.fill(set, byte, &pool)
                        table = dfa.table
                    }
                    if v == 0 {  // no stack takes the byte
                        if escapedAbove { outcome = .undecided }
                        break
                    }
                    if d == count &- 1 {
                        outcome = .taken
                        break
                    }
                    let next = (v >> 2) &- 1
                    if next < 0 {  // the grammar ended (or a path escaped) before the token did
                        if escapedAbove || v & 2 != 0 { outcome = .undecided }
                        break
                    }
                    setAt[d &+ 1] = next
                    escapedAt[d &+ 1] = escapedAbove || v & 2 != 0
                    d &+= 1
                }
                body(k, outcome)
                valid = min(d, levels &- 1)
            }
        }
        }
        }
        }
    }

    /// The stacks a key describes, rebuilt in `pool` (sorted): its known frames over the real root
    /// (when the key reaches it) or over the unknown; a group key's top is every terminal-first
    /// alternative of its rule.
    func stacks(of key: MaskKey, in pool: inout StackPool) -> [Int32] {
        var frames: [Int32] = []
        var bottomParent = StackPool.bottom
        let slots = key.slots
        for v in slots.dropFirst() {
            if v == 0 { break }
            if v == Self.rootMark { bottomParent = StackPool.root; break }
            frames.append(Int32(v) - 1)
        }
        var q = bottomParent
        for p in frames.reversed() { q = pool.node(p, q) }
        let top = slots[0]
        if top & Self.openTextMark != 0 && top & Self.groupMark == 0 {
            return pool.openTextStacks(of: Int32(top & ~Self.openTextMark), on: q, grammar)
        }
        if top & Self.groupMark != 0 {
            let rule = Int(top & ~Self.groupMark)
            guard grammar.terminalStarts.indices.contains(rule) else { return [] }
            return grammar.terminalStarts[rule].map { pool.node($0, q) }.sorted()
        }
        return top == 0 ? [] : [pool.node(Int32(top) - 1, q)]
    }

    /// Marks a key's top slot as a group: the stacks at every terminal-first alternative of the
    /// rule (its id in the low bits) over the same parent, which a closure always pushes together.
    /// One entry then serves them all (a string character's dozen UTF-8 and escape forms, a
    /// pattern state's character classes) instead of one entry and one walk each.
    static let groupMark: UInt32 = 0x8000_0000
    /// Marks a key's top slot as an open text rule (its id in the low bits): the stacks a
    /// reference to it pushes on the parent the lower slots describe (`StackPool.forEachStack`),
    /// whose text is taken whole (see `openTextEntry`). A searched pattern's state is one such
    /// key, not a group for its character classes and a key for each class written as one terminal.
    static let openTextMark: UInt32 = 0x4000_0000

    /// The mask keys of a set of stacks, each with the stacks it covers: the stacks a reference
    /// to an open text rule pushes on one parent share an open text key (with `openText`); stacks
    /// over the same parent at all terminal-first alternatives of one rule share a group key; the
    /// others are keyed one by one (stacks with equal keys together).
    static func keys(of stacks: [Int32], in pool: StackPool, grammar: CompiledGrammar, openText: Bool) -> [(MaskKey, [Int32])] {
        var out: [(MaskKey, [Int32])] = []
        var stacks = stacks
        if openText, !grammar.openTextRuleAt.isEmpty {
            var opened = Set<Int32>()
            let sorted = stacks.sorted()
            sorted.withUnsafeBufferPointer { members in
                pool.forEachOpenText(in: members, grammar) { rule, parent, group in
                    guard group.allSatisfy({ !opened.contains($0) }) else { return true }
                    opened.formUnion(group)
                    out.append((key(top: openTextMark | UInt32(rule), below: parent, in: pool), group.sorted()))
                    return true
                }
            }
            if !opened.isEmpty { stacks = stacks.filter { !opened.contains($0) } }
        }
        // (parent, rule, stack) for stacks at an alternative start of a groupable rule.
        var candidates: [(Int32, Int32, Int32)] = []
        var singles: [Int32] = []
        for n in stacks {
            let r = grammar.groupRule[Int(pool.pos[Int(n)])]
            if r >= 0 { candidates.append((pool.parent[Int(n)], r, n)) } else { singles.append(n) }
        }
        if !candidates.isEmpty {
            candidates.sort { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
            var i = 0
            while i < candidates.count {
                var j = i + 1
                while j < candidates.count && candidates[j].0 == candidates[i].0 && candidates[j].1 == candidates[i].1 { j += 1 }
                let rule = candidates[i].1
                if j - i == grammar.terminalStarts[Int(rule)].count {
                    var k = key(of: candidates[i].2, in: pool)
                    k.lo = (k.lo & ~0xFFFF_FFFF) | UInt64(groupMark | UInt32(rule))
                    out.append((k, candidates[i..<j].map(\.2)))
                } else {
                    singles.append(contentsOf: candidates[i..<j].map(\.2))
                }
                i = j
            }
        }
        var keyed = singles.map { (key(of: $0, in: pool), $0) }
        keyed.sort { $0.0 < $1.0 }
        var i = 0
        while i < keyed.count {
            var j = i + 1
            while j < keyed.count && keyed[j].0 == keyed[i].0 { j += 1 }
            out.append((keyed[i].0, keyed[i..<j].map(\.1)))
            i = j
        }
        return out
    }

    /// Fills the cache for every state reachable from the start, so no mask pays for a cold entry
    /// (as far as the cache's bound keeps them). Explores single stacks (at most `maxStacks`;
    /// recursive grammars have unboundedly many, but their keys repeat). Returns the number of
    /// cached states. Safe to call while matchers run.
    @discardableResult
    public func precompute(maxStacks: Int = 20_000) -> Int {
        let g = grammar
        var pool = StackPool()
        let (start, _) = pool.start(g)
        var frontier = Array(pool.sets[start])
        var keys = Set(Self.keys(of: frontier, in: pool, grammar: g, openText: findsOpenText).map(\.0))
        pool.sets.removeAll()
        var seen = Set(frontier)
        var head = 0  // breadth first: shallow states before deep recursion
        while head < frontier.count {
            let n = frontier[head]
            head += 1
            keys.insert(Self.key(of: n, in: pool))
            guard seen.count < maxStacks, let byte = g.terminals[Int(pool.pos[Int(n)])].bytes.first else { continue }
            // Successors do not depend on which byte of the terminal was taken.
            pool.sets = [n]
            let (next, _) = pool.advance(g, 0..<1, byte)
            // Masks key alternatives pushed together as one group.
            for (k, _) in Self.keys(of: Array(pool.sets[next]), in: pool, grammar: g, openText: findsOpenText) { keys.insert(k) }
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
        key(top: UInt32(pool.pos[Int(n)] + 1), below: pool.parent[Int(n)], in: pool)
    }

    /// The key whose top slot is `top` and whose lower slots are the frames of parent `q`.
    static func key(top: UInt32, below q: Int32, in pool: StackPool) -> MaskKey {
        var slots: (UInt32, UInt32, UInt32, UInt32) = (top, 0, 0, 0)
        var q = q
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

    /// The entry of `key` by one walk of the trie. With `anyFirstByte`, the top terminal takes any
    /// byte (see `firstByteEntry`).
    private func computeEntry(_ key: MaskKey, anyFirstByte: Bool = false) -> MaskEntry {
        walker.withLock { w in
            w.prepare()
            var pool = w.takePool()
            defer { w.pool = pool }
            // Without a budget the walk always ends (the empty entry is never returned).
            return computeEntry(key, anyFirstByte: anyFirstByte, walker: w, pool: &pool)
                ?? MaskEntry(accepted: TokenRanges(), uncertain: TokenRanges(), order: tokens.trie.order, tokens: tokens)
        }
    }

    private func computeEntry(_ key: MaskKey, anyFirstByte: Bool, walker w: EntryWalker, pool: inout StackPool,
                              budget: Int = .max) -> MaskEntry? {
        let g = grammar
        let dfa = w.dfa
        // Rebuild the known frames; below them is either the real root or the unknown.
        let start = stacks(of: key, in: &pool)

        var startSet = dfa.intern(start, &pool)
        if anyFirstByte, start.count == 1, let b = g.terminals[Int(pool.pos[Int(start[0])])].first {
            // Every first byte goes where the terminal's own bytes go; a set of its own, so a
            // path that meets the real top again later reads its real bytes.
            startSet = dfa.opaque(row: dfa.fill(startSet, b, &pool))
        }
        guard let (accepted, uncertain, skipped, skippedText) = walk(from: startSet, dfa: dfa, pool: &pool, budget: budget)
        else { return nil }
        w.skippedSubtrees += skipped
        w.skippedTextSubtrees += skippedText
        return MaskEntry(accepted: accepted, uncertain: uncertain, order: tokens.trie.order, tokens: tokens)
    }

    /// Trie nodes a walk tried before the sharing machinery may visit (see `narrowEntry`).
    static let narrowWalkNodes = 2048
    /// Top terminals taking more bytes than this are not tried as narrow (string content, classes).
    static let maxNarrowTopBytes = 16

    /// Whether `key`'s top is one terminal taking at most `maxNarrowTopBytes` bytes.
    func isNarrow(_ key: MaskKey) -> Bool {
        let top = UInt32(truncatingIfNeeded: key.lo)
        guard top != 0, top & (Self.groupMark | Self.openTextMark) == 0 else { return false }
        let p = Int(top) - 1
        return grammar.terminals.indices.contains(p) && grammar.terminals[p].count <= Self.maxNarrowTopBytes
    }

    /// The entry of `key` by a walk cut short after `narrowWalkNodes` nodes, for keys whose top
    /// terminal takes few bytes: a literal's character, whitespace, a member name's start. Their
    /// walks end within a few hundred nodes, less than writing the key's signature (to look for the
    /// entry in other grammars) would cost. Nil when the top is a group or takes many bytes, or
    /// when the walk runs longer (then the caller shares or composes as usual).
    private func narrowEntry(_ key: MaskKey) -> MaskEntry? {
        guard isNarrow(key) else { return nil }
        return walker.withLock { w in
            w.prepare()
            var pool = w.takePool()
            defer { w.pool = pool }
            let e = computeEntry(key, anyFirstByte: false, walker: w, pool: &pool, budget: narrowWalkNodes)
            if e != nil { w.narrowEntries += 1 }
            return e
        }
    }

    /// A state with at least this many narrow keys not cached yet takes their part of its mask from
    /// one walk of their stacks together (see `stateEntry`). Two: walks of single keys fill
    /// entries another state may reuse, but states whose few narrow keys are new (a member name's
    /// first character beside a handful of listed names) are the commonest slow masks, and one
    /// walk crossing their shared trie nodes costs less than one walk per key (full MaskBench:
    /// threshold 2, 3, 8 gave TBM p99 331, 338, 350 µs).
    static let minUncachedKeysForStateWalk = 2
    /// Trie nodes such a walk may visit before the keys go back to their own entries.
    static let stateWalkNodes = 16_384

    /// The tokens the stacks `stacks` allow together (full stacks in `source`, each over the real
    /// root), as an entry with every token certain, by one walk of the trie from their set. For a
    /// state whose narrow keys are mostly new: after a value inside an object of many optional
    /// members, the state holds whitespace, a comma and each remaining member's start under its
    /// own frame, dozens of keys met once each (the next member's state has other frames) whose
    /// walks all cross the same few trie nodes; inside a member name beside many listed names,
    /// each name's next character. Nil when the walk would visit more than `stateWalkNodes` nodes
    /// (then each key's entry is filled as usual).
    func stateEntry(of stacks: [Int32], in source: StackPool) -> MaskEntry? {
        stateWalker.withLock { w in
            w.prepare()
            var pool = w.takePool()
            defer { w.pool = pool }
            guard let start = Self.rebuilt(stacks, pos: source.pos, parent: source.parent, in: &pool) else { return nil }
            let startSet = w.dfa.intern(start, &pool)
            guard let (accepted, uncertain, skipped, skippedText) = walk(from: startSet, dfa: w.dfa, pool: &pool,
                                                            budget: Self.stateWalkNodes),
                  uncertain.count == 0 else { return nil }
            w.skippedSubtrees += skipped
            w.skippedTextSubtrees += skippedText
            w.stateWalks += 1
            return MaskEntry(accepted: accepted, uncertain: uncertain, order: tokens.trie.order, tokens: tokens)
        }
    }

    /// `stacks` (full stacks in a pool whose nodes' positions and parents are `pos` and `parent`)
    /// rebuilt in `pool` over its root, sorted; nil when one does not end at the root. A matcher's
    /// stacks do: rebuilt over it, nothing escapes.
    private static func rebuilt(_ stacks: [Int32], pos: [Int32], parent: [Int32], in pool: inout StackPool) -> [Int32]? {
        var start: [Int32] = []
        start.reserveCapacity(stacks.count)
        var frames: [Int32] = []
        for n in stacks {
            frames.removeAll(keepingCapacity: true)
            var q = n
            while q >= 0 {
                frames.append(pos[Int(q)])
                q = parent[Int(q)]
            }
            guard q == StackPool.root else { return nil }
            var node = StackPool.root
            for p in frames.reversed() { node = pool.node(p, node) }
            start.append(node)
        }
        start.sort()
        return start
    }

    /// Entries with at least this many uncertain tokens have them checked through the stack-set
    /// DFA of states' walks (`acceptUncertain`) rather than stack by stack.
    static let minUncertainForDFA = 64

    /// Sets in `mask` the bits of `entry`'s uncertain tokens that the stacks `stacks` (full stacks in
    /// `source`, each over the real root: a matcher's) take whole, as `GrammarMatcher`'s
    /// `checkUncertain` does, but through the stack-set DFA of states' walks: the tokens that close
    /// a string (most of an entry's uncertain tokens) keep meeting the same sets (the content's,
    /// then what follows the quote), so after the first few each byte is one table read instead of
    /// a step of every stack. Tokens already set are not walked. False, having set nothing, when
    /// that walker is busy (another matcher of this index holds it) or a stack does not end at
    /// the root.
    func acceptUncertain(_ entry: MaskEntry, of stacks: [Int32], in source: StackPool,
                         into mask: UnsafeMutableBufferPointer<UInt64>) -> Bool {
        // The tokens not set yet, each with its common prefix with the previous one of them (the
        // least of the neighbours' prefixes in between).
        var todo: [Int32] = [], todoPrefix: [Int32] = []
        todo.reserveCapacity(entry.uncertain.count)
        todoPrefix.reserveCapacity(entry.uncertain.count)
        var since = Int32.max
        for (k, t) in entry.uncertain.enumerated() {
            since = min(since, entry.uncertainPrefix[k])
            if mask[Int(t) >> 6] & (1 << UInt64(t & 63)) != 0 { continue }
            todo.append(t)
            todoPrefix.append(since)
            since = .max
        }
        if todo.isEmpty { return true }
        let pos = source.pos, parent = source.parent
        let accepted: [Int32]? = stateWalker.withLockIfAvailable { w -> [Int32]? in
            w.prepare()
            var pool = w.takePool()
            defer { w.pool = pool }
            guard let start = Self.rebuilt(stacks, pos: pos, parent: parent, in: &pool) else { return nil }
            return takenWhole(todo, prefixes: todoPrefix, from: w.dfa.intern(start, &pool), dfa: w.dfa, pool: &pool)
        } ?? nil
        guard let accepted else { return false }
        for t in accepted { mask[Int(t) >> 6] |= 1 << UInt64(t & 63) }
        return true
    }

    /// The tokens of `list` (in trie order, each with its common prefix with the previous one) that
    /// some stack of `startSet` takes whole: alive after the last byte, or the grammar ended on it.
    /// (Full stacks: nothing escapes, so no token is undecided.)
    private func takenWhole(_ list: [Int32], prefixes: [Int32], from startSet: Int32, dfa: StackSetDFA,
                            pool: inout StackPool) -> [Int32] {
        var taken: [Int32] = []
        walkTokens(list, prefixes: prefixes, from: startSet, dfa: dfa, pool: &pool) { k, outcome in
            if outcome == .taken { taken.append(list[k]) }
        }
        return taken
    }

    /// One walk of the trie from `startSet`: the tokens some path takes whole (alive, accepting or
    /// escaped after their last byte), those whose every path dies after one escaped, and the
    /// subtrees taken whole without walking them (see `StackSetDFA.safeBytes`). Nil when it would
    /// visit more than `budget` nodes.
    private func walk(from startSet: Int32, dfa: StackSetDFA, pool: inout StackPool,
                      budget: Int = .max)
        -> (accepted: TokenRanges, uncertain: TokenRanges, skipped: Int, skippedText: Int)? {
        let trie = tokens.trie
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
        var skippedSubtrees = 0, skippedText = 0
        var overBudget = false
        let nodeCount = trie.nodeCount
        trie.byte.withUnsafeBufferPointer { byteOf in
        trie.depth.withUnsafeBufferPointer { depthOf in
        trie.skip.withUnsafeBufferPointer { skipOf in
        trie.tokenStart.withUnsafeBufferPointer { tokenStart in
        trie.inner.withUnsafeBufferPointer { innerOf in
        trie.subtreeLowBytes.withUnsafeBufferPointer { lowBytesOf in
        trie.subtreeShape.withUnsafeBufferPointer { shapeOf in
            var i = 1
            var table = dfa.table  // re-read after `fill`, which may grow it
            var safe = dfa.safe  // likewise
            var safeSets = dfa.safeSets
            var left = budget
            while i < nodeCount {
                left &-= 1
                if left < 0 { overBudget = true; break }
                let d = Int(depthOf[i])
                let set = setAt[d &- 1]
                let inner = innerOf[i]
                if inner >= 0 && skipsSafeSubtrees {
                    // A subtree whose bytes all keep the walk alive from here is accepted whole.
                    var sid = safe[Int(set)]
                    if sid < StackSetDFA.unanalysed {
                        // Not analysed until met often enough to repay it.
                        safe[Int(set)] = sid &+ 1
                    } else if sid == StackSetDFA.unanalysed {
                        sid = dfa.safeBytes(of: set, &pool)
                        table = dfa.table
                        safe = dfa.safe
                        safeSets = dfa.safeSets
                    }
                    if sid >= 0, safeSets[Int(sid)].takes(shape: shapeOf[Int(inner)], lowBytes: lowBytesOf[Int(inner)]) {
                        let after = Int(skipOf[i])
                        skippedSubtrees &+= 1
                        if shapeOf[Int(inner)] & TokenTrie.hasHighByte != 0 { skippedText &+= 1 }
                        accepted.add(tokenStart[i], tokenStart[after])
                        i = after
                        continue
                    }
                }
                let escapedAbove = escapedAt[d &- 1]
                let byte = byteOf[i]
                var v = table[Int(set) &* 256 &+ Int(byte)]
                if v < 0 {
                    v = dfa.fill(set, byte, &pool)
                    table = dfa.table
                    safe = dfa.safe
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
        }
        }
        }
        if overBudget { return nil }
        accepted.finish()
        uncertain.finish()
        return (accepted, uncertain, skippedSubtrees, skippedText)
    }
}

/// A grammar index's entries by key, bounded (see `GrammarTokenIndex.maxCacheBytes`).
struct EntryCache {
    var entries: TwoGenerations<MaskKey, MaskEntry>
    var filled = 0
}

/// The scratch state entry walks share: a stack pool and the stack-set DFA over it. Started afresh
/// when it has grown large.
final class EntryWalker {
    static let maxNodes = 1 << 18
    static let maxSets = 2048
    let grammar: CompiledGrammar
    var pool = StackPool()
    private(set) var dfa: StackSetDFA
    /// Subtrees walks took whole (see `StackSetDFA.safeBytes`), for tests.
    var skippedSubtrees = 0
    /// Those of them with bytes 0x80 and above (see `SafeBytes.text`), for tests.
    var skippedTextSubtrees = 0
    /// Entries a narrow walk filled (see `GrammarTokenIndex.narrowEntry`), for tests.
    var narrowEntries = 0
    /// Walks of states' stacks this walker made (see `GrammarTokenIndex.stateEntry`), for tests.
    var stateWalks = 0

    /// `searchesText`: whether its DFA looks for text its sets keep alive (see `StackSetDFA.searchesText`).
    init(grammar: CompiledGrammar, searchesText: Bool = true, findsOpenText: Bool = true) {
        self.grammar = grammar
        dfa = StackSetDFA(grammar: grammar, searchesText: searchesText, findsOpenText: findsOpenText)
    }

    /// Sets whose text was taken within a horizon (`StackSetDFA.aliveWithin`), for tests.
    var textWithinHorizon: Int { retiredTextWithinHorizon + dfa.textWithinHorizon }
    private var retiredTextWithinHorizon = 0
    /// Entries made from the open text entry (see `GrammarTokenIndex.openTextEntry`), for tests.
    var openTextEntries = 0
    /// Sets holding an open text rule's stacks (`StackPool.holdsOpenText`), for tests.
    var openTextSets: Int { retiredOpenTextSets + dfa.openTextSets }
    private var retiredOpenTextSets = 0

    func prepare() {
        if pool.count > Self.maxNodes || dfa.setCount > Self.maxSets {
            retiredTextWithinHorizon += dfa.textWithinHorizon
            retiredOpenTextSets += dfa.openTextSets
            pool = StackPool()
            // As large as the last one from the start: a walker that filled one DFA fills the next,
            // and growing copies every row again at each doubling.
            dfa = StackSetDFA(grammar: grammar, searchesText: dfa.searchesText, findsOpenText: dfa.findsOpenText,
                              capacity: dfa.capacity)
        }
    }

    /// The pool, moved out (so the caller mutates it without copying); put it back after.
    func takePool() -> StackPool {
        let p = pool
        pool = StackPool()
        return p
    }
}

/// The stack sets met during one entry's trie walk, interned, with each set's transition on each
/// byte computed once: a lazily built DFA. String content, where almost every token is allowed,
/// keeps returning to the same few sets, so most trie nodes cost one table read.
final class StackSetDFA {
    let grammar: CompiledGrammar
    /// The sets met, interned.
    private var sets: SetIndex
    /// Per set, 256 entries: -1 not computed yet, else (next set + 1) << 2 | escaped << 1 | accepting
    /// (0: no stack takes the byte).
    private(set) var table: UnsafeMutablePointer<Int32>
    /// Per set: `unanalysed`, `noSafeBytes`, or an index in `safeSets` (see `safeBytes`).
    private(set) var safe: UnsafeMutablePointer<Int32>
    private(set) var safeSets: [SafeBytes] = []
    /// Sets whose text search (`aliveRegion`) failed, or met one that did.
    private var textRefuted = Set<Int32>()
    /// Per set: the bytes some member's terminal takes.
    private var takes: [ByteSet] = []
    /// Sets the table has room for (a power of two).
    private(set) var capacity: Int
    static let unanalysed: Int32 = -2
    static let noSafeBytes: Int32 = -1
    /// Sets reached after some number of safe bytes: at most this many (else none is kept).
    static let maxRegion = 64
    /// Safe bytes are followed this far at most (a horizon of this many bytes is kept); below
    /// `TokenTrie.maxHeight`, where subtree heights are clamped.
    static let maxHorizon = 16
    /// A shorter horizon is not worth keeping: the dying sets' bytes are dropped instead.
    static let minHorizon = 3
    /// Inner trie nodes a walk meets in a set before its safe bytes are looked for.
    static let visitsBeforeAnalysis: Int32 = 128
    /// Fewer safe bytes than this are not kept (nor looked for in a set taking fewer).
    static let minSafeBytes = 16

    /// Whether `safeBytes` looks for text (`aliveRegion`): not where sets are never met again (walks
    /// of a matcher's whole stacks), as the search costs more than one walk saves.
    let searchesText: Bool
    /// The index in `safeSets` given at once to every set holding an open text rule's stacks
    /// (`StackPool.holdsOpenText`): text of any length whose ASCII is `openTextBytes`; -1 when
    /// the grammar has no open text rules.
    private let openTextSafe: Int32
    /// Characters a JSON string holds unescaped, as bytes: printable ASCII but quote and backslash.
    static let openTextBytes: ByteSet = {
        var b = ByteSet(range: 0x20...0x7F)
        b.formIntersection(ByteSet(0x22).union(ByteSet(0x5C)), complemented: true)
        return b
    }()
    /// Whether new sets are looked at for open text (see `openTextSafe`).
    let findsOpenText: Bool
    /// Sets given `openTextSafe` when made, for tests.
    private(set) var openTextSets = 0

    /// `capacity`: sets to make room for at first (rounded up to a power of two, at least 16).
    init(grammar: CompiledGrammar, searchesText: Bool = true, findsOpenText: Bool = true, capacity: Int = 16) {
        self.grammar = grammar
        self.searchesText = searchesText
        var room = 16
        while room < min(capacity, 1 << 16) { room *= 2 }
        self.capacity = room
        sets = SetIndex(capacity: room)
        if room > 16 { takes.reserveCapacity(room) }
        table = .allocate(capacity: room * 256)
        safe = .allocate(capacity: room)
        self.findsOpenText = findsOpenText
        if !findsOpenText || grammar.openTextRuleAt.isEmpty {
            openTextSafe = -1
        } else {
            openTextSafe = 0
            safeSets.append(SafeBytes(bytes: Self.openTextBytes, horizon: .max, text: true))
        }
    }

    deinit {
        table.deallocate()
        safe.deallocate()
    }

    var setCount: Int { sets.count }

    func intern(_ m: [Int32], _ pool: inout StackPool) -> Int32 {
        let before = sets.count
        let id = m.withUnsafeBufferPointer { intern($0, positions: pool.pos) }
        if sets.count > before { markOpenText(id, pool) }
        return id
    }

    /// Whether `set` holds an open text rule's stacks (see `StackPool.holdsOpenText`).
    func holdsOpenText(_ set: Int32) -> Bool { openTextSafe >= 0 && safe[Int(set)] == openTextSafe }

    /// Gives a new set `openTextSafe` when it holds an open text rule's stacks: its text is then
    /// taken whole at once, however deep, with no analysis (see `safeBytes`).
    private func markOpenText(_ id: Int32, _ pool: borrowing StackPool) {
        guard openTextSafe >= 0 else { return }
        let holds = sets.words.withUnsafeBufferPointer {
            pool.holdsOpenText(UnsafeBufferPointer(rebasing: $0[sets.range(id)]), grammar)
        }
        if holds {
            safe[Int(id)] = openTextSafe
            openTextSets += 1
        }
    }

    /// The id of the set `m` (sorted stack nodes, whose positions are `positions`), made when new.
    private func intern(_ m: UnsafeBufferPointer<Int32>, positions: [Int32]) -> Int32 {
        let hash = SetIndex.hash(m)
        if let id = sets.find(m, hash: hash) { return id }
        grow()
        // A byte no member's terminal takes is dead without computing anything (most bytes, for
        // most sets: a walk tries every child byte of every live trie node).
        var next = ByteSet()
        for n in m { next.formUnion(grammar.terminals[Int(positions[Int(n)])]) }
        let row = table + sets.count * 256
        Self.spread(next.w0, into: row)
        Self.spread(next.w1, into: row + 64)
        Self.spread(next.w2, into: row + 128)
        Self.spread(next.w3, into: row + 192)
        // A set taking few bytes has few tokens to take whole.
        safe[sets.count] = next.count < Self.minSafeBytes ? Self.noSafeBytes : Self.unanalysed - Self.visitsBeforeAnalysis
        takes.append(next)
        return sets.append(m, hash: hash)
    }

    /// Writes −1 (not computed yet) where `word` has a bit and 0 (dead) elsewhere, for 64 bytes:
    /// no branch per byte, so it vectorizes.
    @inline(__always)
    private static func spread(_ word: UInt64, into row: UnsafeMutablePointer<Int32>) {
        for b in 0..<64 { row[b] = 0 &- Int32(truncatingIfNeeded: (word &>> UInt64(b)) & 1) }
    }

    /// A set with no members whose transition on every byte is `row` (an encoded table value).
    func opaque(row: Int32) -> Int32 {
        grow()
        (table + sets.count * 256).initialize(repeating: row, count: 256)
        safe[sets.count] = Self.unanalysed - Self.visitsBeforeAnalysis
        takes.append(row == 0 ? ByteSet() : .all)
        // Never found by `intern` (no stack set is empty).
        return sets.append(UnsafeBufferPointer(start: nil, count: 0), hash: 0)
    }

    private func grow() {
        guard sets.count == capacity else { return }
        let bigger = UnsafeMutablePointer<Int32>.allocate(capacity: capacity * 2 * 256)
        bigger.moveInitialize(from: table, count: capacity * 256)
        table.deallocate()
        table = bigger
        let biggerSafe = UnsafeMutablePointer<Int32>.allocate(capacity: capacity * 2)
        biggerSafe.moveInitialize(from: safe, count: capacity)
        safe.deallocate()
        safe = biggerSafe
        capacity *= 2
    }

    /// The set's transition on `byte`: the next set, or −1 when no stack takes it.
    private func step(_ set: Int32, _ byte: UInt8, _ pool: inout StackPool) -> Int32 {
        var v = table[Int(set) &* 256 &+ Int(byte)]
        if v < 0 { v = fill(set, byte, &pool) }
        return (v >> 2) &- 1
    }

    /// Bytes `B` and a horizon `h` such that every token of at most `h` bytes, all in `B`, is
    /// alive after each of its bytes when read from `start` (so a walk accepts it). Returns an
    /// index in `safeSets`, or `noSafeBytes`.
    ///
    /// `B` starts as the bytes into sets taking at least half as many bytes as `start` (a set that
    /// takes few, inside a longer character or after a backslash, would soon drop them); then the
    /// sets reached after 1, 2, … bytes of `B` are followed until one dies on a byte of `B` (the
    /// horizon: a counted repetition such as `[a-f0-9]{40}` has one, `40 − k` at its `k`th
    /// character) or the sequence of reached sets repeats (no horizon: string content, a pattern
    /// searched inside a string). A death within `minHorizon` bytes drops the bytes leading into
    /// the dying sets instead, and tries again. Without a horizon, every set reached gets the same
    /// answer, which holds from it too.
    func safeBytes(of start: Int32, _ pool: inout StackPool) -> Int32 {
        let known = safe[Int(start)]
        if known >= Self.noSafeBytes { return known }
        safe[Int(start)] = Self.noSafeBytes
        var alive = ByteSet()
        takes[Int(start)].forEachByte { if step(start, $0, &pool) >= 0 { alive.insert($0) } }
        var bytes = ByteSet()
        alive.forEachByte { b in
            if 2 * takes[Int(step(start, b, &pool))].count >= alive.count { bytes.insert(b) }
        }
        var reached: Set<Int32> = [start]
        var horizon = Int32.max
        rounds: while bytes.count >= Self.minSafeBytes {
            var level: [Int32] = [start]
            reached = [start]
            var levels: Set<[Int32]> = [level]
            for depth in 0..<Self.maxHorizon {
                var next = Set<Int32>()
                var dying = Set<Int32>()
                for s in level {
                    bytes.forEachByte { b in
                        let t = step(s, b, &pool)
                        if t < 0 { dying.insert(s) } else { next.insert(t) }
                    }
                }
                if !dying.isEmpty {
                    if depth >= Self.minHorizon {
                        horizon = Int32(depth)
                        break rounds
                    }
                    // Too soon: keep out the bytes that lead into the dying sets.
                    var drop = ByteSet()
                    for s in reached {
                        bytes.forEachByte { b in
                            let t = step(s, b, &pool)
                            if t >= 0, dying.contains(t) { drop.insert(b) }
                        }
                    }
                    if drop.isEmpty { return Self.noSafeBytes }
                    bytes.formIntersection(drop, complemented: true)
                    continue rounds
                }
                guard next.count <= Self.maxRegion else { return Self.noSafeBytes }
                reached.formUnion(next)
                level = next.sorted()
                if !levels.insert(level).inserted { break rounds }  // repeats: no horizon
            }
            horizon = Int32(Self.maxHorizon)
            break
        }
        guard bytes.count >= Self.minSafeBytes else { return Self.noSafeBytes }
        // Text: when every string of safe ASCII bytes and well-formed UTF-8 characters stays alive
        // (string content, a pattern searched inside a string), subtrees of such tokens are taken
        // whole too. Tried only without a horizon (the sets repeat soon, so the search is small);
        // one that fails (text that dies, a region too large) marks the sets it met between
        // characters so that none of them searches again: most of them reach the same end.
        var text = false
        if searchesText, bytes.w2 | bytes.w3 == 0, takes[Int(start)].isSuperset(of: Self.leadBytes),
           !textRefuted.contains(start) {
            if horizon == .max {
                let (alive, region) = aliveRegion(from: reached, ascii: bytes, &pool)
                if alive {
                    text = true
                    reached = region
                } else {
                    textRefuted.formUnion(region)
                }
            } else {
                // Within the horizon: a long searched pattern (`[a-z0-9_-]{162}`, a UUID) counts
                // the characters read so far, so its sets never repeat and each is new to a walk.
                text = aliveWithin(horizon, from: start, ascii: bytes, &pool)
                if text { textWithinHorizon += 1 }
            }
        }
        let id = Int32(safeSets.count)
        safeSets.append(SafeBytes(bytes: bytes, horizon: horizon, text: text))
        safe[Int(start)] = id
        if horizon == .max {
            for s in reached where safe[Int(s)] <= Self.unanalysed { safe[Int(s)] = id }
        }
        return id
    }

    /// Pairs of a set and a `UTF8Prefix` state visited at most by `aliveRegion`: string content
    /// closes within a dozen; a search that has not closed by then costs more than it would save.
    static let maxAliveRegion = 128
    /// The bytes that begin a character of two to four bytes.
    static let leadBytes = ByteSet(range: 0xC2...0xF4)

    /// Whether every string of `ascii` bytes and well-formed UTF-8 characters (the last possibly
    /// cut off) read from each of `starts` leaves some stack alive after each byte, and the sets
    /// met between characters. A depth-first search over pairs of a set and a `UTF8Prefix` state:
    /// each pair's every allowed byte must lead somewhere alive, and the pairs met, closed under
    /// it, prove the answer for every such string; false too when more than `maxAliveRegion`
    /// pairs are met (the sets met so far are then returned).
    func aliveRegion(from starts: Set<Int32>, ascii: ByteSet, _ pool: inout StackPool) -> (alive: Bool, sets: Set<Int32>) {
        // Per set, the UTF-8 states it was met in (one bit each).
        var met = [UInt8](repeating: 0, count: setCount)
        var pairs = 0
        var work: [(set: Int32, state: Int)] = []
        func between() -> Set<Int32> {
            var sets = Set<Int32>()
            for (s, states) in met.enumerated() where states & 1 != 0 { sets.insert(Int32(s)) }
            return sets
        }
        for s in starts where met[Int(s)] == 0 {
            met[Int(s)] = 1
            pairs += 1
            work.append((s, 0))
        }
        while let (s, state) = work.popLast() {
            let alive = textStep(from: s, state: state, ascii: ascii, met: &met, &pool) { t, next in
                pairs += 1
                work.append((t, next))
            }
            if !alive || pairs > Self.maxAliveRegion { return (false, between()) }
        }
        return (true, between())
    }

    /// Reads from set `s`, in `UTF8Prefix` state `state`, every byte text may continue with there
    /// (an `ascii` byte between characters, else a byte of a well-formed UTF-8 character), and calls
    /// `reached` with each pair of a set and a UTF-8 state met for the first time (`met`: per set, a
    /// bit per state). False, stopping there, when a byte leaves no stack alive. Bytes in a run
    /// that goes where the one before went (most of one) need no lookup of their pair.
    private func textStep(from s: Int32, state: Int, ascii: ByteSet, met: inout [UInt8], _ pool: inout StackPool,
                          reached: (Int32, Int) -> Void) -> Bool {
        var lastV: Int32 = 0, lastAfter = -1
        func visit(_ b: UInt8, _ after: Int) -> Bool {
            var v = table[Int(s) &* 256 &+ Int(b)]
            if v < 0 { v = fill(s, b, &pool) }
            if v == lastV && after == lastAfter { return true }
            lastV = v; lastAfter = after
            let t = Int((v >> 2) &- 1)
            if t < 0 { return false }
            if t >= met.count { met.append(contentsOf: repeatElement(0, count: t - met.count + 64)) }
            if met[t] & 1 << after == 0 {
                met[t] |= 1 << after
                reached(Int32(t), after)
            }
            return true
        }
        if state == 0 {
            for b in UInt8(0)...0x7F where ascii.contains(b) { guard visit(b, 0) else { return false } }
        }
        for b in UInt8(state == 0 ? 0xC2 : 0x80)...UInt8(state == 0 ? 0xF4 : 0xBF) {
            if let after = UTF8Prefix.next(state, b) { guard visit(b, after) else { return false } }
        }
        return true
    }

    /// Pairs of a set and a `UTF8Prefix` state `aliveWithin` expands at most.
    static let maxAliveWithin = 1024
    /// Per pair of a set and a `UTF8Prefix` state (set · 8 + state): the length up to which every
    /// text string from it was shown alive by `aliveWithin` (0: not shown), for text whose ASCII
    /// bytes are `aliveDepthBytes` (a search for other bytes starts the table afresh).
    private var aliveDepth: [UInt8] = []
    private var aliveDepthBytes = ByteSet()
    /// Sets whose text `aliveWithin` showed alive, for tests.
    private(set) var textWithinHorizon = 0

    /// Whether every string of at most `depth` bytes, each an `ascii` byte or part of a well-formed
    /// UTF-8 character (the last possibly cut off), read from `start` leaves some stack alive after
    /// each byte. Breadth first over pairs of a set and a `UTF8Prefix` state, each pair expanded
    /// once, at the least depth it is met (where the most bytes remain), unless an earlier search
    /// showed it alive far enough (`aliveDepth`: the sets of a long pattern's consecutive counts
    /// share most of their searches); false when more than `maxAliveWithin` pairs are expanded.
    func aliveWithin(_ depth: Int32, from start: Int32, ascii: ByteSet, _ pool: inout StackPool) -> Bool {
        let depth = Int(min(depth, 255))
        if ascii != aliveDepthBytes {
            aliveDepth.removeAll(keepingCapacity: true)
            aliveDepthBytes = ascii
        }
        var met = [UInt8](repeating: 0, count: setCount)  // per set, the UTF-8 states it was met in
        met[Int(start)] = 1
        var expanded: [(pair: Int, remaining: Int)] = []
        var level: [(set: Int32, state: Int)] = [(start, 0)], next: [(set: Int32, state: Int)] = []
        for d in 0..<depth {
            let remaining = depth - d
            next.removeAll(keepingCapacity: true)
            for (s, state) in level {
                let pair = Int(s) << 3 | state
                if pair < aliveDepth.count, Int(aliveDepth[pair]) >= remaining { continue }
                expanded.append((pair, remaining))
                if expanded.count > Self.maxAliveWithin { return false }
                guard textStep(from: s, state: state, ascii: ascii, met: &met, &pool,
                               reached: { next.append(($0, $1)) }) else { return false }
            }
            if next.isEmpty { break }
            swap(&level, &next)
        }
        let needed = (Int(setCount) << 3) + 8
        if aliveDepth.count < needed { aliveDepth.append(contentsOf: repeatElement(0, count: needed - aliveDepth.count)) }
        for (pair, remaining) in expanded where Int(aliveDepth[pair]) < remaining { aliveDepth[pair] = UInt8(remaining) }
        return true
    }

    /// Computes and stores the transition of `set` on `byte`.
    func fill(_ set: Int32, _ byte: UInt8, _ pool: inout StackPool) -> Int32 {
        // The members into the pool's scratch storage (keeping its capacity), the next set after
        // them, sorted in place and looked up there.
        let members = sets.range(set)
        pool.sets.removeAll(keepingCapacity: true)
        sets.words.withUnsafeBufferPointer { pool.sets.append(contentsOf: UnsafeBufferPointer(rebasing: $0[members])) }
        let (r, flags) = pool.advance(grammar, 0..<members.count, byte)
        let id: Int32
        if r.isEmpty {
            id = -1
        } else {
            pool.sets.withUnsafeMutableBufferPointer {
                var next = UnsafeMutableBufferPointer(rebasing: $0[r])
                next.sort()
            }
            let before = sets.count
            id = pool.sets.withUnsafeBufferPointer { intern(UnsafeBufferPointer(rebasing: $0[r]), positions: pool.pos) }
            if sets.count > before { markOpenText(id, pool) }
        }
        let v = (id + 1) << 2 | (flags.accepting ? 1 : 0) | (flags.escaped ? 2 : 0)
        // Which members take a byte decides where it goes (what follows a terminal does not
        // depend on which of its bytes was read), so every byte that the same members take goes
        // to the same place: string content fills its row in a few calls, not one per byte.
        var same = ByteSet.all
        for k in 0..<members.count {
            let t = grammar.terminals[Int(pool.pos[Int(pool.sets[k])])]
            same.formIntersection(t, complemented: !t.contains(byte))
        }
        let row = table + Int(set) * 256
        same.forEachByte { row[Int($0)] = v }
        return v
    }
}

/// Bytes from which every token of at most `horizon` bytes, all among them, is taken whole (see
/// `StackSetDFA.safeBytes`); `Int32.max` when any length is.
struct SafeBytes {
    var bytes: ByteSet
    var horizon: Int32
    /// Whether well-formed UTF-8 characters are safe too (within the same horizon): a
    /// subtree with high bytes is taken whole when its paths are well-formed prefixes
    /// (`TokenTrie.utf8Prefixes`) — text in any script inside string content.
    var text = false

    /// Whether a subtree of this shape and these low bytes (see `TokenTrie.subtreeShape`) is taken
    /// whole: no deeper than the horizon (a height clamped at `maxHeight` passes only an unbounded
    /// one, horizons being shorter), its low bytes among the safe ones, and any high byte among
    /// them too (known only when all high bytes are).
    @inline(__always)
    func takes(shape: UInt8, lowBytes: (UInt64, UInt64)) -> Bool {
        Int32(shape & TokenTrie.maxHeight) <= horizon
            && (shape & TokenTrie.hasHighByte == 0 || bytes.w2 & bytes.w3 == ~0
                || text && shape & TokenTrie.utf8Prefixes != 0)
            && lowBytes.0 & ~bytes.w0 | lowBytes.1 & ~bytes.w1 == 0
    }
}

/// Ranges of the trie's token order, merged where they touch.
struct TokenRanges {
    private(set) var ranges: [Range<Int32>] = []
    private(set) var count = 0
    /// The run being extended (not yet in `ranges`): a walk adds touching ranges in a row.
    private var lo: Int32 = 0, hi: Int32 = 0

    @inline(__always)
    mutating func add(_ a: Int32, _ b: Int32) {
        guard a < b else { return }
        count += Int(b - a)
        if a == hi && hi > lo {
            hi = b
        } else {
            if hi > lo { ranges.append(lo..<hi) }
            lo = a
            hi = b
        }
    }

    /// Moves the run being extended into `ranges`; call before reading them.
    mutating func finish() {
        if hi > lo { ranges.append(lo..<hi) }
        lo = 0
        hi = 0
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

    /// The bytes its arrays hold.
    var byteCount: Int { 8 * acceptedWords.count + 4 * (acceptedList.count + uncertain.count + uncertainPrefix.count) }

    init(accepted: TokenRanges, uncertain ranges: TokenRanges, order: [Int32], tokens: TokenTable) {
        let words = tokens.maskWordCount
        if accepted.count >= words {
            var bits = [UInt64](repeating: 0, count: words)
            bits.withUnsafeMutableBufferPointer { bits in
            order.withUnsafeBufferPointer { order in
                for r in accepted.ranges {
                    for k in r { let t = order[Int(k)]; bits[Int(t) &>> 6] |= 1 &<< UInt64(t & 63) }
                }
            }
            }
            acceptedWords = bits
            acceptedList = []
        } else {
            acceptedWords = []
            acceptedList = accepted.ranges.flatMap { order[Int($0.lowerBound)..<Int($0.upperBound)] }
        }
        // Common prefixes from the trie: inside a range, each token's with its neighbour; a range's
        // first token is compared with the last token of the range before.
        let trie = tokens.trie
        var uncertain: [Int32] = [], prefix: [Int32] = []
        uncertain.reserveCapacity(ranges.count)
        prefix.reserveCapacity(ranges.count)
        for r in ranges.ranges {
            for k in r {
                let t = order[Int(k)]
                if k == r.lowerBound {
                    prefix.append(uncertain.last.map { Self.commonPrefix($0, t, tokens) } ?? 0)
                } else {
                    prefix.append(trie.lcp[Int(k)])
                }
                uncertain.append(t)
            }
        }
        self.uncertain = uncertain
        uncertainPrefix = prefix
    }

    /// `base`'s accepted tokens and `more` (ids), with `uncertain` ids in trie order.
    init(extending base: MaskEntry, accepting more: [Int32], uncertain: [Int32], prefixes: [Int32], tokens: TokenTable) {
        let words = tokens.maskWordCount
        if !base.acceptedWords.isEmpty || base.acceptedList.count + more.count >= words {
            var bits = base.acceptedWords.isEmpty ? [UInt64](repeating: 0, count: words) : base.acceptedWords
            bits.withUnsafeMutableBufferPointer { bits in
                for t in base.acceptedList { bits[Int(t) &>> 6] |= 1 &<< UInt64(t & 63) }
                for t in more { bits[Int(t) &>> 6] |= 1 &<< UInt64(t & 63) }
            }
            acceptedWords = bits
            acceptedList = []
        } else {
            acceptedWords = []
            acceptedList = base.acceptedList + more
        }
        self.uncertain = uncertain
        uncertainPrefix = prefixes
    }

    /// `base` kept to the tokens whose first byte is in `bytes` (the rest rejected).
    init(restricting base: MaskEntry, toFirstBytes bytes: ByteSet, tokens: TokenTable) {
        let trie = tokens.trie
        if base.acceptedWords.isEmpty {
            acceptedWords = []
            acceptedList = base.acceptedList.filter { bytes.contains(tokens.firstByte[Int($0)]) }
        } else {
            // Copy the kept first bytes' tokens, or clear the others': whichever touches fewer.
            var keptTokens = 0
            for b in 0...255 where bytes.contains(UInt8(b)) { keptTokens += trie.firstByteRanges[b].count }
            var bits: [UInt64]
            let keeps = keptTokens * 2 <= trie.order.count
            bits = keeps ? [UInt64](repeating: 0, count: base.acceptedWords.count) : base.acceptedWords
            bits.withUnsafeMutableBufferPointer { bits in
            base.acceptedWords.withUnsafeBufferPointer { from in
            trie.order.withUnsafeBufferPointer { order in
                for b in 0...255 where bytes.contains(UInt8(b)) == keeps {
                    for k in trie.firstByteRanges[b] {
                        let t = Int(order[Int(k)])
                        if keeps {
                            bits[t &>> 6] |= from[t &>> 6] & (1 &<< UInt64(t & 63))
                        } else {
                            bits[t &>> 6] &= ~(1 &<< UInt64(t & 63))
                        }
                    }
                }
            }
            }
            }
            acceptedWords = bits
            acceptedList = []
        }
        // Trie order keeps a first byte's tokens together, so a kept token whose predecessor was
        // dropped starts a new first byte: its common prefix with the previous kept one is empty.
        var uncertain: [Int32] = [], prefix: [Int32] = []
        var previousKept = false
        for (k, t) in base.uncertain.enumerated() {
            guard bytes.contains(tokens.firstByte[Int(t)]) else { previousKept = false; continue }
            uncertain.append(t)
            prefix.append(previousKept ? base.uncertainPrefix[k] : 0)
            previousKept = true
        }
        self.uncertain = uncertain
        uncertainPrefix = prefix
    }

    /// The common prefix length of tokens `a` and `b`, read from the table's flat bytes.
    static func commonPrefix(_ a: Int32, _ b: Int32, _ tokens: TokenTable) -> Int32 {
        tokens.flatBytes.withUnsafeBufferPointer { flat in
            tokens.flatStart.withUnsafeBufferPointer { start in
                let i = Int(start[Int(a)]), j = Int(start[Int(b)])
                let n = min(Int(start[Int(a) + 1]) - i, Int(start[Int(b) + 1]) - j)
                var k = 0
                while k < n && flat[i + k] == flat[j + k] { k += 1 }
                return Int32(k)
            }
        }
    }
}
