import LocalLMKernels

/// How a forward pass over several tokens (prefill) computes. One token at a time (decode) always uses
/// the quantized kernels in ggml's order of operations.
public enum BatchArithmetic: Sendable, Equatable {
    /// Matrix products as integer kernels on interleaved weight rows where the CPU has one for the
    /// type (``MatrixProduct``), else as sgemm on dequantized weight panels (the activations rounded as
    /// ggml rounds them), and attention as sgemm: the fastest prefill. Logits agree with llama.cpp's to
    /// within its own batch-versus-single noise, not bit for bit.
    case fast
    /// llama.cpp's order of operations for batches: every row through the quantized kernels (as ggml
    /// multiplies batches with these weight types) and attention summed as tinyBLAS sums it. Slower
    /// prefill; for reproducing llama.cpp's output token for token.
    case llamaCpp
}

/// One sequence being evaluated on a ``TransformerModel``: its KV cache, its scratch buffers and
/// the tokens it has seen. Not shared between tasks; make one per conversation.
public final class ModelSequence {
    public let model: TransformerModel
    public private(set) var cache: KVCache
    /// The tokens whose keys and values are in the cache, in order.
    public private(set) var tokens: [Int] = []
    /// Tokens evaluated per forward pass at most (``maximumBatchSize`` at most); longer inputs are split.
    public let batchSize: Int
    /// How passes of several tokens compute.
    public let batchArithmetic: BatchArithmetic
    /// The largest forward pass, in tokens. The scratch of a pass grows with it (about 40 KB per token for
    /// SmolLM2), while prefill speed does not: 256-token passes measured as fast as 512-token ones on both
    /// test models (`locallm bench --batch-size`), as sgemm is already efficient at 256 rows.
    public static let maximumBatchSize = 256
    let scratch: ForwardScratch
    /// Called during each forward pass with the last token's row of the intermediate tensors, named as
    /// llama.cpp names them in its graph (`attn_norm-3`, `kqv_out-3`, `l_out-3`, `result_norm`, …), so a
    /// fidelity investigation can compare them with llama.cpp's (`scripts/fidelity/compare_trace.py`).
    /// For debugging: leave it nil otherwise.
    public var tracer: ((_ name: String, _ row: UnsafeBufferPointer<Float>) -> Void)?
    /// The one-element input of ``append(_:)-(Int)``, reused.
    private var single: [Int] = [0]

    init(model: TransformerModel, contextSize: Int, cacheType: KVCacheStorage, batchSize: Int,
         batchArithmetic: BatchArithmetic = .fast) throws(RuntimeError) {
        guard batchSize > 0, batchSize <= 1 << 16 else { throw .invalidOption("batch size \(batchSize) is not in 1...65536") }
        let c = model.configuration
        self.model = model
        self.batchSize = min(batchSize, Self.maximumBatchSize)
        self.batchArithmetic = batchArithmetic
        cache = try KVCache(type: cacheType, contextSize: contextSize, shapes: (0..<c.layerCount).map { layer in
            if c.isConvolution(layer) { return LayerCacheShape(keyWidth: 0, valueWidth: 0, historyWidth: c.width) }
            // A layer reading another's cache (gemma4's shared KV layers) keeps none.
            guard c.keyValueSource(layer) == layer else { return LayerCacheShape(keyWidth: 0, valueWidth: 0) }
            return LayerCacheShape(keyWidth: c.kvHeads(layer) * c.keyLength(layer),
                                   valueWidth: c.kvHeads(layer) * c.valueLength(layer))
        })
        lastLogits = [Float](repeating: 0, count: c.vocabularySize)
        tokens.reserveCapacity(contextSize)
        scratch = ForwardScratch(configuration: c, batchSize: self.batchSize, contextSize: contextSize,
                                 layersHaveBlockMins: model.weights.layers.contains { $0.hasBlockMins },
                                 outputHasBlockMins: model.weights.output.hasBlockMins,
                                 fusedRows: model.weights.fusedRows, threads: model.threadCount)
    }

    /// Positions filled so far.
    public var position: Int { cache.count }
    public var contextSize: Int { cache.contextSize }

    /// The logits after the last token appended (`[vocabularySize]`; zeros before the first).
    ///
    /// The sequence keeps this array and overwrites it in place on every ``append(_:)``, so decoding
    /// allocates nothing per token. Reading it (for example passing it to a sampler) does not copy;
    /// a caller that keeps it across the next append gets its own copy then, by copy-on-write.
    public private(set) var lastLogits: [Float]

    /// Appends `ids` and computes the logits after the last one into ``lastLogits``.
    public func append(_ ids: [Int]) throws(RuntimeError) {
        try append(ids[...])
    }

    /// Appends one token and computes the logits after it into ``lastLogits``.
    public func append(_ id: Int) throws(RuntimeError) {
        guard tracer == nil else {
            single[0] = id
            return try append(single[...])
        }
        try decode(id)
    }

    /// Appends `ids` and returns the logits after the last one (`[vocabularySize]`): ``lastLogits``.
    @discardableResult
    public func evaluate(_ ids: [Int]) throws(RuntimeError) -> [Float] {
        try append(ids[...])
        return lastLogits
    }

    /// Appends `ids`; returns the logits of every position (`[ids.count × vocab]`, row-major) when
    /// `allPositions`, else those of the last.
    public func evaluate(_ ids: [Int], allPositions: Bool) throws(RuntimeError) -> [Float] {
        guard allPositions else { return try evaluate(ids) }
        try validate(ids[...])  // before allocating anything sized by the input
        let vocab = model.configuration.vocabularySize
        var logits = [Float](repeating: 0, count: ids.count * vocab)
        try inBatches(ids[...]) { batch, _ in
            logits.withUnsafeMutableBufferPointer { out in
                forward(batch, logitRows: 0..<batch.count, into: out.baseAddress! + batch.startIndex * vocab)
            }
        }
        lastLogits.replaceSubrange(0..<vocab, with: logits[(logits.count - vocab)...])
        return logits
    }

    /// One token: a decode step, in a pass shared with the model's other decoding sequences.
    private func decode(_ id: Int) throws(RuntimeError) {
        if Task.isCancelled { throw .cancelled }
        try model.batcher.step(self, token: id)
    }

    private func append(_ ids: ArraySlice<Int>) throws(RuntimeError) {
        if ids.count == 1, tracer == nil { return try decode(ids[ids.startIndex]) }
        try validate(ids)
        try inBatches(ids) { batch, isLast in
            lastLogits.withUnsafeMutableBufferPointer { out in
                forward(batch, logitRows: isLast ? (batch.count - 1)..<batch.count : 0..<0, into: out.baseAddress!)
            }
        }
    }

    /// Runs `body` on each batch of at most `batchSize` of the (validated) `ids` in order (`isLast` for
    /// the final one), recording each batch's tokens after it; stops between batches when the task is
    /// cancelled.
    private func inBatches(_ ids: ArraySlice<Int>, _ body: (_ batch: ArraySlice<Int>, _ isLast: Bool) -> Void) throws(RuntimeError) {
        var start = ids.startIndex
        while start < ids.endIndex {
            if Task.isCancelled { throw .cancelled }
            let end = min(ids.endIndex, start + batchSize)
            body(ids[start..<end], end == ids.endIndex)
            tokens.append(contentsOf: ids[start..<end])
            start = end
        }
    }

    /// Throws unless `id` can be appended now (a one-token step of a decode batch).
    func checkDecodeStep(_ id: Int) throws(RuntimeError) {
        try validate(CollectionOfOne(id)[...])
    }

    /// Appends `id` (checked) alone and computes its logits.
    func decodeStep(_ id: Int) {
        single[0] = id
        lastLogits.withUnsafeMutableBufferPointer { out in
            forward(single[...], logitRows: 0..<1, into: out.baseAddress!)
        }
        tokens.append(id)
    }

    /// Records `id` (checked), whose keys and values a decode batch has stored, and its logits.
    func receiveDecodeStep(_ id: Int, logits: UnsafePointer<Float>) {
        lastLogits.withUnsafeMutableBufferPointer { out in
            out.baseAddress!.update(from: logits, count: out.count)
        }
        tokens.append(id)
    }

    /// Checks the ids and reserves their room in the cache, before anything changes.
    private func validate<C: Collection<Int>>(_ ids: C) throws(RuntimeError) {
        guard !ids.isEmpty else { throw .emptyInput }
        let vocab = model.configuration.vocabularySize
        for id in ids where id < 0 || id >= vocab { throw .invalidToken(id, vocabularySize: vocab) }
        try cache.reserve(ids.count)
    }

    /// Forgets every token from `length` on (a later turn reuses the cached prefix).
    public func truncate(to length: Int) throws(RuntimeError) {
        try cache.truncate(to: length)
        tokens.removeSubrange(length...)
    }

    /// A new sequence on the same model whose cache holds this one's first `length` tokens.
    public func copyPrefix(_ length: Int, contextSize: Int? = nil) throws(RuntimeError) -> ModelSequence {
        let copy = try ModelSequence(model: model, contextSize: contextSize ?? cache.contextSize,
                                     cacheType: cache.type, batchSize: batchSize, batchArithmetic: batchArithmetic)
        copy.cache = try cache.copyPrefix(length, contextSize: contextSize ?? cache.contextSize)
        copy.tokens = Array(tokens.prefix(length))
        return copy
    }
}
