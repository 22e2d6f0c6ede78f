/// Random strings of a grammar's language, by walking its rules: the oracle side of property
/// tests (generate, then validate with something independent). Past `depthBudget` nested rules
/// it takes the alternative with the shortest derivation, so every walk ends.
package struct GrammarGenerator {
    let grammar: Grammar
    /// Per rule: the height of its shallowest finite derivation (Int.max if none).
    let height: [Int]
    let altHeight: [[Int]]

    package init(_ grammar: Grammar) {
        self.grammar = grammar
        var h = [Int](repeating: Int.max, count: grammar.rules.count)
        var alt = grammar.rules.map { [Int](repeating: Int.max, count: $0.alternatives.count) }
        var changed = true
        while changed {
            changed = false
            for (r, rule) in grammar.rules.enumerated() {
                for (a, seq) in rule.alternatives.enumerated() {
                    var m = 0
                    for sym in seq {
                        if case .rule(let x) = sym { m = max(m, h[x]) }
                        if case .bytes(let set) = sym, set.isEmpty { m = Int.max }
                    }
                    let v = m == Int.max ? Int.max : m + 1
                    if v < alt[r][a] { alt[r][a] = v }
                    if v < h[r] { h[r] = v; changed = true }
                }
            }
        }
        height = h
        altHeight = alt
    }

    /// The grammar can derive at least one finite string.
    package var isProductive: Bool { height[grammar.root] != Int.max }

    package func generate(using rng: inout some RandomNumberGenerator, depthBudget: Int = 12) -> [UInt8]? {
        guard isProductive else { return nil }
        var out: [UInt8] = []
        // Explicit stack of (rule, alternative, next symbol index, depth).
        var stack: [(Int, Int, Int, Int)] = []
        func pick(_ r: Int, _ depth: Int, _ rng: inout some RandomNumberGenerator) -> Int {
            let alts = altHeight[r]
            let finite = alts.indices.filter { alts[$0] != Int.max }
            if depth >= depthBudget {
                return finite.min { alts[$0] < alts[$1] }!
            }
            return finite[Int.random(in: 0..<finite.count, using: &rng)]
        }
        stack.append((grammar.root, pick(grammar.root, 0, &rng), 0, 0))
        while !stack.isEmpty {
            let (r, a, i, d) = stack[stack.count - 1]
            let seq = grammar.rules[r].alternatives[a]
            if i == seq.count { stack.removeLast(); continue }
            stack[stack.count - 1].2 += 1
            switch seq[i] {
            case .bytes(let set):
                let members = set.bytes
                out.append(members[Int.random(in: 0..<members.count, using: &rng)])
            case .rule(let x):
                stack.append((x, pick(x, d + 1, &rng), 0, d + 1))
            }
            if out.count > 1 << 20 { return nil }
        }
        return out
    }
}
