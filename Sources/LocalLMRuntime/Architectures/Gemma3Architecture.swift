/// gemma3 (Gemma 3 270M and up).
///
/// - embeddings × sqrt(width);
/// - RMSNorm before and after both attention and FFN (the GGUF norm weights already include the +1);
/// - GELU-tanh gated FFN; per-head RMS Q/K norms; queries × 1/sqrt(key_length) after RoPE;
/// - sliding-window layers (window `attention.sliding_window`, RoPE base `rope.freq_base_swa`,
///   10000 when absent, no RoPE scaling) alternate with global layers (`rope.freq_base`): with the
///   default pattern 6, layers 5, 11, 17, … are global, as llama.cpp's `set_swa_pattern(6)`;
/// - NeoX RoPE pairing; final logit soft-capping when `final_logit_softcapping` is set.
struct Gemma3Architecture: Architecture {
    static let name = "gemma3"

    static func configuration(_ keys: ModelMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration {
        var c = try keys.standardConfiguration(vocabularySize: vocabularySize, ropePairing: .neox, defaultContextLength: 8192)
        let window = try keys.optionalPositiveInt("attention.sliding_window", limit: 1 << 30)
        c.slidingWindow = window
        c.slidingLayers = window == nil ? Array(repeating: false, count: c.layerCount)
            : try keys.slidingPattern(layers: c.layerCount, defaultPeriod: 6)
        c.ropeBase = try keys.optionalPositiveFloat("rope.freq_base") ?? 1_000_000
        c.ropeBaseSliding = try keys.optionalPositiveFloat("rope.freq_base_swa") ?? 10000
        c.finalLogitSoftcap = try keys.optionalPositiveFloat("final_logit_softcapping")
        c.embeddingScale = Float(c.width).squareRoot()
        // Gemma 3 27B scales queries by width/heads rather than the head size (gemma_pytorch config).
        c.queryScale = c.layerCount == 62
            ? 1 / Float(c.width / c.headCount).squareRoot()
            : 1 / Float(c.keyLength).squareRoot()
        c.hasQKNorm = true
        c.hasPostNorms = true
        c.activation = .geluTanh
        return c
    }
}
