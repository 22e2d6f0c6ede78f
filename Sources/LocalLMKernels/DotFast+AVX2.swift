// AVX2 dot products for the weight types of the models we measure, compiled only in native builds
// (`-Xswiftc -DLOCALLM_NATIVE -Xswiftc -target-cpu -Xswiftc native` on an x86-64 CPU with AVX2; the
// intrinsics module does not compile without a target CPU). Each block of 32 int8 products is one
// `vpmaddubsw` (after moving the weight signs onto the activations) and one `vpmaddwd`, then one FMA
// with the block's scale. The integer sums equal `DotReference`'s; only the float summation order
// differs (as in ggml's own AVX2 kernels). Tests compare them with the reference.
#if LOCALLM_NATIVE && arch(x86_64)
import _Builtin_intrinsics.intel

package enum DotAVX2 {
    /// Σ over 32 lanes of x·y as 8 int32 lanes, for signed x and y.
    @inline(__always)
    static func signedDot(_ x: __m256i, _ y: __m256i) -> __m256i {
        let ax = _mm256_sign_epi8(x, x)
        let sy = _mm256_sign_epi8(y, x)
        return _mm256_madd_epi16(_mm256_maddubs_epi16(ax, sy), _mm256_set1_epi16(1))
    }

    /// Σ over 32 lanes of x·y as 8 int32 lanes, for x in 0…127 and signed y.
    @inline(__always)
    static func unsignedDot(_ x: __m256i, _ y: __m256i) -> __m256i {
        _mm256_madd_epi16(_mm256_maddubs_epi16(x, y), _mm256_set1_epi16(1))
    }

    @inline(__always)
    static func load32(_ p: UnsafeRawPointer) -> __m256i {
        _mm256_loadu_si256(p.assumingMemoryBound(to: __m256i.self))
    }

    /// 16 bytes of nibbles → 32 bytes: low nibbles (elements 0…15) then high nibbles (16…31).
    @inline(__always)
    static func nibbles(_ p: UnsafeRawPointer) -> __m256i {
        let bytes = _mm_loadu_si128(p.assumingMemoryBound(to: __m128i.self))
        let mask = _mm_set1_epi8(0x0F)
        let low = _mm_and_si128(bytes, mask)
        let high = _mm_and_si128(_mm_srli_epi16(bytes, 4), mask)
        return _mm256_set_m128i(high, low)
    }

    /// ggml's hsum_float_8 order: ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)).
    @inline(__always)
    static func horizontalSum(_ v: __m256) -> Float {
        var t = (Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0))
        withUnsafeMutableBytes(of: &t) { _mm256_storeu_ps($0.baseAddress!.assumingMemoryBound(to: Float.self), v) }
        return ((t.0 + t.4) + (t.2 + t.6)) + ((t.1 + t.5) + (t.3 + t.7))
    }

    @inline(__always)
    package static func q8_0(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var acc = _mm256_setzero_ps()
        for b in 0..<nb {
            let x = w + 34 * b
            let s = signedDot(load32(x + 2), load32(a.qs + 32 * b))
            acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(loadHalf(x) * a.scales[b]), acc)
        }
        return horizontalSum(acc)
    }

    /// Four consecutive rows of Q8_0 at once (`stride` bytes apart): each activation block is loaded once
    /// for four weight blocks. Same per-row arithmetic as `q8_0`.
    @inline(__always)
    package static func q8_0x4(_ w: UnsafeRawPointer, stride: Int, _ a: PreparedActivation, _ nb: Int,
                               _ y: UnsafeMutablePointer<Float>) {
        var acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps(), acc2 = _mm256_setzero_ps(), acc3 = _mm256_setzero_ps()
        let w1 = w + stride, w2 = w + 2 * stride, w3 = w + 3 * stride
        // The four rows are one contiguous run of 4·stride bytes, consumed 136 bytes per block; prefetch
        // the same stretch of a later group of rows, so DRAM latency overlaps the arithmetic.
        let ahead = w + Prefetch.groupsAhead * 4 * stride
        for b in 0..<nb {
            let yq = load32(a.qs + 32 * b), yd = a.scales[b]
            let o = 34 * b
            Prefetch.line(ahead + 4 * o)
            Prefetch.line(ahead + 4 * o + 64)
            Prefetch.line(ahead + 4 * o + 128)
            acc0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(signedDot(load32(w + o + 2), yq)), _mm256_set1_ps(loadHalf(w + o) * yd), acc0)
            acc1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(signedDot(load32(w1 + o + 2), yq)), _mm256_set1_ps(loadHalf(w1 + o) * yd), acc1)
            acc2 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(signedDot(load32(w2 + o + 2), yq)), _mm256_set1_ps(loadHalf(w2 + o) * yd), acc2)
            acc3 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(signedDot(load32(w3 + o + 2), yq)), _mm256_set1_ps(loadHalf(w3 + o) * yd), acc3)
        }
        y[0] = horizontalSum(acc0)
        y[1] = horizontalSum(acc1)
        y[2] = horizontalSum(acc2)
        y[3] = horizontalSum(acc3)
    }

    @inline(__always)
    package static func q4_0(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var acc = _mm256_setzero_ps()
        let eight = _mm256_set1_epi8(8)
        for b in 0..<nb {
            let x = w + 18 * b
            let q = _mm256_sub_epi8(nibbles(x + 2), eight)
            let s = signedDot(q, load32(a.qs + 32 * b))
            acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(loadHalf(x) * a.scales[b]), acc)
        }
        return horizontalSum(acc)
    }

    @inline(__always)
    package static func q4_1(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var acc = _mm256_setzero_ps()
        var minTerm: Float = 0
        for b in 0..<nb {
            let x = w + 20 * b
            let s = unsignedDot(nibbles(x + 4), load32(a.qs + 32 * b))
            acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(loadHalf(x) * a.scales[b]), acc)
            minTerm += loadHalf(x, 2) * a.sums[b]
        }
        return horizontalSum(acc) + minTerm
    }

    /// Q4_K: 8 sub-blocks of 32 with 6-bit scales; the min term goes through the activation's bsums.
    /// In ggml's order: per block, the 8 int32 lanes (scaled sub-block sums) are FMAed with d into an
    /// 8-lane accumulator, and the 4 min lanes (two sub-blocks each) with −dmin into a 4-lane one.
    @inline(__always)
    package static func q4_K(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var acc = _mm256_setzero_ps()
        var minAcc0: Float = 0, minAcc1: Float = 0, minAcc2: Float = 0, minAcc3: Float = 0
        let mask = _mm256_set1_epi8(0x0F)
        for b in 0..<nb {
            let x = w + 144 * b
            let yq = a.qs + 256 * b, bs = a.bsums + 16 * b
            var isum = _mm256_setzero_si256()
            for chunk in 0..<4 {
                let bytes = load32(x + 16 + 32 * chunk)
                let low = _mm256_and_si256(bytes, mask)
                let high = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), mask)
                let (sc0, _) = Dequantize.scaleMinK4(2 * chunk, x + 4)
                let (sc1, _) = Dequantize.scaleMinK4(2 * chunk + 1, x + 4)
                let s0 = _mm256_mullo_epi32(unsignedDot(low, load32(yq + 64 * chunk)), _mm256_set1_epi32(Int32(sc0)))
                let s1 = _mm256_mullo_epi32(unsignedDot(high, load32(yq + 64 * chunk + 32)), _mm256_set1_epi32(Int32(sc1)))
                isum = _mm256_add_epi32(isum, _mm256_add_epi32(s0, s1))
            }
            @inline(__always) func mins(_ c: Int) -> Float {
                let (_, m0) = Dequantize.scaleMinK4(2 * c, x + 4), (_, m1) = Dequantize.scaleMinK4(2 * c + 1, x + 4)
                return Float(Int32(m0) &* (bs[4 * c] &+ bs[4 * c + 1]) &+ Int32(m1) &* (bs[4 * c + 2] &+ bs[4 * c + 3]))
            }
            let yd = a.scales[b], dmin = -yd * loadHalf(x, 2)
            acc = _mm256_fmadd_ps(_mm256_set1_ps(yd * loadHalf(x)), _mm256_cvtepi32_ps(isum), acc)
            minAcc0 = minAcc0.addingProduct(dmin, mins(0))
            minAcc1 = minAcc1.addingProduct(dmin, mins(1))
            minAcc2 = minAcc2.addingProduct(dmin, mins(2))
            minAcc3 = minAcc3.addingProduct(dmin, mins(3))
        }
        return horizontalSum(acc) + ((minAcc0 + minAcc2) + (minAcc1 + minAcc3))
    }

    /// The 32 bits of `bits` as 32 bytes: 0xFF where the bit is set, 0 elsewhere (element i ↔ bit i).
    @inline(__always)
    static func bytesFromBits(_ bits: UInt32) -> __m256i {
        let v = _mm256_set1_epi32(Int32(bitPattern: bits))
        let spread = _mm256_shuffle_epi8(v, _mm256_set_epi64x(0x0303_0303_0303_0303, 0x0202_0202_0202_0202,
                                                              0x0101_0101_0101_0101, 0))
        let others = _mm256_or_si256(spread, _mm256_set1_epi64x(0x7fbf_dfef_f7fb_fdfe))
        return _mm256_cmpeq_epi8(others, _mm256_set1_epi64x(-1))
    }

    @inline(__always)
    package static func q5_0(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var acc = _mm256_setzero_ps()
        let highNibble = _mm256_set1_epi8(-16)  // 0xF0
        for b in 0..<nb {
            let x = w + 22 * b
            // (q | bit·16) − 16 = q when the bit is set, q | 0xF0 (= q − 16 as int8) when not.
            let missing = _mm256_andnot_si256(bytesFromBits(x.loadUnaligned(fromByteOffset: 2, as: UInt32.self)), highNibble)
            let q = _mm256_or_si256(nibbles(x + 6), missing)
            let s = signedDot(q, load32(a.qs + 32 * b))
            acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(loadHalf(x) * a.scales[b]), acc)
        }
        return horizontalSum(acc)
    }

    /// Four consecutive rows of Q5_0 (`stride` bytes apart), as ``q5_0`` computes each: four
    /// independent FMA chains instead of one (a single chain waits on the FMA latency every block),
    /// and each activation block loaded once for the four rows.
    @inline(__always)
    package static func q5_0x4(_ w: UnsafeRawPointer, stride: Int, _ a: PreparedActivation, _ nb: Int,
                               _ y: UnsafeMutablePointer<Float>) {
        var acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps(), acc2 = _mm256_setzero_ps(), acc3 = _mm256_setzero_ps()
        let highNibble = _mm256_set1_epi8(-16)
        let w1 = w + stride, w2 = w + 2 * stride, w3 = w + 3 * stride
        let ahead = w + Prefetch.groupsAhead * 4 * stride
        @inline(__always) func block(_ x: UnsafeRawPointer, _ yq: __m256i, _ yd: Float, _ acc: __m256) -> __m256 {
            let missing = _mm256_andnot_si256(bytesFromBits(x.loadUnaligned(fromByteOffset: 2, as: UInt32.self)), highNibble)
            let q = _mm256_or_si256(nibbles(x + 6), missing)
            return _mm256_fmadd_ps(_mm256_cvtepi32_ps(signedDot(q, yq)), _mm256_set1_ps(loadHalf(x) * yd), acc)
        }
        for b in 0..<nb {
            let yq = load32(a.qs + 32 * b), yd = a.scales[b]
            let o = 22 * b
            Prefetch.line(ahead + 4 * o)
            Prefetch.line(ahead + 4 * o + 64)
            acc0 = block(w + o, yq, yd, acc0)
            acc1 = block(w1 + o, yq, yd, acc1)
            acc2 = block(w2 + o, yq, yd, acc2)
            acc3 = block(w3 + o, yq, yd, acc3)
        }
        y[0] = horizontalSum(acc0)
        y[1] = horizontalSum(acc1)
        y[2] = horizontalSum(acc2)
        y[3] = horizontalSum(acc3)
    }

    /// Four consecutive rows of Q4_1, as ``q4_1`` computes each (see ``q5_0x4``).
    @inline(__always)
    package static func q4_1x4(_ w: UnsafeRawPointer, stride: Int, _ a: PreparedActivation, _ nb: Int,
                               _ y: UnsafeMutablePointer<Float>) {
        var acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps(), acc2 = _mm256_setzero_ps(), acc3 = _mm256_setzero_ps()
        var min0: Float = 0, min1: Float = 0, min2: Float = 0, min3: Float = 0
        let w1 = w + stride, w2 = w + 2 * stride, w3 = w + 3 * stride
        let ahead = w + Prefetch.groupsAhead * 4 * stride
        for b in 0..<nb {
            let yq = load32(a.qs + 32 * b), yd = a.scales[b], ys = a.sums[b]
            let o = 20 * b
            Prefetch.line(ahead + 4 * o)
            Prefetch.line(ahead + 4 * o + 64)
            acc0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(unsignedDot(nibbles(w + o + 4), yq)), _mm256_set1_ps(loadHalf(w + o) * yd), acc0)
            acc1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(unsignedDot(nibbles(w1 + o + 4), yq)), _mm256_set1_ps(loadHalf(w1 + o) * yd), acc1)
            acc2 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(unsignedDot(nibbles(w2 + o + 4), yq)), _mm256_set1_ps(loadHalf(w2 + o) * yd), acc2)
            acc3 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(unsignedDot(nibbles(w3 + o + 4), yq)), _mm256_set1_ps(loadHalf(w3 + o) * yd), acc3)
            min0 += loadHalf(w + o, 2) * ys
            min1 += loadHalf(w1 + o, 2) * ys
            min2 += loadHalf(w2 + o, 2) * ys
            min3 += loadHalf(w3 + o, 2) * ys
        }
        y[0] = horizontalSum(acc0) + min0
        y[1] = horizontalSum(acc1) + min1
        y[2] = horizontalSum(acc2) + min2
        y[3] = horizontalSum(acc3) + min3
    }

    @inline(__always)
    package static func q5_1(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var acc = _mm256_setzero_ps()
        var minTerm: Float = 0
        let bit4 = _mm256_set1_epi8(0x10)
        for b in 0..<nb {
            let x = w + 24 * b
            let high = _mm256_and_si256(bytesFromBits(x.loadUnaligned(fromByteOffset: 4, as: UInt32.self)), bit4)
            let q = _mm256_or_si256(nibbles(x + 8), high)
            let s = unsignedDot(q, load32(a.qs + 32 * b))
            acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(loadHalf(x) * a.scales[b]), acc)
            minTerm += loadHalf(x, 2) * a.sums[b]
        }
        return horizontalSum(acc) + minTerm
    }

    /// Q6_K: 16 groups of 16 with int8 scales. In ggml's order: lane k of a block sums q·y·scale over
    /// elements 4k…4k+3 of each 32, minus 32·(bsum·scale) of groups 2k and 2k+1; the 8 int32 lanes are
    /// FMAed with d into an 8-lane accumulator. (Checked against llama.cpp's products; the per-element
    /// (q − 32) form gives the same total but other lane values, so other roundings.)
    @inline(__always)
    package static func q6_K(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var acc = _mm256_setzero_ps()
        let mask4 = _mm256_set1_epi8(0x0F), mask2 = _mm256_set1_epi8(0x30)
        for b in 0..<nb {
            let x = w + 210 * b
            let yq = a.qs + 256 * b
            let sc = x.assumingMemoryBound(to: Int8.self) + 192, bs = a.bsums + 16 * b
            @inline(__always) func offset(_ m: Int) -> Int32 {
                0 &- 32 &* (bs[2 * m] &* Int32(sc[2 * m]) &+ bs[2 * m + 1] &* Int32(sc[2 * m + 1]))
            }
            var isum = _mm256_set_epi32(offset(7), offset(6), offset(5), offset(4), offset(3), offset(2), offset(1), offset(0))
            for half in 0..<2 {
                let ql = x + 64 * half, qh = load32(x + 128 + 32 * half), y = yq + 128 * half
                let l0 = load32(ql), l1 = load32(ql + 32)
                // Quarter k (32 values): k = 0, 1 take the low nibbles of ql bytes 0…31, 32…63; k = 2, 3 the
                // high nibbles; bits 2k, 2k+1 of each qh byte become bits 4, 5.
                let q0 = _mm256_or_si256(_mm256_and_si256(l0, mask4), _mm256_and_si256(_mm256_slli_epi16(qh, 4), mask2))
                let q1 = _mm256_or_si256(_mm256_and_si256(l1, mask4), _mm256_and_si256(_mm256_slli_epi16(qh, 2), mask2))
                let q2 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), mask4), _mm256_and_si256(qh, mask2))
                let q3 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), mask4), _mm256_and_si256(_mm256_srli_epi16(qh, 2), mask2))
                isum = _mm256_add_epi32(isum, _mm256_add_epi32(q6Quarter(q0, y, sc + 8 * half), q6Quarter(q1, y + 32, sc + 8 * half + 2)))
                isum = _mm256_add_epi32(isum, _mm256_add_epi32(q6Quarter(q2, y + 64, sc + 8 * half + 4), q6Quarter(q3, y + 96, sc + 8 * half + 6)))
            }
            acc = _mm256_fmadd_ps(_mm256_set1_ps(a.scales[b] * loadHalf(x, 208)), _mm256_cvtepi32_ps(isum), acc)
        }
        return horizontalSum(acc)
    }

    /// q·y·scale over one quarter (32 values, two groups of 16 with scales g[0], g[1]) as 8 int32 lanes
    /// of 4 products each.
    @inline(__always)
    static func q6Quarter(_ q: __m256i, _ y: UnsafeRawPointer, _ g: UnsafePointer<Int8>) -> __m256i {
        // maddubs: 16 pair sums; int16 lanes 0…7 hold elements 0…15 (scale g[0]), lanes 8…15 the rest.
        // Lanes 0…3 (elements 0…15) take g[0], lanes 4…7 g[1]; scale·(p₂ₖ + p₂ₖ₊₁) is the same integer
        // as ggml's pairwise madd with the scales.
        let lanes = _mm256_madd_epi16(_mm256_maddubs_epi16(q, load32(y)), _mm256_set1_epi16(1))
        let scales = _mm256_set_m128i(_mm_set1_epi32(Int32(g[1])), _mm_set1_epi32(Int32(g[0])))
        return _mm256_mullo_epi32(lanes, scales)
    }

    @inline(__always)
    static func horizontalSumInt(_ v: __m256i) -> Int32 {
        var t = (Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0))
        withUnsafeMutableBytes(of: &t) { _mm256_storeu_si256($0.baseAddress!.assumingMemoryBound(to: __m256i.self), v) }
        return ((t.0 &+ t.1) &+ (t.2 &+ t.3)) &+ ((t.4 &+ t.5) &+ (t.6 &+ t.7))
    }
}
#endif
