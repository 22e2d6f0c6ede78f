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
            if v & (Self.groupMark | Self.openTextMark) != 0 { continue }
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

    /// The signature of `key`: its slots in order (group: 9, count, each alternative; open text
    /// rule: 10, count, each alternative; frame: 4, what follows it; 5 over the unknown; 6 at the root), each reached rule once (7, alternative count,
    /// each alternative) in the order first met, rules numbered in that order. Nil when longer than
    /// `maxWords`. Copies each alternative's words from the grammar's `SignatureTemplates` and
    /// renumbers their rule references.
    func writeSignature(of key: MaskKey, maxWords: Int, anyFirstByte: Bool) -> [UInt32]? {
        let g = grammar
        return templates.withLock { stored -> [UInt32]? in
            // Moved out while in use, so that writing an alternative does not copy the arrays.
            var t = stored ?? SignatureTemplates(positions: g.kinds.count)
            stored = nil
            defer { stored = t }
            var out: [UInt32] = []
            out.reserveCapacity(min(maxWords + 16, 256))
            var numbers = RuleNumbers()
            /// Appends the words of `p` to its alternative's end; with `general`, the terminal at `p`
            /// as one that takes any byte (8).
            func emit(from p: Int32, general: Bool) -> Bool {
                let pi = Int(p)
                guard t.prepare(pi, g) else { return false }
                var from = Int(t.offset[pi]), firstRef = Int(t.firstRef[pi])
                if general {
                    // Only a terminal is written general (`firstByteEntry` asks for no other).
                    guard g.kinds[pi] == .terminal else { return false }
                    out.append(8)
                    from = Int(t.offset[pi + 1])
                    firstRef = Int(t.firstRef[pi + 1])
                }
                let end = Int(t.alternativeEnd[pi])
                guard out.count + end - from <= maxWords else { return false }
                let base = out.count - from
                t.words.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[from..<end])) }
                var k = firstRef
                while k < t.ruleWords.count {
                    let at = Int(t.ruleWords[k])
                    if at >= end { break }
                    out[base + at] = numbers.number(of: out[base + at])
                    k += 1
                }
                return true
            }
            var first = true
            for v in key.slots {
                if v == 0 { out.append(5); break }
                if v == Self.rootMark { out.append(6); break }
                if v & (Self.groupMark | Self.openTextMark) != 0 {
                    // An open text rule: its alternatives; a group: every terminal-first alternative
                    // of the rule; in order (the rules they reach follow).
                    let open = v & Self.openTextMark != 0
                    let rule = Int(v & ~(open ? Self.openTextMark : Self.groupMark))
                    let starts = open ? g.ruleStarts : g.terminalStarts
                    guard starts.indices.contains(rule) else { return nil }
                    out.append(open ? 10 : 9); out.append(UInt32(starts[rule].count))
                    for s in starts[rule] { guard emit(from: s, general: false) else { return nil } }
                    first = false
                    continue
                }
                out.append(4)
                guard emit(from: Int32(v) - 1, general: anyFirstByte && first) else { return nil }
                first = false
            }
            var head = 0
            while head < numbers.order.count {
                let r = Int(numbers.order[head])
                head += 1
                guard g.ruleStarts.indices.contains(r) else { return nil }
                out.append(7); out.append(UInt32(g.ruleStarts[r].count))
                for s in g.ruleStarts[r] { guard emit(from: s, general: false) else { return nil } }
            }
            return out
        }
    }
}

/// Rule ids numbered in the order first met: a small open-addressing table that grows (most
/// signatures reach a handful of rules; none more than half their words).
private struct RuleNumbers {
    private var slots = [Int64](repeating: -1, count: 64)
    private(set) var order: [UInt32] = []

    mutating func number(of rule: UInt32) -> UInt32 {
        if 2 * (order.count + 1) > slots.count { grow() }
        let h = Self.slot(of: rule, in: slots)
        if slots[h] >= 0 { return UInt32(truncatingIfNeeded: slots[h]) }
        let c = UInt32(order.count)
        slots[h] = Int64(rule) << 32 | Int64(c)
        order.append(rule)
        return c
    }

    private mutating func grow() {
        slots = [Int64](repeating: -1, count: slots.count * 4)
        for (c, rule) in order.enumerated() { slots[Self.slot(of: rule, in: slots)] = Int64(rule) << 32 | Int64(c) }
    }

    /// Where `rule` is in `slots`, or the empty slot where it would go (linear probing).
    private static func slot(of rule: UInt32, in slots: [Int64]) -> Int {
        let mask = slots.count - 1
        var h = Int(truncatingIfNeeded: (UInt64(rule) &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
        while slots[h] >= 0 && UInt32(truncatingIfNeeded: slots[h] >> 32) != rule { h = (h &+ 1) & mask }
        return h
    }
}

/// The signature words of a grammar's positions, written an alternative at a time as signatures
/// first reach it: a position's words run to the end of its alternative (terminal: 10 and its one
/// range as lo·256 + hi, or 1 and its eight 32-bit words; rule reference: 2 and the rule's id,
/// renumbered when copied; end: 3).
struct SignatureTemplates {
    /// The alternatives written so far, each contiguous.
    private(set) var words: [UInt32] = []
    /// Per position: where its words begin, −1 until written.
    private(set) var offset: [Int32]
    /// Per position: where its alternative's words end.
    private(set) var alternativeEnd: [Int32]
    /// Offsets in `words` of the rule ids: ascending within an alternative, alternatives in the
    /// order written (later ones at larger offsets).
    private(set) var ruleWords: [Int32] = []
    /// Per position: the index in `ruleWords` of the first at or after its words.
    private(set) var firstRef: [Int32]

    init(positions n: Int) {
        offset = [Int32](repeating: -1, count: n)
        alternativeEnd = [Int32](repeating: -1, count: n)
        firstRef = [Int32](repeating: -1, count: n)
    }

    /// Writes the alternative holding position `p` if not yet written. False when `p` is out of
    /// range or its alternative has no end.
    mutating func prepare(_ p: Int, _ g: CompiledGrammar) -> Bool {
        guard p >= 0, p < alternativeEnd.count else { return false }
        if offset[p] >= 0 { return alternativeEnd[p] >= 0 }
        // The alternative begins after the previous end (positions are laid out alternative by
        // alternative); write it from there through its end.
        var start = p
        while start > 0 && g.kinds[start - 1] != .end { start -= 1 }
        let n = g.kinds.count
        var i = start
        while i < n {
            offset[i] = Int32(words.count)
            firstRef[i] = Int32(ruleWords.count)
            switch g.kinds[i] {
            case .terminal:
                let t = g.terminals[i]
                if let (lo, hi) = t.singleRange {
                    words.append(10); words.append(UInt32(lo) << 8 | UInt32(hi))
                } else {
                    words.append(1)
                    words.append(UInt32(truncatingIfNeeded: t.w0)); words.append(UInt32(truncatingIfNeeded: t.w0 >> 32))
                    words.append(UInt32(truncatingIfNeeded: t.w1)); words.append(UInt32(truncatingIfNeeded: t.w1 >> 32))
                    words.append(UInt32(truncatingIfNeeded: t.w2)); words.append(UInt32(truncatingIfNeeded: t.w2 >> 32))
                    words.append(UInt32(truncatingIfNeeded: t.w3)); words.append(UInt32(truncatingIfNeeded: t.w3 >> 32))
                }
            case .rule:
                words.append(2)
                ruleWords.append(Int32(words.count))
                words.append(UInt32(bitPattern: g.ruleRefs[i]))
            case .end:
                words.append(3)
            }
            if g.kinds[i] == .end { break }
            i += 1
        }
        let end: Int32 = i < n ? Int32(words.count) : -1
        for q in start..<min(i + 1, n) { alternativeEnd[q] = end }
        return end >= 0
    }
}

/// The shared entries of one vocabulary, bounded in memory: two generations, the newer taking every
/// store and every hit found only in the older; when the newer holds half the budget, the older is
/// dropped and the newer becomes the older. Entries met again (a string's content, a number, a
/// structure a family of schemas repeats) thus stay however many schemas pass, and memory stays
/// under `maxBytes` (an entry in both generations is one array, counted in each).
final class SharedMaskEntries: Sendable {
    /// Bytes of entries kept at most (both generations).
    static let maxBytes = 64 << 20

    private let generations = SanitizableMutex(
        TwoGenerations<HashedWords<UInt32>, MaskEntry>(bytesPerGeneration: maxBytes / 2))

    func entry(_ signature: [UInt32]) -> MaskEntry? {
        let key = HashedWords(signature)
        return generations.withLock { $0.value(for: key) { $0.byteCount + 4 * signature.count } }
    }

    func store(_ signature: [UInt32], _ entry: MaskEntry) {
        let key = HashedWords(signature)
        generations.withLock { $0.insert(entry, for: key, bytes: entry.byteCount + 4 * signature.count) }
    }
}

/// A map bounded in bytes by generations: stores, and hits found only in the older generation, go
/// to the newer; when the newer would pass `bytesPerGeneration`, the older is dropped and the newer
/// takes its place. What is used in every generation stays; at most twice the budget is held.
struct TwoGenerations<Key: Hashable, Value> {
    let bytesPerGeneration: Int
    private var newer: [Key: Value] = [:]
    private var older: [Key: Value] = [:]
    private var newerBytes = 0

    init(bytesPerGeneration: Int) {
        self.bytesPerGeneration = bytesPerGeneration
    }

    /// Entries held, an entry in both generations counted in each (as its bytes are).
    var count: Int { newer.count + older.count }

    /// Keys held (an entry in both generations counted once).
    var distinctCount: Int { newer.count + older.keys.reduce(0) { newer[$1] == nil ? $0 + 1 : $0 } }

    /// The value for `key`; one found only in the older generation moves to the newer (`bytes`
    /// gives its size).
    mutating func value(for key: Key, bytes: (Value) -> Int) -> Value? {
        if let v = newer[key] { return v }
        guard let v = older[key] else { return nil }
        insert(v, for: key, bytes: bytes(v))
        return v
    }

    mutating func insert(_ value: Value, for key: Key, bytes: Int) {
        guard newer[key] == nil else { return }
        if newerBytes + bytes > bytesPerGeneration {
            older = newer
            newer = [:]
            newerBytes = 0
        }
        newer[key] = value
        newerBytes += bytes
    }
}

extension TwoGenerations: Sendable where Key: Sendable, Value: Sendable {}
