extension GrammarMatcher {
    /// Sets bit `t` (word `t >> 6`, bit `t & 63`) of `mask` for every token the grammar allows
    /// next, and clears the others. `mask` must hold `index.tokens.maskWordCount` words.
    /// End-of-generation tokens are allowed only when the grammar can end; other special tokens never.
    public mutating func fillNextTokenBitmask(into mask: inout [UInt64]) {
        mask.withUnsafeMutableBufferPointer { fillNextTokenBitmask(into: $0) }
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
        let keys = GrammarTokenIndex.keys(of: stacks, in: pool, grammar: grammar)
        // A mask of one entry without uncertain tokens is a copy of its accepted set: not worth storing.
        var worthStoring = keys.count > 1
        defer {
            if worthStoring, let state { index.stateMasks?.store(state, StateMasks.Stored(mask, words: tokens.maskWordCount)) }
        }
        for (key, group) in keys {
            let entry = index.entry(for: key)
            if !entry.uncertain.isEmpty { worthStoring = true }
            if !entry.acceptedWords.isEmpty {
                for w in 0..<tokens.maskWordCount { mask[w] |= entry.acceptedWords[w] }
            } else {
                for t in entry.acceptedList { mask[Int(t) >> 6] |= 1 << UInt64(t & 63) }
            }
            if !entry.uncertain.isEmpty {
                checkUncertain(entry, group: group, tokens: tokens, mask: mask)
            }
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
        for (k, t) in entry.uncertain.enumerated() {
            let id = Int(t)
            if mask[id >> 6] & (1 << UInt64(id & 63)) != 0 { continue }
            let bytes = tokens.tokenBytes[id]
            let shared = min(Int(entry.uncertainPrefix[k]), levels.count - 1, bytes.count)
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
