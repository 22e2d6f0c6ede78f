/// The figures `locallm inspect` shows for a model file: architecture, hyperparameters, tokenizer,
/// tensor types and sizes, read through the typed accessors (so a key of the wrong type is an error).
public struct GGUFSummary: Sendable, Equatable {
    public var architecture: String?
    public var name: String?
    public var contextLength: Int?
    public var embeddingLength: Int?
    /// `{arch}.block_count`: the number of layers.
    public var blockCount: Int?
    public var headCount: Int?
    public var headCountKV: Int?
    /// `{arch}.attention.key_length` when present, else embedding length / heads.
    public var headSize: Int?
    public var ropeFreqBase: Double?
    public var feedForwardLength: Int?
    /// Entries in `tokenizer.ggml.tokens`.
    public var vocabSize: Int?
    /// `tokenizer.ggml.model`, e.g. `gpt2` (byte-level BPE) or `llama` (SentencePiece).
    public var tokenizerModel: String?
    /// Tensor count per type, by type name.
    public var tensorTypes: [(type: GGMLType, count: Int)]
    public var tensorCount: Int
    public var fileSize: Int
    public var parameterCount: Int

    public init(_ file: GGUFFile) throws(GGUFError) {
        let m = file.metadata
        architecture = m.architecture
        name = try m.string("general.name")
        contextLength = try Self.count(m, m.archKey("context_length"))
        embeddingLength = try Self.count(m, m.archKey("embedding_length"))
        blockCount = try Self.count(m, m.archKey("block_count"))
        headCount = try Self.count(m, m.archKey("attention.head_count"))
        headCountKV = try Self.count(m, m.archKey("attention.head_count_kv"))
        if let keyLength = try Self.count(m, m.archKey("attention.key_length")) {
            headSize = keyLength
        } else if let width = embeddingLength, let heads = headCount, heads > 0 {
            headSize = width / heads
        }
        ropeFreqBase = try m.float(m.archKey("rope.freq_base"))
        feedForwardLength = try Self.count(m, m.archKey("feed_forward_length"))
        vocabSize = try m.array("tokenizer.ggml.tokens")?.count
        tokenizerModel = try m.string("tokenizer.ggml.model")
        var counts: [GGMLType: Int] = [:]
        for tensor in file.tensors { counts[tensor.type, default: 0] += 1 }
        tensorTypes = counts.map { (type: $0.key, count: $0.value) }.sorted { $0.type.description < $1.type.description }
        tensorCount = file.tensors.count
        fileSize = file.fileSize
        parameterCount = file.parameterCount
    }

    /// An integer, or a per-layer integer array whose entries are all equal (some architectures write
    /// head counts and feed-forward sizes per layer); a per-layer array that varies is reported as a
    /// type mismatch rather than summarised wrongly.
    private static func count(_ m: GGUFMetadata, _ key: String) throws(GGUFError) -> Int? {
        guard case .array(let array)? = m[key] else { return try m.int(key) }
        let values = try array.ints()
        guard let first = values.first, values.allSatisfy({ $0 == first }) else {
            throw GGUFError(.typeMismatch(expected: "an integer (or a uniform per-layer array)", actual: .array),
                            at: m.offset(of: key) ?? 0, key: key)
        }
        return first
    }

    public static func == (lhs: GGUFSummary, rhs: GGUFSummary) -> Bool {
        lhs.jsonText == rhs.jsonText
    }
}
