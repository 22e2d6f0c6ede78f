import Testing

@testable import LocalLMTokenizers

/// Vocabularies built in memory, for behaviour the model files do not isolate.
@Suite struct VocabularyInMemoryTests {
    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// A tiny SentencePiece vocabulary: merges go by score, leftmost first, with byte fallback.
    static func sentencePiece(addSpacePrefix: Bool = true) throws -> Tokenizer {
        var tokens = ["<unk>", "<s>", "</s>", "▁", "a", "b", "c", "ab", "bc", "▁a", "▁ab", "<ctl>", "<ud>"].map(bytes)
        var scores: [Float] = [0, 0, 0, -1, -2, -2, -2, -3, -1, -4, -5, 0, 0]
        var types: [Int32] = [2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, 4]
        for b in 0..<256 {
            tokens.append(bytes(String(format: "<0x%02X>", b)))
            scores.append(0)
            types.append(6)
        }
        var config = Vocabulary.Configuration(model: "llama", tokens: tokens)
        config.scores = scores
        config.tokenTypes = types
        config.addSpacePrefix = addSpacePrefix
        return Tokenizer(vocabulary: try Vocabulary(config))
    }

    @Test func sentencePieceMergesByScoreThenLeftmost() throws {
        let t = try Self.sentencePiece(addSpacePrefix: false)
        // "bc" (-1) beats "ab" (-3): a + bc, not ab + c.
        #expect(t.encode("abc", parseSpecial: false) == [4, 8])
        // "▁a" (-4) vs "ab" (-3): ab first, then "▁ab" (-5).
        #expect(t.encode(" ab", parseSpecial: false) == [10])
        // Unknown characters fall back to bytes: é = C3 A9.
        let base = Int32(13)
        #expect(t.encode("é", parseSpecial: false) == [base + 0xC3, base + 0xA9])
        #expect(t.decode(t.encode("é abc", parseSpecial: false)) == "é abc")
    }

    @Test func sentencePieceSpacePrefixAfterSpecialTokens() throws {
        let t = try Self.sentencePiece()
        // A space goes before the first text and before text after a special token.
        #expect(t.encode("ab", parseSpecial: true) == [10])
        #expect(t.encode("ab<ctl>ab", parseSpecial: true) == [10, 11, 10])
        // With parsing off the control text is plain text (its bytes), the user-defined token still splits.
        #expect(t.encode("<ud>", parseSpecial: false) == [12])
        #expect(!t.encode("<ctl>", parseSpecial: false).contains(11))
        // decode drops the prefix space of the first token (documented SPM round-trip rule).
        #expect(t.decode(t.encode("ab c", parseSpecial: false)) == "ab c")
        #expect(t.encode("ab", addSpecial: true) == [1, 10])
    }

    /// Generated text continues a prompt, so the streaming detokenizer keeps a first token's space
    /// unless asked to strip it like `decode`.
    @Test func streamingKeepsLeadingSpaceByDefault() throws {
        let t = try Self.sentencePiece()
        var continuing = StreamingDetokenizer(tokenizer: t)
        #expect(continuing.append(10) == " ab")
        var fresh = StreamingDetokenizer(tokenizer: t, stripsLeadingSpace: true)
        #expect(fresh.append(10) == "ab")
        #expect(fresh.append(10) == " ab")
    }

    /// llama.cpp takes special tokens longest first over the whole text, so a longer token wins
    /// even when a shorter one starts earlier.
    @Test func specialTokensLongestFirst() throws {
        let texts = ["a", "b", "c", "d", "ab", "bcd"].map(Self.bytes)
        var config = Vocabulary.Configuration(model: "gpt2", tokens: texts)
        config.tokenTypes = [1, 1, 1, 1, 4, 4]
        config.merges = []
        config.preTokenizer = "gpt-2"
        let t = Tokenizer(vocabulary: try Vocabulary(config))
        #expect(t.encode("abcd") == [0, 5])
        #expect(t.encode("abab") == [4, 4])
        #expect(t.encode("xab").last == 4)
    }

    @Test func endOfGenerationByText() throws {
        let texts = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "hello"].map(Self.bytes)
        var config = Vocabulary.Configuration(model: "gpt2", tokens: texts)
        config.tokenTypes = [3, 3, 1, 1]
        config.merges = []
        config.eosID = 0
        let v = try Vocabulary(config)
        #expect(v.isEndOfGeneration(0) && v.isEndOfGeneration(2))
        #expect(!v.isEndOfGeneration(1) && !v.isEndOfGeneration(3))
        // <|im_end|> was a normal token; llama.cpp makes end-of-generation tokens control tokens.
        #expect(v.attributes(of: 2).contains(.control))
        #expect(v.eot == 2)
    }
}
