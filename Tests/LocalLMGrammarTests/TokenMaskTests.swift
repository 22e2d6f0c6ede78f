import Testing
import LocalLMTestSupport
@testable import LocalLMGrammar
import LocalLMGGUF
import LocalLMTokenizers

/// Masks over SmolLM2's real 49k vocabulary, checked against brute force (accepting every token
/// on a copy of the matcher) along walks sampled from the masks themselves.
@Suite struct TokenMaskTests {
    static let grammars: [(String, String)] = [
        ("schema", #"{"type":"object","properties":{"name":{"type":"string","maxLength":12},"age":{"type":"integer","minimum":-5,"maximum":120},"tags":{"type":"array","items":{"enum":["a","b c","\u00e9t\u00e9"]},"maxItems":3}},"required":["name","age"]}"#),
        ("gbnf", #"root ::= "<" [^>]* ">" ( " " [0-9]+ )?"#),
        ("regex", #"(\w+@[a-z]+\.(com|org)|[\u4e00-\u9fff]{2,4}|😀+)"#),
    ]

    static func grammar(_ kind: String, _ src: String) throws -> CompiledGrammar {
        switch kind {
        case "schema": return try CompiledGrammar(jsonSchema: src)
        case "gbnf": return try CompiledGrammar(gbnf: src)
        default: return try CompiledGrammar(regex: src)
        }
    }

    /// The first token where `mask` and accepting the token on a copy of `m` disagree, described.
    static func bruteForceDifference(_ m: GrammarMatcher, _ mask: [UInt64], _ table: TokenTable) -> String? {
        guard let (t, inMask, accepted) = m.firstDisagreement(with: mask) else { return nil }
        return "token \(t) \(String(decoding: table.tokenBytes[t], as: UTF8.self).debugDescription): mask \(inMask), accept \(accepted)"
    }

    /// Walks sampled from the masks (one per seed), checking every `every`-th mask against brute
    /// force and that each finished walk matches the grammar. Returns the masks checked.
    static func checkSampledWalks(_ index: GrammarTokenIndex, seeds: ClosedRange<UInt64>, maxTokens: Int, every: Int) -> Int {
        var checked = 0
        for seed in seeds {
            var step = 0
            let out = sampleWalk(index, seed: seed, maxTokens: maxTokens) { m, mask in
                step += 1
                guard step % every == 1 else { return }
                checked += 1
                if let difference = bruteForceDifference(m, mask, index.tokens) { Issue.record("seed \(seed): \(difference)") }
            }
            if let out { #expect(matches(index.grammar, String(decoding: out, as: UTF8.self))) }
        }
        return checked
    }

    /// Matchers of two indexes of one grammar along one walk sampled (by `seed`) from the first's
    /// masks: every mask must be equal, and every `bruteForceEvery`-th equal to brute force.
    /// Returns the masks compared.
    /// A copy of SmolLM2's table, for tests that count walks or entries: entries other tests stored
    /// on the shared table would spare walks or turn fills into hits, depending on which ran first.
    static func ownTable() throws -> TokenTable {
        let shared = try #require(TokenFixtures.smolLM2)
        return TokenTable(tokenBytes: shared.tokenBytes, endOfGeneration: shared.endOfGeneration, special: shared.special)
    }

    /// `compareAlongWalk` for seeds 1…3; the masks compared.
    static func compareAlongWalks(_ first: GrammarTokenIndex, _ second: GrammarTokenIndex, steps: Int,
                                  bruteForceEvery: Int?, label: String) -> Int {
        (UInt64(1)...3).reduce(0) {
            $0 + compareAlongWalk(first, second, seed: $1, steps: steps, bruteForceEvery: bruteForceEvery, label: label)
        }
    }

    static func compareAlongWalk(_ first: GrammarTokenIndex, _ second: GrammarTokenIndex, seed: UInt64, steps: Int,
                                 bruteForceEvery: Int?, label: String) -> Int {
        let table = first.tokens
        var rng = SplitMix64(seed: seed)
        var a = GrammarMatcher(first), b = GrammarMatcher(second)
        var maskA = [UInt64](repeating: 0, count: table.maskWordCount), maskB = maskA
        var compared = 0
        for step in 0..<steps {
            a.fillNextTokenBitmask(into: &maskA)
            b.fillNextTokenBitmask(into: &maskB)
            #expect(maskA == maskB, "\(label) seed \(seed) step \(step): masks differ")
            if let every = bruteForceEvery, step % every == 0, let difference = bruteForceDifference(a, maskA, table) {
                Issue.record("\(label) seed \(seed) step \(step): \(difference)")
            }
            compared += 1
            let allowed = allowedTokens(maskA).filter { !table.endOfGeneration.contains($0) }
            guard !allowed.isEmpty else { break }
            let t = allowed[Int(rng.next() % UInt64(allowed.count))]
            #expect(a.accept(token: t) && b.accept(token: t))
        }
        return compared
    }

    @Test(arguments: 0..<grammars.count)
    func maskEqualsBruteForce(_ which: Int) throws {
        let table = try #require(TokenFixtures.smolLM2)
        let (kind, src) = Self.grammars[which]
        let index = GrammarTokenIndex(grammar: try Self.grammar(kind, src), tokens: table)
        #expect(Self.checkSampledWalks(index, seeds: 1...3, maxTokens: 40, every: 4) >= 3)
    }

    /// A state met again (the next element of an array of objects, a second walk along the same
    /// tokens) takes its mask from `StateMasks`: every such mask equals the one a fresh index
    /// computes for the same tokens, and brute force.
    @Test func storedStateMasksEqualComputedOnes() throws {
        let table = try #require(TokenFixtures.smolLM2)
        let src = #"{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string","maxLength":6},"ok":{"type":"boolean"}},"required":["id","ok"]},"minItems":2}"#
        let grammar = try CompiledGrammar(jsonSchema: src, whitespace: .flexible)
        let shared = GrammarTokenIndex(grammar: grammar, tokens: table)
        let computing = GrammarTokenIndex(grammar: grammar, tokens: table, storesStateMasks: false)
        var compared = 0
        for seed: UInt64 in 1...4 {
            // The same walk twice on the shared index: the second meets only states met before.
            for pass in 0..<2 {
                compared += Self.compareAlongWalk(shared, computing, seed: seed, steps: 80, bruteForceEvery: pass == 1 ? 8 : nil,
                                                  label: "stored and computed, pass \(pass)")
            }
        }
        #expect(shared.stateMasks?.count ?? 0 > 0)
        #expect(computing.stateMasks == nil)
        #expect(compared > 100)
    }

    /// Walks take a subtree whole where every byte under it keeps every path alive for as long as
    /// the subtree is deep: string content, a counted class (`{7}`: only subtrees no deeper than what remains),
    /// a pattern searched inside a string. Each mask equals the one of an index whose walks visit
    /// every node, and brute force, and some subtrees were taken whole.
    @Test(arguments: [
        #"{"type":"object","properties":{"note":{"type":"string"},"code":{"type":"string","pattern":"^[a-z]{7}$"}},"required":["note","code"]}"#,
        #"{"type":"array","items":{"type":"string","pattern":"[0-9a-f]{8}-[0-9a-f]{4}"},"minItems":1}"#,
        #"{"type":"object","additionalProperties":{"type":"string","maxLength":30}}"#,
        "regex:[a-z]{7}!",
    ])
    func skippedSubtreesChangeNoMask(_ src: String) throws {
        let (skipping, visiting) = try Self.compareSkippingAndVisiting(src, table: try Self.ownTable(), bruteForceEvery: 10)
        #expect(skipping.skippedSubtrees > 0)
        #expect(visiting.skippedSubtrees == 0)
    }

    /// Indexes of `src` (a schema with patterns searched, or `regex:` and a pattern) whose walks take
    /// safe subtrees whole and visit every node, compared along walks (and with brute force every
    /// `bruteForceEvery`-th mask).
    static func compareSkippingAndVisiting(_ src: String, table: TokenTable, bruteForceEvery: Int) throws
        -> (skipping: GrammarTokenIndex, visiting: GrammarTokenIndex) {
        let options = JSONSchemaOptions(whitespace: .flexible, closesUnlistedObjects: false, patternsSearch: true)
        let grammar = src.hasPrefix("regex:") ? try CompiledGrammar(regex: String(src.dropFirst(6)))
            : try CompiledGrammar(jsonSchema: try JSONValue(parsing: src), options: options)
        // Both walk a searched pattern's states (not as open text, which `OpenTextTests` covers).
        let skipping = GrammarTokenIndex(grammar: grammar, tokens: table, storesStateMasks: false, findsOpenText: false)
        let visiting = GrammarTokenIndex(grammar: grammar, tokens: table, storesStateMasks: false, skipsSafeSubtrees: false,
                                         findsOpenText: false)
        let compared = compareAlongWalks(skipping, visiting, steps: 60, bruteForceEvery: bruteForceEvery,
                                         label: "skipping and visiting")
        #expect(compared >= 9)
        return (skipping, visiting)
    }

    /// SmolLM2's table with text tokens added beside it: words in several scripts, tokens cut off
    /// inside a character, and malformed ones (overlong, surrogates, above U+10FFFF, stray
    /// continuation bytes, a lead byte followed by ASCII) under the same first bytes as well-formed ones.
    static func textTable() throws -> TokenTable {
        let shared = try #require(TokenFixtures.smolLM2)
        let words = ["été", "naïve", "中文", "中国人", "日本語", "😀", "😀😀", "Привет", "мир", "ελληνικά", "€", "a€b",
                     "\"中\"", "中\"", "中\\", "名字", "ß", "ÿ", "\u{10FFFF}", "\u{FFFD}", "\u{D7FF}", "\u{E000}"]
        let cutOrMalformed: [[UInt8]] = [
            [0xE4, 0xB8], [0xE4], [0xE4, 0xB8, 0xAD, 0xE4], [0xF0, 0x9F, 0x98], [0xE4, 0x41], [0xE4, 0xB8, 0x41],
            [0xE4, 0xB8, 0xAD, 0x80], [0x80], [0xBF, 0x41], [0xC0, 0x80], [0xC1, 0xBF], [0xC3, 0xA9, 0xC3],
            [0xC3, 0xA9, 0xC3, 0x22], [0xE0, 0x80, 0x80], [0xE0, 0xA0, 0x80], [0xED, 0xA0, 0x80], [0xED, 0x9F, 0xBF],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
            [0xF5, 0x80], [0xFF], [0xF8, 0x88, 0x80, 0x80, 0x80],
        ]
        return TokenTable(tokenBytes: shared.tokenBytes + words.map { Array($0.utf8) } + cutOrMalformed,
                          endOfGeneration: shared.endOfGeneration, special: shared.special)
    }

    /// Whether `bytes` is a well-formed UTF-8 prefix by Swift's own validation: some completion of
    /// at most three bytes makes it valid.
    static func isWellFormedPrefix(_ bytes: [UInt8]) -> Bool {
        let completions: [[UInt8]] = [[]] + [0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF].flatMap { (c: UInt8) in
            (0...2).map { [c] + [UInt8](repeating: 0x80, count: $0) }
        }
        return completions.contains { String(validating: bytes + $0, as: UTF8.self) != nil }
    }

    /// The trie marks a subtree with high bytes `utf8Prefixes` exactly when every token under it,
    /// read from the subtree's own edge, is a well-formed UTF-8 prefix.
    @Test func trieMarksWellFormedTextSubtrees() throws {
        let table = try Self.textTable()
        let trie = table.trie
        var marked = 0, unmarked = 0
        for i in 1..<trie.nodeCount where trie.inner[i] >= 0 {
            let shape = trie.subtreeShape[Int(trie.inner[i])]
            guard shape & TokenTrie.hasHighByte != 0 else {
                #expect(shape & TokenTrie.utf8Prefixes == 0)
                continue
            }
            let from = Int(trie.depth[i]) - 1
            let expected = (trie.tokenStart[i]..<trie.tokenStart[Int(trie.skip[i])]).allSatisfy { k in
                Self.isWellFormedPrefix(Array(table.tokenBytes[Int(trie.order[Int(k)])][from...]))
            }
            #expect((shape & TokenTrie.utf8Prefixes != 0) == expected, "node \(i) at depth \(from + 1)")
            if expected { marked += 1 } else { unmarked += 1 }
        }
        #expect(marked > 50)
        #expect(unmarked >= 5)
    }

    /// Where every string of safe ASCII bytes and well-formed UTF-8 characters stays alive (string
    /// content, a pattern searched inside a string — `[0-9a-f]{24}` changes level for longer than
    /// `maxHorizon` — a class of everything but one character), walks take subtrees of such text
    /// whole; where some characters above ASCII are not allowed (a few lead bytes taken, or every
    /// lead byte but not every character), they do not. Each mask equals the
    /// one of an index whose walks visit every node, and brute force, over a vocabulary with
    /// malformed and cut-off tokens beside well-formed ones.
    @Test(arguments: [
        (#"{"type":"object","properties":{"note":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}},"required":["note","tags"]}"#, true),
        (#"{"type":"array","items":{"type":"string","pattern":"[0-9a-f]{24}"},"minItems":1}"#, true),
        ("regex:[^x]*x", true),
        (#"{"type":"array","items":{"type":"string","pattern":"^[a-zé中 ]*$"},"minItems":2}"#, false),
        (#"{"type":"array","items":{"type":"string","pattern":"^[^é€]*$"},"minItems":2}"#, false),
        ("regex:[^中]*x", false),
    ])
    func textSubtreesChangeNoMask(_ src: String, takesText: Bool) throws {
        let (skipping, visiting) = try Self.compareSkippingAndVisiting(src, table: try Self.textTable(), bruteForceEvery: 6)
        #expect((skipping.skippedTextSubtrees > 0) == takesText)
        #expect(visiting.skippedSubtrees == 0)
    }

    /// A long searched pattern counts the characters read so far: its sets change at every
    /// character, so they never repeat within `maxHorizon` and their text is shown alive within
    /// the horizon only (`StackSetDFA.aliveWithin`). Walks take such subtrees whole; where one
    /// character is refused (`[^П]{300}`), they do not. Each mask equals the one of an index whose
    /// walks visit every node, and brute force.
    @Test(arguments: [
        (#"{"type":"array","items":{"type":"string","pattern":"[0-9a-f]{40}"},"minItems":3}"#, true),
        ("regex:[^П]{300}x", false),
    ])
    func textWithinAHorizonChangesNoMask(_ src: String, takesText: Bool) throws {
        let (skipping, visiting) = try Self.compareSkippingAndVisiting(src, table: try Self.textTable(), bruteForceEvery: 5)
        #expect((skipping.textSetsWithinHorizon > 0) == takesText)
        #expect(visiting.skippedSubtrees == 0)
    }

    /// Keys with a narrow top (a literal's character, whitespace, a number's digit) take a short walk
    /// before any signature is written; keys whose walk runs longer fall back to sharing and
    /// composing. Every mask equals the one of an index that always shares or composes, and brute
    /// force; so do those of an index whose narrow walks are cut after 24 nodes (most fall back).
    @Test(arguments: [
        #"{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"},"ok":{"type":"boolean"}},"required":["id"]}"#,
        #"{"type":"array","items":{"type":"string","pattern":"^I[a-z0-f]{12}$"},"minItems":1}"#,
        #"{"type":"object","additionalProperties":{"type":"number"}}"#,
    ])
    func narrowWalksChangeNoMask(_ src: String) throws {
        let table = try Self.ownTable()
        let grammar = try CompiledGrammar(jsonSchema: try JSONValue(parsing: src), options: JSONSchemaOptions(whitespace: .flexible))
        // Keys walked one by one (not together with the state's other new narrow keys).
        let narrow = GrammarTokenIndex(grammar: grammar, tokens: table, storesStateMasks: false, walksNewNarrowKeysTogether: false)
        let sharing = GrammarTokenIndex(grammar: grammar, tokens: table, storesStateMasks: false, triesNarrowWalks: false,
                                        walksNewNarrowKeysTogether: false)
        let cut = GrammarTokenIndex(grammar: grammar, tokens: table, storesStateMasks: false, narrowWalkNodes: 24,
                                    walksNewNarrowKeysTogether: false)
        let compared = Self.compareAlongWalks(narrow, sharing, steps: 60, bruteForceEvery: 10, label: "narrow and sharing")
            + Self.compareAlongWalks(cut, sharing, steps: 60, bruteForceEvery: nil, label: "cut and sharing")
        #expect(compared >= 18)
        #expect(narrow.narrowEntries > 0)
        #expect(sharing.narrowEntries == 0)
        #expect(cut.narrowEntries < narrow.narrowEntries)
    }

    /// States with two or more narrow keys not cached yet (after a value among many optional
    /// members; inside a member name beside many listed names, some sharing prefixes, or beside a
    /// few; beside open members whose keys stay wide) take those keys' part of the mask from one
    /// walk of their stacks together. Every mask equals the one of an index that fills every key's
    /// entry, and brute force.
    @Test(arguments: [
        #"{"type":"object","properties":{"alpha":{"type":"integer"},"beta":{"type":"boolean"},"gamma":{"type":"string"},"delta":{"type":"number"},"epsilon":{"type":"null"},"zeta":{"type":"integer"},"eta":{"type":"boolean"},"theta":{"type":"string","maxLength":4},"iota":{"type":"integer"},"kappa":{"enum":["a","b"]}}}"#,
        #"{"type":"object","properties":{"name":{"type":"string"},"names":{"type":"integer"},"nameless":{"type":"boolean"},"node":{"type":"integer"},"notes":{"type":"string"},"number":{"type":"number"},"nested":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}},"next":{"type":"null"},"nil":{"type":"boolean"}},"additionalProperties":{"type":"integer"}}"#,
        #"{"type":"object","properties":{"id":{"type":"integer"},"idx":{"type":"string"},"ok":{"type":"boolean"}},"additionalProperties":{"type":"integer"}}"#,
        #"{"type":"array","items":{"type":"object","properties":{"a1":{"type":"integer"},"a2":{"type":"integer"},"a3":{"type":"integer"},"a4":{"type":"integer"},"a5":{"type":"integer"},"a6":{"type":"integer"},"a7":{"type":"integer"},"a8":{"type":"integer"},"a9":{"type":"integer"}},"required":["a5"]}}"#,
    ])
    func stateWalksChangeNoMask(_ src: String) throws {
        let table = try Self.ownTable()
        let options = JSONSchemaOptions(whitespace: .flexible, closesUnlistedObjects: false, anyPropertyOrder: true)
        let grammar = try CompiledGrammar(jsonSchema: try JSONValue(parsing: src), options: options)
        let together = GrammarTokenIndex(grammar: grammar, tokens: table, storesStateMasks: false)
        let apart = GrammarTokenIndex(grammar: grammar, tokens: table, storesStateMasks: false, walksNewNarrowKeysTogether: false)
        let compared = Self.compareAlongWalks(together, apart, steps: 50, bruteForceEvery: 5, label: "together and apart")
        #expect(compared >= 9)
        #expect(together.stateWalks > 0)
        #expect(apart.stateWalks == 0)
    }

    /// An index's entries are bounded in bytes: with a bound far below what a walk fills, entries
    /// are dropped and filled again, and every mask still equals the one of an unbounded index.
    @Test func boundedEntryCacheChangesNoMask() throws {
        let table = try Self.ownTable()
        let src = #"{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string","maxLength":6},"tags":{"type":"array","items":{"type":"string"}}},"required":["id"]},"minItems":2}"#
        let grammar = try CompiledGrammar(jsonSchema: src, whitespace: .flexible)
        let small = GrammarTokenIndex(grammar: grammar, tokens: table, storesStateMasks: false, cacheBytes: 64 << 10)
        let large = GrammarTokenIndex(grammar: grammar, tokens: table, storesStateMasks: false)
        _ = Self.compareAlongWalks(small, large, steps: 60, bruteForceEvery: nil, label: "bounded and unbounded")
        // The small index dropped entries (it holds fewer than it filled) and filled some again.
        #expect(small.cachedStateCount < small.filledEntryCount)
        #expect(small.filledEntryCount > large.filledEntryCount)
        #expect(large.cachedStateCount == large.filledEntryCount)
    }

    /// Objects open to further members, read as MaskBench reads schemas: a key that leaves the
    /// listed names is any string, and its entries come from walks shared by every schema over the
    /// vocabulary (kept to the first bytes that leave the names here; the lower frames re-run only
    /// for the tokens that close the key). Schemas with different names run one after the other on
    /// the same table, so the later ones reuse what the earlier ones stored, and every mask is
    /// checked against brute force.
    @Test func openObjectsShareEntriesAcrossSchemas() throws {
        let table = try #require(TokenFixtures.smolLM2)
        let options = JSONSchemaOptions(whitespace: .flexible, closesUnlistedObjects: false, anyPropertyOrder: true,
                                        infersTypes: false, patternsSearch: true)
        let schemas = [
            #"{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name"]}"#,
            #"{"type":"object","properties":{"title":{"type":"string","maxLength":8},"year":{"type":"integer"},"nested":{"type":"object","properties":{"tag":{"enum":["x","y"]}}}}}"#,
            #"{"type":"object","properties":{"zeta":{"type":"boolean"}},"patternProperties":{"^a[0-9]+$":{"type":"number"}},"required":["zeta"]}"#,
        ]
        var checked = 0
        for src in schemas {
            let index = GrammarTokenIndex(grammar: try CompiledGrammar(jsonSchema: try JSONValue(parsing: src), options: options), tokens: table)
            for seed in UInt64(1)...3 {
                var step = 0
                _ = sampleWalk(index, seed: seed, maxTokens: 30) { m, mask in
                    step += 1
                    guard step % 3 == 1 else { return }
                    checked += 1
                    if let difference = Self.bruteForceDifference(m, mask, table) { Issue.record("\(src.prefix(40)) \(difference)") }
                }
            }
        }
        #expect(checked >= 9)
    }

    @Test func specialTokensOnlyEndAtTheEnd() throws {
        let table = try #require(TokenFixtures.smolLM2)
        let index = GrammarTokenIndex(grammar: try CompiledGrammar(gbnf: #"root ::= "ab""#), tokens: table)
        var m = GrammarMatcher(index)
        var mask = [UInt64](repeating: 0, count: table.maskWordCount)
        m.fillNextTokenBitmask(into: &mask)
        let first = allowedTokens(mask)
        #expect(!first.isEmpty)
        #expect(first.allSatisfy { !table.special.contains($0) })
        let eos = try #require(table.endOfGeneration.min())
        let ok1 = !m.accept(token: eos)
        #expect(ok1)
        let ok2 = m.accept(bytes: Array("ab".utf8))
        #expect(ok2)
        m.fillNextTokenBitmask(into: &mask)
        #expect(Set(allowedTokens(mask)) == table.endOfGeneration)
        let ok3 = m.accept(token: eos)
        #expect(ok3)
        #expect(m.isCompleted)
    }

    @Test func partialUTF8TokensAndRollback() throws {
        // Byte-level tokens ending inside a multi-byte character must be allowed when a valid
        // continuation exists, and rollback must restore the previous state exactly.
        let table = TokenTable(tokenBytes: [[0xE2], [0x82], [0xAC], Array("€".utf8), Array("x".utf8), []], endOfGeneration: [5])
        let index = GrammarTokenIndex(grammar: try CompiledGrammar(gbnf: #"root ::= [€-€]+ "x""#), tokens: table)
        var m = GrammarMatcher(index)
        var mask = [UInt64](repeating: 0, count: table.maskWordCount)
        m.fillNextTokenBitmask(into: &mask)
        #expect(allowedTokens(mask) == [0, 3])
        let ok4 = m.accept(token: 0)
        #expect(ok4)
        m.fillNextTokenBitmask(into: &mask)
        #expect(allowedTokens(mask) == [1])
        let ok5 = !m.accept(token: 2)
        #expect(ok5)
        let ok6 = m.accept(token: 1) && m.accept(token: 2)
        #expect(ok6)
        m.fillNextTokenBitmask(into: &mask)
        #expect(allowedTokens(mask) == [0, 3, 4])
        let ok7 = m.accept(token: 4)
        #expect(ok7)
        #expect(m.isCompleted)
        let ok8 = m.rollback(2)
        #expect(ok8)
        m.fillNextTokenBitmask(into: &mask)
        #expect(allowedTokens(mask) == [2])
        let ok9 = !m.rollback(5)
        #expect(ok9)
    }
}

/// The table built from the real tokenizer vocabulary (GGUF → Vocabulary) matches the fixture
/// that gguf-py produced for the same model.
@Suite struct TokenTableVocabularyTests {
    @Test func smolLM2VocabularyMatchesFixture() throws {
        let fixture = try #require(TokenFixtures.smolLM2)
        let file = try GGUFFile(contentsOf: try TestModels.require(TestModels.smolLM2))
        let table = TokenTable(vocabulary: try Vocabulary(gguf: file))
        #expect(table.count == fixture.count)
        var differing = 0
        for id in 0..<table.count where !fixture.special.contains(id) {
            if table.tokenBytes[id] != fixture.tokenBytes[id] { differing += 1 }
        }
        #expect(differing == 0)
        #expect(table.endOfGeneration.isSuperset(of: [2]))
        // Control tokens (GGUF type 3) are special in both; the fixture also counts user-defined ones.
        #expect(table.special.isSubset(of: fixture.special))
        #expect(!table.special.isEmpty)
    }
}
