/// smollm3 (SmolLM3-3B): the llama block, except that every fourth layer (3, 7, 11, …) attends
/// without RoPE (llama.cpp's `n_no_rope_layer_step` 4). RoPE on adjacent pairs.
struct SmolLM3Architecture: Architecture {
    static let name = "smollm3"

    static func configuration(_ keys: ModelMetadata, vocabularySize: Int) throws(RuntimeError) -> TransformerConfiguration {
        var c = try keys.standardConfiguration(vocabularySize: vocabularySize, ropePairing: .adjacent, defaultContextLength: 4096)
        c.ropeLayers = (0..<c.layerCount).map { ($0 + 1) % 4 != 0 }
        return c
    }
}
