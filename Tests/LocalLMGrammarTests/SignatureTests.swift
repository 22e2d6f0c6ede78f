import Testing
@testable import LocalLMGrammar

/// Shared mask entries are found by signature (`GrammarTokenIndex.signature(of:)`), written from
/// per-position templates (`writeSignature`). Every signature must equal the straightforward writing of the key's
/// reachable grammar — the reference below, which walks the positions one by one — or two grammars
/// would share an entry they do not share (or stop sharing one they do).
@Suite struct SignatureTests {
    static let sources: [(String, String)] = TokenMaskTests.grammars + [
        ("schema", ##"{"type":"object","properties":{"id":{"type":"string","pattern":"^[a-f0-9]{8}-x$"},"kind":{"enum":["a","b",3,null]},"items":{"type":"array","items":{"$ref":"#"}},"n":{"type":"number","minimum":0.5}},"additionalProperties":{"type":"boolean"}}"##),
        ("gbnf", ##"root ::= item ("," item)* ; item ::= [a-z]+ | "(" root ")" | "'" [^'\\]* "'""##.replacingOccurrences(of: " ; ", with: "\n")),
    ]

    /// The signature as written before templates: one position at a time, rules numbered in the
    /// order met.
    static func reference(_ g: CompiledGrammar, _ key: MaskKey, maxWords: Int, anyFirstByte: Bool) -> [UInt32]? {
        var out: [UInt32] = []
        var canonical: [Int32: UInt32] = [:]
        var queue: [Int32] = []
        var generalTop = anyFirstByte
        func emit(from p: Int32) -> Bool {
            var i = Int(p)
            while i >= 0 && i < g.kinds.count {
                switch g.kinds[i] {
                case .terminal where generalTop:
                    generalTop = false
                    out.append(8)
                case .terminal:
                    let t = g.terminals[i]
                    if let (lo, hi) = t.singleRange {
                        out.append(10); out.append(UInt32(lo) << 8 | UInt32(hi))
                    } else {
                        out.append(1)
                        for w in [t.w0, t.w1, t.w2, t.w3] {
                            out.append(UInt32(truncatingIfNeeded: w)); out.append(UInt32(truncatingIfNeeded: w >> 32))
                        }
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
            if v == GrammarTokenIndex.rootMark { out.append(6); break }
            if v & GrammarTokenIndex.groupMark != 0 {
                let rule = Int(v & ~GrammarTokenIndex.groupMark)
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

    @Test(arguments: 0..<sources.count)
    func templatesWriteTheReferenceSignature(_ which: Int) throws {
        let (kind, src) = Self.sources[which]
        let g = try TokenMaskTests.grammar(kind, src)
        let index = GrammarTokenIndex(grammar: g, tokens: TokenTable(tokenBytes: [[0x61], []], endOfGeneration: [1]))
        var rng = SplitMix64(seed: UInt64(which) + 11)
        let positions = UInt64(g.kinds.count)
        let groupRules = g.terminalStarts.indices.filter { g.terminalStarts[$0].count >= 2 }
        var compared = 0, shared = 0
        for step in 0..<4_000 {
            // A top slot (a position, or a group of a rule's terminal-first alternatives), up to three
            // frames below, then the unknown or the root.
            var slots: [UInt32] = []
            if !groupRules.isEmpty, rng.next() % 5 == 0 {
                slots.append(GrammarTokenIndex.groupMark | UInt32(groupRules[Int(rng.next() % UInt64(groupRules.count))]))
            } else {
                slots.append(UInt32(rng.next() % positions) + 1)
            }
            let below = Int(rng.next() % 4)
            for _ in 0..<below { slots.append(UInt32(rng.next() % positions) + 1) }
            if slots.count < 4 { slots.append(rng.next() % 2 == 0 ? 0 : GrammarTokenIndex.rootMark) }
            while slots.count < 4 { slots.append(0) }
            let key = MaskKey(lo: UInt64(slots[0]) | UInt64(slots[1]) << 32, hi: UInt64(slots[2]) | UInt64(slots[3]) << 32)
            let maxWords = [8, 40, 256, 1024, 2048][step % 5]
            // Only a terminal top is written with any first byte (as `firstByteEntry` asks).
            let top = Int(slots[0]) - 1
            let general = slots[0] & GrammarTokenIndex.groupMark == 0 && g.kinds[top] == .terminal && rng.next() % 3 == 0
            let written = index.writeSignature(of: key, maxWords: maxWords, anyFirstByte: general)
            let expected = Self.reference(g, key, maxWords: maxWords, anyFirstByte: general)
            #expect(written == expected, "key \(slots) maxWords \(maxWords) general \(general)")
            compared += 1
            if written != nil { shared += 1 }
        }
        #expect(compared == 4_000)
        #expect(shared > 100)  // the comparison covered written signatures, not only refusals
    }
}
