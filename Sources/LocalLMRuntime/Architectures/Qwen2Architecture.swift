/// qwen2: the llama block with biases on the Q, K and V projections and NeoX RoPE pairing.
struct Qwen2Architecture: Architecture {
    static let name = "qwen2"

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
            trainedContextLength: try keys.optionalPositiveInt("context_length", limit: 1 << 30) ?? 4096,
            rmsEpsilon: try keys.positiveFloat("attention.layer_norm_rms_epsilon"),
            ropePairing: .neox,
            ropeDimensions: try keys.optionalPositiveInt("rope.dimension_count", limit: 4096) ?? attention.keyLength,
            ropeBase: ropeBase,
            ropeBaseSliding: ropeBase,
            ropeFrequencyScale: try keys.ropeFrequencyScale(),
            slidingWindow: nil,
            slidingLayers: Array(repeating: false, count: layers),
            embeddingScale: nil,
            queryScale: nil,
            hasQKVBias: true,
            hasQKNorm: false,
            hasPostNorms: false,
            activation: .silu
        )
    }
}
