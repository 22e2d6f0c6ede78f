import CLocalLMShims
import LocalLMGGUF

// Quantization of float rows into the activation formats (and F16/BF16).
//
// Two rounding flavours exist in ggml for Q8_0/Q8_1:
// - the reference (`quantize_row_q8_0_ref`, gguf-py): d = amax/127, id = 1/d, q = roundf(x·id)
//   (half away from zero);
// - the x86 CPU backend (`quantize_row_q8_0` under __AVX__/__AVX2__), which llama.cpp runs here on
//   every activation row: d = amax/127, id = 127/amax, q = round-half-even(x·id).
// `quantize(type:)` is the reference; matvec quantizes activations with the CPU-backend flavour so its
// integer dot products see the same q values llama.cpp's do.

/// Float → Int8 that saturates and maps NaN to 0 instead of trapping (activations can overflow).
@inline(__always)
package func clampToInt8(_ v: Float) -> Int8 {
    v.isNaN ? 0 : Int8(Swift.max(-128, Swift.min(127, v)))
}

/// Round half to even for |v| < 2^22 without a libm call (adding and removing 1.5·2^23 makes the FPU
/// round in its default mode); NaN maps to 0, and the result is clamped to Int8.
@inline(__always)
package func roundEvenToInt8(_ v: Float) -> Int8 {
    let c = v.isNaN ? 0 : Swift.max(-128, Swift.min(127, v))
    return Int8(truncatingIfNeeded: Int32((c + 12_582_912) - 12_582_912))
}

package enum Quantize {
    /// ggml's `nearest_int` (round half to even through the 1.5·2^23 trick), for |v| ≤ 2^22.
    @inline(__always)
    package static func nearestInt(_ v: Float) -> Int32 {
        let shifted = Swift.max(-4_194_303, Swift.min(4_194_303, v)) + 12_582_912
        return Int32(bitPattern: shifted.bitPattern & 0x007f_ffff) - 0x0040_0000
    }

    @inline(__always)
    static func absMax(_ x: UnsafePointer<Float>, _ n: Int) -> Float {
        var amax: Float = 0
        for j in 0..<n {
            let a = abs(x[j])
            amax = a > amax ? a : amax
        }
        return amax
    }

    /// `quantize_row_q8_0_ref` for one block of 32.
    @inline(__always)
    package static func q8_0Reference(_ x: UnsafePointer<Float>, _ y: UnsafeMutableRawPointer) {
        let amax = absMax(x, 32)
        let d = amax / 127
        let id: Float = d != 0 ? 1 / d : 0
        y.storeBytes(of: floatToHalf(d), as: UInt16.self)
        for j in 0..<32 {
            y.storeBytes(of: clampToInt8((x[j] * id).rounded()), toByteOffset: BlockLayout.q8_0Qs + j, as: Int8.self)
        }
    }

    /// The x86 CPU backend's Q8_0 activation quantization for one block of 32.
    @inline(__always)
    package static func q8_0Activation(_ x: UnsafePointer<Float>, _ y: UnsafeMutableRawPointer) {
        let amax = absMax(x, 32)
        let d = amax / 127
        let id: Float = amax != 0 ? 127 / amax : 0
        y.storeBytes(of: floatToHalf(d), as: UInt16.self)
        for j in 0..<32 {
            y.storeBytes(of: roundEvenToInt8(x[j] * id), toByteOffset: BlockLayout.q8_0Qs + j, as: Int8.self)
        }
    }

    /// `quantize_row_q8_1_ref` for one block of 32.
    @inline(__always)
    package static func q8_1Reference(_ x: UnsafePointer<Float>, _ y: UnsafeMutableRawPointer) {
        let amax = absMax(x, 32)
        let d = amax / 127
        let id: Float = d != 0 ? 1 / d : 0
        var sum: Int32 = 0
        for j in 0..<32 {
            let q = clampToInt8((x[j] * id).rounded())
            sum += Int32(q)
            y.storeBytes(of: q, toByteOffset: BlockLayout.q8_1Qs + j, as: Int8.self)
        }
        y.storeBytes(of: floatToHalf(d), as: UInt16.self)
        y.storeBytes(of: floatToHalf(Float(sum) * d), toByteOffset: BlockLayout.q8_1S, as: UInt16.self)
    }

    /// The x86 CPU backend's Q8_1 activation quantization for one block of 32.
    @inline(__always)
    package static func q8_1Activation(_ x: UnsafePointer<Float>, _ y: UnsafeMutableRawPointer) {
        let amax = absMax(x, 32)
        let d = amax / 127
        let id: Float = amax != 0 ? 127 / amax : 0
        var sum: Int32 = 0
        for j in 0..<32 {
            let q = roundEvenToInt8(x[j] * id)
            sum += Int32(q)
            y.storeBytes(of: q, toByteOffset: BlockLayout.q8_1Qs + j, as: Int8.self)
        }
        y.storeBytes(of: floatToHalf(d), as: UInt16.self)
        y.storeBytes(of: floatToHalf(d * Float(sum)), toByteOffset: BlockLayout.q8_1S, as: UInt16.self)
    }

    /// `quantize_row_q8_K_ref` for one block of 256 (the x86 backend uses the reference too).
    @inline(__always)
    package static func q8_K(_ x: UnsafePointer<Float>, _ y: UnsafeMutableRawPointer) {
        var amax: Float = 0, maxValue: Float = 0
        for j in 0..<256 {
            let a = abs(x[j])
            if a > amax { amax = a; maxValue = x[j] }
        }
        if amax == 0 {
            y.storeBytes(of: Float(0), as: Float.self)
            (y + BlockLayout.q8_KQs).initializeMemory(as: UInt8.self, repeating: 0, count: 256 + 32)
            return
        }
        let iscale = -127 / maxValue
        let qs = (y + BlockLayout.q8_KQs).assumingMemoryBound(to: Int8.self)
        for j in 0..<256 { qs[j] = Int8(clamping: min(127, nearestInt(iscale * x[j]))) }
        for g in 0..<16 {
            var sum: Int32 = 0
            for l in 0..<16 { sum += Int32(qs[16 * g + l]) }
            y.storeBytes(of: Int16(truncatingIfNeeded: sum), toByteOffset: BlockLayout.q8_KBsums + 2 * g, as: Int16.self)
        }
        y.storeBytes(of: 1 / iscale, as: Float.self)
    }
}

extension Kernels {
    /// Quantizes `count` floats (a whole number of blocks) into `type` with ggml's reference rounding
    /// (`quantize_row_*_ref`; bit-exact with gguf-py for Q8_0). Supports F32, F16, BF16, Q8_0, Q8_1, Q8_K;
    /// other types write nothing.
    public static func quantize(type: GGMLType, _ src: UnsafePointer<Float>, count: Int, into dst: UnsafeMutableRawPointer) {
        switch type {
        case .f32:
            dst.copyMemory(from: src, byteCount: 4 * count)
        case .f16:
            for i in 0..<count { dst.storeBytes(of: floatToHalf(src[i]), toByteOffset: 2 * i, as: UInt16.self) }
        case .bf16:
            for i in 0..<count { dst.storeBytes(of: floatToBF16(src[i]), toByteOffset: 2 * i, as: UInt16.self) }
        case .q8_0:
            for b in 0..<(count / 32) { Quantize.q8_0Reference(src + 32 * b, dst + 34 * b) }
        case .q8_1:
            for b in 0..<(count / 32) { Quantize.q8_1Reference(src + 32 * b, dst + 36 * b) }
        case .q8_K:
            for b in 0..<(count / 256) { Quantize.q8_K(src + 256 * b, dst + 292 * b) }
        default:
            break
        }
    }

    /// Quantizes an activation row the way llama.cpp's x86 CPU backend does before a quantized dot
    /// product (round-half-even for Q8_0/Q8_1; see the note at the top of Quantize.swift). F16/BF16/F32
    /// convert as `quantize(type:)`.
    public static func quantizeActivation(type: GGMLType, _ src: UnsafePointer<Float>, count: Int, into dst: UnsafeMutableRawPointer) {
        switch type {
        case .q8_0 where CPUFeatures.avx2FMAF16C:
            // The same bytes as the Swift loop below (AVX2KernelsTests); 5% of a Qwen 0.5B prefill.
            locallm_avx2_quantize_q8_0(src, count / 32, dst.assumingMemoryBound(to: UInt8.self))
        case .q8_1 where CPUFeatures.avx2FMAF16C:
            locallm_avx2_quantize_q8_1(src, count / 32, dst.assumingMemoryBound(to: UInt8.self))
        case .q8_0:
            for b in 0..<(count / 32) { Quantize.q8_0Activation(src + 32 * b, dst + 34 * b) }
        case .q8_1:
            for b in 0..<(count / 32) { Quantize.q8_1Activation(src + 32 * b, dst + 36 * b) }
        case .q8_K where CPUFeatures.avx2FMAF16C:
            // The same bytes as `Quantize.q8_K` (AVX2KernelsTests); it was 7% of a Qwen 1.5B prefill.
            locallm_avx2_quantize_q8_K(src, count / 256, dst.assumingMemoryBound(to: UInt8.self))
        default:
            quantize(type: type, src, count: count, into: dst)
        }
    }

    /// The activation format llama.cpp pairs with weights of `type` (ggml-cpu `vec_dot_type`).
    public static func activationType(for type: GGMLType) -> GGMLType {
        switch type {
        case .q4_0, .q5_0, .q8_0, .iq4_NL: .q8_0
        case .q4_1, .q5_1: .q8_1
        case .q2_K, .q3_K, .q4_K, .q5_K, .q6_K, .iq4_XS: .q8_K
        case .f16: .f16
        case .bf16: .bf16
        default: .f32
        }
    }
}
