/// An element of the KV cache, read as Float.
protocol CacheElement {
    var floatValue: Float { get }
    /// How llama.cpp rounds the query and the softmax weights before multiplying them with a cache of
    /// this type: to F16 for an F16 cache (ggml converts the other operand to the cache's vec_dot_type),
    /// not at all for F32.
    static func roundOperand(_ x: Float) -> Float
}

extension Float16: CacheElement {
    @inline(__always) var floatValue: Float { Float(self) }
    @inline(__always) static func roundOperand(_ x: Float) -> Float { Float(Float16(x)) }
}

extension Float: CacheElement {
    @inline(__always) var floatValue: Float { self }
    @inline(__always) static func roundOperand(_ x: Float) -> Float { x }
}

/// Scaled dot-product attention of one query head over cached positions, as llama.cpp computes it
/// without flash attention: K·Q in float from the rounded query, a softmax whose sum is accumulated in
/// Double, then the weights rounded like the query and multiplied with the values.
enum Attention {
    /// - Parameters:
    ///   - query: `[keyLength]`, already RoPE'd (and scaled for gemma).
    ///   - keys / values: the layer's cache base; rows of `keyStride` / `valueStride` elements, one per
    ///     position, this head's slice starting at `keyOffset` / `valueOffset`.
    ///   - range: the visible positions (causal, and the window for sliding layers).
    ///   - scores: scratch of at least `range.count` floats.
    ///   - out: `[valueLength]`.
    @inline(__always)
    static func head<E: CacheElement>(
        query: UnsafePointer<Float>, keys: UnsafePointer<E>, values: UnsafePointer<E>,
        keyStride: Int, valueStride: Int, keyOffset: Int, valueOffset: Int,
        keyLength: Int, valueLength: Int, range: Range<Int>, scale: Float,
        scores: UnsafeMutablePointer<Float>, roundedQuery: UnsafeMutablePointer<Float>,
        out: UnsafeMutablePointer<Float>
    ) {
        for i in 0..<keyLength { roundedQuery[i] = E.roundOperand(query[i]) }
        var maxScore = -Float.infinity
        for (j, position) in range.enumerated() {
            let k = keys + position * keyStride + keyOffset
            var dot: Float = 0
            for i in 0..<keyLength { dot += roundedQuery[i] * k[i].floatValue }
            let s = dot * scale
            scores[j] = s
            maxScore = max(maxScore, s)
        }
        var sum: Double = 0
        for j in 0..<range.count {
            let e = expf(scores[j] - maxScore)
            scores[j] = e
            sum += Double(e)
        }
        let inverse = Float(1 / sum)
        for i in 0..<valueLength { out[i] = 0 }
        for (j, position) in range.enumerated() {
            let p = E.roundOperand(scores[j] * inverse)
            let v = values + position * valueStride + valueOffset
            for i in 0..<valueLength { out[i] += p * v[i].floatValue }
        }
    }
}

import Foundation
