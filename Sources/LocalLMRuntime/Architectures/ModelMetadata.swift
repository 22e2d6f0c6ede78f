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

    func optionalBool(_ suffix: String) throws(RuntimeError) -> Bool? {
        switch metadata[key(suffix)] {
        case nil: return nil
        case .bool(let value)?: return value
        case let other?: throw .invalidValue(key: key(suffix), reason: "expected a boolean, found \(other.type)")
        }
    }

    /// A finite float where 0 means "not set" (as llama.cpp reads granite's multipliers): nil for absent or 0.
    func optionalNonZeroFloat(_ suffix: String) throws(RuntimeError) -> Float? {
        guard let value = try optionalFloat(suffix), value != 0 else { return nil }
        guard value.isFinite else { throw .invalidValue(key: key(suffix), reason: "\(value) is not finite") }
        return value
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

    /// An integer key given once for all layers or as an array of one value per layer (llama.cpp's
    /// `get_key_or_arr`); nil when absent. Each value is in 0...`limit`.
    func perLayerInts(_ suffix: String, layers: Int, limit: Int) throws(RuntimeError) -> [Int]? {
        let name = key(suffix)
        let values: [Int]
        switch metadata[name] {
        case nil: return nil
        case .array(let array)?:
            guard array.count == layers, let ints = try? array.ints() else {
                throw .invalidValue(key: name, reason: "expected an integer or an array of \(layers) integers")
            }
            values = ints
        case let scalar?:
            guard let value = scalar.intValue else {
                throw .invalidValue(key: name, reason: "expected an integer, found \(scalar.type)")
            }
            values = Array(repeating: value, count: layers)
        }
        if let bad = values.first(where: { $0 < 0 || $0 > limit }) {
            throw .invalidValue(key: name, reason: "\(bad) is not in 0...\(limit)")
        }
        return values
    }

    /// The attention shape common to every architecture: heads, KV heads per layer (each dividing
    /// heads; `attention.head_count_kv` may be an array, with 0 for a layer without attention), head sizes.
    func attentionShape(width: Int, layers: Int)
        throws(RuntimeError) -> (heads: Int, kvHeads: [Int], keyLength: Int, valueLength: Int) {
        let heads = try positiveInt("attention.head_count", limit: 4096)
        let kvHeads = try perLayerInts("attention.head_count_kv", layers: layers, limit: 4096)
            ?? Array(repeating: heads, count: layers)
        guard kvHeads.contains(where: { $0 > 0 }) else {
            throw .invalidValue(key: key("attention.head_count_kv"), reason: "no layer has attention")
        }
        if let bad = kvHeads.first(where: { $0 > 0 && heads % $0 != 0 }) {
            throw .invalidValue(key: key("attention.head_count_kv"),
                                reason: "\(bad) KV heads do not divide \(heads) heads")
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

    /// `rope.scaling.type` linear (or longrope, whose frequency factors are tensors) with
    /// `rope.scaling.factor` → frequency scale; none → 1. Other scaling types (yarn, …) are an error
    /// naming them, never a silently wrong rotation.
    func ropeFrequencyScale() throws(RuntimeError) -> Float {
        let type: String?
        do { type = try metadata.string(key("rope.scaling.type")) } catch { throw RuntimeError(error) }
        guard let type, type != "none" else { return 1 }
        guard type == "linear" || type == "longrope" else {
            throw .invalidValue(key: key("rope.scaling.type"), reason: "RoPE scaling '\(type)' is not supported")
        }
        let factor = try optionalPositiveFloat("rope.scaling.factor") ?? 1
        return 1 / factor
    }

    /// The description of a llama-style decoder from the keys every such architecture has: RMSNorm
    /// before attention and FFN, SwiGLU, grouped-query attention, RoPE with `pairing`, no biases. Each
    /// architecture file starts from this and changes what its family changes.
    ///
    /// Layers without attention (`attention.head_count_kv` 0) are an error naming the key unless
    /// `convolutionLayers` (lfm2), which makes them ``TransformerConfiguration/convolutionLayers``;
    /// so are KV head counts that differ between layers, unless `variableKVHeads` (the architecture
    /// then sorts them out; ``TransformerConfiguration/kvHeadCount`` is the largest). A per-layer
    /// `feed_forward_length` array gives ``TransformerConfiguration/feedForwardLengths``.
    func standardConfiguration(vocabularySize: Int, ropePairing: TransformerConfiguration.RoPEPairing,
                               defaultContextLength: Int, convolutionLayers: Bool = false,
                               variableKVHeads: Bool = false) throws(RuntimeError) -> TransformerConfiguration {
        let width = try positiveInt("embedding_length")
        let layers = try positiveInt("block_count", limit: 4096)
        let attention = try attentionShape(width: width, layers: layers)
        if !convolutionLayers, let layer = attention.kvHeads.firstIndex(of: 0) {
            throw .invalidValue(key: key("attention.head_count_kv"),
                                reason: "layer \(layer) has no KV heads, which \(architecture) does not support")
        }
        let counts = Set(attention.kvHeads.filter { $0 > 0 })
        if counts.count > 1 && !variableKVHeads {
            throw .invalidValue(key: key("attention.head_count_kv"),
                                reason: "different KV head counts per layer (\(counts.sorted())) are not supported")
        }
        let feedForward = try perLayerInts("feed_forward_length", layers: layers, limit: 1 << 24) ?? []
        guard let largestFeedForward = feedForward.max(), !feedForward.contains(0) else {
            throw feedForward.isEmpty ? .missingKey(key("feed_forward_length"))
                : .invalidValue(key: key("feed_forward_length"), reason: "0 is not in 1...\(1 << 24)")
        }
        let ropeBase = try optionalPositiveFloat("rope.freq_base") ?? 10000
        let ropeDimensions = try optionalPositiveInt("rope.dimension_count", limit: 4096) ?? attention.keyLength
        guard ropeDimensions <= attention.keyLength, ropeDimensions % 2 == 0 else {
            throw .invalidValue(key: key("rope.dimension_count"),
                                reason: "\(ropeDimensions) must be even and at most the head size \(attention.keyLength)")
        }
        let context = try optionalPositiveInt("context_length", limit: 1 << 30) ?? defaultContextLength
        var c = TransformerConfiguration(
            architecture: architecture,
            width: width,
            layerCount: layers,
            headCount: attention.heads,
            kvHeadCount: counts.max() ?? 1,
            keyLength: attention.keyLength,
            valueLength: attention.valueLength,
            feedForwardLength: largestFeedForward,
            vocabularySize: vocabularySize,
            trainedContextLength: context,
            rmsEpsilon: try positiveFloat("attention.layer_norm_rms_epsilon"),
            ropePairing: ropePairing,
            ropeDimensions: ropeDimensions,
            ropeBase: ropeBase,
            ropeBaseSliding: ropeBase,
            ropeFrequencyScale: try ropeFrequencyScale(),
            slidingWindow: nil,
            slidingLayers: Array(repeating: false, count: layers),
            embeddingScale: nil,
            queryScale: nil,
            hasQKVBias: false,
            hasQKNorm: false,
            hasPostNorms: false,
            activation: .silu
        )
        if convolutionLayers { c.convolutionLayers = attention.kvHeads.map { $0 == 0 } }
        if Set(feedForward).count > 1 { c.feedForwardLengths = feedForward }
        c.ropeAttentionFactor = try optionalPositiveFloat("rope.scaling.attn_factor") ?? 1
        c.ropeOriginalContextLength = try optionalPositiveInt("rope.scaling.original_context_length", limit: 1 << 30)
            ?? context
        return c
    }

    /// Per layer, whether it is a sliding-window layer: `attention.sliding_window_pattern` as an array
    /// of booleans, or as a period p (layer l slides when l mod p < p − 1, llama.cpp's
    /// `set_swa_pattern`), else `defaultPeriod`.
    func slidingPattern(layers: Int, defaultPeriod: Int) throws(RuntimeError) -> [Bool] {
        let name = key("attention.sliding_window_pattern")
        if case .array(let array)? = metadata[name] {
            guard array.count == layers, array.elementType == .bool, let values = try? array.values() else {
                throw .invalidValue(key: name, reason: "expected an array of \(layers) booleans")
            }
            return values.map { if case .bool(let b) = $0 { b } else { false } }
        }
        let period = try optionalPositiveInt("attention.sliding_window_pattern", limit: 4096) ?? defaultPeriod
        return (0..<layers).map { $0 % period < period - 1 }
    }
}
