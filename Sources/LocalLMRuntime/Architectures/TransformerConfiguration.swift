/// How one decoder-only transformer is wired, as read from its GGUF keys by its architecture file.
///
/// The forward pass (``TransformerModel``) is shared by every architecture; each architecture file
/// turns its own keys into this description, so adding a model means adding a file.
public struct TransformerConfiguration: Sendable, Equatable {
    /// How RoPE pairs the dimensions of a head.
    public enum RoPEPairing: Sendable, Equatable {
        /// (2i, 2i + 1): ggml's "norm" mode, used by llama.
        case adjacent
        /// (i, i + d/2): ggml's NeoX mode, used by gemma3, qwen2 and qwen3.
        case neox
    }

    /// The gated feed-forward's activation.
    public enum Activation: Sendable, Equatable {
        /// SwiGLU: silu(gate) · up.
        case silu
        /// GeGLU with the tanh approximation of GELU: gelu(gate) · up.
        case geluTanh
    }

    /// What the per-head Q/K RMSNorm normalizes over.
    public enum QKNormScope: Sendable, Equatable {
        /// Each head separately, with one `[keyLength]` weight (gemma3, qwen3).
        case head
        /// The whole projection at once, with a `[heads·keyLength]` weight (olmo2).
        case projection
    }

    public var architecture: String
    /// Residual stream width (`embedding_length`).
    public var width: Int
    public var layerCount: Int
    public var headCount: Int
    public var kvHeadCount: Int
    /// Size of one query/key head (`attention.key_length`, else width / heads).
    public var keyLength: Int
    /// Size of one value head (`attention.value_length`, else width / heads).
    public var valueLength: Int
    public var feedForwardLength: Int
    public var vocabularySize: Int
    /// The context length the model was trained for (`context_length`).
    public var trainedContextLength: Int
    public var rmsEpsilon: Float

    public var ropePairing: RoPEPairing
    /// Dimensions of each head that RoPE rotates (`rope.dimension_count`, else keyLength).
    public var ropeDimensions: Int
    /// RoPE base of global-attention layers (`rope.freq_base`).
    public var ropeBase: Float
    /// RoPE base of sliding-window layers.
    public var ropeBaseSliding: Float
    /// Linear RoPE scaling: positions are multiplied by this (1 / `rope.scaling.factor`).
    public var ropeFrequencyScale: Float

    /// Attention window of sliding-window layers, if the model has any.
    public var slidingWindow: Int?
    /// Per layer: whether it attends only to the last `slidingWindow` positions.
    public var slidingLayers: [Bool]

    /// Multiplies the token embeddings (gemma: sqrt(width)); nil for none.
    public var embeddingScale: Float?
    /// Multiplies the queries after RoPE (gemma), in which case the softmax scale is 1.
    /// When nil the softmax scale is 1/sqrt(keyLength), as in llama.
    public var queryScale: Float?
    public var hasQKVBias: Bool
    /// Per-head RMSNorm of queries and keys before RoPE (gemma3, qwen3, olmo2).
    public var hasQKNorm: Bool
    /// RMSNorm of the attention and FFN outputs before they join the residual (gemma2, gemma3, olmo2).
    public var hasPostNorms: Bool
    public var activation: Activation

    /// RMSNorm of the residual before attention and before the FFN (every architecture but olmo2,
    /// which normalizes only the blocks' outputs).
    public var hasInputNorms: Bool = true
    /// What ``hasQKNorm`` normalizes over.
    public var qkNormScope: QKNormScope = .head
    /// Per layer: whether its queries and keys are rotated (smollm3 skips every fourth layer; granite
    /// can turn RoPE off). Empty means every layer.
    public var ropeLayers: [Bool] = []
    /// Linear RoPE scaling of sliding-window layers (gemma2 scales them as the global ones; gemma3 and
    /// olmo2 do not).
    public var ropeFrequencyScaleSliding: Float = 1
    /// Multiplies RoPE's cos and sin (`rope.scaling.attn_factor`, LongRoPE models).
    public var ropeAttentionFactor: Float = 1
    /// The context length RoPE frequency factors were made for (`rope.scaling.original_context_length`):
    /// a sequence longer than this uses the long factors (`rope_factors_long`), else the short ones.
    public var ropeOriginalContextLength: Int = 0
    /// The softmax scale applied to K·Q when it is not 1/sqrt(keyLength) (granite `attention.scale`).
    public var attentionScaleOverride: Float?
    /// Attention scores become cap·tanh(score / cap) before the softmax (gemma2).
    public var attentionSoftcap: Float?
    /// Logits become cap·tanh(logit / cap) (gemma2 `final_logit_softcapping`).
    public var finalLogitSoftcap: Float?
    /// Multiplies each block's output before it joins the residual (granite `residual_scale`).
    public var residualScale: Float?
    /// Logits are divided by this (granite `logit_scale`).
    public var logitScale: Float?
    /// Routed experts per layer (`expert_count`); 0 for a dense FFN. With experts,
    /// ``feedForwardLength`` is one expert's width (`expert_feed_forward_length`).
    public var expertCount: Int = 0
    /// Experts each token uses (`expert_used_count`).
    public var expertsUsed: Int = 0
    /// Whether the chosen experts' softmax weights are renormalized to sum to 1 (qwen3moe).
    public var expertWeightsNormalized: Bool = false
    /// Multiplies the experts' weights (`expert_weights_scale`), when set.
    public var expertWeightsScale: Float?

    /// Per layer: whether it is a gated short-convolution block (lfm2: the layers whose
    /// `attention.head_count_kv` is 0) instead of attention. Empty means none.
    public var convolutionLayers: [Bool] = []
    /// Taps of the short convolution (`shortconv.l_cache`): each position's output mixes its own input
    /// and the `convolutionLength − 1` before it.
    public var convolutionLength: Int = 0
    /// The final norm's tensor (lfm2 names it `token_embd_norm.weight`).
    public var outputNormTensor = "output_norm.weight"

    /// The attention shape of sliding-window layers where it differs from the global layers' (gemma4:
    /// `attention.key_length_swa`, `rope.dimension_count_swa`, per-layer `attention.head_count_kv`).
    public var slidingAttention: AttentionShape?
    /// Per layer, the FFN width where layers differ (gemma4's double-wide FFN in its KV-sharing layers);
    /// ``feedForwardLength`` is then the largest. Empty means every layer has ``feedForwardLength``.
    public var feedForwardLengths: [Int] = []
    /// Per layer, the layer whose keys and values it attends to: itself, or for gemma4's last
    /// `attention.shared_kv_layers` layers the last earlier layer of the same kind (sliding or global).
    /// Empty means every layer its own.
    public var keyValueSources: [Int] = []
    /// RMSNorm of each value head without a weight, before the cache (gemma4).
    public var normalizesValues = false
    /// Width of the per-layer token embeddings (gemma4 `embedding_length_per_layer_input`); 0 for none.
    public var perLayerEmbeddingLength = 0
    /// Whether the RoPE frequency factors also divide sliding layers' frequencies (gemma4 applies its
    /// `rope_freqs` only to global layers).
    public var ropeFactorsOnSlidingLayers = true

    /// The shape of one layer's attention heads.
    public struct AttentionShape: Sendable, Equatable {
        public var kvHeads: Int
        public var keyLength: Int
        public var valueLength: Int
        public var ropeDimensions: Int
    }

    private func shape(_ layer: Int) -> AttentionShape {
        if isSliding(layer), let slidingAttention { return slidingAttention }
        return AttentionShape(kvHeads: kvHeadCount, keyLength: keyLength, valueLength: valueLength,
                              ropeDimensions: ropeDimensions)
    }

    public func kvHeads(_ layer: Int) -> Int { shape(layer).kvHeads }
    public func keyLength(_ layer: Int) -> Int { shape(layer).keyLength }
    public func valueLength(_ layer: Int) -> Int { shape(layer).valueLength }
    public func ropeDimensions(_ layer: Int) -> Int { shape(layer).ropeDimensions }
    public func feedForwardLength(_ layer: Int) -> Int {
        layer < feedForwardLengths.count ? feedForwardLengths[layer] : feedForwardLength
    }
    /// The layer whose cached keys and values layer `layer` reads.
    public func keyValueSource(_ layer: Int) -> Int {
        layer < keyValueSources.count ? keyValueSources[layer] : layer
    }

    /// The largest per-layer sizes, for buffers shared by every layer.
    var largestKVHeads: Int { max(kvHeadCount, slidingAttention?.kvHeads ?? 0) }
    var largestKeyLength: Int { max(keyLength, slidingAttention?.keyLength ?? 0) }
    var largestValueLength: Int { max(valueLength, slidingAttention?.valueLength ?? 0) }
    var largestRopeDimensions: Int { max(ropeDimensions, slidingAttention?.ropeDimensions ?? 0) }

    /// Whether layer `layer` is a short-convolution block rather than attention.
    public func isConvolution(_ layer: Int) -> Bool {
        layer < convolutionLayers.count && convolutionLayers[layer]
    }

    /// The softmax scale applied to K·Q.
    public var attentionScale: Float {
        if let attentionScaleOverride { return attentionScaleOverride }
        return queryScale == nil ? 1 / Float(keyLength).squareRoot() : 1
    }

    /// Whether layer `layer` rotates its queries and keys.
    public func usesRoPE(_ layer: Int) -> Bool {
        ropeLayers.isEmpty || (layer < ropeLayers.count && ropeLayers[layer])
    }

    /// Whether layer `layer` uses the sliding window.
    public func isSliding(_ layer: Int) -> Bool {
        slidingWindow != nil && layer < slidingLayers.count && slidingLayers[layer]
    }
}
