import Foundation
import LocalLMGGUF
import LocalLMTestSupport
import Testing

@testable import LocalLMTokenizers

/// The two real models on `Tests/Fixtures/tokenizers/corpus.json` against llama.cpp's ids
/// (made by scripts/goldens/tokenizer_goldens.py through llama-cpp-python, as ref.py does).
@Suite struct ModelCorpusTests {
    struct Golden: Decodable {
        let special: [Int32]
        let nospecial: [Int32]
        let bos: [Int32]
        let detok: String
    }
    struct Goldens: Decodable {
        let model: String
        let cases: [Golden]
    }

    enum Model: String, CaseIterable, CustomTestStringConvertible {
        case smollm2, gemma3
        var url: URL { self == .smollm2 ? TestModels.smolLM2 : TestModels.gemma3 }
        var testDescription: String { rawValue }
    }

    static func corpus() throws -> [String] {
        try JSONDecoder().decode([String].self, from: Fixtures.data("tokenizers/corpus.json"))
    }

    static func goldens(_ model: Model) throws -> Goldens {
        try JSONDecoder().decode(Goldens.self, from: Fixtures.data("tokenizers/goldens-\(model.rawValue).json"))
    }

    static func tokenizer(_ model: Model) throws -> Tokenizer {
        let file = try GGUFFile(contentsOf: TestModels.require(model.url))
        return Tokenizer(vocabulary: try Vocabulary(gguf: file))
    }

    @Test(arguments: Model.allCases)
    func idsMatchLlamaCpp(_ model: Model) throws {
        let corpus = try Self.corpus()
        let goldens = try Self.goldens(model)
        #expect(corpus.count >= 300)
        try #require(goldens.cases.count == corpus.count)
        let tokenizer = try Self.tokenizer(model)
        for (text, golden) in zip(corpus, goldens.cases) {
            #expect(tokenizer.encode(text, addSpecial: false, parseSpecial: true) == golden.special, "special: \(text.debugDescription)")
            #expect(tokenizer.encode(text, addSpecial: false, parseSpecial: false) == golden.nospecial, "no special: \(text.debugDescription)")
            #expect(tokenizer.encode(text, addSpecial: true, parseSpecial: true) == golden.bos, "add BOS: \(text.debugDescription)")
        }
    }

    /// decode(encode(s)) == s for every corpus string, in both special modes. Neither model adds a
    /// space prefix (Gemma 3's `add_space_prefix` is false); with one, decode drops the leading space
    /// of the first token, so only text that starts with a special token would not round-trip.
    @Test(arguments: Model.allCases)
    func roundTrips(_ model: Model) throws {
        let tokenizer = try Self.tokenizer(model)
        for text in try Self.corpus() {
            #expect(tokenizer.decode(tokenizer.encode(text, parseSpecial: true)) == text, "\(text.debugDescription)")
            #expect(tokenizer.decode(tokenizer.encode(text, parseSpecial: false)) == text, "\(text.debugDescription)")
        }
    }

    /// Detokenizing llama.cpp's ids gives llama.cpp's text (ref.py detokenize).
    @Test(arguments: Model.allCases)
    func decodeMatchesLlamaCpp(_ model: Model) throws {
        let tokenizer = try Self.tokenizer(model)
        for golden in try Self.goldens(model).cases {
            #expect(tokenizer.decode(golden.special, special: true) == golden.detok)
        }
    }
}

/// Whole-vocabulary checks against llama.cpp: every token's piece and the end-of-generation set.
@Suite struct ModelVocabularyTests {
    struct Summary: Decodable {
        let eog: [Int32]
        let pieceDigest: String
    }

    @Test(arguments: ModelCorpusTests.Model.allCases)
    func piecesAndEndOfGenerationMatchLlamaCpp(_ model: ModelCorpusTests.Model) throws {
        let summary = try JSONDecoder().decode(Summary.self, from: Fixtures.data("tokenizers/goldens-\(model.rawValue).json"))
        let vocabulary = try ModelCorpusTests.tokenizer(model).vocabulary
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
        for id in 0..<Int32(vocabulary.count) {
            let piece = vocabulary.tokenBytes(id)
            let length = UInt32(piece.count)
            for b in [UInt8(length & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 24)] + piece {
                digest = (digest ^ UInt64(b)) &* 0x0000_0100_0000_01b3
            }
        }
        #expect(String(digest, radix: 16).leftPadded(to: 16) == summary.pieceDigest)
        let eog = (0..<Int32(vocabulary.count)).filter { vocabulary.isEndOfGeneration($0) }
        #expect(eog == summary.eog)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
