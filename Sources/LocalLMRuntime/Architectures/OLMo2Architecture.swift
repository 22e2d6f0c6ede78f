/// olmo2 (OLMo 2, and OLMo 3 with sliding windows).
///
/// - no norm before attention or the FFN: each block's *output* is RMS-normalized
///   (`post_attention_norm`, `post_ffw_norm`) before it joins the residual;
/// - RMSNorm of the whole query and key projections (weights `[heads·head size]` and
///   `[kvHeads·head size]`), before RoPE;
/// - NeoX RoPE pairing, SwiGLU; a separate, untied `output.weight`;
/// - with `attention.sliding_window`: sliding layers in a pattern of 4 (three sliding, one global),
///   at the global RoPE base without RoPE scaling. (llama.cpp 0.3.36 reads `rope.freq_base_swa` for
///   olmo2 but its graph rotates sliding layers with the global base; this file does what it computes.)
struct OLMo2Architecture: Architecture {
    static let name = "olmo2"

    static func configuration(_ keys: ModelMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration {
        var c = try keys.standardConfiguration(vocabularySize: vocabularySize, ropePairing: .neox, defaultContextLength: 4096)
        if let window = try keys.optionalPositiveInt("attention.sliding_window", limit: 1 << 30) {
            c.slidingWindow = window
            c.slidingLayers = try keys.slidingPattern(layers: c.layerCount, defaultPeriod: 4)
            c.ropeBaseSliding = c.ropeBase
        }
        c.hasInputNorms = false
        c.hasPostNorms = true
        c.hasQKNorm = true
        c.qkNormScope = .projection
        return c
    }
}
