import Foundation

/// llama.cpp's answers for one model, made by scripts/goldens/runtime_goldens.py.
public struct RuntimeGoldens: Decodable, Sendable {
    /// The models with goldens: tiny random ones (fixtures; `qwen2-iq4` has every matrix in IQ4_NL or
    /// IQ4_XS; gemma2 … qwen3moe are one per further architecture, from `make-tiny-models.py --archs`) and
    /// three real ones.
    public static let models = ["qwen2", "qwen3", "qwen2-iq4", "gemma2", "granite", "olmo2", "smollm3", "phi3",
                                "qwen3moe", "lfm2", "smollm2", "gemma3", "qwen05"]

    /// Models whose goldens are checked only in llama.cpp's arithmetic (`FidelityTests`
    /// `exactArithmeticArgmaxMatchesLlamaCpp`, and the greedy test): the tiny gemma4 file (see there).
    public static let exactOnlyModels = ["gemma4"]

    /// Prompts each golden set holds at least: 20, and 12 for Qwen2.5-Coder-0.5B (24 layers; its
    /// exact-arithmetic prefill is the slowest of the suite).
    public static func minimumCases(_ name: String) -> Int { name == "qwen05" ? 12 : 20 }

    public struct Position: Decodable, Sendable {
        public let argmax: Int
        public let logsumexp: Double
        /// [[id, logit]], highest first.
        public let top: [[Double]]
    }

    public struct Case: Decodable, Sendable {
        public let prompt: String?
        public let ids: [Int]
        public let positions: [Position]
        public let generated: [Int]
        /// llama.cpp's generation with weight repacking off (scripts/goldens/greedy_no_repack.py).
        public let generated_no_repack: [Int]
    }

    public let n_vocab: Int
    public let cases: [Case]

    public static func load(_ name: String) throws -> RuntimeGoldens {
        try JSONDecoder().decode(RuntimeGoldens.self, from: Fixtures.data("runtime/\(name)_goldens.json"))
    }

    /// The model file a golden set was made from.
    public static func modelURL(_ name: String) throws -> URL {
        switch name {
        case "smollm2": try TestModels.require(TestModels.smolLM2)
        case "gemma3": try TestModels.require(TestModels.gemma3)
        case "qwen05": try TestModels.require(TestModels.qwen05)
        default: Fixtures.url("runtime/tiny-\(name).gguf")
        }
    }
}
