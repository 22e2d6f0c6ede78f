/// A regular language as an automaton over Unicode scalar classes, for constraints one grammar
/// rule cannot state alone: a `pattern` whose strings must also have a length in code points
/// (`minLength`/`maxLength`), or must also match a `format`. Both sides become automata, their
/// product is the intersection, and the product is written back as right-recursive rules (one
/// per state, so matching never grows the stack).
///
/// Automata here are epsilon-free NFAs with one start state. Sizes are bounded: a construction that
/// would pass `maxStates` throws `GrammarError.tooLarge` instead of allocating by the input.
struct ScalarAutomaton {
    typealias Ranges = [ClosedRange<UInt32>]

    /// Per state: its edges (scalar class, target).
    var edges: [[(ranges: Ranges, to: Int)]]
    var accepting: [Bool]
    var start: Int

    /// The largest automaton (and product) built, in states and in edges; beyond them the schema
    /// is refused as too large.
    static let maxStates = 20_000
    static let maxEdges = 200_000

    static let anyScalar: Ranges = [0...0xD7FF, 0xE000...UTF8Ranges.maxScalar]

    /// Thompson's construction, then epsilon closure.
    init(_ node: RegexCompiler.Node) throws(GrammarError) {
        var b = ThompsonBuilder()
        let first = b.newState()
        let last = try b.build(node, from: first)
        self = try b.epsilonFree(start: first, final: last)
    }

    fileprivate init(edges: [[(ranges: Ranges, to: Int)]], accepting: [Bool], start: Int) {
        self.edges = edges
        self.accepting = accepting
        self.start = start
    }

    /// Strings of any scalars whose length in code points is in `min...max` (no upper bound when nil).
    static func length(min: Int, max: Int?) -> ScalarAutomaton {
        let top = max ?? min
        var edges: [[(ranges: Ranges, to: Int)]] = []
        var accepting: [Bool] = []
        for k in 0...top {
            if k < top {
                edges.append([(anyScalar, k + 1)])
            } else {
                edges.append(max == nil ? [(anyScalar, k)] : [])
            }
            accepting.append(k >= min)
        }
        return ScalarAutomaton(edges: edges, accepting: accepting, start: 0)
    }

    /// The product automaton: strings both accept. Only reachable states that can still reach an
    /// accepting one are kept.
    func intersection(_ other: ScalarAutomaton) throws(GrammarError) -> ScalarAutomaton {
        var index: [Int: Int] = [:]
        var pairs: [(Int, Int)] = []
        func id(_ a: Int, _ b: Int) throws(GrammarError) -> Int {
            let key = a &* other.edges.count &+ b
            if let i = index[key] { return i }
            guard pairs.count < Self.maxStates else {
                throw .tooLarge(message: "a pattern intersected with a length or format needs more than \(Self.maxStates) states")
            }
            index[key] = pairs.count
            pairs.append((a, b))
            return pairs.count - 1
        }
        var outEdges: [[(ranges: Ranges, to: Int)]] = []
        var outAccepting: [Bool] = []
        let start = try id(self.start, other.start)
        var head = 0
        var edgeCount = 0
        while head < pairs.count {
            let (a, b) = pairs[head]
            head += 1
            var list: [(ranges: Ranges, to: Int)] = []
            for ea in edges[a] {
                for eb in other.edges[b] {
                    let r = JSONGrammar.intersect(ea.ranges, eb.ranges)
                    if !r.isEmpty { list.append((r, try id(ea.to, eb.to))) }
                }
            }
            edgeCount += list.count
            guard edgeCount <= Self.maxEdges else {
                throw .tooLarge(message: "a pattern intersected with a length or format needs more than \(Self.maxEdges) edges")
            }
            outEdges.append(list)
            outAccepting.append(accepting[a] && other.accepting[b])
        }
        return ScalarAutomaton(edges: outEdges, accepting: outAccepting, start: start).trimmed()
    }

    /// Per state: the states with an edge into it.
    func reverseEdges() -> [[Int]] {
        var reverse = [[Int]](repeating: [], count: edges.count)
        for (q, list) in edges.enumerated() { for e in list { reverse[e.to].append(q) } }
        return reverse
    }

    /// Per state: whether it can reach an accepting state (`reverse` from `reverseEdges`).
    func liveStates(reverse: [[Int]]) -> [Bool] {
        var live = accepting
        var stack = accepting.indices.filter { accepting[$0] }
        while let q = stack.popLast() {
            for p in reverse[q] where !live[p] { live[p] = true; stack.append(p) }
        }
        return live
    }

    /// Without states that cannot reach an accepting state (the start is kept, possibly dead).
    /// When every string of the language is a run of one class's scalars with a length in an
    /// interval (`[a-z]+`, `^[0-9A-F]{2,8}$`): the class and the interval (max nil: unbounded).
    /// Expects a deterministic, trimmed automaton (one edge per state when one class is used).
    func singleClassRun() -> (Ranges, min: Int, max: Int?)? {
        var cls: Ranges? = nil
        for list in edges {
            guard list.count <= 1 else { return nil }
            if let e = list.first {
                if cls == nil { cls = e.ranges } else if cls != e.ranges { return nil }
            }
        }
        guard let cls, !cls.isEmpty else { return nil }
        var q = start, length = 0
        var lo: Int? = nil
        var visited = Set<Int>()
        var closed = false  // an accepting run ended: a later accepting length would leave a gap
        while true {
            visited.insert(q)
            if accepting[q] {
                if closed { return nil }
                if lo == nil { lo = length }
            } else if lo != nil {
                closed = true
            }
            guard let e = edges[q].first else { return lo.map { (cls, $0, length) } }
            if e.to == q { return accepting[q] && !closed ? lo.map { (cls, $0, nil) } : nil }
            if visited.contains(e.to) { return nil }
            q = e.to
            length += 1
        }
    }

    func trimmed() -> ScalarAutomaton {
        let live = liveStates(reverse: reverseEdges())
        var newIndex = [Int](repeating: -1, count: edges.count)
        var order: [Int] = []
        for q in edges.indices where live[q] || q == start { newIndex[q] = order.count; order.append(q) }
        var outEdges: [[(ranges: Ranges, to: Int)]] = []
        for q in order {
            // Edges to one target merge into one class.
            var byTarget: [Int: Ranges] = [:]
            var targets: [Int] = []
            for e in edges[q] where live[e.to] {
                let t = newIndex[e.to]
                if byTarget[t] == nil { targets.append(t) }
                byTarget[t, default: []] += e.ranges
            }
            outEdges.append(targets.map { (UTF8Ranges.normalize(byTarget[$0] ?? []), $0) })
        }
        return ScalarAutomaton(edges: outEdges, accepting: order.map { accepting[$0] }, start: newIndex[start])
    }

    /// The subset construction: each state's classes are disjoint, so a matcher following the
    /// emitted rules keeps one stack where the nondeterministic rules (a search's `.*` beside a
    /// literal, say) would keep many, and token masks stay cheap.
    func determinized() throws(GrammarError) -> ScalarAutomaton {
        var index: [[Int]: Int] = [:]
        var subsets: [[Int]] = []
        func id(_ s: [Int]) throws(GrammarError) -> Int {
            if let i = index[s] { return i }
            guard subsets.count < Self.maxStates else {
                throw .tooLarge(message: "a pattern's deterministic automaton needs more than \(Self.maxStates) states")
            }
            index[s] = subsets.count
            subsets.append(s)
            return subsets.count - 1
        }
        // A state that accepts and loops on every scalar accepts every continuation: a subset holding
        // one needs nothing else (after a search's match, say), which keeps subsets from multiplying.
        let universal = edges.indices.filter { q in
            accepting[q] && edges[q].contains { $0.to == q && $0.ranges == Self.anyScalar }
        }
        let universalSet = Set(universal)
        func reduced(_ subset: [Int]) -> [Int] {
            if let u = subset.first(where: { universalSet.contains($0) }) { return [u] }
            return subset
        }
        var outEdges: [[(ranges: Ranges, to: Int)]] = []
        var outAccepting: [Bool] = []
        let start = try id(reduced([self.start]))
        var head = 0
        var work = 0
        while head < subsets.count {
            let subset = subsets[head]
            head += 1
            let all = subset.flatMap { edges[$0] }
            // The class boundaries of every edge cut the scalars into atoms no edge splits.
            var cuts: [UInt32] = []
            for e in all { for r in e.ranges { cuts.append(r.lowerBound); if r.upperBound < UInt32.max { cuts.append(r.upperBound + 1) } } }
            cuts = Array(Set(cuts)).sorted()
            var byTarget: [[Int]: Ranges] = [:]
            var targets: [[Int]] = []
            for (k, lo) in cuts.enumerated() {
                let hi = k + 1 < cuts.count ? cuts[k + 1] - 1 : UTF8Ranges.maxScalar
                guard lo <= hi else { continue }
                var to: [Int] = []
                for e in all where e.ranges.contains(where: { $0.contains(lo) }) { to.append(e.to) }
                work += all.count
                guard work <= Self.maxEdges * 10 else {
                    throw .tooLarge(message: "a pattern's deterministic automaton is too large to build")
                }
                if to.isEmpty { continue }
                let key = reduced(Array(Set(to)).sorted())
                if byTarget[key] == nil { targets.append(key) }
                byTarget[key, default: []].append(lo...hi)
            }
            var list: [(ranges: Ranges, to: Int)] = []
            for t in targets { list.append((UTF8Ranges.normalize(byTarget[t] ?? []), try id(t))) }
            outEdges.append(list)
            outAccepting.append(subset.contains { accepting[$0] })
        }
        return ScalarAutomaton(edges: outEdges, accepting: outAccepting, start: start)
    }

    /// The strings this automaton refuses. Must be deterministic (`determinized()`): each state
    /// gets an edge to a rejecting sink on the scalars its classes miss, then acceptance flips.
    func complement() -> ScalarAutomaton {
        let sink = edges.count
        var outEdges = edges
        for q in edges.indices {
            let covered = UTF8Ranges.normalize(edges[q].flatMap(\.ranges))
            let missing = JSONGrammar.intersect(UTF8Ranges.complement(covered), Self.anyScalar)
            if !missing.isEmpty { outEdges[q].append((missing, sink)) }
        }
        outEdges.append([(Self.anyScalar, sink)])
        return ScalarAutomaton(edges: outEdges, accepting: accepting.map { !$0 } + [true], start: start)
    }

    /// Exactly the given strings (as code points).
    static func literals(_ words: [String]) throws(GrammarError) -> ScalarAutomaton {
        let alternatives = words.map { w in RegexCompiler.Node.sequence(w.unicodeScalars.map { .scalars([$0.value...$0.value]) }) }
        return try ScalarAutomaton(.alternation(alternatives)).determinized()
    }

    /// Fewest and most code points an accepted string can have (nil: unbounded), over `node`.
    static func lengthBounds(_ node: RegexCompiler.Node) -> (min: Int, max: Int?) {
        switch node {
        case .scalars: return (1, 1)
        case .sequence(let items):
            var lo = 0, hi: Int? = 0
            for item in items {
                let (a, b) = lengthBounds(item)
                lo = lo &+ a
                if let h = hi, let b { hi = h &+ b } else { hi = nil }
            }
            return (lo, hi)
        case .alternation(let alts):
            var lo = Int.max, hi: Int? = 0
            for alt in alts {
                let (a, b) = lengthBounds(alt)
                lo = Swift.min(lo, a)
                if let h = hi, let b { hi = Swift.max(h, b) } else { hi = nil }
            }
            return (alts.isEmpty ? 0 : lo, hi)
        case .repeated(let inner, let lo, let hi):
            let (a, b) = lengthBounds(inner)
            let max: Int? = if let hi, let b { hi.multipliedReportingOverflow(by: b).overflow ? nil : hi * b } else if b == 0 { 0 } else { nil }
            return (a.multipliedReportingOverflow(by: lo).overflow ? Int.max / 2 : a * lo, max)
        }
    }

    /// Scalars a JSON string may hold unescaped: all but controls, quote and backslash.
    static let rawText = UTF8Ranges.complement([0...0x1F, 0x22...0x22, 0x5C...0x5C])

    /// States from which any text leaves the automaton alive after each scalar: their edges
    /// together take every scalar of `rawText`, and lead only to such states (each of which can
    /// still reach an accepting state). The states of a pattern searched without `^` are all
    /// open (anything may come before the match, and after it when there is no `$`); token masks
    /// take text from such a state whole without walking it (`Grammar.openTextRules`). The
    /// greatest such set: states failing either condition are dropped, then the states with an
    /// edge into a dropped one, until none changes.
    func openStates() -> [Bool] {
        let count = edges.count
        let reverse = reverseEdges()
        let live = liveStates(reverse: reverse)
        var open = [Bool](repeating: false, count: count)
        for q in 0..<count where live[q] && edges[q].allSatisfy({ live[$0.to] }) {
            let missing = UTF8Ranges.complement(edges[q].flatMap(\.ranges))
            open[q] = JSONGrammar.intersect(missing, Self.rawText).isEmpty
        }
        var dropped = (0..<count).filter { !open[$0] }
        while let q = dropped.popLast() {
            for p in reverse[q] where open[p] { open[p] = false; dropped.append(p) }
        }
        return open
    }

    /// Rules for the language: each state a rule whose alternatives are "class, next state" (plus
    /// the empty alternative where accepting). Classes inside a JSON string are written as JSON
    /// allows (escapes for quote, backslash and controls; non-ASCII raw or `\u`-escaped), so one
    /// code point is one step however it is spelled.
    func emit(_ b: inout GrammarBuilder, jsonString: Bool) -> [Grammar.Symbol] {
        let ids = edges.indices.map { b.newRule("pattern-state-\($0)") }
        for (q, open) in openStates().enumerated() where open { b.openTextRules.append(ids[q]) }
        // Each distinct class is written once (a rule when it has several spellings) and referenced.
        var classes: [Ranges: [Grammar.Symbol]] = [:]
        for (q, list) in edges.enumerated() {
            var alts: [[Grammar.Symbol]] = []
            if accepting[q] { alts.append([]) }
            for e in list {
                let cls: [Grammar.Symbol]
                if let known = classes[e.ranges] {
                    cls = known
                } else {
                    cls = jsonString ? JSONGrammar.jsonStringClass(e.ranges, &b) : b.scalarClass(e.ranges)
                    classes[e.ranges] = cls
                }
                alts.append(cls + [.rule(ids[e.to])])
            }
            b.setAlternatives(ids[q], alts)
        }
        return [.rule(ids[start])]
    }
}

/// Thompson's construction over the regex tree, with epsilon edges, then their closure.
private struct ThompsonBuilder {
    var epsilon: [[Int]] = []
    var edges: [[(ranges: [ClosedRange<UInt32>], to: Int)]] = []

    mutating func newState() -> Int {
        epsilon.append([])
        edges.append([])
        return epsilon.count - 1
    }

    private mutating func checkedState() throws(GrammarError) -> Int {
        guard epsilon.count < ScalarAutomaton.maxStates else {
            throw .tooLarge(message: "a pattern needs more than \(ScalarAutomaton.maxStates) automaton states")
        }
        return newState()
    }

    /// Adds `node` after state `from`; returns the state where it ends.
    mutating func build(_ node: RegexCompiler.Node, from: Int) throws(GrammarError) -> Int {
        switch node {
        case .scalars(let ranges):
            let to = try checkedState()
            edges[from].append((UTF8Ranges.normalize(ranges), to))
            return to
        case .sequence(let items):
            var cur = from
            for item in items { cur = try build(item, from: cur) }
            return cur
        case .alternation(let alts):
            let end = try checkedState()
            for alt in alts {
                let start = try checkedState()
                epsilon[from].append(start)
                epsilon[try build(alt, from: start)].append(end)
            }
            return end
        case .repeated(let inner, let lo, let hi):
            var cur = from
            for _ in 0..<lo { cur = try build(inner, from: cur) }
            guard let hi else {
                // A loop: from `cur`, any number of `inner`, back through a fresh state.
                let loop = try checkedState()
                epsilon[cur].append(loop)
                epsilon[try build(inner, from: loop)].append(loop)
                return loop
            }
            guard hi > lo else { return cur }
            let end = try checkedState()
            epsilon[cur].append(end)
            for _ in lo..<hi {
                cur = try build(inner, from: cur)
                epsilon[cur].append(end)
            }
            return end
        }
    }

    /// Each state takes the edges of every state its epsilon edges reach; states only reached
    /// through epsilon edges are dropped.
    func epsilonFree(start: Int, final: Int) throws(GrammarError) -> ScalarAutomaton {
        let n = epsilon.count
        var closureEdges = [[(ranges: [ClosedRange<UInt32>], to: Int)]](repeating: [], count: n)
        var accepting = [Bool](repeating: false, count: n)
        var seen = [Int](repeating: -1, count: n)
        var keep = [Bool](repeating: false, count: n)
        keep[start] = true
        for q in 0..<n { for e in edges[q] { keep[e.to] = true } }
        var edgeCount = 0
        for q in 0..<n where keep[q] {
            var stack = [q]
            seen[q] = q
            while let p = stack.popLast() {
                if p == final { accepting[q] = true }
                closureEdges[q] += edges[p]
                edgeCount += edges[p].count
                guard edgeCount <= ScalarAutomaton.maxEdges else {
                    throw .tooLarge(message: "a pattern needs more than \(ScalarAutomaton.maxEdges) automaton edges")
                }
                for r in epsilon[p] where seen[r] != q { seen[r] = q; stack.append(r) }
            }
        }
        var newIndex = [Int](repeating: -1, count: n)
        var order: [Int] = []
        for q in 0..<n where keep[q] { newIndex[q] = order.count; order.append(q) }
        let outEdges = order.map { q in closureEdges[q].map { (ranges: $0.ranges, to: newIndex[$0.to]) } }
        return ScalarAutomaton(edges: outEdges, accepting: order.map { accepting[$0] }, start: newIndex[start]).trimmed()
    }
}
