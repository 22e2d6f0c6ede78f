/// A bound on the digits after the decimal point, once the integer part equals the bound's:
/// `digits` without trailing zeros (empty = the bound is a whole number).
struct FractionBound {
    var digits: [UInt8]
    var inclusive: Bool
}

extension NumberRange {
    /// How far the digits read so far still equal each bound's digits; nil = that side is already
    /// strictly inside and no longer constrains. A lower index at the end of its digits means
    /// "equal so far, exclusive": some later digit must be non-zero. An upper index at the end
    /// (inclusive) means only zeros may follow.
    private struct FractionState: Hashable {
        var low: Int?
        var high: Int?
    }

    /// The optional fraction `(.F)?` for every F with lower ≤ 0.F ≤ upper (each side inclusive or
    /// not, nil = unbounded), or nil when no fraction qualifies. The automaton has at most
    /// (digits + 2)² states, built as right-recursive rules.
    static func fraction(lower: FractionBound?, upper: FractionBound?, _ b: inout GrammarBuilder) -> [Symbol]? {
        func normalized(_ s: FractionState) -> FractionState? {
            var s = s
            if let i = s.low, let lower, i == lower.digits.count, lower.inclusive { s.low = nil }
            if let j = s.high, let upper, j == upper.digits.count, !upper.inclusive { return nil }
            return s
        }
        func step(_ s: FractionState, _ e: UInt8) -> FractionState? {
            var n = s
            if let i = s.low, let lower {
                if i == lower.digits.count {
                    if e > 0 { n.low = nil }
                } else if e > lower.digits[i] {
                    n.low = nil
                } else if e == lower.digits[i] {
                    n.low = i + 1
                } else {
                    return nil
                }
            }
            if let j = s.high, let upper {
                if j == upper.digits.count {
                    if e != 0 { return nil }
                } else if e < upper.digits[j] {
                    n.high = nil
                } else if e == upper.digits[j] {
                    n.high = j + 1
                } else {
                    return nil
                }
            }
            return normalized(n)
        }
        // Stopping here is fine once the lower side is passed: the upper side is then either
        // passed, still below (its remaining digits end non-zero) or equal and inclusive.
        func accepting(_ s: FractionState) -> Bool { s.low == nil }

        guard let start = normalized(FractionState(low: lower == nil ? nil : 0, high: upper == nil ? nil : 0)) else { return nil }
        var edges: [FractionState: [(UInt8, FractionState)]] = [:]
        var pending = [start]
        while let s = pending.popLast() {
            guard edges[s] == nil else { continue }
            var out: [(UInt8, FractionState)] = []
            for e in UInt8(0)...9 {
                guard let n = step(s, e) else { continue }
                out.append((e, n))
                if edges[n] == nil { pending.append(n) }
            }
            edges[s] = out
        }
        // Live states reach an accepting one.
        var live = Set(edges.keys.filter(accepting))
        var changed = true
        while changed {
            changed = false
            for (s, out) in edges where !live.contains(s) && out.contains(where: { live.contains($0.1) }) {
                live.insert(s)
                changed = true
            }
        }
        guard live.contains(start) else { return nil }

        var ids: [FractionState: Int] = [:]
        // Sorted so that rule numbering (and so the grammar) is the same on every run.
        let ordered = live.sorted { ($0.low ?? -1, $0.high ?? -1) < ($1.low ?? -1, $1.high ?? -1) }
        for s in ordered { ids[s] = b.newRule("fraction-digits") }
        func transitions(_ s: FractionState) -> [[Symbol]] {
            var byTarget: [FractionState: ByteSet] = [:]
            for (e, n) in edges[s] ?? [] where live.contains(n) { byTarget[n, default: ByteSet()].insert(0x30 + e) }
            return byTarget.sorted { $0.value.bytes.first ?? 0 < $1.value.bytes.first ?? 0 }
                .compactMap { target, digits in ids[target].map { [.bytes(digits), .rule($0)] } }
        }
        for s in ordered {
            guard let id = ids[s] else { continue }
            b.setAlternatives(id, (accepting(s) ? [[]] : []) + transitions(s))
        }
        var alts: [[Symbol]] = accepting(start) ? [[]] : []
        let first = transitions(start)
        if !first.isEmpty { alts.append(GrammarBuilder.literal(".") + [.rule(b.rule("fraction-first", first))]) }
        return [.rule(b.rule("fraction", alts))]
    }
}
