/// llama: SmolLM2, Llama 2/3, Mistral-style models. RMSNorm, SwiGLU, grouped-query attention,
/// RoPE on adjacent pairs (ggml's "norm" mode), output tied to the embeddings when there is no
/// `output.weight`.
struct LlamaArchitecture: Architecture {
    static let name = "llama"

    static func configuration(_ keys: ModelMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration {
        let width = try keys.positiveInt("embedding_length")
        let layers = try keys.positiveInt("block_count", limit: 4096)
        let attention = try keys.attentionShape(width: width)
        let ropeBase = try keys.optionalPositiveFloat("rope.freq_base") ?? 10000
        return TransformerConfiguration(
            architecture: name,
            width: width,
            layerCount: layers,
            headCount: attention.heads,
            kvHeadCount: attention.kvHeads,
            keyLength: attention.keyLength,
            valueLength: attention.valueLength,
            feedForwardLength: try keys.positiveInt("feed_forward_length"),
            vocabularySize: vocabularySize,
            trainedContextLength: try keys.optionalPositiveInt("context_length", limit: 1 << 30) ?? 2048,
            rmsEpsilon: try keys.positiveFloat("attention.layer_norm_rms_epsilon"),
            ropePairing: .adjacent,
            ropeDimensions: try keys.optionalPositiveInt("rope.dimension_count", limit: 4096) ?? attention.keyLength,
            ropeBase: ropeBase,
            ropeBaseSliding: ropeBase,
            ropeFrequencyScale: try keys.ropeFrequencyScale(),
            slidingWindow: nil,
            slidingLayers: Array(repeating: false, count: layers),
            embeddingScale: nil,
            queryScale: nil,
            hasQKVBias: false,
            hasQKNorm: false,
            hasPostNorms: false,
            activation: .silu
        )
    }
}
