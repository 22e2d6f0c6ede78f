/// The one grammar representation every source (JSON Schema, GBNF, regex) compiles to:
/// rules made of alternatives, each a sequence of byte-set terminals and rule references,
/// like GBNF but over bytes (codepoint classes are lowered to UTF-8 byte sequences).
/// `CompiledGrammar` checks and flattens it for matching.
public struct Grammar: Sendable {
    public enum Symbol: Hashable, Sendable {
        case bytes(ByteSet)
        case rule(Int)
    }

    public struct Rule: Sendable {
        public var name: String
        public var alternatives: [[Symbol]]
    }

    public var rules: [Rule]
    public var root: Int
    /// Length-bounded JSON string content, as a chain of rules (see `CountedChain`): lets token masks
    /// derive each position's entry from the unbounded content's. Empty for grammars from GBNF and
    /// regexes; ignored where a rule does not have the recorded shape.
    var countedChains: [CountedChain] = []
    /// Rules that, at a character boundary of a JSON string's content, take every character
    /// written unescaped (`ScalarAutomaton.rawText`) and after it continue in one of these rules:
    /// the states of a pattern searched without `^` (see `ScalarAutomaton.openStates`). Lets token
    /// masks take text from them whole. Empty for grammars from GBNF; `CompiledGrammar` drops a
    /// rule whose alternatives do not have the emitted shape.
    var openTextRules: [Int] = []

    public init(rules: [Rule], root: Int) {
        self.rules = rules
        self.root = root
    }

    /// Rule `rule` is position `consumed` of a string whose content has between `min` and `max`
    /// (nil: no bound) characters: its first alternative is `char` then the rest of the chain (or
    /// nothing after the last character), and `twin` (`char twin | ε`) is the same content without
    /// the bound. A character counts as one however it is written (`\n`, `\u00e9`, a surrogate pair).
    struct CountedChain: Sendable {
        var rule: Int
        var consumed: Int
        var min: Int
        var max: Int?
        var char: Int
        var twin: Int
    }
}

/// Builds a `Grammar`: fresh rules, literals, classes and repetition lowered the way GBNF defines them.
struct GrammarBuilder {
    typealias Symbol = Grammar.Symbol
    private(set) var rules: [Grammar.Rule] = []
    var countedChains: [Grammar.CountedChain] = []
    var openTextRules: [Int] = []
    private var classRules: [[ClosedRange<UInt32>]: Int] = [:]

    /// Repetition counts above this are refused: `x{0,100000}` would make 100000 rules.
    static let maxRepetition = 4096
    /// Nested repetitions multiply; past this many rules the build stops and reports `tooLarge`.
    static let maxRules = 400_000
    private(set) var overflowed = false

    mutating func newRule(_ name: String) -> Int {
        if rules.count >= Self.maxRules {
            overflowed = true
            return rules.count - 1  // keeps indices valid; the result is discarded by `checkedBuild`
        }
        rules.append(Grammar.Rule(name: name, alternatives: []))
        return rules.count - 1
    }

    /// `build`, or `tooLarge` if the rule budget ran out.
    func checkedBuild(root: Int) throws(GrammarError) -> Grammar {
        if overflowed { throw .tooLarge(message: "more than \(Self.maxRules) rules") }
        return build(root: root)
    }

    mutating func setAlternatives(_ rule: Int, _ alternatives: [[Symbol]]) {
        rules[rule].alternatives = alternatives
    }

    func alternatives(of rule: Int) -> [[Symbol]] { rules[rule].alternatives }

    mutating func rule(_ name: String, _ alternatives: [[Symbol]]) -> Int {
        let id = newRule(name)
        rules[id].alternatives = alternatives
        return id
    }

    static func literal(_ bytes: some Sequence<UInt8>) -> [Symbol] {
        bytes.map { .bytes(ByteSet($0)) }
    }

    static func literal(_ text: String) -> [Symbol] { literal(Array(text.utf8)) }

    /// A class of Unicode scalars (already negated if needed) as a symbol sequence: a single byte set
    /// when every member is ASCII, else a shared rule with one alternative per UTF-8 byte pattern.
    mutating func scalarClass(_ ranges: [ClosedRange<UInt32>]) -> [Symbol] {
        let normalized = UTF8Ranges.normalize(ranges)
        if let id = classRules[normalized] { return [.rule(id)] }
        let alts = UTF8Ranges.alternatives(normalized)
        if alts.count == 1 && alts[0].count == 1 { return [.bytes(alts[0][0])] }
        let id = rule("class", alts.map { $0.map { Symbol.bytes($0) } })
        classRules[normalized] = id
        return [.rule(id)]
    }

    /// The byte-level alternatives of a scalar class, for inlining into a rule of one's own.
    static func classAlternatives(_ ranges: [ClosedRange<UInt32>]) -> [[Symbol]] {
        UTF8Ranges.alternatives(ranges).map { $0.map { Symbol.bytes($0) } }
    }

    /// Any Unicode scalar (GBNF's `.`).
    mutating func anyScalar() -> [Symbol] { scalarClass([0...UTF8Ranges.maxScalar]) }

    /// `alts` as a sequence: itself if there is one alternative, else a reference to a new rule.
    mutating func group(_ alts: [[Symbol]], name: String = "group") -> [Symbol] {
        if alts.count == 1 { return alts[0] }
        return [.rule(rule(name, alts))]
    }

    /// `x{min,max}` (max nil = unbounded), lowered as GBNF does: min copies, then `x*` or a chain of
    /// nested optionals. Longer items are wrapped in a rule so copies stay one symbol.
    mutating func repeated(_ item: [Symbol], min: Int, max: Int?, name: String = "rep") -> [Symbol] {
        var x = item
        if x.count > 1 { x = [.rule(rule(name + "-item", [item]))] }
        var out: [Symbol] = []
        for _ in 0..<min { out += x }
        if let max {
            guard max > min else { return out }
            // tail_k ::= x tail_{k-1} | ε, built innermost first.
            var tail: Int? = nil
            for _ in 0..<(max - min) {
                let id = newRule(name)
                var seq = x
                if let t = tail { seq.append(.rule(t)) }
                rules[id].alternatives = [seq, []]
                tail = id
            }
            if let t = tail { out.append(.rule(t)) }
        } else {
            let id = newRule(name + "-star")
            rules[id].alternatives = [x + [.rule(id)], []]
            out.append(.rule(id))
        }
        return out
    }

    func build(root: Int) -> Grammar {
        var g = Grammar(rules: rules, root: root)
        g.countedChains = countedChains
        g.openTextRules = openTextRules
        return g
    }
}
