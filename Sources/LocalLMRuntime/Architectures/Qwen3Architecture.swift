/// qwen3: per-head RMSNorm of queries and keys before RoPE, NeoX RoPE pairing, no biases; the head
/// size (`attention.key_length`) may differ from width / heads.
struct Qwen3Architecture: Architecture {
    static let name = "qwen3"

    static func configuration(_ keys: ModelMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration {
        var c = try keys.standardConfiguration(vocabularySize: vocabularySize, ropePairing: .neox, defaultContextLength: 4096)
        c.hasQKNorm = true
        return c
    }
}
