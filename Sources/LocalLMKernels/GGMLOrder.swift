/// Float reductions and functions evaluated in the exact order of operations of ggml's x86 CPU kernels
/// (AVX2 + FMA builds, as llama.cpp builds for these machines), so that results are bit-identical to
/// llama.cpp's and not merely close.
///
/// Why it matters: llama.cpp rounds activations to 8 bits before every matrix product, so a one-ulp
/// difference anywhere can flip one rounding, move a logit by tenths, and change a greedy token at a
/// near tie. Each function below names the ggml routine whose order it reproduces; they were checked
/// value by value against llama.cpp's intermediate tensors (`scripts/fidelity/compare_trace.py`).
///
/// All of them are portable Swift: `addingProduct` is a fused multiply-add in every build (an
/// instruction with a target CPU, a correctly rounded library call without).
package enum GGMLOrder {
    /// hsum_float_8: ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)).
    @inline(__always)
    package static func sum8(_ v: SIMD8<Float>) -> Float {
        ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]))
    }

    /// The reduction of GGML_F32x8_REDUCE for four 8-lane accumulators: a0 + a2, a1 + a3, then their
    /// sum, then (l0 + l4) + (l1 + l5) and (l2 + l6) + (l3 + l7) (two horizontal adds), then those two.
    @inline(__always)
    package static func reduce4x8(_ a0: SIMD8<Float>, _ a1: SIMD8<Float>, _ a2: SIMD8<Float>, _ a3: SIMD8<Float>) -> Float {
        let v = (a0 + a2) + (a1 + a3)
        let t0 = v[0] + v[4], t1 = v[1] + v[5], t2 = v[2] + v[6], t3 = v[3] + v[7]
        return (t0 + t1) + (t2 + t3)
    }

    @inline(__always)
    static func load8(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }

    /// ggml_vec_dot_f16 (and ggml_vec_dot_f32): four 8-lane FMA accumulators over steps of 32, reduced
    /// by ``reduce4x8``, then the remainder one product at a time in Double. `x` and `y` hold the
    /// (already F16-exact) operands as floats.
    @inline(__always)
    package static func dotVec(_ x: UnsafePointer<Float>, _ y: UnsafePointer<Float>, count: Int) -> Float {
        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>(), a2 = SIMD8<Float>(), a3 = SIMD8<Float>()
        var i = 0
        while i + 32 <= count {
            a0 = a0.addingProduct(load8(x + i), load8(y + i))
            a1 = a1.addingProduct(load8(x + i + 8), load8(y + i + 8))
            a2 = a2.addingProduct(load8(x + i + 16), load8(y + i + 16))
            a3 = a3.addingProduct(load8(x + i + 24), load8(y + i + 24))
            i += 32
        }
        var sum = Double(reduce4x8(a0, a1, a2, a3))
        while i < count { sum += Double(x[i] * y[i]); i += 1 }
        return Float(sum)
    }

    /// llamafile's tinyBLAS dot (ggml's batched F16/F32 products): one 8-lane FMA accumulator over steps
    /// of 8, then ``sum8``. `count` must be a multiple of 8.
    @inline(__always)
    package static func dotTiled(_ x: UnsafePointer<Float>, _ y: UnsafePointer<Float>, count: Int) -> Float {
        var a = SIMD8<Float>()
        var i = 0
        while i + 8 <= count {
            a = a.addingProduct(load8(x + i), load8(y + i))
            i += 8
        }
        return sum8(a)
    }

    /// ggml_v_expf (AVX2 + FMA), lane by lane: the exponential as ggml's vectorised softmax and SiLU
    /// compute it. It is the exp of Arm's optimized-routines (a degree-5 polynomial on the reduced
    /// argument and an exponent built from the rounded multiple of ln 2), whose result differs from
    /// libm's `expf` in the last bits.
    @inline(__always)
    package static func exp(_ x: Float) -> Float {
        let shifter: Float = 0x1.8p23
        let z = shifter.addingProduct(x, 0x1.715476p+0)
        let n = z - shifter
        let b = x.addingProduct(-n, 0x1.62e4p-1).addingProduct(-n, 0x1.7f7d1cp-20)
        let e = z.bitPattern &<< 23
        let k = Float(bitPattern: e &+ Float(1).bitPattern)
        let u = b * b
        let inner = Float(0x1.573e2ep-5).addingProduct(0x1.0e4020p-7, b)
        let outer = Float(0x1.fffdb6p-2).addingProduct(0x1.555e66p-3, b)
        let j = (0x1.ffffecp-1 * b).addingProduct(outer.addingProduct(inner, u), u)
        let magnitude = abs(n)
        guard magnitude > 126 else { return k.addingProduct(j, k) }
        let g: UInt32 = n <= 0 ? 0x8200_0000 : 0
        let s1 = Float(bitPattern: g &+ 0x7F00_0000)
        let s2 = Float(bitPattern: e &- g)
        if magnitude > 192 { return s1 * s1 }
        return s2.addingProduct(s2, j) * s1
    }

    /// ggml_v_silu: x / (1 + exp(0 − x)) with ``exp(_:)``.
    @inline(__always)
    package static func silu(_ x: Float) -> Float {
        x / (1 + exp(0 - x))
    }
}
