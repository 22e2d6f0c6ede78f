import Testing
import LocalLMTestSupport
@testable import LocalLMGrammar

/// Length-bounded strings (`minLength`/`maxLength`) take each position's mask from the unbounded
/// content's entry, kept to the tokens whose characters fit. Checked against brute force (accepting
/// each token on a copy of the matcher, which runs the grammar's own chain of positions) at every
/// position of several contents, on a vocabulary made of the cases that count differently:
/// escapes, `\u` escapes and surrogate pairs (whole and cut off), multi-byte characters (whole and
/// cut off), and tokens that close the string after 0–3 characters.
@Suite struct BoundedStringMaskTests {
    static let pieces: [String] = [
        #"""#, "a", "ab", "abc", "abcd", "abcdef", #"a""#, #"ab""#, #"abc""#, #"abcd""#, #"\""#, #"\\"#,
        #"\\""#, #"a\"#, #"\"#, #"\u"#, #"\u00e9"#, #"\u00"#, #"\uD83D"#, #"\uD83D\uDE00"#, #"\uD83D\"#,
        #"\uD83D\uDE"#, #"\uD83D\uDE00a""#, "é", "éé", #"é""#, "😀", #"😀""#, #"", "#, #""}"#, #"","#,
        #"a", "#, "\n", "x y", #" ""#,
    ]
    static let table: TokenTable = {
        var bytes = pieces.map { Array($0.utf8) }
        bytes.append([0xC3])          // é cut after its first byte
        bytes.append([0xA9])          // …and its second byte alone
        bytes.append([0xF0, 0x9F])    // 😀 cut after two bytes
        bytes.append([0x98, 0x80])
        bytes.append([])              // end of generation
        return TokenTable(tokenBytes: bytes, endOfGeneration: [bytes.count - 1])
    }()

    @Test func measureCountsCharactersBeforeTheClosingQuote() {
        func m(_ s: String) -> (Int32, Bool) {
            let v = StringContent.measure(Array(s.utf8))
            return (v >> 1, v & 1 == 1)
        }
        #expect(m("abc") == (3, false))
        #expect(m(#"ab", "x"#) == (2, true))
        #expect(m(#"\"a"#) == (2, false))
        #expect(m(#"\\""#) == (1, true))
        #expect(m(#"\u00e9b"#) == (2, false))
        #expect(m(#"\uD83D\uDE00"#) == (1, false))
        #expect(m(#"\uD83D\"#) == (1, false))
        #expect(m(#"\uD83D\uD"#) == (1, false))
        #expect(m(#"\uD7FF\u0041"#) == (2, false))
        #expect(m("é😀") == (2, false))
        #expect(StringContent.measure([0xF0, 0x9F]) >> 1 == 1)
        #expect(m(#"""#) == (0, true))
    }

    static let bounds: [(Int, Int?)] = [(0, 1), (0, 3), (2, 4), (1, nil), (3, nil), (3, 3), (0, 6)]

    @Test(arguments: 0..<bounds.count)
    func everyPositionEqualsBruteForce(_ which: Int) throws {
        let (lo, hi) = Self.bounds[which]
        var schema = #"{"type":"object","properties":{"s":{"type":"string","minLength":\#(lo)"#
        if let hi { schema += #","maxLength":\#(hi)"# }
        schema += "}},\"required\":[\"s\"],\"additionalProperties\":false}"
        let grammar = try CompiledGrammar(jsonSchema: schema)
        #expect(!grammar.countedFrames.isEmpty)
        let index = GrammarTokenIndex(grammar: grammar, tokens: Self.table)
        // Contents that walk the positions with one-byte, escaped, multi-byte and cut-off characters.
        let contents = ["abcdefg", #"\"\\\u00e9xyz"#, "éa😀bé", #"\uD83D\uDE00\uD83D\uDE00abc"#]
        #expect(Self.checkEveryPosition(index, contents, label: "min \(lo) max \(hi.map(String.init) ?? "-")") >= 20)
    }

    /// Feeds `{"s":"` and each content byte by byte, checking the mask before every byte against
    /// brute force (until the grammar refuses a byte). Returns the masks checked.
    static func checkEveryPosition(_ index: GrammarTokenIndex, _ contents: [String], label: String) -> Int {
        var checked = 0
        for content in contents {
            var m = GrammarMatcher(index)
            var mask = [UInt64](repeating: 0, count: index.tokens.maskWordCount)
            for byte in Array(#"{"s":""#.utf8) + Array(content.utf8) {
                m.fillNextTokenBitmask(into: &mask)
                checked += 1
                if let d = TokenMaskTests.bruteForceDifference(m, mask, index.tokens) {
                    Issue.record("\(label) after \(checked) bytes of \(content.debugDescription): \(d)")
                }
                guard m.accept(bytes: [byte]) else { break }
            }
        }
        return checked
    }

    /// A pattern that is a run of one class (`^[C]{a,b}$`, `^[C]+$`) with or without lengths is a
    /// counted chain over the class: brute force at every position, the class taking `"` and `\`
    /// (escaped forms) and non-ASCII letters.
    static let classRuns: [(String, Int?, Int?)] = [
        (#"^[a-c\\\\\"é]+$"#, nil, 4), (#"^[a-c\\\\\"é]{2,3}$"#, nil, nil), (#"^[a-c\\\\\"é]*$"#, 2, 5),
        (#"^[abcd]{1,6}$"#, 3, nil),
    ]

    @Test(arguments: 0..<classRuns.count)
    func classRunPositionsEqualBruteForce(_ which: Int) throws {
        let (pattern, lo, hi) = Self.classRuns[which]
        var schema = #"{"type":"object","properties":{"s":{"type":"string","pattern":"\#(pattern)""#
        if let lo { schema += #","minLength":\#(lo)"# }
        if let hi { schema += #","maxLength":\#(hi)"# }
        schema += "}},\"required\":[\"s\"],\"additionalProperties\":false}"
        let grammar = try CompiledGrammar(jsonSchema: schema)
        #expect(!grammar.countedFrames.isEmpty, "\(pattern) is not a counted chain")
        let index = GrammarTokenIndex(grammar: grammar, tokens: Self.table)
        let label = "\(pattern) min \(lo ?? -1) max \(hi ?? -1)"
        #expect(Self.checkEveryPosition(index, ["abcabca", #"\"\\\u00e9ab"#, "éaébc"], label: label) >= 15)
    }

    /// The same on SmolLM2's real vocabulary, along walks sampled from the masks.
    @Test func realVocabularyWalksEqualBruteForce() throws {
        let table = try #require(TokenFixtures.smolLM2)
        let schema = #"{"type":"object","properties":{"a":{"type":"string","minLength":3,"maxLength":7},"b":{"type":"string","minLength":2}},"required":["a","b"],"additionalProperties":false}"#
        let index = GrammarTokenIndex(grammar: try CompiledGrammar(jsonSchema: schema), tokens: table)
        #expect(TokenMaskTests.checkSampledWalks(index, seeds: 1...4, maxTokens: 30, every: 2) >= 8)
    }
}
