import LocalLMGGUF

/// Reads an architecture's keys from GGUF metadata with typed errors naming the key.
///
/// Keys are given without the architecture prefix (`block_count` → `llama.block_count`).
struct ModelMetadata {
    let metadata: GGUFMetadata
    let architecture: String

    init(_ metadata: GGUFMetadata, architecture: String) {
        self.metadata = metadata
        self.architecture = architecture
    }

    func key(_ suffix: String) -> String { "\(architecture).\(suffix)" }

    func optionalInt(_ suffix: String) throws(RuntimeError) -> Int? {
        do { return try metadata.int(key(suffix)) } catch { throw RuntimeError(error) }
    }

    func optionalFloat(_ suffix: String) throws(RuntimeError) -> Float? {
        do { return try metadata.float(key(suffix)).map(Float.init) } catch { throw RuntimeError(error) }
    }

    /// A required positive integer, at most `limit` so that nothing absurd is allocated from it.
    func positiveInt(_ suffix: String, limit: Int = 1 << 24) throws(RuntimeError) -> Int {
        guard let value = try optionalInt(suffix) else { throw .missingKey(key(suffix)) }
        return try checkedPositive(value, suffix, limit: limit)
    }

    func optionalPositiveInt(_ suffix: String, limit: Int = 1 << 24) throws(RuntimeError) -> Int? {
        guard let value = try optionalInt(suffix) else { return nil }
        return try checkedPositive(value, suffix, limit: limit)
    }

    private func checkedPositive(_ value: Int, _ suffix: String, limit: Int) throws(RuntimeError) -> Int {
        guard value > 0, value <= limit else {
            throw .invalidValue(key: key(suffix), reason: "\(value) is not in 1...\(limit)")
        }
        return value
    }

    /// A required positive finite float.
    func positiveFloat(_ suffix: String) throws(RuntimeError) -> Float {
        guard let value = try optionalFloat(suffix) else { throw .missingKey(key(suffix)) }
        return try checkedPositive(value, suffix)
    }

    func optionalPositiveFloat(_ suffix: String) throws(RuntimeError) -> Float? {
        guard let value = try optionalFloat(suffix) else { return nil }
        return try checkedPositive(value, suffix)
    }

    private func checkedPositive(_ value: Float, _ suffix: String) throws(RuntimeError) -> Float {
        guard value.isFinite, value > 0 else {
            throw .invalidValue(key: key(suffix), reason: "\(value) is not a positive finite number")
        }
        return value
    }

    /// The attention shape common to every architecture: heads, KV heads (dividing heads), head sizes.
    func attentionShape(width: Int) throws(RuntimeError) -> (heads: Int, kvHeads: Int, keyLength: Int, valueLength: Int) {
        let heads = try positiveInt("attention.head_count", limit: 4096)
        let kvHeads = try optionalPositiveInt("attention.head_count_kv", limit: 4096) ?? heads
        guard heads % kvHeads == 0 else {
            throw .invalidValue(key: key("attention.head_count_kv"),
                                reason: "\(kvHeads) KV heads do not divide \(heads) heads")
        }
        let defaultHead = width / heads
        let keyLength = try optionalPositiveInt("attention.key_length", limit: 4096) ?? defaultHead
        let valueLength = try optionalPositiveInt("attention.value_length", limit: 4096) ?? defaultHead
        guard keyLength > 0, keyLength % 2 == 0 else {
            throw .invalidValue(key: key("attention.key_length"), reason: "head size \(keyLength) must be even and positive")
        }
        guard valueLength > 0 else {
            throw .invalidValue(key: key("attention.value_length"), reason: "head size must be positive")
        }
        return (heads, kvHeads, keyLength, valueLength)
    }

    /// `rope.scaling.type` linear with `rope.scaling.factor` → frequency scale; none → 1.
    func ropeFrequencyScale() throws(RuntimeError) -> Float {
        let type: String?
        do { type = try metadata.string(key("rope.scaling.type")) } catch { throw RuntimeError(error) }
        guard let type, type != "none" else { return 1 }
        guard type == "linear" else {
            throw .invalidValue(key: key("rope.scaling.type"), reason: "RoPE scaling '\(type)' is not supported")
        }
        let factor = try optionalPositiveFloat("rope.scaling.factor") ?? 1
        return 1 / factor
    }
}
