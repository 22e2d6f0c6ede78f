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

/// The keys and values of one sequence, preallocated to its context size.
///
/// Layout per layer: keys `[contextSize × kvHeads·keyLength]`, values `[contextSize × kvHeads·valueLength]`,
/// one row per position. Sliding-window layers keep every position too; attention reads only the
/// window. Owned by one sequence, never shared.
public final class KVCache {
    public let type: KVCacheStorage
    public let contextSize: Int
    let layerCount: Int
    /// Elements per position: kvHeads·keyLength and kvHeads·valueLength.
    let keyWidth: Int
    let valueWidth: Int
    /// Positions 0..<count hold valid entries.
    public private(set) var count: Int = 0

    private let keys: [UnsafeMutableRawPointer]
    private let values: [UnsafeMutableRawPointer]

    init(type: KVCacheStorage, contextSize: Int, layerCount: Int, keyWidth: Int, valueWidth: Int) throws(RuntimeError) {
        guard contextSize > 0 else { throw .invalidOption("the context size must be positive") }
        let perLayer = contextSize.multipliedReportingOverflow(by: (keyWidth + valueWidth) * type.bytesPerElement)
        let total = perLayer.partialValue.multipliedReportingOverflow(by: layerCount)
        guard !perLayer.overflow, !total.overflow, total.partialValue <= 1 << 40 else {
            throw .invalidOption("a KV cache of \(contextSize) positions is too large")
        }
        self.type = type
        self.contextSize = contextSize
        self.layerCount = layerCount
        self.keyWidth = keyWidth
        self.valueWidth = valueWidth
        let bytes = type.bytesPerElement
        keys = (0..<layerCount).map { _ in
            UnsafeMutableRawPointer.allocate(byteCount: contextSize * keyWidth * bytes, alignment: 64)
        }
        values = (0..<layerCount).map { _ in
            UnsafeMutableRawPointer.allocate(byteCount: contextSize * valueWidth * bytes, alignment: 64)
        }
    }

    deinit {
        for p in keys { p.deallocate() }
        for p in values { p.deallocate() }
    }

    /// Total bytes held.
    public var byteCount: Int { layerCount * contextSize * (keyWidth + valueWidth) * type.bytesPerElement }

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
        let copy = try KVCache(type: type, contextSize: size, layerCount: layerCount,
                               keyWidth: keyWidth, valueWidth: valueWidth)
        let bytes = type.bytesPerElement
        for layer in 0..<layerCount {
            copy.keys[layer].copyMemory(from: keys[layer], byteCount: length * keyWidth * bytes)
            copy.values[layer].copyMemory(from: values[layer], byteCount: length * valueWidth * bytes)
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

    /// Writes the key and value rows of `position` in `layer` from Float rows.
    @inline(__always)
    func store(layer: Int, position: Int, key: UnsafePointer<Float>, value: UnsafePointer<Float>) {
        switch type {
        case .f16:
            let k = keys[layer].assumingMemoryBound(to: UInt16.self) + position * keyWidth
            for i in 0..<keyWidth { k[i] = floatToHalf(key[i]) }
            let v = values[layer].assumingMemoryBound(to: UInt16.self) + position * valueWidth
            for i in 0..<valueWidth { v[i] = floatToHalf(value[i]) }
        case .f32:
            (keys[layer].assumingMemoryBound(to: Float.self) + position * keyWidth).update(from: key, count: keyWidth)
            (values[layer].assumingMemoryBound(to: Float.self) + position * valueWidth).update(from: value, count: valueWidth)
        }
    }

    func keyBase(_ layer: Int) -> UnsafeMutableRawPointer { keys[layer] }
    func valueBase(_ layer: Int) -> UnsafeMutableRawPointer { values[layer] }
}
