/// gemma4 (Gemma 4 dense: E2B, E4B, 31B).
///
/// - embeddings × sqrt(width); RMSNorm before and after attention and FFN; GELU-tanh gated FFN;
/// - sliding layers (`attention.sliding_window_pattern`, an array of booleans) and global layers have
///   their own head size (`attention.key_length_swa` / `attention.key_length`), RoPE dimensions
///   (`rope.dimension_count_swa` / `rope.dimension_count`), RoPE base (`rope.freq_base_swa` /
///   `rope.freq_base`) and KV heads (`attention.head_count_kv`, per layer);
/// - global layers' RoPE frequencies are divided by `rope_freqs` ("proportional" RoPE: 1e30 for the
///   pairs left unrotated); sliding layers use no factors;
/// - per-head RMSNorm of Q and K with weights, of V without; the softmax scale is 1;
/// - the last `attention.shared_kv_layers` layers compute only queries and attend to the keys and
///   values of the last earlier layer of their kind (sliding or global), as llama.cpp's `reuse`;
/// - per-layer embeddings (`embedding_length_per_layer_input` > 0): each token's row of
///   `per_layer_token_embd` × sqrt(its width), plus the RMS-normalized projection of the scaled
///   embedding, ÷ sqrt(2), gates a per-layer projection added after each layer;
/// - each layer's output × `layer_output_scale` when present; final logit soft-capping.
///
/// The mixture-of-experts variant (26B-A4B: `expert_count` > 0) is a typed error.
struct Gemma4Architecture: Architecture {
    static let name = "gemma4"

    static func configuration(_ keys: ModelMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration {
        var c = try keys.standardConfiguration(vocabularySize: vocabularySize, ropePairing: .neox,
                                               defaultContextLength: 8192, variableKVHeads: true)
        if let experts = try keys.optionalInt("expert_count"), experts > 0 {
            throw .invalidValue(key: keys.key("expert_count"),
                                reason: "Gemma 4 with \(experts) experts (26B-A4B) is not supported")
        }
        let layers = c.layerCount
        c.slidingWindow = try keys.positiveInt("attention.sliding_window", limit: 1 << 30)
        c.slidingLayers = try keys.slidingPattern(layers: layers, defaultPeriod: 6)
        guard let kvHeads = try keys.perLayerInts("attention.head_count_kv", layers: layers, limit: 4096) else {
            throw .missingKey(keys.key("attention.head_count_kv"))
        }
        // One KV head count per kind of layer.
        func kvHeadCount(sliding: Bool) throws(RuntimeError) -> Int? {
            let counts = Set((0..<layers).filter { c.slidingLayers[$0] == sliding }.map { kvHeads[$0] })
            guard counts.count <= 1 else {
                throw .invalidValue(key: keys.key("attention.head_count_kv"),
                                    reason: "\(sliding ? "sliding" : "global") layers differ in KV heads")
            }
            return counts.first
        }
        let globalKV = try kvHeadCount(sliding: false), slidingKV = try kvHeadCount(sliding: true)
        c.kvHeadCount = globalKV ?? slidingKV ?? 1
        let slidingKey = try keys.optionalPositiveInt("attention.key_length_swa", limit: 4096) ?? c.keyLength
        let slidingValue = try keys.optionalPositiveInt("attention.value_length_swa", limit: 4096) ?? c.valueLength
        guard slidingKey == slidingValue, c.keyLength == c.valueLength, slidingKey % 2 == 0 else {
            throw .invalidValue(key: keys.key("attention.key_length_swa"),
                                reason: "Gemma 4 needs equal, even key and value head sizes")
        }
        let slidingRope = try keys.optionalPositiveInt("rope.dimension_count_swa", limit: 4096) ?? c.ropeDimensions
        guard slidingRope <= slidingKey, slidingRope % 2 == 0 else {
            throw .invalidValue(key: keys.key("rope.dimension_count_swa"),
                                reason: "\(slidingRope) must be even and at most the head size \(slidingKey)")
        }
        c.slidingAttention = .init(kvHeads: slidingKV ?? c.kvHeadCount, keyLength: slidingKey,
                                   valueLength: slidingValue, ropeDimensions: slidingRope)
        c.ropeBaseSliding = try keys.optionalPositiveFloat("rope.freq_base_swa") ?? c.ropeBase
        c.ropeFactorsOnSlidingLayers = false

        // KV sharing: layer l ≥ first reads the cache of first − 2 (sliding) or first − 1 (global).
        let shared = try keys.optionalInt("attention.shared_kv_layers") ?? 0
        guard shared >= 0, shared <= layers - 2 || shared == 0 else {
            throw .invalidValue(key: keys.key("attention.shared_kv_layers"), reason: "\(shared) of \(layers) layers")
        }
        if shared > 0 {
            let first = layers - shared
            guard c.slidingLayers[first - 2], !c.slidingLayers[first - 1] else {
                throw .invalidValue(key: keys.key("attention.shared_kv_layers"),
                                    reason: "layers \(first - 2) and \(first - 1) must be sliding and global to share their cache")
            }
            c.keyValueSources = (0..<layers).map { l in
                l < first ? l : (c.slidingLayers[l] ? first - 2 : first - 1)
            }
        }
        c.perLayerEmbeddingLength = try keys.optionalInt("embedding_length_per_layer_input") ?? 0
        guard c.perLayerEmbeddingLength >= 0, c.perLayerEmbeddingLength <= 1 << 16 else {
            throw .invalidValue(key: keys.key("embedding_length_per_layer_input"),
                                reason: "\(c.perLayerEmbeddingLength) is not in 0...65536")
        }
        c.finalLogitSoftcap = try keys.optionalPositiveFloat("final_logit_softcapping")
        c.embeddingScale = Float(c.width).squareRoot()
        c.attentionScaleOverride = 1
        c.hasQKNorm = true
        c.normalizesValues = true
        c.hasPostNorms = true
        c.activation = .geluTanh
        return c
    }
}
