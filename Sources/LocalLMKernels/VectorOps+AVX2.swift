// AVX2/F16C/FMA versions of the attention vector ops, compiled only in native builds (see
// DotFast+AVX2.swift). Eight float lanes with FMA, as ggml's `ggml_vec_dot_f16`/`_f32` on AVX2.
#if LOCALLM_NATIVE && arch(x86_64)
import _Builtin_intrinsics.intel

enum VectorAVX2 {
    @inline(__always)
    static func loadHalves(_ p: UnsafePointer<UInt16>) -> __m256 {
        _mm256_cvtph_ps(_mm_loadu_si128(UnsafeRawPointer(p).assumingMemoryBound(to: __m128i.self)))
    }

    @inline(__always)
    static func loadFloats(_ p: UnsafePointer<Float>) -> __m256 { _mm256_loadu_ps(p) }

    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps()
        var i = 0
        while i + 16 <= count {
            acc0 = _mm256_fmadd_ps(loadFloats(a + i), loadFloats(b + i), acc0)
            acc1 = _mm256_fmadd_ps(loadFloats(a + i + 8), loadFloats(b + i + 8), acc1)
            i += 16
        }
        if i + 8 <= count {
            acc0 = _mm256_fmadd_ps(loadFloats(a + i), loadFloats(b + i), acc0)
            i += 8
        }
        var sum = DotAVX2.horizontalSum(_mm256_add_ps(acc0, acc1))
        while i < count { sum += a[i] * b[i]; i += 1 }
        return sum
    }

    static func dotF16(_ a: UnsafePointer<UInt16>, _ b: UnsafePointer<UInt16>, count: Int) -> Float {
        var acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps()
        var i = 0
        while i + 16 <= count {
            acc0 = _mm256_fmadd_ps(loadHalves(a + i), loadHalves(b + i), acc0)
            acc1 = _mm256_fmadd_ps(loadHalves(a + i + 8), loadHalves(b + i + 8), acc1)
            i += 16
        }
        if i + 8 <= count {
            acc0 = _mm256_fmadd_ps(loadHalves(a + i), loadHalves(b + i), acc0)
            i += 8
        }
        var sum = DotAVX2.horizontalSum(_mm256_add_ps(acc0, acc1))
        while i < count { sum += halfToFloat(a[i]) * halfToFloat(b[i]); i += 1 }
        return sum
    }

    static func dotF16F32(_ a: UnsafePointer<UInt16>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps()
        var i = 0
        while i + 16 <= count {
            acc0 = _mm256_fmadd_ps(loadHalves(a + i), loadFloats(b + i), acc0)
            acc1 = _mm256_fmadd_ps(loadHalves(a + i + 8), loadFloats(b + i + 8), acc1)
            i += 16
        }
        if i + 8 <= count {
            acc0 = _mm256_fmadd_ps(loadHalves(a + i), loadFloats(b + i), acc0)
            i += 8
        }
        var sum = DotAVX2.horizontalSum(_mm256_add_ps(acc0, acc1))
        while i < count { sum += halfToFloat(a[i]) * b[i]; i += 1 }
        return sum
    }
}
#endif
