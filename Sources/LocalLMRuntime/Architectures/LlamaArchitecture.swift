/// llama: SmolLM2, Llama 2/3, Mistral-style models. RMSNorm, SwiGLU, grouped-query attention,
/// RoPE on adjacent pairs (ggml's "norm" mode), output tied to the embeddings when there is no
/// `output.weight`.
struct LlamaArchitecture: Architecture {
    static let name = "llama"

    static func configuration(_ keys: ModelMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration {
        try keys.standardConfiguration(vocabularySize: vocabularySize, ropePairing: .adjacent, defaultContextLength: 2048)
    }
}
