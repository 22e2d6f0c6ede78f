import Testing
@testable import LocalLMGrammar

/// The analyses `CompiledGrammar` runs on every grammar (productive and nullable rules, left
/// recursion) are linear: a worklist with flat reference lists, and Tarjan's strongly connected
/// components. Each is compared here on random grammars with the plain definition it replaces —
/// a round-robin fixed point, and reachability by search from every rule.
@Suite struct GrammarAnalysisTests {
    /// Random grammars with references that may be undefined (out of range), empty byte sets,
    /// empty alternatives, and cycles.
    static func randomGrammar(_ rng: inout SplitMix64, rules: Int) -> Grammar {
        var out: [Grammar.Rule] = []
        for r in 0..<rules {
            var alternatives: [[Grammar.Symbol]] = []
            for _ in 0..<Int(rng.next() % 4) {
                var alt: [Grammar.Symbol] = []
                for _ in 0..<Int(rng.next() % 4) {
                    switch rng.next() % 7 {
                    case 0: alt.append(.bytes(ByteSet()))
                    case 1, 2: alt.append(.bytes(ByteSet(UInt8(truncatingIfNeeded: rng.next()))))
                    case 3: alt.append(.rule(rules + Int(rng.next() % 2)))  // undefined
                    default: alt.append(.rule(Int(rng.next() % UInt64(rules))))
                    }
                }
                alternatives.append(alt)
            }
            out.append(Grammar.Rule(name: "r\(r)", alternatives: alternatives))
        }
        return Grammar(rules: out, root: 0)
    }

    /// What a symbol contributes to an alternative holding: always, never, or when its rule does.
    enum SymbolTest { case holds, never, ifRule }

    /// The least fixed point by rounds until nothing changes.
    static func roundRobin(_ g: Grammar, _ test: (Grammar.Symbol) -> SymbolTest) -> [Bool] {
        var inSet = [Bool](repeating: false, count: g.rules.count)
        var changed = true
        while changed {
            changed = false
            for (r, rule) in g.rules.enumerated() where !inSet[r] {
                let holds = rule.alternatives.contains { alt in
                    alt.allSatisfy { sym in
                        switch test(sym) {
                        case .holds: true
                        case .never: false
                        case .ifRule:
                            if case .rule(let x) = sym, g.rules.indices.contains(x) { inSet[x] } else { false }
                        }
                    }
                }
                if holds { inSet[r] = true; changed = true }
            }
        }
        return inSet
    }

    @Test func fixedPointsMatchRoundRobin() {
        var rng = SplitMix64(seed: 7)
        for trial in 0..<2_000 {
            let g = Self.randomGrammar(&rng, rules: 1 + trial % 12)
            let productive: (Grammar.Symbol) -> SymbolTest = { sym in
                if case .bytes(let set) = sym { return set.isEmpty ? .never : .holds }
                return .ifRule
            }
            let expected = Self.roundRobin(g, productive)
            #expect(CompiledGrammar.productiveRules(g) == expected)
            // Pruning keeps exactly the alternatives whose every symbol derives some string.
            let layout = CompiledGrammar.Layout(g)
            let pruned = CompiledGrammar.pruned(g, layout, missing: CompiledGrammar.fixedPoint(layout, .productive).missing) ?? g
            for (r, rule) in g.rules.enumerated() {
                let kept = rule.alternatives.filter { alt in
                    alt.allSatisfy { sym in
                        switch sym {
                        case .bytes(let set): !set.isEmpty
                        case .rule(let x): g.rules.indices.contains(x) && expected[x]
                        }
                    }
                }
                // (A rule with no alternatives stays as it is: it matches nothing either way.)
                let replacement: [[Grammar.Symbol]] = rule.alternatives.isEmpty ? [] : [[.bytes(ByteSet())]]
                #expect(pruned.rules[r].alternatives == (kept.isEmpty ? replacement : kept))
            }
            #expect(CompiledGrammar.nullableRules(g) == Self.roundRobin(g) { sym in
                if case .bytes = sym { return .never }
                return .ifRule
            })
        }
    }

    @Test func componentsAreMutualReachability() {
        var rng = SplitMix64(seed: 11)
        for trial in 0..<2_000 {
            let n = 1 + trial % 15
            var adjacency = [[Int32]](repeating: [], count: n)
            for _ in 0..<Int(rng.next() % UInt64(2 * n + 1)) {
                adjacency[Int(rng.next() % UInt64(n))].append(Int32(rng.next() % UInt64(n)))
            }
            var edgeStart: [Int32] = [0], edges: [Int32] = []
            for list in adjacency { edges += list; edgeStart.append(Int32(edges.count)) }
            let component = CompiledGrammar.stronglyConnectedComponents(n, edgeStart, edges)
            // Reachability by search from each node (a node reaches itself).
            var reaches = [[Bool]](repeating: [Bool](repeating: false, count: n), count: n)
            for s in 0..<n {
                var stack = [s]
                reaches[s][s] = true
                while let x = stack.popLast() {
                    for y in adjacency[x] where !reaches[s][Int(y)] { reaches[s][Int(y)] = true; stack.append(Int(y)) }
                }
            }
            for u in 0..<n {
                for v in 0..<n {
                    #expect((component[u] == component[v]) == (reaches[u][v] && reaches[v][u]), "nodes \(u), \(v) of \(adjacency)")
                }
            }
        }
    }

    @Test func leftRecursionMatchesSearch() {
        var rng = SplitMix64(seed: 13)
        var refused = 0
        for trial in 0..<2_000 {
            let g = Self.randomGrammar(&rng, rules: 1 + trial % 10)
            // The definition: a reference u→v at the left edge (after nullable rules) that is not
            // the alternative's last symbol, with u reachable from v through left-edge references.
            let nullable = CompiledGrammar.nullableRules(g)
            var left = [[Int]](repeating: [], count: g.rules.count)
            var growing: [(Int, Int)] = []
            for (i, rule) in g.rules.enumerated() {
                for alt in rule.alternatives {
                    for (k, sym) in alt.enumerated() {
                        guard case .rule(let r) = sym, g.rules.indices.contains(r) else { break }
                        left[i].append(r)
                        if k < alt.count - 1 { growing.append((i, r)) }
                        if !nullable[r] { break }
                    }
                }
            }
            let expected = growing.contains { u, v in
                var seen = Set([v]), stack = [v]
                while let x = stack.popLast() {
                    if x == u { return true }
                    for y in left[x] where seen.insert(y).inserted { stack.append(y) }
                }
                return false
            }
            var threw = false
            do { try CompiledGrammar.checkLeftRecursion(g) } catch { threw = true }
            #expect(threw == expected)
            if threw { refused += 1 }
        }
        // Both outcomes occur often enough for the comparison to mean something.
        #expect(refused > 100 && refused < 1_900)
    }
}
