import Foundation
import LocalLMEngine
import LocalLMGGUF
import LocalLMTestSupport
import Testing

/// What `locallm inspect` reports about whether a file can run.
@Suite struct ModelSupportTests {
    @Test func everyArchitectureFixtureRuns() throws {
        for name in ["qwen2", "qwen3", "gemma2", "granite", "olmo2", "smollm3", "phi3", "qwen3moe"] {
            let support = ModelSupport(try GGUFFile(contentsOf: Fixtures.url("runtime/tiny-\(name).gguf")))
            #expect(support.isRunnable, "\(name): \(support.problems)")
        }
    }

    /// A file with an unknown architecture and a tensor type no kernel computes gets both reasons,
    /// each naming what is wrong, and the tokenizer's.
    @Test func everyReasonIsNamed() throws {
        let support = ModelSupport(try GGUFFile(contentsOf: Fixtures.url("gguf/all_types.gguf")))
        #expect(!support.isRunnable)
        #expect(support.problems.contains { $0.contains("tensor type I32 is not supported") && $0.contains("'i32'") })
        #expect(support.problems.contains { $0.contains("unknown model architecture 'toy'") })
        #expect(support.problems.contains { $0.hasPrefix("tokenizer:") })
        #expect(support.problems.count == 3, "\(support.problems)")
    }

    @Test func toolCallFormatComesFromTheTemplate() throws {
        let granite = ModelSupport(try GGUFFile(contentsOf: Fixtures.url("tools/tiny-granite.gguf")))
        #expect(granite.toolCallFormat == .toolCallToken && !granite.templateIsFallback)
        let hermes = ModelSupport(try GGUFFile(contentsOf: Fixtures.url("tools/tiny-hermes.gguf")))
        #expect(hermes.toolCallFormat == .hermes)
    }
}
