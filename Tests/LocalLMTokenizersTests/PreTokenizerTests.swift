import Foundation
import LocalLMGGUF
import LocalLMTestSupport
import Testing

@testable import LocalLMTokenizers

/// Every implemented pre-tokenizer against llama.cpp on the corpus: the GPT-2 vocabulary with its
/// `tokenizer.ggml.pre` replaced (scripts/goldens/tokenizer_pretokenizer_goldens.py made the goldens).
@Suite struct PreTokenizerTests {
    static let goldens: [String: [[Int32]]] = {
        (try? JSONDecoder().decode([String: [[Int32]]].self, from: Fixtures.data("tokenizers/goldens-pre.json"))) ?? [:]
    }()

    static let gpt2Configuration: Vocabulary.Configuration? = {
        guard let file = try? GGUFFile(contentsOf: Fixtures.url("tokenizers/vocab/ggml-vocab-gpt-2.gguf")) else { return nil }
        return try? Vocabulary.configuration(from: file.metadata)
    }()

    static let names = goldens.keys.sorted()

    @Test func goldensArePresent() throws {
        #expect(Self.names.count >= 25)
        #expect(Self.gpt2Configuration != nil)
    }

    @Test(arguments: names)
    func matchesLlamaCpp(_ name: String) throws {
        var config = try #require(Self.gpt2Configuration)
        config.preTokenizer = name
        let tokenizer = Tokenizer(vocabulary: try Vocabulary(config))
        let corpus = try JSONDecoder().decode([String].self, from: Fixtures.data("tokenizers/corpus.json"))
        let expected = try #require(Self.goldens[name])
        try #require(expected.count == corpus.count)
        for (text, ids) in zip(corpus, expected) {
            #expect(tokenizer.encode(text, addSpecial: false, parseSpecial: false) == ids, "\(name): \(text.debugDescription)")
        }
    }

    @Test func unknownNameIsAnError() throws {
        var config = try #require(Self.gpt2Configuration)
        config.preTokenizer = "no-such-pre"
        #expect(throws: VocabularyError.unknownPreTokenizer("no-such-pre")) { try Vocabulary(config) }
        config.preTokenizer = "kimi-k2"
        #expect(throws: VocabularyError.unsupportedPreTokenizer("kimi-k2")) { try Vocabulary(config) }
    }

    @Test func missingMergesIsAnError() throws {
        var config = try #require(Self.gpt2Configuration)
        config.merges = nil
        #expect(throws: VocabularyError.missingKey("tokenizer.ggml.merges")) { try Vocabulary(config) }
        config.model = "bert"
        #expect(throws: VocabularyError.unsupportedModel("bert")) { try Vocabulary(config) }
    }
}
