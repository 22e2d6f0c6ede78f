import LocalLMJSON

extension GGUFSummary {
    /// One JSON object with GGUF key names, in a fixed order; absent figures are `null`.
    /// `key_length` is the head size (the key if present, else embedding length / heads).
    public var jsonText: String { jsonText(adding: []) }

    /// ``jsonText`` with `extra` fields (name, JSON text) after the summary's own.
    public func jsonText(adding extra: [(String, String)]) -> String {
        var fields: [(String, String)] = [
            ("architecture", Self.json(architecture)),
            ("name", Self.json(name)),
            ("context_length", Self.json(contextLength)),
            ("embedding_length", Self.json(embeddingLength)),
            ("block_count", Self.json(blockCount)),
            ("head_count", Self.json(headCount)),
            ("head_count_kv", Self.json(headCountKV)),
            ("key_length", Self.json(headSize)),
            ("rope_freq_base", ropeFreqBase.map(Self.numberText) ?? "null"),
            ("feed_forward_length", Self.json(feedForwardLength)),
            ("vocab_size", Self.json(vocabSize)),
            ("tokenizer_model", Self.json(tokenizerModel)),
        ]
        let types = tensorTypes.map { "\(Self.json($0.type.description)): \($0.count)" }.joined(separator: ", ")
        fields += [
            ("tensor_types", "{\(types)}"),
            ("tensor_count", String(tensorCount)),
            ("file_size", String(fileSize)),
            ("parameter_count", String(parameterCount)),
        ] + extra
        return "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }

    /// A float as the shortest text that reads back the same, in Float precision when the value is one
    /// (GGUF stores RoPE bases as FLOAT32: 10000.0, not 10000.000000000002).
    public static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if let float = Float(exactly: value) { return "\(float)" }
        return "\(value)"
    }

    static func json(_ value: Int?) -> String { value.map(String.init) ?? "null" }

    static func json(_ value: String?) -> String {
        value.map { JSONValue.quote($0) } ?? "null"
    }
}
