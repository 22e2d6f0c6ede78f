/// granite (IBM Granite 3.x dense): the llama block with four multipliers from the file:
/// `embedding_scale` on the token embeddings, `residual_scale` on each block's output before it joins
/// the residual, `attention.scale` as the softmax scale (instead of 1/sqrt(head size)), and logits
/// divided by `logit_scale`. `rope.scaling.finetuned` false turns RoPE off (llama.cpp's switch). RoPE
/// on adjacent pairs. The mixture-of-experts variants are another architecture (`granitemoe`).
struct GraniteArchitecture: Architecture {
    static let name = "granite"

    static func configuration(_ keys: ModelMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration {
        var c = try keys.standardConfiguration(vocabularySize: vocabularySize, ropePairing: .adjacent, defaultContextLength: 4096)
        if try keys.optionalInt("expert_count").map({ $0 > 0 }) == true {
            throw .invalidValue(key: keys.key("expert_count"), reason: "Granite mixture-of-experts models are not supported")
        }
        guard let logitScale = try keys.optionalFloat("logit_scale"), logitScale.isFinite, logitScale != 0 else {
            throw .missingKey(keys.key("logit_scale"))
        }
        c.logitScale = logitScale
        c.embeddingScale = try keys.optionalNonZeroFloat("embedding_scale")
        c.residualScale = try keys.optionalNonZeroFloat("residual_scale")
        c.attentionScaleOverride = try keys.optionalNonZeroFloat("attention.scale")
        if try keys.optionalBool("rope.scaling.finetuned") == false {
            c.ropeLayers = Array(repeating: false, count: c.layerCount)
        }
        return c
    }
}
