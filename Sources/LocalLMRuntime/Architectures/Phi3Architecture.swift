/// phi3 (Phi-3, Phi-3.5 and Phi-4-mini).
///
/// - fused projections: `attn_qkv` (queries, keys, values in one matrix) and an `ffn_up` of twice
///   the FFN width holding the gate's rows then the up rows (SwiGLU);
/// - NeoX RoPE, possibly partial (`rope.dimension_count` below the head size: Phi-4-mini rotates 96
///   of 128), with LongRoPE frequency factors (`rope_factors_short`/`rope_factors_long`: the long
///   ones for sequences longer than `rope.scaling.original_context_length`) and `rope.scaling.attn_factor`;
/// - queries × 1/sqrt(head size) after RoPE;
/// - llama.cpp ignores Phi's sliding window (it attends globally), and so does this file.
struct Phi3Architecture: Architecture {
    static let name = "phi3"

    static func configuration(_ keys: ModelMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration {
        var c = try keys.standardConfiguration(vocabularySize: vocabularySize, ropePairing: .neox, defaultContextLength: 4096)
        // llama.cpp scales the queries after RoPE (then the softmax scale is 1), not the scores.
        c.queryScale = 1 / Float(c.keyLength).squareRoot()
        return c
    }
}
