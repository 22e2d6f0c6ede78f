import LocalLMSync

/// Mask entries shared across grammars over one vocabulary. An entry depends only on the grammar
/// reachable from its key's frames (and whether the stack ends below them), so two grammars that
/// share a structure — JSON string content, numbers, any value, whitespace — share its entry: the
/// signature is that reachable part written out with rules renumbered in the order they are met.
extension GrammarTokenIndex {
    /// Signatures longer than this (in 32-bit words) are not shared (large recursive grammars).
    static let maxSignatureWords = 2048

    /// The key's reachable grammar, canonically numbered; nil when too large to be worth sharing.
    ///
    /// With `anyFirstByte`, the top terminal is written as one that takes any byte: the signature of
    /// what follows it, shared by every byte set in that place (see `firstByteEntry`).
    func signature(of key: MaskKey, maxWords: Int = maxSignatureWords, anyFirstByte: Bool = false) -> [UInt32]? {
        // A frame that alone reaches too much grammar makes any key holding it too long: known
        // per position after the first time, so per-schema keys fail without being written out.
        for v in key.slots {
            if v == 0 || v == Self.rootMark { break }
            if v & Self.groupMark != 0 { continue }
            if reachWords(from: Int32(v) - 1) > maxWords { return nil }
        }
        return writeSignature(of: key, maxWords: maxWords, anyFirstByte: anyFirstByte)
    }

    /// The length of the signature of a key holding only position `p` (at most
    /// `maxSignatureWords + 1`), memoized per position.
    func reachWords(from p: Int32) -> Int {
        if let n = reach.withLock({ $0[p] }) { return Int(n) }
        let key = MaskKey(lo: UInt64(UInt32(p + 1)), hi: 0)
        let n = writeSignature(of: key, maxWords: Self.maxSignatureWords, anyFirstByte: false)?.count ?? Self.maxSignatureWords + 1
        reach.withLock { $0[p] = Int32(n) }
        return n
    }

    private func writeSignature(of key: MaskKey, maxWords: Int, anyFirstByte: Bool) -> [UInt32]? {
        let g = grammar
        var out: [UInt32] = []
        out.reserveCapacity(256)
        var canonical: [Int32: UInt32] = [:]
        var queue: [Int32] = []
        var generalTop = anyFirstByte
        func emit(from p: Int32) -> Bool {
            var i = Int(p)
            while i < g.kinds.count {
                switch g.kinds[i] {
                case .terminal where generalTop:
                    generalTop = false
                    out.append(8)
                case .terminal:
                    let t = g.terminals[i]
                    if let (lo, hi) = t.singleRange {
                        // Most terminals are one byte range: two words instead of nine.
                        out.append(10); out.append(UInt32(lo) << 8 | UInt32(hi))
                    } else {
                        out.append(1)
                        out.append(UInt32(truncatingIfNeeded: t.w0)); out.append(UInt32(truncatingIfNeeded: t.w0 >> 32))
                        out.append(UInt32(truncatingIfNeeded: t.w1)); out.append(UInt32(truncatingIfNeeded: t.w1 >> 32))
                        out.append(UInt32(truncatingIfNeeded: t.w2)); out.append(UInt32(truncatingIfNeeded: t.w2 >> 32))
                        out.append(UInt32(truncatingIfNeeded: t.w3)); out.append(UInt32(truncatingIfNeeded: t.w3 >> 32))
                    }
                case .rule:
                    let r = g.ruleRefs[i]
                    let c: UInt32
                    if let known = canonical[r] { c = known } else {
                        c = UInt32(canonical.count)
                        canonical[r] = c
                        queue.append(r)
                    }
                    out.append(2); out.append(c)
                case .end:
                    out.append(3)
                    return out.count <= maxWords
                }
                if out.count > maxWords { return false }
                i += 1
            }
            return false
        }
        for v in key.slots {
            if v == 0 { out.append(5); break }
            if v == Self.rootMark { out.append(6); break }
            if v & Self.groupMark != 0 {
                // A group: every terminal-first alternative of the rule, in order.
                let rule = Int(v & ~Self.groupMark)
                guard g.terminalStarts.indices.contains(rule) else { return nil }
                out.append(9); out.append(UInt32(g.terminalStarts[rule].count))
                for s in g.terminalStarts[rule] { guard emit(from: s) else { return nil } }
                continue
            }
            out.append(4)
            guard emit(from: Int32(v) - 1) else { return nil }
        }
        var head = 0
        while head < queue.count {
            let r = Int(queue[head])
            head += 1
            out.append(7); out.append(UInt32(g.ruleStarts[r].count))
            for s in g.ruleStarts[r] { guard emit(from: s) else { return nil } }
        }
        return out
    }
}

/// The shared entries of one vocabulary, bounded in count.
final class SharedMaskEntries: Sendable {
    static let maxEntries = 4096
    private let entries = SanitizableMutex<[HashedWords<UInt32>: MaskEntry]>([:])

    func entry(_ signature: [UInt32]) -> MaskEntry? {
        let key = HashedWords(signature)
        return entries.withLock { $0[key] }
    }

    func store(_ signature: [UInt32], _ entry: MaskEntry) {
        let key = HashedWords(signature)
        entries.withLock { if $0.count < Self.maxEntries { $0[key] = entry } }
    }
}
