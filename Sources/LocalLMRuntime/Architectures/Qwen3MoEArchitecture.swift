/// qwen3moe (Qwen3-30B-A3B and the like): the qwen3 block (per-head Q/K norms, NeoX RoPE) with a
/// routed mixture of experts in place of the FFN: a router (`ffn_gate_inp`) scores `expert_count`
/// experts, each token uses the `expert_used_count` most probable, their softmax weights renormalized
/// to sum 1; each expert is a SwiGLU FFN of width `expert_feed_forward_length` (else
/// `feed_forward_length` / used), stored in 3-D tensors (`ffn_gate_exps`, `ffn_up_exps`,
/// `ffn_down_exps`) of which a token reads only its experts' slices.
struct Qwen3MoEArchitecture: Architecture {
    static let name = "qwen3moe"

    static func configuration(_ keys: ModelMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration {
        var c = try keys.standardConfiguration(vocabularySize: vocabularySize, ropePairing: .neox, defaultContextLength: 4096)
        c.hasQKNorm = true
        c.expertCount = try keys.positiveInt("expert_count", limit: 1024)
        c.expertsUsed = try keys.positiveInt("expert_used_count", limit: 64)
        guard c.expertsUsed <= c.expertCount else {
            throw .invalidValue(key: keys.key("expert_used_count"),
                                reason: "\(c.expertsUsed) experts used of \(c.expertCount)")
        }
        c.feedForwardLength = try keys.optionalPositiveInt("expert_feed_forward_length")
            ?? c.feedForwardLength / c.expertsUsed
        c.expertWeightsNormalized = true
        c.expertWeightsScale = try keys.optionalNonZeroFloat("expert_weights_scale").flatMap { $0 == 1 ? nil : $0 }
        return c
    }
}
