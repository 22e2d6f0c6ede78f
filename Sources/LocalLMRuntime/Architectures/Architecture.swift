import LocalLMGGUF

/// One model architecture: reads its own GGUF keys into a ``TransformerConfiguration``.
///
/// Tensor names are ggml's (`blk.N.attn_q.weight`, …) for every architecture here; which optional
/// tensors must exist follows from the configuration (biases, Q/K norms, post norms).
protocol Architecture: Sendable {
    /// The `general.architecture` value this file implements.
    static var name: String { get }
    static func configuration(_ keys: ModelMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration
}

/// The architectures this runtime implements, one entry per file.
enum ArchitectureRegistry {
    static let all: [any Architecture.Type] = [
        LlamaArchitecture.self,
        Gemma3Architecture.self,
        Qwen2Architecture.self,
        Qwen3Architecture.self,
        Gemma2Architecture.self,
        Phi3Architecture.self,
        GraniteArchitecture.self,
        OLMo2Architecture.self,
        SmolLM3Architecture.self,
        Qwen3MoEArchitecture.self,
        LFM2Architecture.self,
        Gemma4Architecture.self,
    ]

    static var names: [String] { all.map { $0.name } }

    /// The configuration of the model described by `metadata`, or a typed error naming an unknown
    /// architecture.
    static func configuration(for metadata: GGUFMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration {
        guard let name = metadata.architecture else { throw .missingArchitecture }
        guard let architecture = all.first(where: { $0.name == name }) else {
            throw .unknownArchitecture(name, supported: names)
        }
        return try architecture.configuration(ModelMetadata(metadata, architecture: name), vocabularySize: vocabularySize)
    }
}
