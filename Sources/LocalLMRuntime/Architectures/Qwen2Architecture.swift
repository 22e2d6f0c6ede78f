/// qwen2: the llama block with biases on the Q, K and V projections and NeoX RoPE pairing.
struct Qwen2Architecture: Architecture {
    static let name = "qwen2"

    static func configuration(_ keys: ModelMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration {
        var c = try keys.standardConfiguration(vocabularySize: vocabularySize, ropePairing: .neox, defaultContextLength: 4096)
        c.hasQKVBias = true
        return c
    }
}
