/// Float reductions and functions evaluated in the exact order of operations of ggml's x86 CPU kernels
/// (AVX2 + FMA builds, as llama.cpp builds for these machines), so that results are bit-identical to
/// llama.cpp's and not merely close.
///
/// Why it matters: llama.cpp rounds activations to 8 bits before every matrix product, so a one-ulp
/// difference anywhere can flip one rounding, move a logit by tenths, and change a greedy token at a
/// near tie. Each function below names the ggml routine whose order it reproduces; they were checked
/// value by value against llama.cpp's intermediate tensors (`scripts/fidelity/compare_trace.py`).
///
/// All of them are portable Swift. Fused multiply-adds go through ``fma(_:_:_:)-(SIMD8<Float>,_,_)``:
/// the FMA instruction in native builds, an exact emulation in double precision otherwise.
package enum GGMLOrder {
    /// a·b + c rounded once, as an FMA instruction computes it. Native builds (`LOCALLM_NATIVE`, a
    /// target CPU with FMA) use the instruction. Without a target CPU, `addingProduct` would be a
    /// library call per lane (it made the portable decode 20× slower), so it is emulated: a·b is exact
    /// in Double (24 + 24 bits), the sum is rounded to Double and then made "round to odd" (moved to
    /// the odd neighbour in the direction of its rounding error, found by TwoSum), and a round-to-odd
    /// value with ≥ 2 extra bits rounds to Float exactly as the unrounded sum would (Boldo–Melquiond).
    @inlinable @inline(__always)
    package static func fma(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>) -> SIMD8<Float> {
        #if LOCALLM_NATIVE
        return c.addingProduct(a, b)
        #else
        return emulatedFMA(a, b, c)
        #endif
    }

    /// The double-precision, round-to-odd fused multiply-add of ``fma(_:_:_:)-(SIMD8<Float>,_,_)``
    /// (compiled in every build so the tests can compare it with the instruction).
    @inlinable @inline(__always)
    package static func emulatedFMA(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>) -> SIMD8<Float> {
        let p = SIMD8<Double>(a) * SIMD8<Double>(b), cd = SIMD8<Double>(c)
        let s = p + cd
        let back = s - p
        let error = (p - (s - back)) + (cd - back)
        var bits = unsafeBitCast(s, to: SIMD8<UInt64>.self)
        // Even last bit and inexact: step one ulp toward the error (away from zero when it has s's sign).
        let finite = (s .== s) .& (s .!= .infinity) .& (s .!= -.infinity)
        let inexactEven = (error .!= 0) .& ((bits & 1) .== 0) .& finite
        let away = (error .> 0) .== (s .> 0)
        let up = bits &+ 1, down = bits &- 1
        bits = bits.replacing(with: up, where: inexactEven .& away)
        bits = bits.replacing(with: down, where: inexactEven .& .!away)
        return SIMD8<Float>(unsafeBitCast(bits, to: SIMD8<Double>.self))
    }

    @inlinable @inline(__always)
    package static func fma(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>) -> SIMD4<Float> {
        let r = fma(SIMD8(lowHalf: a, highHalf: .zero), SIMD8(lowHalf: b, highHalf: .zero), SIMD8(lowHalf: c, highHalf: .zero))
        return r.lowHalf
    }

    @inlinable @inline(__always)
    package static func fma(_ a: Float, _ b: Float, _ c: Float) -> Float {
        #if LOCALLM_NATIVE
        return c.addingProduct(a, b)
        #else
        return emulatedFMA(a, b, c)
        #endif
    }

    @inlinable @inline(__always)
    package static func emulatedFMA(_ a: Float, _ b: Float, _ c: Float) -> Float {
        let p = Double(a) * Double(b), cd = Double(c)
        let s = p + cd
        let back = s - p
        let error = (p - (s - back)) + (cd - back)
        guard error != 0, s.isFinite, s.bitPattern & 1 == 0 else { return Float(s) }
        let away = (error > 0) == (s > 0)
        return Float(Double(bitPattern: away ? s.bitPattern + 1 : s.bitPattern - 1))
    }

    /// hsum_float_8: ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)).
    @inlinable @inline(__always)
    package static func sum8(_ v: SIMD8<Float>) -> Float {
        ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]))
    }

    /// The reduction of GGML_F32x8_REDUCE for four 8-lane accumulators: a0 + a2, a1 + a3, then their
    /// sum, then (l0 + l4) + (l1 + l5) and (l2 + l6) + (l3 + l7) (two horizontal adds), then those two.
    @inlinable @inline(__always)
    package static func reduce4x8(_ a0: SIMD8<Float>, _ a1: SIMD8<Float>, _ a2: SIMD8<Float>, _ a3: SIMD8<Float>) -> Float {
        let v = (a0 + a2) + (a1 + a3)
        let t0 = v[0] + v[4], t1 = v[1] + v[5], t2 = v[2] + v[6], t3 = v[3] + v[7]
        return (t0 + t1) + (t2 + t3)
    }

    @inlinable @inline(__always)
    package static func load8(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }

    /// ggml_vec_dot_f16 (and ggml_vec_dot_f32): four 8-lane FMA accumulators over steps of 32, reduced
    /// by ``reduce4x8``, then the remainder one product at a time in Double. `x` and `y` hold the
    /// (already F16-exact) operands as floats.
    @inlinable @inline(__always)
    package static func dotVec(_ x: UnsafePointer<Float>, _ y: UnsafePointer<Float>, count: Int) -> Float {
        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>(), a2 = SIMD8<Float>(), a3 = SIMD8<Float>()
        var i = 0
        while i + 32 <= count {
            a0 = fma(load8(x + i), load8(y + i), a0)
            a1 = fma(load8(x + i + 8), load8(y + i + 8), a1)
            a2 = fma(load8(x + i + 16), load8(y + i + 16), a2)
            a3 = fma(load8(x + i + 24), load8(y + i + 24), a3)
            i += 32
        }
        var sum = Double(reduce4x8(a0, a1, a2, a3))
        while i < count { sum += Double(x[i] * y[i]); i += 1 }
        return Float(sum)
    }

    /// llamafile's tinyBLAS dot (ggml's batched F16/F32 products): one 8-lane FMA accumulator over steps
    /// of 8, then ``sum8``. `count` must be a multiple of 8.
    @inlinable @inline(__always)
    package static func dotTiled(_ x: UnsafePointer<Float>, _ y: UnsafePointer<Float>, count: Int) -> Float {
        var a = SIMD8<Float>()
        var i = 0
        while i + 8 <= count {
            a = fma(load8(x + i), load8(y + i), a)
            i += 8
        }
        return sum8(a)
    }

    /// ggml_v_expf (AVX2 + FMA), lane by lane: the exponential as ggml's vectorised softmax and SiLU
    /// compute it. It is the exp of Arm's optimized-routines (a degree-5 polynomial on the reduced
    /// argument and an exponent built from the rounded multiple of ln 2), whose result differs from
    /// libm's `expf` in the last bits.
    @inlinable @inline(__always)
    package static func exp(_ x: Float) -> Float {
        let shifter: Float = 0x1.8p23
        let z = fma(x, 0x1.715476p+0, shifter)
        let n = z - shifter
        let b = fma(-n, 0x1.7f7d1cp-20, fma(-n, 0x1.62e4p-1, x))
        let e = z.bitPattern &<< 23
        let k = Float(bitPattern: e &+ Float(1).bitPattern)
        let u = b * b
        let inner = fma(0x1.0e4020p-7, b, 0x1.573e2ep-5)
        let outer = fma(0x1.555e66p-3, b, 0x1.fffdb6p-2)
        let j = fma(fma(inner, u, outer), u, 0x1.ffffecp-1 * b)
        let magnitude = abs(n)
        guard magnitude > 126 else { return fma(j, k, k) }
        let g: UInt32 = n <= 0 ? 0x8200_0000 : 0
        let s1 = Float(bitPattern: g &+ 0x7F00_0000)
        let s2 = Float(bitPattern: e &- g)
        if magnitude > 192 { return s1 * s1 }
        return fma(s2, j, s2) * s1
    }

    /// ggml_v_silu: x / (1 + exp(0 − x)) with ``exp(_:)``.
    @inlinable @inline(__always)
    package static func silu(_ x: Float) -> Float {
        x / (1 + exp(0 - x))
    }
}
