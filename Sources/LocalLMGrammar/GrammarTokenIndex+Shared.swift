import LocalLMSync

/// Mask entries shared across grammars over one vocabulary. An entry depends only on the grammar
/// reachable from its key's frames (and whether the stack ends below them), so two grammars that
/// share a structure — JSON string content, numbers, any value, whitespace — share its entry: the
/// signature is that reachable part written out with rules renumbered in the order they are met.
extension GrammarTokenIndex {
    /// Signatures longer than this (in 32-bit words) are not shared (large recursive grammars).
    static let maxSignatureWords = 2048

    /// The key's reachable grammar, canonically numbered; nil when too large to be worth sharing.
    func signature(of key: MaskKey) -> [UInt32]? {
        let g = grammar
        var out: [UInt32] = []
        out.reserveCapacity(256)
        var canonical: [Int32: UInt32] = [:]
        var queue: [Int32] = []
        func emit(from p: Int32) -> Bool {
            var i = Int(p)
            while i < g.kinds.count {
                switch g.kinds[i] {
                case .terminal:
                    let t = g.terminals[i]
                    out.append(1)
                    for w in [t.w0, t.w1, t.w2, t.w3] { out.append(UInt32(truncatingIfNeeded: w)); out.append(UInt32(truncatingIfNeeded: w >> 32)) }
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
                    return out.count <= Self.maxSignatureWords
                }
                if out.count > Self.maxSignatureWords { return false }
                i += 1
            }
            return false
        }
        for v in key.slots {
            if v == 0 { out.append(5); break }
            if v == Self.rootMark { out.append(6); break }
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
    private let entries = SanitizableMutex<[[UInt32]: MaskEntry]>([:])

    func entry(_ signature: [UInt32]) -> MaskEntry? { entries.withLock { $0[signature] } }

    func store(_ signature: [UInt32], _ entry: MaskEntry) {
        entries.withLock { if $0.count < Self.maxEntries { $0[signature] = entry } }
    }
}
