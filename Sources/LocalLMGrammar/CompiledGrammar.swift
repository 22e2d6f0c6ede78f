
/// A checked, flattened `Grammar`, immutable and shared by every matcher that uses it.
///
/// Every alternative is laid out in one array of positions ending in an `end` marker. A matcher
/// stack is a chain of positions: the top one is a terminal, the ones below are return positions.
public final class CompiledGrammar: Sendable {
    enum Kind: UInt8 { case terminal, rule, end }

    /// Per position (flat index): what sits there.
    let kinds: [Kind]
    /// Per position: the referenced rule for `.rule`, unused otherwise.
    let ruleRefs: [Int32]
    /// Per position: the byte set for `.terminal`, empty otherwise.
    let terminals: [ByteSet]
    /// Per rule: the first position of each alternative.
    let ruleStarts: [[Int32]]
    /// `ruleStarts` flattened for closures (no inner array to retain per rule reference): rule r's
    /// alternatives start at `startList[startOffsets[r]..<startOffsets[r + 1]]`.
    let startList: [Int32]
    let startOffsets: [Int32]
    let ruleNames: [String]
    let root: Int32
    /// Return positions (after the character) of length-bounded string content, with the position
    /// of the unbounded twin's and the bounds (`Grammar.CountedChain`).
    let countedFrames: [Int32: CountedFrame]
    /// Positions that begin a string character of some counted chain (the first byte of a raw
    /// character, or the backslash of an escape).
    let characterStarts: Set<Int32>
    /// Rules whose alternatives read one string character of some counted chain.
    let countedCharacterRules: Set<Int32>
    /// Per position: the rule whose alternatives it starts, when that rule is a character class
    /// (two or more alternatives, each a run of terminals; -1 otherwise). A closure pushes all of a rule's alternatives over one
    /// parent, so token masks key such stacks as one group (`GrammarTokenIndex.groupMark`).
    let groupRule: [Int32]
    /// Per rule: the starts of its alternatives that begin with a terminal.
    let terminalStarts: [[Int32]]
    /// Per position, when the grammar has open text rules (`Grammar.openTextRules`): the open text
    /// rule one of whose alternatives holds it, else -1. Empty when it has none.
    let openTextRuleAt: [Int32]

    struct CountedFrame: Sendable {
        /// The return position after the character in `chars-star` (`char chars-star | ε`).
        let twin: Int32
        /// Characters before the one being read, and the content's bounds (`max` -1: none).
        let consumed: Int32
        let min: Int32
        let max: Int32
    }

    /// The source grammar, kept for the random generator and debugging.
    public let grammar: Grammar

    /// Positions are packed into 21 bits in mask-cache keys.
    static let maxPositions = 1 << 21 - 2

    public init(_ source: Grammar) throws(GrammarError) {
        guard source.rules.indices.contains(source.root) else { throw .missingRoot(name: "#\(source.root)") }
        // The analyses run on the flat layout (arrays of integers, no nested arrays to walk and
        // retain): on a large schema's grammar (10,000 rules, 200,000 positions) they took most
        // of the compile when they walked the rules' alternative arrays.
        var grammar = source
        var layout = Layout(grammar)
        if let r = layout.undefinedReference {
            throw .gbnf(message: "reference to undefined rule #\(r)", line: 0, column: 0)
        }
        if let pruned = Self.pruned(grammar, layout, missing: Self.fixedPoint(layout, .productive).missing) {
            grammar = pruned
            layout = Layout(grammar)
        }
        let names = grammar.rules.map(\.name)
        try Self.checkLeftRecursion(layout, names: names)
        if layout.kinds.count > Self.maxPositions { throw .tooLarge(message: "more than \(Self.maxPositions) positions") }
        let kinds = layout.kinds
        self.kinds = kinds
        self.ruleRefs = layout.refs
        self.terminals = layout.terms
        startList = layout.startList
        startOffsets = layout.startOffsets
        let starts = (0..<grammar.rules.count).map { r in Array(layout.startList[layout.alternatives(of: r)]) }
        self.ruleStarts = starts
        self.ruleNames = names
        self.root = Int32(grammar.root)
        self.grammar = grammar
        let terminalStarts = starts.map { $0.filter { kinds[Int($0)] == .terminal } }
        (countedFrames, countedCharacterRules) = Self.countedFrames(grammar, starts: starts)
        characterStarts = Set(countedCharacterRules.flatMap { terminalStarts[Int($0)] })
        var groupRule = [Int32](repeating: -1, count: kinds.count)
        // Only character-class rules (every alternative a run of terminals): rules with
        // references keep one key per alternative, whose first-byte entries are shared.
        for r in 0..<grammar.rules.count where starts[r].count >= 2 {
            let classLike = starts[r].allSatisfy { s in
                var p = Int(s)
                while kinds[p] == .terminal { p += 1 }
                return kinds[p] == .end && p > Int(s)
            }
            guard classLike else { continue }
            for p in terminalStarts[r] { groupRule[Int(p)] = Int32(r) }
        }
        self.terminalStarts = terminalStarts
        self.groupRule = groupRule
        openTextRuleAt = Self.openTextRuleAt(grammar, source: source, kinds: kinds, starts: starts)
    }

    /// `openTextRuleAt` for the recorded open text rules that kept the emitted shape: each
    /// alternative empty, or a character followed by a reference to an open text rule, none
    /// removed by pruning. A rule failing it is dropped, then every rule leading into a dropped one.
    private static func openTextRuleAt(_ g: Grammar, source: Grammar, kinds: [Kind], starts: [[Int32]]) -> [Int32] {
        guard !g.openTextRules.isEmpty else { return [] }
        var open = [Bool](repeating: false, count: g.rules.count)
        for r in g.openTextRules where open.indices.contains(r) { open[r] = true }
        var users: [Int: [Int]] = [:]  // open rule → the open rules continuing in it
        var dropped: [Int] = []
        for r in open.indices where open[r] {
            let alternatives = g.rules[r].alternatives
            var shaped = source.rules.indices.contains(r) && source.rules[r].alternatives.count == alternatives.count
            for alt in alternatives where shaped && !alt.isEmpty {
                if alt.count >= 2, case .rule(let next) = alt[alt.count - 1], open.indices.contains(next), open[next] {
                    users[next, default: []].append(r)
                } else {
                    shaped = false
                }
            }
            if !shaped { dropped.append(r) }
        }
        for r in dropped { open[r] = false }
        while let r = dropped.popLast() {
            for u in users[r] ?? [] where open[u] { open[u] = false; dropped.append(u) }
        }
        guard open.contains(true) else { return [] }
        var at = [Int32](repeating: -1, count: kinds.count)
        for r in open.indices where open[r] {
            for s in starts[r] {
                var p = Int(s)
                while kinds[p] != .end { at[p] = Int32(r); p += 1 }
            }
        }
        return at
    }

    /// A grammar's alternatives laid out as `CompiledGrammar` keeps them: one array of positions,
    /// each alternative ending in an `end` marker. A reference to an undefined rule is kept as -1
    /// (the analyses treat it as a rule that derives nothing; `init` refuses such grammars, by the
    /// first one, `undefinedReference`). Its size is the grammar's own: `init` checks it after.
    struct Layout {
        var kinds: [Kind] = [], refs: [Int32] = [], terms: [ByteSet] = []
        /// Rule r's alternatives start at `startList[startOffsets[r]..<startOffsets[r + 1]]`.
        var startList: [Int32] = [], startOffsets: [Int32] = [0]
        private(set) var undefinedReference: Int?

        init(_ g: Grammar) {
            var positions = 0, alternatives = 0
            for rule in g.rules {
                alternatives += rule.alternatives.count
                for alt in rule.alternatives { positions += alt.count + 1 }
            }
            kinds.reserveCapacity(positions); refs.reserveCapacity(positions); terms.reserveCapacity(positions)
            startList.reserveCapacity(alternatives); startOffsets.reserveCapacity(g.rules.count + 1)
            let ruleCount = g.rules.count
            for rule in g.rules {
                for alt in rule.alternatives {
                    startList.append(Int32(kinds.count))
                    for sym in alt {
                        switch sym {
                        case .bytes(let set):
                            kinds.append(.terminal); refs.append(-1); terms.append(set)
                        case .rule(let r):
                            let defined = r >= 0 && r < ruleCount
                            if !defined && undefinedReference == nil { undefinedReference = r }
                            kinds.append(.rule); refs.append(defined ? Int32(r) : -1); terms.append(ByteSet())
                        }
                    }
                    kinds.append(.end); refs.append(-1); terms.append(ByteSet())
                }
                startOffsets.append(Int32(startList.count))
            }
        }

        var ruleCount: Int { startOffsets.count - 1 }

        /// Indices into `startList` of rule r's alternatives.
        func alternatives(of r: Int) -> Range<Int> { Int(startOffsets[r])..<Int(startOffsets[r + 1]) }
    }

    /// The recorded chains whose rules have the shape `CountedChain` describes (others are left out).
    private static func countedFrames(_ g: Grammar, starts: [[Int32]]) -> ([Int32: CountedFrame], Set<Int32>) {
        var frames: [Int32: CountedFrame] = [:]
        frames.reserveCapacity(g.countedChains.count)
        var characterRules = Set<Int32>()
        func charThen(_ rule: Int, _ char: Int, _ next: Int?) -> Int32? {
            guard g.rules.indices.contains(rule), let first = g.rules[rule].alternatives.first,
                  first.first == .rule(char), first.count == (next == nil ? 1 : 2),
                  next.map({ first.last == .rule($0) }) ?? true else { return nil }
            return starts[rule][0] + 1
        }
        for c in g.countedChains {
            guard let twin = charThen(c.twin, c.char, c.twin),
                  g.rules[c.twin].alternatives.count == 2, g.rules[c.twin].alternatives[1].isEmpty else { continue }
            let alternatives = g.rules[c.rule].alternatives
            let next: Int?
            if let first = alternatives.first, first.count == 2, case .rule(let r) = first[1] { next = r } else { next = nil }
            guard let frame = charThen(c.rule, c.char, next),
                  alternatives.count == (c.consumed >= c.min ? 2 : 1),
                  alternatives.count == 1 || alternatives[1].isEmpty else { continue }
            frames[frame] = CountedFrame(twin: twin, consumed: Int32(c.consumed), min: Int32(c.min),
                                         max: c.max.map { Int32($0) } ?? -1)
            characterRules.insert(Int32(c.char))
        }
        return (frames, characterRules)
    }

    public var positionCount: Int { kinds.count }

    /// The grammar without the alternatives that can derive no string (an empty byte set, such as
    /// the regex class `[]`, or a rule that derives nothing), or nil when there are none (most
    /// grammars: nothing is copied). Left in, the mask would allow bytes into an alternative that
    /// can never end, which `accept` then refuses (found by the grammar fuzzer on `^Z-\u{FFFD}[]…]$`).
    /// A rule left with no alternative, and a root that derives nothing, match nothing: their one
    /// alternative is an empty byte set, as `Grammar.nothing`'s.
    static func pruned(_ g: Grammar, _ layout: Layout, missing: [Int32]) -> Grammar? {
        guard missing.contains(where: { $0 != 0 }) else { return nil }
        var kept = g
        for r in 0..<layout.ruleCount {
            let range = layout.alternatives(of: r)
            guard range.contains(where: { missing[$0] != 0 }) else { continue }
            let alternatives = zip(range, g.rules[r].alternatives).filter { missing[$0.0] == 0 }.map(\.1)
            kept.rules[r].alternatives = alternatives.isEmpty ? [[.bytes(ByteSet())]] : alternatives
        }
        return kept
    }

    /// Rules that can derive the empty string.
    static func nullableRules(_ g: Grammar) -> [Bool] {
        fixedPoint(Layout(g), .nullable).rules
    }

    /// Rules that derive some string.
    static func productiveRules(_ g: Grammar) -> [Bool] {
        fixedPoint(Layout(g), .productive).rules
    }

    /// Which rules `fixedPoint` finds: those deriving some string (a terminal holds when its byte
    /// set is not empty), or those deriving the empty string (no terminal holds).
    enum Analysis { case productive, nullable }

    /// The least set of rules with an alternative whose every symbol holds (a reference holding
    /// when its rule is in the set): productive rules, nullable rules. A worklist, linear in the
    /// grammar's size: a round-robin fixed point is quadratic on long chains of rules (a large
    /// schema's compile took seconds in it). `missing` is per alternative: 0 when it holds, else
    /// the references it still waited for (-1: a symbol that never holds).
    static func fixedPoint(_ layout: Layout, _ analysis: Analysis) -> (rules: [Bool], missing: [Int32]) {
        let ruleCount = layout.ruleCount
        let alternativeCount = layout.startList.count
        var inSet = [Bool](repeating: false, count: ruleCount)
        var missing = [Int32](repeating: 0, count: alternativeCount)  // per alternative: references not yet in the set
        var owner = [Int32](repeating: 0, count: alternativeCount)
        var queue: [Int32] = []
        // Per rule, the alternatives referencing it (once per reference), as one flat array in
        // rule order (`userStart[r] ..< userStart[r + 1]`): counted on the first pass, filled on
        // the second. Alternatives that can never hold (a terminal that fails the test, an
        // undefined rule) are left out.
        var userStart = [Int32](repeating: 0, count: ruleCount + 1)
        let kinds = layout.kinds, refs = layout.refs, terms = layout.terms
        for r in 0..<ruleCount {
            for a in layout.alternatives(of: r) {
                owner[a] = Int32(r)
                var count: Int32 = 0
                var p = Int(layout.startList[a])
                scan: while true {
                    switch kinds[p] {
                    case .end: break scan
                    case .terminal:
                        if analysis == .nullable || terms[p].isEmpty { count = -1; break scan }
                    case .rule:
                        if refs[p] < 0 { count = -1; break scan }
                        count += 1
                    }
                    p += 1
                }
                missing[a] = count
                if count == 0 { queue.append(Int32(a)) }
                guard count > 0 else { continue }
                var q = Int(layout.startList[a])
                while kinds[q] != .end {
                    if kinds[q] == .rule { userStart[Int(refs[q]) + 1] += 1 }
                    q += 1
                }
            }
        }
        for r in 0..<ruleCount { userStart[r + 1] += userStart[r] }
        var users = [Int32](repeating: 0, count: Int(userStart[ruleCount]))
        var fill = userStart
        for a in 0..<alternativeCount where missing[a] > 0 {
            var q = Int(layout.startList[a])
            while kinds[q] != .end {
                if kinds[q] == .rule {
                    let ref = Int(refs[q])
                    users[Int(fill[ref])] = Int32(a)
                    fill[ref] += 1
                }
                q += 1
            }
        }
        var head = 0
        while head < queue.count {
            let r = Int(owner[Int(queue[head])])
            head += 1
            if inSet[r] { continue }
            inSet[r] = true
            for k in Int(userStart[r])..<Int(userStart[r + 1]) {
                let a = Int(users[k])
                missing[a] -= 1
                if missing[a] == 0 { queue.append(Int32(a)) }
            }
        }
        return (inSet, missing)
    }

    /// A rule that can reach itself at the left edge (through nullable prefixes) without consuming
    /// input makes the matcher's closure grow stacks forever, unless every reference on the cycle is
    /// in tail position (tail references push no frame, and equal stacks are deduplicated, as in
    /// `( [x]* )*`). llama.cpp refuses left-recursive grammars too.
    static func checkLeftRecursion(_ layout: Layout, names: [String]) throws(GrammarError) {
        let nullable = fixedPoint(layout, .nullable).rules
        let ruleCount = layout.ruleCount
        let kinds = layout.kinds, refs = layout.refs
        // Left-edge references as a flat adjacency list (`edgeStart[r] ..< edgeStart[r + 1]`).
        var edgeStart = [Int32](repeating: 0, count: ruleCount + 1)
        var edges: [Int32] = []
        var growing: [(Int32, Int32)] = []  // left-edge references that push a frame
        for i in 0..<ruleCount {
            for a in layout.alternatives(of: i) {
                var p = Int(layout.startList[a])
                while kinds[p] == .rule, refs[p] >= 0 {
                    let r = refs[p]
                    edges.append(r)
                    if kinds[p + 1] != .end { growing.append((Int32(i), r)) }
                    if !nullable[Int(r)] { break }
                    p += 1
                }
            }
            edgeStart[i + 1] = Int32(edges.count)
        }
        guard !growing.isEmpty else { return }
        // A growing edge u→v closes a cycle exactly when u and v are in one strongly connected
        // component of the left-edge graph (Tarjan's algorithm, iterative: chains may be long).
        let component = stronglyConnectedComponents(ruleCount, edgeStart, edges)
        for (u, v) in growing where component[Int(u)] == component[Int(v)] {
            throw .leftRecursion(rule: names.indices.contains(Int(u)) ? names[Int(u)] : "#\(u)")
        }
    }

    /// `checkLeftRecursion` on a grammar, for tests.
    static func checkLeftRecursion(_ g: Grammar) throws(GrammarError) {
        try checkLeftRecursion(Layout(g), names: g.rules.map(\.name))
    }

    /// Per node, the number of its strongly connected component.
    static func stronglyConnectedComponents(_ n: Int, _ edgeStart: [Int32], _ edges: [Int32]) -> [Int32] {
        var index = [Int32](repeating: -1, count: n), low = [Int32](repeating: 0, count: n)
        var component = [Int32](repeating: -1, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var stack: [Int32] = [], frames: [(node: Int32, next: Int32)] = []
        var counter: Int32 = 0, components: Int32 = 0
        for root in 0..<n where index[root] < 0 {
            frames.append((Int32(root), edgeStart[root]))
            index[root] = counter; low[root] = counter; counter += 1
            stack.append(Int32(root)); onStack[root] = true
            while let (v, next) = frames.last {
                let vi = Int(v)
                if next < edgeStart[vi + 1] {
                    frames[frames.count - 1].next = next + 1
                    let w = Int(edges[Int(next)])
                    if index[w] < 0 {
                        index[w] = counter; low[w] = counter; counter += 1
                        stack.append(Int32(w)); onStack[w] = true
                        frames.append((Int32(w), edgeStart[w]))
                    } else if onStack[w] {
                        low[vi] = min(low[vi], index[w])
                    }
                    continue
                }
                frames.removeLast()
                if let parent = frames.last { low[Int(parent.node)] = min(low[Int(parent.node)], low[vi]) }
                if low[vi] == index[vi] {
                    while let w = stack.popLast() {
                        onStack[Int(w)] = false
                        component[Int(w)] = components
                        if w == v { break }
                    }
                    components += 1
                }
            }
        }
        return component
    }
}
