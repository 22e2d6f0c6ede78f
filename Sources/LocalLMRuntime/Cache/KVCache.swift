import LocalLMKernels
/// How keys and values are stored in a ``KVCache``.
///
/// F16 is the default, as in llama.cpp: it halves the bytes attention reads per token (at a
/// 600-token context SmolLM2 reads 14 MB of F16 cache per token against 97 MB of weights; F32 would
/// be 28 MB) and it reproduces llama.cpp's numerics, which round the query and the softmax weights to
/// F16 before multiplying them with an F16 cache. F32 is kept for experiments; see the report in
/// `Docs/` for the measurement.
public enum KVCacheStorage: String, Sendable, CaseIterable {
    case f16
    case f32

    var bytesPerElement: Int { self == .f16 ? 2 : 4 }
}

/// What one layer keeps per position in a ``KVCache``.
public struct LayerCacheShape: Sendable, Equatable {
    /// Elements of the key and value rows (kvHeads·keyLength, kvHeads·valueLength); 0 for a layer
    /// without attention.
    public var keyWidth: Int
    public var valueWidth: Int
    /// Elements of the F32 convolution input row kept per position (the width of a short-convolution
    /// layer's input, lfm2); 0 for an attention layer.
    public var historyWidth: Int

    public init(keyWidth: Int, valueWidth: Int, historyWidth: Int = 0) {
        self.keyWidth = keyWidth
        self.valueWidth = valueWidth
        self.historyWidth = historyWidth
    }
}

/// The keys and values of one sequence, preallocated to its context size.
///
/// Layout per attention layer: keys `[contextSize × kvHeads·keyLength]`, values
/// `[contextSize × kvHeads·valueLength]`, one row per position. Sliding-window layers keep every
/// position too; attention reads only the window.
///
/// A short-convolution layer (lfm2) keeps, per position, the F32 row its convolution reads (B·x):
/// the convolution state after position p is the rows before it, so ``truncate(to:)`` rolls the
/// state back exactly as it rolls back the keys and values, and prefix reuse needs nothing else.
/// F32 because llama.cpp keeps its convolution state in F32. Owned by one sequence, never shared.
public final class KVCache {
    public let type: KVCacheStorage
    public let contextSize: Int
    let layerCount: Int
    let shapes: [LayerCacheShape]
    /// Positions 0..<count hold valid entries.
    public private(set) var count: Int = 0

    private let keys: [UnsafeMutableRawPointer?]
    private let values: [UnsafeMutableRawPointer?]
    private let histories: [UnsafeMutablePointer<Float>?]

    init(type: KVCacheStorage, contextSize: Int, shapes: [LayerCacheShape]) throws(RuntimeError) {
        guard contextSize > 0 else { throw .invalidOption("the context size must be positive") }
        var total = 0
        for shape in shapes {
            guard shape.keyWidth >= 0, shape.valueWidth >= 0, shape.historyWidth >= 0 else {
                throw .invalidOption("a layer's cache width is negative")
            }
            let row = (shape.keyWidth + shape.valueWidth) * type.bytesPerElement + shape.historyWidth * 4
            let layer = contextSize.multipliedReportingOverflow(by: row)
            let sum = total.addingReportingOverflow(layer.partialValue)
            guard !layer.overflow, !sum.overflow, sum.partialValue <= 1 << 40 else {
                throw .invalidOption("a KV cache of \(contextSize) positions is too large")
            }
            total = sum.partialValue
        }
        self.type = type
        self.contextSize = contextSize
        self.layerCount = shapes.count
        self.shapes = shapes
        let bytes = type.bytesPerElement
        func allocate(_ width: Int, _ size: Int) -> UnsafeMutableRawPointer? {
            width == 0 ? nil : UnsafeMutableRawPointer.allocate(byteCount: contextSize * width * size, alignment: 64)
        }
        keys = shapes.map { allocate($0.keyWidth, bytes) }
        values = shapes.map { allocate($0.valueWidth, bytes) }
        histories = shapes.map { allocate($0.historyWidth, 4)?.assumingMemoryBound(to: Float.self) }
    }

    deinit {
        for p in keys { p?.deallocate() }
        for p in values { p?.deallocate() }
        for p in histories { p?.deallocate() }
    }

    /// Total bytes held.
    public var byteCount: Int {
        shapes.reduce(0) {
            $0 + contextSize * (($1.keyWidth + $1.valueWidth) * type.bytesPerElement + $1.historyWidth * 4)
        }
    }

    /// Forgets every position from `length` on, so that a later turn can reuse the cached prefix.
    public func truncate(to length: Int) throws(RuntimeError) {
        guard length >= 0, length <= count else { throw .invalidPrefix(length: length, cached: count) }
        count = length
    }

    /// A new cache (of `contextSize` positions, this one's by default) holding this one's first `length`
    /// positions, e.g. to fork a conversation.
    public func copyPrefix(_ length: Int, contextSize: Int? = nil) throws(RuntimeError) -> KVCache {
        guard length >= 0, length <= count else { throw .invalidPrefix(length: length, cached: count) }
        let size = contextSize ?? self.contextSize
        guard length <= size else { throw .contextOverflow(position: 0, count: length, contextSize: size) }
        let copy = try KVCache(type: type, contextSize: size, shapes: shapes)
        let bytes = type.bytesPerElement
        for (layer, shape) in shapes.enumerated() {
            if let from = keys[layer], let to = copy.keys[layer] {
                to.copyMemory(from: from, byteCount: length * shape.keyWidth * bytes)
            }
            if let from = values[layer], let to = copy.values[layer] {
                to.copyMemory(from: from, byteCount: length * shape.valueWidth * bytes)
            }
            if let from = histories[layer], let to = copy.histories[layer] {
                to.update(from: from, count: length * shape.historyWidth)
            }
        }
        copy.count = length
        return copy
    }

    /// Throws unless `n` more positions fit.
    func reserve(_ n: Int) throws(RuntimeError) {
        guard n <= contextSize - count else {
            throw .contextOverflow(position: count, count: n, contextSize: contextSize)
        }
    }

    /// Marks `n` more positions as valid once the forward pass has written them.
    func commit(_ n: Int) { count += n }

    /// Writes the key and value rows of `position` in attention layer `layer` from Float rows.
    @inline(__always)
    func store(layer: Int, position: Int, key: UnsafePointer<Float>, value: UnsafePointer<Float>) {
        guard let keyBase = keys[layer], let valueBase = values[layer] else { return }
        let keyWidth = shapes[layer].keyWidth, valueWidth = shapes[layer].valueWidth
        switch type {
        case .f16:
            GGMLRows.toHalf(key, count: keyWidth, into: keyBase.assumingMemoryBound(to: UInt16.self) + position * keyWidth)
            GGMLRows.toHalf(value, count: valueWidth,
                            into: valueBase.assumingMemoryBound(to: UInt16.self) + position * valueWidth)
        case .f32:
            (keyBase.assumingMemoryBound(to: Float.self) + position * keyWidth).update(from: key, count: keyWidth)
            (valueBase.assumingMemoryBound(to: Float.self) + position * valueWidth).update(from: value, count: valueWidth)
        }
    }

    /// The key and value rows of attention layer `layer`; nil for a layer without attention.
    func keyBase(_ layer: Int) -> UnsafeMutableRawPointer? { keys[layer] }
    func valueBase(_ layer: Int) -> UnsafeMutableRawPointer? { values[layer] }

    /// The convolution input rows of short-convolution layer `layer`, `[contextSize × historyWidth]`.
    func history(_ layer: Int) -> UnsafeMutablePointer<Float>? { histories[layer] }
}
