import LocalLMKernels

/// The buffers one forward pass needs, allocated once per sequence (no allocation per token).
final class ForwardScratch {
    let batchSize: Int
    let threads: Int
    /// Residual stream `[batch × width]`.
    let x: UnsafeMutablePointer<Float>
    /// Normalized input of a projection `[batch × width]`.
    let normed: UnsafeMutablePointer<Float>
    /// Queries `[batch × heads·keyLength]`, keys `[batch × kvHeads·keyLength]`, values `[batch × kvHeads·valueLength]`.
    let q: UnsafeMutablePointer<Float>
    let k: UnsafeMutablePointer<Float>
    let v: UnsafeMutablePointer<Float>
    /// Attention output `[batch × heads·valueLength]`.
    let attention: UnsafeMutablePointer<Float>
    /// A projection back to the residual width `[batch × width]`.
    let projected: UnsafeMutablePointer<Float>
    /// FFN gate and up `[batch × ff]`.
    let gate: UnsafeMutablePointer<Float>
    let up: UnsafeMutablePointer<Float>
    /// Mixture of experts: router logits `[batch × experts]`, each row's choices `[batch × used]` as
    /// (expert, weight) pairs, the rows routed to one expert gathered `[batch × width]`, and each
    /// choice's weighted output `[batch × used × width]`.
    let router: UnsafeMutablePointer<Float>
    let expertChoices: UnsafeMutablePointer<Float>
    let expertInput: UnsafeMutablePointer<Float>
    let expertOutputs: UnsafeMutablePointer<Float>
    /// The output of a fused projection (QKV, or gate and up) before it is split `[batch × fusedRows]`.
    let fused: UnsafeMutablePointer<Float>
    /// The rounded copy of a matrix product's input `[batch × max columns]`.
    let rounded: UnsafeMutablePointer<Float>
    /// Q4_1/Q5_1 block-sum corrections `[batch × (max columns/32 + max rows)]` (one float when no
    /// matrix has block mins).
    let correction: UnsafeMutablePointer<Float>
    /// Rows of logits computed per output product (bounds the correction scratch for a large vocabulary).
    static let logitChunk = 8
    /// The kernels' own scratch (quantized activations, dequantized panels).
    let kernel = KernelScratch()
    /// Per thread: an ``Attention/Workspace`` of `attentionFloats` floats.
    let attentionWorkspaces: UnsafeMutablePointer<Float>
    let attentionFloats: Int
    /// The decode step's ``Attention/decodeSplit`` workspace: panels for every key/value head.
    let decodeWorkspace: UnsafeMutablePointer<Float>
    /// RoPE (cos, sin) pairs `[ropeDimensions]`, for global and sliding layers.
    let ropeGlobal: UnsafeMutablePointer<Float>
    let ropeSliding: UnsafeMutablePointer<Float>
    /// gemma4's per-layer inputs `[batch × layers × ple]`, one token's per-layer embedding row
    /// `[layers × ple]`, and a row of ones (the weight of a norm without one) `[largest head]`.
    let perLayerInputs: UnsafeMutablePointer<Float>
    let perLayerToken: UnsafeMutablePointer<Float>
    let ones: [Float]
    let contextSize: Int
    let keyLength: Int
    private var all: [UnsafeMutablePointer<Float>] = []

    /// `fusedRows`: the most rows of any fused projection of the model (0 when it has none).
    init(configuration c: TransformerConfiguration, batchSize: Int, contextSize: Int, layersHaveBlockMins: Bool,
         outputHasBlockMins: Bool, fusedRows: Int = 0, threads: Int) {
        self.batchSize = batchSize
        self.threads = threads
        self.contextSize = contextSize
        let keyLength = c.largestKeyLength, valueLength = c.largestValueLength, kvHeads = c.largestKVHeads
        self.keyLength = keyLength
        let maxColumns = max(c.width, c.feedForwardLength, c.headCount * valueLength)
        var list: [UnsafeMutablePointer<Float>] = []
        // Not zero-filled: every buffer is written before it is read, and untouched pages cost no
        // memory, so a sequence that only decodes (or a large context not yet filled) stays small.
        func make(_ count: Int) -> UnsafeMutablePointer<Float> {
            let p = UnsafeMutablePointer<Float>.allocate(capacity: max(count, 1))
            list.append(p)
            return p
        }
        x = make(batchSize * c.width)
        normed = make(batchSize * c.width)
        q = make(batchSize * c.headCount * keyLength)
        k = make(batchSize * kvHeads * keyLength)
        v = make(batchSize * kvHeads * valueLength)
        attention = make(batchSize * c.headCount * valueLength)
        projected = make(batchSize * c.width)
        // Also gemma4's per-layer gate and input rows.
        gate = make(batchSize * max(c.feedForwardLength, c.perLayerEmbeddingLength))
        up = make(batchSize * max(c.feedForwardLength, c.perLayerEmbeddingLength))
        fused = make(batchSize * fusedRows)
        router = make(batchSize * c.expertCount)
        expertChoices = make(batchSize * c.expertsUsed * 2)
        expertInput = make(c.expertCount > 0 ? batchSize * c.width : 0)
        expertOutputs = make(batchSize * c.expertsUsed * c.width)
        rounded = make(batchSize * maxColumns)
        attentionFloats = Attention.workspaceFloats(contextSize: contextSize, keyLength: keyLength,
                                                    valueLength: valueLength)
        attentionWorkspaces = make(threads * attentionFloats)
        decodeWorkspace = make(Attention.workspaceFloats(contextSize: contextSize, keyLength: keyLength,
                                                         valueLength: valueLength, panelRows: kvHeads * contextSize))
        let ple = c.perLayerEmbeddingLength * c.layerCount
        perLayerInputs = make(batchSize * ple)
        perLayerToken = make(ple)
        ones = Array(repeating: 1, count: max(keyLength, valueLength))
        let maxRows = max(c.width, c.feedForwardLength, c.headCount * keyLength, fusedRows, c.expertCount, ple)
        // The output product needs room for its block-min correction only when it has block mins
        // (a vocabulary-sized row per logit row: 8 MB for Gemma 3, whose head is Q8_0).
        // Only products with block mins (Q4_1/Q5_1) use it; Gemma 3's layers and head have none.
        correction = make(max(layersHaveBlockMins ? batchSize * (maxColumns / 32 + maxRows) : 0,
                              outputHasBlockMins ? ForwardScratch.logitChunk * (c.width / 32 + c.vocabularySize) : 0))
        ropeGlobal = make(c.largestRopeDimensions)
        ropeSliding = make(c.largestRopeDimensions)
        all = list
    }

    deinit { for p in all { p.deallocate() } }
}
