import Testing
@testable import LocalLMGrammar

/// Open text: the states of a pattern searched without `^` take any text, so their stacks are
/// keyed as one (`GrammarTokenIndex.openTextMark`) and their entries made from the vocabulary's
/// text tokens with only the others run (`openTextEntry`).
@Suite struct OpenTextTests {
    /// Characters for the automaton checks: printable ASCII but quote and backslash, and
    /// characters of two, three and four bytes, at the edges of their ranges.
    static let sample: [UInt32] = Array(0x20...0x7E).filter { $0 != 0x22 && $0 != 0x5C }.map(UInt32.init)
        + [0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x2028, 0x4E2D, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF]

    /// The state after scalar `c` from `q`, if any (the automaton is deterministic).
    static func step(_ a: ScalarAutomaton, _ q: Int, _ c: UInt32) -> Int? {
        a.edges[q].first { $0.ranges.contains { $0.contains(c) } }?.to
    }

    /// `openStates` against its definition on the sample: a state is open exactly when every state
    /// reached from it over the sample has a step on every sample character and can still reach
    /// an accepting state (for these patterns the sample holds a witness where one is missing).
    @Test(arguments: [
        ("[0-9a-f]{6}", true), ("^[0-9a-f]{6}$", false), ("^ab", true), ("x\\d$", true), ("^[^é]*$", false),
        ("(foo|bar)+", true), ("^.{2}", true), ("^[a-z]+$|q", true),
    ])
    func openStatesMatchTheirDefinition(_ pattern: String, someOpen: Bool) throws {
        let a = try ScalarAutomaton(try RegexCompiler.parseSearch(pattern)).determinized()
        let open = a.openStates()
        var live = a.accepting
        var changed = true
        while changed {
            changed = false
            for q in a.edges.indices where !live[q] && a.edges[q].contains(where: { live[$0.to] }) {
                live[q] = true
                changed = true
            }
        }
        for q in a.edges.indices {
            var seen: Set<Int> = [q], work = [q]
            var expected = true
            while let s = work.popLast(), expected {
                guard live[s] else { expected = false; break }
                for c in Self.sample {
                    guard let t = Self.step(a, s, c) else { expected = false; break }
                    if seen.insert(t).inserted { work.append(t) }
                }
            }
            #expect(open[q] == expected, "\(pattern): state \(q)")
        }
        #expect(open.contains(true) == someOpen, "\(pattern)")
    }

    /// Schemas with searched patterns (long counts, a prefix, a suffix before `$`, a length bound
    /// beside the pattern, member names): masks of an index keying and filling open text equal
    /// those of an index walking those stacks like any others, and brute force, over a vocabulary
    /// with malformed and cut-off tokens; entries were made as open text where the pattern's
    /// states are open, and not where none is.
    @Test(arguments: [
        (#"{"type":"array","items":{"type":"string","pattern":"[0-9a-f]{40}"},"minItems":3}"#, true),
        (#"{"type":"object","properties":{"id":{"type":"string","pattern":"[a-f0-9]{4}-[a-f0-9]{2}"},"note":{"type":"string","pattern":"^ab"}},"required":["id","note"]}"#, true),
        (#"{"type":"array","items":{"type":"string","pattern":"x\\d$"},"minItems":2}"#, true),
        (#"{"type":"array","items":{"type":"string","pattern":"ab","minLength":3},"minItems":2}"#, true),
        (#"{"type":"object","patternProperties":{"q[0-9]":{"type":"integer"}},"additionalProperties":false}"#, true),
        (#"{"type":"array","items":{"type":"string","pattern":"^[a-z]{3,}$"},"minItems":2}"#, false),
    ])
    func openTextChangesNoMask(_ src: String, open: Bool) throws {
        let table = try TokenMaskTests.textTable()
        let options = JSONSchemaOptions(whitespace: .flexible, closesUnlistedObjects: false, patternsSearch: true)
        let grammar = try CompiledGrammar(jsonSchema: try JSONValue(parsing: src), options: options)
        let opening = GrammarTokenIndex(grammar: grammar, tokens: table, storesStateMasks: false)
        let walking = GrammarTokenIndex(grammar: grammar, tokens: table, storesStateMasks: false, findsOpenText: false)
        let compared = TokenMaskTests.compareAlongWalks(opening, walking, steps: 60, bruteForceEvery: 6,
                                                        label: "open text and walked")
        #expect(compared >= 9)
        #expect((opening.openTextEntries > 0) == open)
        #expect(walking.openTextEntries == 0 && walking.openTextSets == 0)
    }

    /// Open text entries are shared like others: a second grammar with the same structure (here
    /// the same schema compiled again) over the same vocabulary finds each of them by signature
    /// and makes none, and its masks equal the first's and brute force.
    @Test func openTextEntriesAreShared() throws {
        let table = try TokenMaskTests.textTable()
        // Small enough that the keys' signatures stay under `maxSignatureWords` (a searched
        // pattern's automaton and an object's members around it often do not: such keys are
        // filled in each grammar).
        let src = #"{"type":"array","items":{"type":"string","pattern":"[0-9a-f]{6}"},"minItems":2}"#
        let options = JSONSchemaOptions(whitespace: .flexible, closesUnlistedObjects: false, patternsSearch: true)
        let first = GrammarTokenIndex(grammar: try CompiledGrammar(jsonSchema: try JSONValue(parsing: src), options: options),
                                      tokens: table, storesStateMasks: false)
        let second = GrammarTokenIndex(grammar: try CompiledGrammar(jsonSchema: try JSONValue(parsing: src), options: options),
                                       tokens: table, storesStateMasks: false)
        let compared = TokenMaskTests.compareAlongWalks(first, second, steps: 40, bruteForceEvery: 8, label: "first and second")
        #expect(compared >= 9)
        #expect(first.openTextEntries > 0)
        #expect(second.openTextEntries == 0)
    }

    /// A rule recorded as open text that is not (an anchored pattern's states, whose text dies at
    /// the first character outside the pattern) gives masks that brute force refutes: the masks
    /// above are checked by a comparison that catches a wrong record.
    @Test func aWrongRecordIsCaught() throws {
        let table = try TokenMaskTests.textTable()
        let src = #"{"type":"array","items":{"type":"string","pattern":"^(ab|c)[0-9]{3}$"},"minItems":2}"#
        let options = JSONSchemaOptions(whitespace: .flexible, closesUnlistedObjects: false, patternsSearch: true)
        var wrong = try CompiledGrammar(jsonSchema: try JSONValue(parsing: src), options: options).grammar
        #expect(wrong.openTextRules.isEmpty)
        wrong.openTextRules = wrong.rules.indices.filter { wrong.rules[$0].name.hasPrefix("pattern-state-") }
        #expect(!wrong.openTextRules.isEmpty)
        let index = GrammarTokenIndex(grammar: try CompiledGrammar(wrong), tokens: table, storesStateMasks: false)
        var m = GrammarMatcher(index)
        var mask = [UInt64](repeating: 0, count: table.maskWordCount)
        let opened = m.accept(bytes: Array("[\"".utf8))
        #expect(opened)
        m.fillNextTokenBitmask(into: &mask)
        let refuted = m.firstDisagreement(with: mask) != nil
        #expect(index.openTextEntries > 0)
        #expect(refuted)
    }
}
