extension GrammarMatcher {
    /// Sets bit `t` (word `t >> 6`, bit `t & 63`) of `mask` for every token the grammar allows
    /// next, and clears the others. `mask` must hold `index.tokens.maskWordCount` words.
    /// End-of-generation tokens are allowed only when the grammar can end; other special tokens never.
    public mutating func fillNextTokenBitmask(into mask: inout [UInt64]) {
        mask.withUnsafeMutableBufferPointer { fillNextTokenBitmask(into: $0) }
    }

    /// The first token of the vocabulary on which `mask` and accepting that token (on a copy of
    /// this matcher) disagree, with what each said; nil when they agree on every token. Slow (a
    /// copy and an `accept` per token): the brute-force check of tests and of the MaskBench suite.
    package func firstDisagreement(with mask: [UInt64]) -> (token: Int, inMask: Bool, accepted: Bool)? {
        guard let tokens = index?.tokens else { return nil }
        for t in 0..<tokens.count {
            var copy = self
            let accepted = copy.accept(token: t)
            let inMask = mask.indices.contains(t >> 6) && mask[t >> 6] & (1 << UInt64(t & 63)) != 0
            if accepted != inMask { return (t, inMask, accepted) }
        }
        return nil
    }

    public mutating func fillNextTokenBitmask(into mask: UnsafeMutableBufferPointer<UInt64>) {
        for i in mask.indices { mask[i] = 0 }
        guard let index, !terminated else { return }
        let tokens = index.tokens
        guard mask.count >= tokens.maskWordCount else { return }
        if accepting {
            for t in tokens.endOfGeneration { mask[t >> 6] |= 1 << UInt64(t & 63) }
        }
        if stacks.isEmpty { return }
        // A state met before (by any matcher of this index) has its mask stored whole.
        let state = index.stateMasks == nil ? nil : HashedWords(stateFingerprint)
        if let state, let stored = index.stateMasks?.mask(state) {
            stored.write(into: mask)
            return
        }
        let mark = pool.mark
        defer { pool.truncate(to: mark) }
        // A rule's alternatives pushed together share a group entry; other stacks sharing a key
        // share its entry; uncertain tokens are checked against each entry's stacks together.
        let allKeys = GrammarTokenIndex.keys(of: stacks, in: pool, grammar: grammar, openText: index.findsOpenText)
        // A mask of one entry without uncertain tokens is a copy of its accepted set: not worth storing.
        var worthStoring = allKeys.count > 1
        defer {
            if worthStoring, let state { index.stateMasks?.store(state, StateMasks.Stored(mask, words: tokens.maskWordCount)) }
        }
        // Keys met in this state alone (after a value among many optional members, or inside a
        // member name beside many listed ones): their stacks' masks come from one walk of them all
        // together, which costs less than filling an entry for each. Mask of a union of stacks =
        // union of their masks, so the other keys' entries add theirs as usual.
        var keys = allKeys
        if index.walksNewNarrowKeysTogether, keys.count >= GrammarTokenIndex.minUncachedKeysForStateWalk {
            var together: [Int32] = [], rest: [(MaskKey, [Int32])] = []
            var walkedKeys = 0
            for (key, group) in keys {
                if index.isNarrow(key), !index.isCached(key) {
                    together.append(contentsOf: group)
                    walkedKeys += 1
                } else {
                    rest.append((key, group))
                }
            }
            if walkedKeys >= GrammarTokenIndex.minUncachedKeysForStateWalk,
               let whole = index.stateEntry(of: together, in: pool) {
                Self.orAccepted(whole, into: mask, words: tokens.maskWordCount)
                keys = rest
            }
        }
        for (key, group) in keys {
            let entry = index.entry(for: key)
            if !entry.uncertain.isEmpty { worthStoring = true }
            Self.orAccepted(entry, into: mask, words: tokens.maskWordCount)
            if !entry.uncertain.isEmpty {
                if entry.uncertain.count < GrammarTokenIndex.minUncertainForDFA
                    || !index.acceptUncertain(entry, of: group, in: pool, into: mask) {
                    checkUncertain(entry, group: group, tokens: tokens, mask: mask)
                }
            }
        }
    }

    /// Sets the bits of `entry`'s accepted tokens in `mask`.
    private static func orAccepted(_ entry: MaskEntry, into mask: UnsafeMutableBufferPointer<UInt64>, words: Int) {
        if !entry.acceptedWords.isEmpty {
            for w in 0..<words { mask[w] |= entry.acceptedWords[w] }
        } else {
            for t in entry.acceptedList { mask[Int(t) >> 6] |= 1 << UInt64(t & 63) }
        }
    }

    /// Walks the uncertain tokens in trie order, sharing work across common prefixes: `levels[d]`
    /// is the stack-set range after the first d bytes of the current token.
    private mutating func checkUncertain(_ entry: MaskEntry, group: [Int32], tokens: TokenTable,
                                         mask: UnsafeMutableBufferPointer<UInt64>) {
        pool.sets.removeAll(keepingCapacity: true)
        pool.sets.append(contentsOf: group)
        var levels: [Range<Int>] = [0..<group.count]
        var levelAccepting: [Bool] = [accepting]
        // The common prefix with the last token walked: the least of the neighbours' prefixes since
        // it (tokens already in the mask are not walked, and `levels` still holds that token's path).
        var sinceWalked = Int32.max
        for (k, t) in entry.uncertain.enumerated() {
            let id = Int(t)
            sinceWalked = min(sinceWalked, entry.uncertainPrefix[k])
            if mask[id >> 6] & (1 << UInt64(id & 63)) != 0 { continue }
            let bytes = tokens.tokenBytes[id]
            let shared = min(Int(sinceWalked), levels.count - 1, bytes.count)
            sinceWalked = .max
            if levels.count > shared + 1 {
                levels.removeSubrange((shared + 1)...)
                levelAccepting.removeSubrange((shared + 1)...)
                pool.sets.removeSubrange(levels[shared].upperBound...)
            }
            var d = shared
            var ok = true
            while d < bytes.count {
                let current = levels[d]
                if current.isEmpty { ok = false; break }
                let (r, flags) = pool.advance(grammar, current, bytes[d])
                levels.append(r)
                levelAccepting.append(flags.accepting)
                d += 1
            }
            if ok, let last = levels.last, !last.isEmpty || levelAccepting[levelAccepting.count - 1], levels.count == bytes.count + 1 {
                mask[id >> 6] |= 1 << UInt64(id & 63)
            }
        }
        pool.sets.removeAll(keepingCapacity: true)
    }
}
