/// gemma3 (Gemma 3 270M and up).
///
/// - embeddings × sqrt(width);
/// - RMSNorm before and after both attention and FFN (the GGUF norm weights already include the +1);
/// - GELU-tanh gated FFN; per-head RMS Q/K norms; queries × 1/sqrt(key_length) after RoPE;
/// - sliding-window layers (window `attention.sliding_window`, RoPE base `rope.freq_base_swa`,
///   10000 when absent) alternate with global layers (`rope.freq_base`): with the default pattern 6,
///   layers 5, 11, 17, … are global, as llama.cpp's `set_swa_pattern(6)`;
/// - NeoX RoPE pairing; no final logit soft-capping.
struct Gemma3Architecture: Architecture {
    static let name = "gemma3"

    static func configuration(_ keys: ModelMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration {
        let width = try keys.positiveInt("embedding_length")
        let layers = try keys.positiveInt("block_count", limit: 4096)
        let attention = try keys.attentionShape(width: width)
        let window = try keys.optionalPositiveInt("attention.sliding_window", limit: 1 << 30)
        let pattern = try keys.optionalPositiveInt("attention.sliding_window_pattern", limit: 4096) ?? 6
        let sliding = (0..<layers).map { window != nil && ($0 % pattern < pattern - 1) }
        if try keys.optionalFloat("final_logit_softcapping") != nil {
            throw .invalidValue(key: keys.key("final_logit_softcapping"), reason: "logit soft-capping is not supported")
        }
        // Gemma 3 27B scales queries by width/heads rather than the head size (gemma_pytorch config).
        let queryScale = layers == 62
            ? 1 / Float(width / attention.heads).squareRoot()
            : 1 / Float(attention.keyLength).squareRoot()
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
            trainedContextLength: try keys.optionalPositiveInt("context_length", limit: 1 << 30) ?? 8192,
            rmsEpsilon: try keys.positiveFloat("attention.layer_norm_rms_epsilon"),
            ropePairing: .neox,
            ropeDimensions: try keys.optionalPositiveInt("rope.dimension_count", limit: 4096) ?? attention.keyLength,
            ropeBase: try keys.optionalPositiveFloat("rope.freq_base") ?? 1_000_000,
            ropeBaseSliding: try keys.optionalPositiveFloat("rope.freq_base_swa") ?? 10000,
            ropeFrequencyScale: try keys.ropeFrequencyScale(),
            slidingWindow: window,
            slidingLayers: sliding,
            embeddingScale: Float(width).squareRoot(),
            queryScale: queryScale,
            hasQKVBias: false,
            hasQKNorm: true,
            hasPostNorms: true,
            activation: .geluTanh
        )
    }
}
