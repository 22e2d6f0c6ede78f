import LocalLMGGUF
import LocalLMKernels

/// Rounds an activation row the way ggml does before a matrix product with a weight of a given type.
///
/// ggml multiplies a quantized weight by an activation row quantized to the weight's "vec_dot_type":
/// Q8_0/Q8_1 blocks of 32 for the 32-element quants, Q8_K super-blocks of 256 for the K-quants, F16 for
/// F16 and BF16 for BF16 weights; F32 weights see the activations as they are. Rounding the activations
/// the same way (and then multiplying in float) reproduces its products up to summation order, which
/// is what makes the argmax agree at every position.
enum ActivationRounding {
    /// The activation format ggml uses against `type`.
    enum Format { case none, q8_0, q8_K, f16, bf16 }

    static func format(for type: GGMLType) -> Format {
        switch type {
        case .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .iq4_NL: .q8_0  // Q8_1 rounds like Q8_0; it only adds block sums
        case .q2_K, .q3_K, .q4_K, .q5_K, .q6_K, .iq4_XS: .q8_K
        case .f16: .f16
        case .bf16: .bf16
        default: .none
        }
    }

    /// ggml's x86 quantize_row_q8_0 and back: id = 127/amax, round half to even, d stored as F16.
    static func roundQ8_0(_ x: UnsafeMutablePointer<Float>, count: Int) {
        var b = 0
        while b + 32 <= count {
            var amax: Float = 0
            for j in 0..<32 { amax = max(amax, abs(x[b + j])) }
            let d = roundedToHalf(amax / 127)
            let id: Float = amax != 0 ? 127 / amax : 0
            for j in 0..<32 { x[b + j] = roundedHalfEven(x[b + j] * id) * d }
            b += 32
        }
    }

    /// Replaces `x[0..<count]` (a whole number of blocks) by its quantized-then-dequantized value.
    static func apply(_ format: Format, _ x: UnsafeMutablePointer<Float>, count: Int) {
        switch format {
        case .none:
            return
        case .q8_0:
            // The same values from the AVX2 shims (ActivationRoundingTests); this loop was 5% of a
            // prefill, and slower still in a native build.
            if AVX2Rows.roundQ8_0(x, count: count / 32 * 32) { return }
            roundQ8_0(x, count: count)
        case .q8_K:
            // ggml's quantize_row_q8_K_ref: iscale = -127/max (max signed), nearest int, clamp 127,
            // d = 1/iscale kept as Float.
            var b = 0
            while b + 256 <= count {
                var amax: Float = 0, maxValue: Float = 0
                for j in 0..<256 where abs(x[b + j]) > amax { amax = abs(x[b + j]); maxValue = x[b + j] }
                if amax == 0 {
                    for j in 0..<256 { x[b + j] = 0 }
                } else {
                    let iscale = -127 / maxValue
                    let d = 1 / iscale
                    for j in 0..<256 { x[b + j] = min(127, roundedHalfEven(iscale * x[b + j])) * d }
                }
                b += 256
            }
        case .f16:
            GGMLRows.roundToHalf(x, count: count, into: x)
        case .bf16:
            // ggml's FP32→BF16 rounds to nearest even (NaN kept quiet).
            for i in 0..<count {
                let bits = x[i].bitPattern
                if x[i].isNaN { x[i] = Float(bitPattern: (bits | 0x0040_0000) & 0xFFFF_0000); continue }
                let rounded = (bits &+ (0x7FFF &+ ((bits >> 16) & 1))) & 0xFFFF_0000
                x[i] = Float(bitPattern: rounded)
            }
        }
    }

    /// For each block of 32: f16(d·Σq) − f16(d)·Σq, where q and d are ggml's Q8_1 quantization of the
    /// block (d = amax/127 in float, q = round-half-even(x·127/amax)); ggml stores the first term as
    /// the block sum `s` and pairs it with the weights' mins.
    static func q8_1SumErrors(_ x: UnsafePointer<Float>, blocks: Int, into out: UnsafeMutablePointer<Float>) {
        // The same values from the AVX2 shims (ActivationRoundingTests).
        if AVX2Rows.q8_1SumErrors(x, blocks: blocks, into: out) { return }
        q8_1SumErrorsPortable(x, blocks: blocks, into: out)
    }

    /// ``q8_1SumErrors(_:blocks:into:)`` in Swift. A NaN quantum (an infinite activation makes the
    /// block's 127/amax zero, and ∞·0 is NaN) counts as 0, as in the C kernel.
    static func q8_1SumErrorsPortable(_ x: UnsafePointer<Float>, blocks: Int, into out: UnsafeMutablePointer<Float>) {
        for b in 0..<blocks {
            let block = x + b * 32
            var amax: Float = 0
            for j in 0..<32 { amax = max(amax, abs(block[j])) }
            let d = amax / 127
            let id: Float = amax != 0 ? 127 / amax : 0
            var sum: Int32 = 0
            for j in 0..<32 { sum += Int32(exactly: roundedHalfEven(block[j] * id)) ?? 0 }
            let stored = roundedToHalf(d * Float(sum))
            out[b] = stored - roundedToHalf(d) * Float(sum)
        }
    }
}
