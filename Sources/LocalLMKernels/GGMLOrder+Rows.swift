import CLocalLMShims

/// Whole-row loops of attention and the FFN in ggml's float order: the C kernels for AVX2 + FMA
/// (`Sources/CLocalLMShims/avx2_math.c`, chosen at run time) when the CPU has them, else the Swift
/// functions of ``GGMLOrder`` element by element. The two compute the same values bit for bit
/// (`AVX2KernelsTests`); the C ones exist because a build without a target CPU must emulate each fused
/// multiply-add in Swift, which made attention and SiLU 20× slower than the instruction.
package enum GGMLRows {
    /// ``GGMLOrder/dotVec(_:_:count:)``.
    @inline(__always)
    package static func dotVec(_ x: UnsafePointer<Float>, _ y: UnsafePointer<Float>, count: Int) -> Float {
        if CPUFeatures.avx2FMAF16C { return locallm_avx2_dot_vec(x, y, count) }
        return GGMLOrder.dotVec(x, y, count: count)
    }

    /// scores[h·scoreStride + j] = ``dotVec(_:_:count:)`` of key row j (`keys + j·ldk`) and query h
    /// (`queries + h·queryStride`), for j in `positions` and h < `heads`: a key/value head's positions
    /// against its query heads in one call (on AVX2 one C loop, with each key row in L1 for every head).
    @inline(__always)
    package static func scores(
        keys: UnsafePointer<Float>, ldk: Int, positions: Range<Int>, queries: UnsafePointer<Float>, queryStride: Int,
        heads: Int, count: Int, into scores: UnsafeMutablePointer<Float>, scoreStride: Int
    ) {
        if CPUFeatures.avx2FMAF16C {
            locallm_avx2_scores(keys, ldk, positions.lowerBound, positions.upperBound, queries, queryStride, heads, count,
                                scores, scoreStride)
            return
        }
        for j in positions {
            for h in 0..<heads {
                scores[h * scoreStride + j] = GGMLOrder.dotVec(keys + j * ldk, queries + h * queryStride, count: count)
            }
        }
    }

    /// Whether ``scoresF16(keys:ldk:positions:queries:queryStride:heads:count:into:scoreStride:)`` and
    /// ``weightedValuesF16(_:weightStride:heads:positions:firstCell:values:ldv:columns:out:outStride:)``
    /// run for these shapes: AVX2 + FMA + F16C, key rows of at most 1,024 values and value columns in
    /// multiples of 16. Otherwise attention widens the F16 cache and uses the float kernels.
    @inline(__always)
    package static func hasF16Attention(keyLength: Int, valueLength: Int) -> Bool {
        CPUFeatures.avx2FMAF16C && keyLength <= Int(LOCALLM_ATTENTION_MAX_HEAD) && valueLength % 16 == 0
    }

    /// ``scores(keys:ldk:positions:queries:queryStride:heads:count:into:scoreStride:)`` over F16 keys
    /// (bit patterns): each widened exactly, so the same values. Only when ``hasF16Attention(keyLength:valueLength:)``.
    @inline(__always)
    package static func scoresF16(
        keys: UnsafePointer<UInt16>, ldk: Int, positions: Range<Int>, queries: UnsafePointer<Float>, queryStride: Int,
        heads: Int, count: Int, into scores: UnsafeMutablePointer<Float>, scoreStride: Int
    ) {
        locallm_avx2_scores_f16(keys, ldk, positions.lowerBound, positions.upperBound, queries, queryStride, heads, count,
                                scores, scoreStride)
    }

    /// The runtime's attention `weightedValues` with 32 lanes (decode) for `heads` heads at once over F16
    /// values (bit patterns): out[h·outStride + c] from weights[h·weightStride + j], each exactly what the
    /// float kernel computes on the widened values. `columns.count` must be a multiple of 16; only when
    /// ``hasF16Attention(keyLength:valueLength:)``.
    @inline(__always)
    package static func weightedValuesF16(
        _ weights: UnsafePointer<Float>, weightStride: Int, heads: Int, positions: Range<Int>, firstCell: Int,
        values: UnsafePointer<UInt16>, ldv: Int, columns: Range<Int>, out: UnsafeMutablePointer<Float>, outStride: Int
    ) {
        locallm_avx2_weighted_values_f16(weights, weightStride, heads, positions.lowerBound, positions.upperBound,
                                         firstCell, values, ldv, columns.lowerBound, columns.upperBound, out, outStride)
    }

    /// The C kernel of the runtime's RoPE (`TransformerMath.rope`), when the CPU has one: returns false,
    /// having done nothing, when it does not.
    @inline(__always)
    package static func ropeAVX2(_ head: UnsafeMutablePointer<Float>, cosSin: UnsafePointer<Float>, dimensions: Int,
                                 neox: Bool) -> Bool {
        guard CPUFeatures.avx2FMAF16C else { return false }
        locallm_avx2_rope(head, cosSin, dimensions, neox ? 1 : 0)
        return true
    }

    /// ggml_vec_dot_f16 on F16 rows (bit patterns): ``GGMLOrder/dotVec(_:_:count:)`` of their values.
    package static func dotF16(_ x: UnsafePointer<UInt16>, _ y: UnsafePointer<UInt16>, count: Int) -> Float {
        if CPUFeatures.avx2FMAF16C { return locallm_avx2_dot_f16(x, y, count) }
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * max(count, 1)) { buffer -> Float in
            guard let a = buffer.baseAddress else { return 0 }
            let b = a + count
            for i in 0..<count {
                a[i] = halfToFloat(x[i])
                b[i] = halfToFloat(y[i])
            }
            return GGMLOrder.dotVec(a, b, count: count)
        }
    }

    /// ``GGMLOrder/dotTiled(_:_:count:)``.
    @inline(__always)
    package static func dotTiled(_ x: UnsafePointer<Float>, _ y: UnsafePointer<Float>, count: Int) -> Float {
        if CPUFeatures.avx2FMAF16C { return locallm_avx2_dot_tiled(x, y, count) }
        return GGMLOrder.dotTiled(x, y, count: count)
    }

    /// out[i] = ``floatToHalf(_:)``(x[i]): F16C's `vcvtps2ph` when the CPU has it (the same bits,
    /// NaNs included: `AVX2KernelsTests`), the Swift conversion elsewhere.
    @inline(__always)
    package static func toHalf(_ x: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<UInt16>) {
        if CPUFeatures.avx2FMAF16C {
            locallm_f16c_to_half(x, out, count)
            return
        }
        for i in 0..<count { out[i] = floatToHalf(x[i]) }
    }

    /// out[i] = ``halfToFloat(_:)``(x[i]), exact either way (F16C quiets a signalling NaN, as ggml's
    /// conversion on x86 does; the Swift construction keeps its bits).
    @inline(__always)
    package static func fromHalf(_ x: UnsafePointer<UInt16>, count: Int, into out: UnsafeMutablePointer<Float>) {
        if CPUFeatures.avx2FMAF16C {
            locallm_f16c_from_half(x, out, count)
            return
        }
        for i in 0..<count { out[i] = halfToFloat(x[i]) }
    }

    /// out[i] = ``roundedToHalf(_:)``(x[i]); `out` may be `x`.
    @inline(__always)
    package static func roundToHalf(_ x: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>) {
        if CPUFeatures.avx2FMAF16C {
            locallm_f16c_round_to_half(x, out, count)
            return
        }
        for i in 0..<count { out[i] = roundedToHalf(x[i]) }
    }

    /// out[i] = gelu(gate[i]) · up[i] as ggml_vec_geglu_f32 with its F16 table (65,536 entries): 0 for
    /// x ≤ −10, x · up for x ≥ 10, else table[F16 bits of x] · up. `out` may be `gate`.
    @inline(__always)
    package static func geglu(gate: UnsafePointer<Float>, up: UnsafePointer<Float>, table: UnsafePointer<Float>,
                              count: Int, into out: UnsafeMutablePointer<Float>) {
        if CPUFeatures.avx2FMAF16C {
            locallm_avx2_geglu(gate, up, table, out, count)
            return
        }
        for i in 0..<count {
            let x = gate[i]
            if x <= -10 {
                out[i] = 0
            } else if x >= 10 {
                out[i] = x * up[i]
            } else {
                out[i] = table[Int(floatToHalf(x))] * up[i]
            }
        }
    }

    /// row[i] = ``GGMLOrder/exp(_:)``(row[i] − shift) for i < count.
    @inline(__always)
    package static func expShifted(_ row: UnsafeMutablePointer<Float>, count: Int, shift: Float) {
        guard count > 0 else { return }
        if CPUFeatures.avx2FMAF16C {
            locallm_avx2_exp_shifted(row, count, shift)
            return
        }
        for i in 0..<count { row[i] = GGMLOrder.exp(row[i] - shift) }
    }

    /// The runtime's attention softmax of one row without a soft cap (`Attention.softmax`) through the
    /// C kernel, bit for bit; false, having done nothing, without AVX2.
    @inline(__always)
    package static func softmaxRow(_ row: UnsafeMutablePointer<Float>, span: Int, from: Int, to: Int, firstCell: Int,
                                   scale: Float, roundToHalf: Bool) -> Bool {
        guard CPUFeatures.avx2FMAF16C else { return false }
        locallm_avx2_softmax_row(row, span, from, to, firstCell, scale, roundToHalf ? 1 : 0)
        return true
    }

    /// out[i] = ``GGMLOrder/silu(_:)``(gate[i]) · up[i] for i < count, count a multiple of 8.
    @inline(__always)
    package static func swiglu(gate: UnsafePointer<Float>, up: UnsafePointer<Float>, out: UnsafeMutablePointer<Float>,
                               count: Int) {
        if CPUFeatures.avx2FMAF16C {
            locallm_avx2_swiglu(gate, up, out, count)
            return
        }
        for i in 0..<count { out[i] = GGMLOrder.silu(gate[i]) * up[i] }
    }

    /// The C kernel of the runtime's attention `weightedValues` (see its documentation), when the CPU
    /// has one: returns false, having done nothing, when it does not.
    @inline(__always)
    package static func weightedValuesAVX2(
        _ weights: UnsafePointer<Float>, positions: Range<Int>, firstCell: Int, values: UnsafePointer<Float>, ldv: Int,
        columns: Range<Int>, lanes: Int, out: UnsafeMutablePointer<Float>
    ) -> Bool {
        guard CPUFeatures.avx2FMAF16C, lanes == 8 || lanes == 32 else { return false }
        locallm_avx2_weighted_values(weights, positions.lowerBound, positions.upperBound, firstCell, values, ldv,
                                     columns.lowerBound, columns.upperBound, Int32(lanes), out)
        return true
    }
}
