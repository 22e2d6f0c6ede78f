import Foundation
import LocalLMGGUF
import LocalLMTestSupport
import Testing

@testable import LocalLMTokenizers

/// The `gemma4` tokenizer (SentencePiece-style BPE) beyond llama.cpp's own cases, which
/// `LlamaVocabCaseTests` runs: decoding, the BOS override, and rules the cases do not isolate.
@Suite struct Gemma4TokenizerTests {
    /// Loaded once: building the 262k-token vocabulary takes seconds in a debug build.
    static let gemma4: Tokenizer? = try? LlamaVocabCaseTests.tokenizer("gemma-4")

    static func configuration() throws -> Vocabulary.Configuration {
        let file = try GGUFFile(contentsOf: Fixtures.url("tokenizers/vocab/ggml-vocab-gemma-4.gguf"))
        return try Vocabulary.configuration(from: file.metadata)
    }

    @Test func loadsAsGemma4() throws {
        let tokenizer = try #require(Self.gemma4)
        let v = tokenizer.vocabulary
        #expect(v.kind == .gemma4)
        #expect(v.preTokenizerName == "gemma4")
        #expect(v.bos == 2 && v.eos == 1)
        #expect(v.tokenBytes(v.tokenID(forText: Array("▁Hello".utf8)) ?? -1) == Array(" Hello".utf8))
        #expect(v.tokenBytes(v.tokenID(forText: Array("<0xC3>".utf8)) ?? -1) == [0xC3])
        #expect(v.tokenBytes(2) == Array("<bos>".utf8))
    }

    /// Every token of a normal text is a whole piece or a `<0xNN>` byte, so decoding gives the text
    /// back (llama.cpp's `token_to_piece`; its `llama_detokenize` would also drop the space before
    /// `?`, `!`, `.`, `,` and some apostrophes, a clean-up `decode` does not do for any vocabulary).
    @Test func decodeRoundTripsTheCases() throws {
        let tokenizer = try #require(Self.gemma4)
        for (input, expected) in try LlamaVocabCaseTests.cases("gemma-4") {
            #expect(tokenizer.decode(expected) == input, "\(input.debugDescription)")
            var stream = StreamingDetokenizer(tokenizer: tokenizer)
            var streamed = ""
            for id in expected { streamed += stream.append(id) }
            streamed += stream.finish()
            #expect(streamed == input, "\(input.debugDescription)")
        }
    }

    /// llama.cpp adds BOS for Gemma 4 even when `tokenizer.ggml.add_bos_token` is false (PR 21500),
    /// and ignores `tokenizer.ggml.pre`.
    @Test func addBOSIsForced() throws {
        var config = try Self.configuration()
        config.addBOS = false
        config.preTokenizer = "gpt-2"
        let tokenizer = Tokenizer(vocabulary: try Vocabulary(config))
        #expect(tokenizer.vocabulary.addBOS)
        #expect(tokenizer.vocabulary.preTokenizerName == "gemma4")
        let plain = tokenizer.encode("Hello world", addSpecial: false)
        #expect(tokenizer.encode("Hello world", addSpecial: true) == [2] + plain)
        // Other BPE vocabularies keep the file's value.
        let gpt2File = try GGUFFile(contentsOf: Fixtures.url("tokenizers/vocab/ggml-vocab-gpt-2.gguf"))
        var gpt2 = try Vocabulary.configuration(from: gpt2File.metadata)
        gpt2.addBOS = false
        #expect(try !Vocabulary(gpt2).addBOS)
    }

    /// Arbitrary bytes (invalid UTF-8, control characters) give ids inside the vocabulary, and the
    /// streaming detokenizer agrees with `decode`.
    @Test func arbitraryBytes() throws {
        let tokenizer = try #require(Self.gemma4)
        var generator = SplitMix64(seed: 4)
        let alphabet: [UInt8] = [0x20, 0x0A, 0x09, 0x61, 0x62, 0xE2, 0x96, 0x81, 0xC3, 0xA9, 0xF0, 0x9F, 0x80, 0xFF, 0x3C, 0x3E]
        for _ in 0..<300 {
            let count = Int(generator.next() % 40)
            let bytes = (0..<count).map { _ in
                generator.next() % 2 == 0 ? alphabet[Int(generator.next() % UInt64(alphabet.count))] : UInt8(truncatingIfNeeded: generator.next())
            }
            let ids = bytes.withUnsafeBufferPointer { tokenizer.encode(bytes: $0, addSpecial: true, parseSpecial: true) }
            #expect(ids.allSatisfy { $0 >= 0 && Int($0) < tokenizer.vocabulary.count })
            var stream = StreamingDetokenizer(tokenizer: tokenizer, special: true)
            var streamed = ""
            for id in ids { streamed += stream.append(id) }
            streamed += stream.finish()
            #expect(streamed == tokenizer.decode(ids))
        }
    }

    // MARK: - A tiny vocabulary

    static func tiny(byteTokens: Bool = true) throws -> Tokenizer {
        var texts = ["<pad>", "<eos>", "<bos>", "a", "b", "ab", "▁", "▁a", "▁ab", "\n", "\n\n", "é", "<ud>"]
        var types: [Int32] = [3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4]
        if byteTokens {
            for b in 0..<256 {
                texts.append(String(format: "<0x%02X>", b))
                types.append(6)
            }
        }
        var config = Vocabulary.Configuration(model: "gemma4", tokens: texts.map { Array($0.utf8) })
        config.tokenTypes = types
        // "b a" merges into "ba", which is no token; "é é" into "éé", also none.
        config.merges = ["a b", "▁ ab", "▁ a", "b a", "é é", "\n \n", "noseparator", " x"].map { Array($0.utf8) }
        config.bosID = 2
        config.eosID = 1
        return Tokenizer(vocabulary: try Vocabulary(config))
    }

    @Test func mergesRunOverCharactersWithEscapedSpaces() throws {
        let t = try Self.tiny()
        let byte = { (b: Int) in Int32(13 + b) }
        #expect(t.encode("ab") == [5])
        #expect(t.encode(" ab") == [8])
        #expect(t.encode(" a b") == [7, 6, 4])
        // "é" is one character (two bytes) and a token; "ée" ends in a character that is not.
        #expect(t.encode("é") == [11])
        #expect(t.encode("ée") == [11, byte(0x65)])
        // A merge whose result is no token falls back to `<0xNN>` bytes, not to the parts' tokens.
        #expect(t.encode("ba") == [byte(0x62), byte(0x61)])
        #expect(t.encode("éé") == [byte(0xC3), byte(0xA9), byte(0xC3), byte(0xA9)])
        // Newline runs: looked up whole, else merged like any word.
        #expect(t.encode("\n\n") == [10])
        #expect(t.encode("\n\n\n") == [10, 9])
        #expect(t.encode("a\n\nb") == [3, 10, 4])
        #expect(t.encode("<ud>a", parseSpecial: false) == [12, 3])
        #expect(t.decode(t.encode(" ab é\n\n\nx<ud> ")) == " ab é\n\n\nx<ud> ")
        #expect(t.encode("a", addSpecial: true) == [2, 3])
    }

    /// Without `<0xNN>` tokens, what no token covers is dropped, as in llama.cpp.
    @Test func missingByteTokensAreSkipped() throws {
        let t = try Self.tiny(byteTokens: false)
        #expect(t.encode("ba") == [])
        #expect(t.encode("xa") == [3])
        #expect(t.encode("\u{FFFF}\u{10FFFF}") == [])
    }

    @Test func missingMergesIsAnError() throws {
        var config = Vocabulary.Configuration(model: "gemma4", tokens: [Array("a".utf8)])
        #expect(throws: VocabularyError.missingKey("tokenizer.ggml.merges")) { try Vocabulary(config) }
        config.merges = []
        #expect(try Vocabulary(config).bos == nil)
    }
}
