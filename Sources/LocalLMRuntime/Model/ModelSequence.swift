import LocalLMKernels

/// One sequence being evaluated on a ``TransformerModel``: its KV cache, its scratch buffers and
/// the tokens it has seen. Not shared between tasks; make one per conversation.
public final class ModelSequence {
    public let model: TransformerModel
    public private(set) var cache: KVCache
    /// The tokens whose keys and values are in the cache, in order.
    public private(set) var tokens: [Int] = []
    /// Tokens evaluated per forward pass at most; longer inputs are split.
    public let batchSize: Int
    let scratch: ForwardScratch

    init(model: TransformerModel, contextSize: Int, cacheType: KVCacheType, batchSize: Int) throws(RuntimeError) {
        guard batchSize > 0, batchSize <= 1 << 16 else { throw .invalidOption("batch size \(batchSize) is not in 1...65536") }
        let c = model.configuration
        self.model = model
        self.batchSize = batchSize
        cache = try KVCache(type: cacheType, contextSize: contextSize, layerCount: c.layerCount,
                            keyWidth: c.kvHeadCount * c.keyLength, valueWidth: c.kvHeadCount * c.valueLength)
        scratch = ForwardScratch(configuration: c, batchSize: batchSize, contextSize: contextSize,
                                 threads: model.threadCount)
    }

    /// Positions filled so far.
    public var position: Int { cache.count }
    public var contextSize: Int { cache.contextSize }

    /// Appends `ids` and returns the logits after the last one (`[vocabularySize]`).
    @discardableResult
    public func evaluate(_ ids: [Int]) throws(RuntimeError) -> [Float] {
        try evaluate(ids, allPositions: false)
    }

    /// Appends `ids`; returns the logits of every position (`[ids.count × vocab]`, row-major) when
    /// `allPositions`, else those of the last.
    public func evaluate(_ ids: [Int], allPositions: Bool) throws(RuntimeError) -> [Float] {
        guard !ids.isEmpty else { throw .emptyInput }
        let vocab = model.configuration.vocabularySize
        for id in ids where id < 0 || id >= vocab { throw .invalidToken(id, vocabularySize: vocab) }
        try cache.reserve(ids.count)
        var logits = [Float](repeating: 0, count: (allPositions ? ids.count : 1) * vocab)
        var start = 0
        while start < ids.count {
            if Task.isCancelled { throw .cancelled }
            let end = min(ids.count, start + batchSize)
            let batch = Array(ids[start..<end])
            let isLast = end == ids.count
            logits.withUnsafeMutableBufferPointer { out in
                if allPositions {
                    forward(batch, logitRows: 0..<batch.count, into: out.baseAddress! + start * vocab)
                } else {
                    forward(batch, logitRows: isLast ? (batch.count - 1)..<batch.count : 0..<0, into: out.baseAddress!)
                }
            }
            tokens.append(contentsOf: batch)
            start = end
        }
        return logits
    }

    /// Forgets every token from `length` on (a later turn reuses the cached prefix).
    public func truncate(to length: Int) throws(RuntimeError) {
        try cache.truncate(to: length)
        tokens.removeSubrange(length...)
    }

    /// A new sequence on the same model whose cache holds this one's first `length` tokens.
    public func copyPrefix(_ length: Int, contextSize: Int? = nil) throws(RuntimeError) -> ModelSequence {
        let copy = try ModelSequence(model: model, contextSize: contextSize ?? cache.contextSize,
                                     cacheType: cache.type, batchSize: batchSize)
        copy.cache = try cache.copyPrefix(length, contextSize: contextSize ?? cache.contextSize)
        copy.tokens = Array(tokens.prefix(length))
        return copy
    }
}
