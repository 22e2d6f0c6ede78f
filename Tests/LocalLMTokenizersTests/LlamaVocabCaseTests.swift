import Foundation
import LocalLMGGUF
import LocalLMTestSupport
import Testing

@testable import LocalLMTokenizers

/// llama.cpp's own tokenizer cases (`tests/test-tokenizer-0`): every `ggml-vocab-*.gguf` with
/// `.inp`/`.out` files, tokenized with add_special = false, parse_special = false.
/// The BERT/WordPiece vocabularies (bert-bge, nomic-bert-moe) are not implemented and not copied.
@Suite struct LlamaVocabCaseTests {
    static let withCases = ["gpt-2", "llama-bpe", "qwen2", "starcoder", "deepseek-coder", "mpt", "llama-spm", "phi-3", "gemma-4"]

    static func tokenizer(_ name: String) throws -> Tokenizer {
        let file = try GGUFFile(contentsOf: Fixtures.url("tokenizers/vocab/ggml-vocab-\(name).gguf"))
        return Tokenizer(vocabulary: try Vocabulary(gguf: file))
    }

    /// The `.inp` cases, split as test-tokenizer-0.cpp splits them.
    static func cases(_ name: String) throws -> [(input: String, expected: [Int32])] {
        let raw = try String(decoding: Fixtures.data("tokenizers/vocab/ggml-vocab-\(name).gguf.inp"), as: UTF8.self)
        let separator = "\n__ggml_vocab_test__\n"
        var inputs: [String] = []
        var rest = Substring(raw)
        while !rest.isEmpty {
            if let range = rest.range(of: separator) {
                inputs.append(String(rest[..<range.lowerBound]))
                rest = rest[range.upperBound...]
            } else {
                inputs.append(String(rest))
                break
            }
        }
        let outputs = try String(decoding: Fixtures.data("tokenizers/vocab/ggml-vocab-\(name).gguf.out"), as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false)
        #expect(outputs.count >= inputs.count)
        return inputs.enumerated().map { i, input in
            (input, outputs[i].split(separator: " ").compactMap { Int32($0) })
        }
    }

    @Test(arguments: withCases)
    func matchesLlamaCpp(_ name: String) throws {
        let tokenizer = try Self.tokenizer(name)
        let cases = try Self.cases(name)
        #expect(cases.count > 30)
        for (input, expected) in cases {
            let ids = tokenizer.encode(input, addSpecial: false, parseSpecial: false)
            #expect(ids == expected, "\(name): \(input.debugDescription)")
        }
    }

    /// Vocabularies llama.cpp ships without cases: they must load and round-trip plain text.
    @Test(arguments: ["aquila", "baichuan", "gpt-neox"])
    func loads(_ name: String) throws {
        let tokenizer = try Self.tokenizer(name)
        #expect(tokenizer.vocabulary.count > 1000)
        let text = "Hello world, this is a test 123."
        #expect(tokenizer.decode(tokenizer.encode(text, parseSpecial: false)) == text)
    }
}
