/// lfm2 (Liquid LFM2): a hybrid of gated short-convolution blocks and attention blocks.
///
/// - a layer whose `attention.head_count_kv` entry is 0 is a short-convolution block: `shortconv.in_proj`
///   makes B, C and x (three `width` chunks); B·x goes through a depthwise causal convolution of
///   `shortconv.l_cache` taps (`shortconv.conv`, one row of taps per channel, over this position and the
///   ones before it, zeros before the first); C times that goes through `shortconv.out_proj`. Its
///   state is the B·x rows of the last `l_cache − 1` positions, kept per position in the cache
///   (``KVCache``) and rolled back with it;
/// - the other layers are attention with per-head Q/K RMSNorm and NeoX RoPE;
/// - every layer: RMSNorm before the block (`attn_norm`) and before the SwiGLU FFN (`ffn_norm`);
/// - the final norm is named `token_embd_norm.weight`; the LM head is tied unless `output.weight`
///   exists;
/// - with `attention.sliding_window` > 0 every attention layer slides.
struct LFM2Architecture: Architecture {
    static let name = "lfm2"

    static func configuration(_ keys: ModelMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration {
        var c = try keys.standardConfiguration(vocabularySize: vocabularySize, ropePairing: .neox,
                                               defaultContextLength: 4096, convolutionLayers: true)
        c.convolutionLength = try keys.positiveInt("shortconv.l_cache", limit: 64)
        guard c.convolutionLength > 1 else {
            throw .invalidValue(key: keys.key("shortconv.l_cache"), reason: "a convolution needs at least 2 taps")
        }
        c.hasQKNorm = true
        c.outputNormTensor = "token_embd_norm.weight"
        if let window = try keys.optionalInt("attention.sliding_window"), window > 0 {
            guard window <= 1 << 30 else {
                throw .invalidValue(key: keys.key("attention.sliding_window"), reason: "\(window) is too large")
            }
            c.slidingWindow = window
            c.slidingLayers = c.convolutionLayers.map { !$0 }
        }
        return c
    }
}
