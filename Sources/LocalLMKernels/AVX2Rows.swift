import CLocalLMShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocalLMGGUF

/// What the CPU running this process can do, read once (the C shims ask the CPU when they load).
package enum CPUFeatures {
    /// AVX2, FMA and F16C: the instructions the run-time-dispatched C kernels (`AVX2Rows`) use.
    package static let avx2FMAF16C = locallm_has_avx2_fma_f16c() != 0
    /// AVX-512 F, BW, VL and VNNI besides: the 512-bit forms of the Q4_K and Q6_K prefill kernels.
    package static let avx512VNNI = locallm_has_avx512_vnni() != 0
}

/// The C matvec row loops for AVX2 + FMA + F16C CPUs (`Sources/CLocalLMShims/avx2_rows.c`).
///
/// Why C: Swift compiles a function for AVX2 only when the whole module targets an AVX2 CPU, and a
/// package cannot set that for the builds that depend on it. A plain `swift build` targets baseline
/// x86-64, where the Swift kernels (`DotFast`) must emulate ggml's lane arithmetic with SSE2 and run
/// 10× slower than the weights stream from memory. C compiles single functions for AVX2 with
/// `__attribute__((target))`; the process picks them at run time when the CPU has the instructions, as
/// ggml does. Each computes bit for bit what its Swift twin computes (`AVX2RowsTests`), and the Swift
/// kernels stay the reference and the path on every other CPU.
package enum AVX2Rows {
    package typealias Rows = @convention(c) (
        UnsafePointer<UInt8>?, Int, UnsafePointer<locallm_activation>?, Int, UnsafeMutablePointer<Float>?, Int, Int
    ) -> Void

    /// The row loop for weights of `type`, or nil when there is none (the Swift kernels handle it):
    /// the 512-bit form where there is one and the CPU has AVX-512 (the same bits).
    /// `LOCALLM_DECODE_ROWS=avx2` keeps the AVX2 forms, for comparisons.
    @inline(__always)
    package static func function(for type: GGMLType) -> Rows? {
        if wideRows, let wide = wideFunction(for: type) { return wide }
        return narrowFunction(for: type)
    }

    /// Whether ``function(for:)`` and ``multiFunction(for:)`` take the AVX-512 forms: the CPU has them
    /// and `LOCALLM_DECODE_ROWS` is not `avx2`.
    static let wideRows = CPUFeatures.avx512VNNI
        && getenv("LOCALLM_DECODE_ROWS").map { String(cString: $0).lowercased() } != "avx2"

    /// The AVX-512 form of the row loop for `type`, or nil; call only when `CPUFeatures.avx512VNNI`.
    @inline(__always)
    package static func wideFunction(for type: GGMLType) -> Rows? {
        switch type {
        case .q8_0: locallm_avx512_rows_q8_0
        case .q5_0: locallm_avx512_rows_q5_0
        case .q4_1: locallm_avx512_rows_q4_1
        case .q4_K: locallm_avx512_rows_q4_K
        case .q6_K: locallm_avx512_rows_q6_K
        default: nil
        }
    }

    /// The AVX2 row loop for `type`, or nil.
    @inline(__always)
    package static func narrowFunction(for type: GGMLType) -> Rows? {
        switch type {
        case .q8_0: return locallm_avx2_rows_q8_0
        case .q4_0: return locallm_avx2_rows_q4_0
        case .q4_1: return locallm_avx2_rows_q4_1
        case .q5_0: return locallm_avx2_rows_q5_0
        case .q5_1: return locallm_avx2_rows_q5_1
        case .q2_K: return locallm_avx2_rows_q2_K
        case .q3_K: return locallm_avx2_rows_q3_K
        case .q4_K: return locallm_avx2_rows_q4_K
        case .q5_K: return locallm_avx2_rows_q5_K
        case .q6_K: return locallm_avx2_rows_q6_K
        case .iq4_NL: return locallm_avx2_rows_iq4_nl
        case .iq4_XS: return locallm_avx2_rows_iq4_xs
        default: return nil
        }
    }

    package typealias MultiRows = @convention(c) (
        UnsafePointer<UInt8>?, Int, UnsafePointer<locallm_activation>?, Int, Int, UnsafeMutablePointer<Float>?, Int, Int, Int
    ) -> Void

    /// An interleaved prefill kernel (``TiledPrefill``): ``MultiRows``' arguments with any number of
    /// activations; returns 0, having written nothing, when it could not allocate its buffers.
    package typealias Tiles = @convention(c) (
        UnsafePointer<UInt8>?, Int, UnsafePointer<locallm_activation>?, Int, Int, UnsafeMutablePointer<Float>?, Int, Int, Int
    ) -> Int32

    /// Activations one ``MultiRows`` call takes at most.
    package static let multiMaximum = Int(LOCALLM_MULTI_MAX)

    /// The several-activation row loop for weights of `type` (each row·activation as the one-activation
    /// loop computes it, each block unpacked once for all of them), or nil when there is none; for
    /// Q8_0, Q4_0, Q5_0 and Q4_1 their `vpdpbusd` forms on CPUs with AVX-512 VNNI (the same bits) unless
    /// `LOCALLM_DECODE_ROWS=avx2`.
    @inline(__always)
    package static func multiFunction(for type: GGMLType) -> MultiRows? {
        guard CPUFeatures.avx2FMAF16C else { return nil }
        return multiFunction(for: type, wide: wideRows)
    }

    /// The several-activation row loop for `type` in its AVX2 form or (`wide`, where there is one) its
    /// AVX-512 VNNI form, which tests compare; call `wide` only when `CPUFeatures.avx512VNNI`.
    package static func multiFunction(for type: GGMLType, wide: Bool) -> MultiRows? {
        switch type {
        case .q8_0: return wide ? locallm_avx512_multi_q8_0 : locallm_avx2_multi_q8_0
        case .q4_0: return wide ? locallm_avx512_multi_q4_0 : locallm_avx2_multi_q4_0
        case .q5_0: return wide ? locallm_avx512_multi_q5_0 : locallm_avx2_multi_q5_0
        case .q4_1: return wide ? locallm_avx512_multi_q4_1 : locallm_avx2_multi_q4_1
        case .q4_K: return locallm_avx2_multi_q4_K
        case .q6_K: return locallm_avx2_multi_q6_K
        default: return nil
        }
    }

    /// The prefill form of ``multiFunction(for:)`` (the same values, bit for bit, about 1.5× faster over
    /// rows in cache), or nil when there is none; its 512-bit form on CPUs with AVX-512 VNNI (the same
    /// bits).
    @inline(__always)
    package static func gemmFunction(for type: GGMLType) -> MultiRows? {
        guard CPUFeatures.avx2FMAF16C else { return nil }
        return gemmFunction(for: type, wide: CPUFeatures.avx512VNNI)
    }

    /// The prefill kernel for `type` in its AVX2 form or (`wide`) its AVX-512 VNNI form, which tests
    /// compare; call `wide` only when `CPUFeatures.avx512VNNI`.
    package static func gemmFunction(for type: GGMLType, wide: Bool) -> MultiRows? {
        switch type {
        case .q4_K: return wide ? locallm_avx512_gemm_q4_K : locallm_avx2_gemm_q4_K
        case .q6_K: return wide ? locallm_avx512_gemm_q6_K : locallm_avx2_gemm_q6_K
        default: return nil
        }
    }

    /// Dequantizes `count` values (whole blocks) of `type` through the C kernel for it, bit for bit
    /// what `Dequantize` writes; false, having written nothing, when there is none.
    @inline(__always)
    package static func dequantize(_ type: GGMLType, _ src: UnsafeRawPointer, count: Int,
                                   into out: UnsafeMutablePointer<Float>) -> Bool {
        guard CPUFeatures.avx2FMAF16C else { return false }
        let x = src.assumingMemoryBound(to: UInt8.self), blocks = count / 32
        switch type {
        case .q8_0: locallm_avx2_dequantize_q8_0(x, blocks, out)
        case .q4_0: locallm_avx2_dequantize_q4_0(x, blocks, out)
        case .q5_0: locallm_avx2_dequantize_q5_0(x, blocks, out)
        case .q4_1: locallm_avx2_dequantize_q4_1(x, blocks, out)
        default: return false
        }
        return true
    }

    /// x[0..<count] (whole blocks of 32) rounded to Q8_0 and back through the C kernel, bit for bit what
    /// `ActivationRounding` computes; false, having done nothing, without AVX2.
    @inline(__always)
    package static func roundQ8_0(_ x: UnsafeMutablePointer<Float>, count: Int) -> Bool {
        guard CPUFeatures.avx2FMAF16C else { return false }
        locallm_avx2_round_q8_0(x, count / 32)
        return true
    }

    /// ``ActivationRounding``'s Q8_1 block-sum errors of `blocks` blocks of 32 through the C kernel, bit
    /// for bit; false, having written nothing, without AVX2.
    @inline(__always)
    package static func q8_1SumErrors(_ x: UnsafePointer<Float>, blocks: Int, into out: UnsafeMutablePointer<Float>) -> Bool {
        guard CPUFeatures.avx2FMAF16C else { return false }
        locallm_avx2_q8_1_sum_errors(x, blocks, out)
        return true
    }

    /// y[start..<end] = rows of `w` · `a` through the C kernel for `w.type`; false, having written
    /// nothing, when there is none.
    @discardableResult
    package static func rows(_ w: WeightMatrix, _ a: PreparedActivation, _ y: UnsafeMutablePointer<Float>,
                             _ start: Int, _ end: Int, wide: Bool? = nil) -> Bool {
        let chosen: Rows? = switch wide {
        case nil: function(for: w.type)
        case true?: CPUFeatures.avx512VNNI ? wideFunction(for: w.type) : nil
        case false?: narrowFunction(for: w.type)
        }
        guard let rows = chosen else { return false }
        withUnsafePointer(to: a.cActivation) {
            rows(w.data.assumingMemoryBound(to: UInt8.self), w.rowStride, $0, w.columns / w.type.blockSize, y, start, end)
        }
        return true
    }
}

extension PreparedActivation {
    /// The arrays of this activation as the C kernels take them.
    @inline(__always)
    package var cActivation: locallm_activation {
        locallm_activation(qs: UnsafePointer(qs), scales: UnsafePointer(scales), sums: UnsafePointer(sums),
                           bsums: UnsafePointer(bsums))
    }
}
