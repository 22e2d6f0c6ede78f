/// gemma2 (Gemma 2 2B/9B/27B).
///
/// - embeddings × sqrt(width); RMSNorm before and after attention and FFN; GELU-tanh gated FFN;
/// - queries × 1/sqrt(key_length) after RoPE (27B: × 1/sqrt(width/heads));
/// - attention scores soft-capped (`attn_logit_softcapping`), logits soft-capped
///   (`final_logit_softcapping`);
/// - sliding-window layers (`attention.sliding_window`, 4096 when absent) alternate with global
///   ones, even layers sliding (pattern 2); sliding layers use `rope.freq_base_swa` when present and
///   the same RoPE scaling as the global ones;
/// - NeoX RoPE pairing; no Q/K norms.
struct Gemma2Architecture: Architecture {
    static let name = "gemma2"

    static func configuration(_ keys: ModelMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration {
        var c = try keys.standardConfiguration(vocabularySize: vocabularySize, ropePairing: .neox, defaultContextLength: 8192)
        c.slidingWindow = try keys.optionalPositiveInt("attention.sliding_window", limit: 1 << 30) ?? 4096
        c.slidingLayers = try keys.slidingPattern(layers: c.layerCount, defaultPeriod: 2)
        c.ropeBaseSliding = try keys.optionalPositiveFloat("rope.freq_base_swa") ?? c.ropeBase
        c.ropeFrequencyScaleSliding = c.ropeFrequencyScale
        c.attentionSoftcap = try keys.optionalPositiveFloat("attn_logit_softcapping")
        c.finalLogitSoftcap = try keys.optionalPositiveFloat("final_logit_softcapping")
        c.embeddingScale = Float(c.width).squareRoot()
        c.queryScale = c.layerCount == 46
            ? 1 / Float(c.width / c.headCount).squareRoot()
            : 1 / Float(c.keyLength).squareRoot()
        c.hasPostNorms = true
        c.activation = .geluTanh
        return c
    }
}
