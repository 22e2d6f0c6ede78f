// The fast portable dot products: one weight row against a `PreparedActivation`. Same integer sums and
// the same float operations per block as `DotReference`, so the results are identical; the inner loops
// use wrapping integer arithmetic over contiguous int8s so LLVM vectorizes them (SSE2 by default,
// AVX2/AVX-512 with a target CPU).
//
// `w`: one weight row (ggml blocks); `a`: the activation; `nb`: blocks in the row.

package enum DotFast {
    @inline(__always)
    static func i8(_ p: UnsafeRawPointer) -> UnsafePointer<Int8> { p.assumingMemoryBound(to: Int8.self) }
    @inline(__always)
    static func u8(_ p: UnsafeRawPointer) -> UnsafePointer<UInt8> { p.assumingMemoryBound(to: UInt8.self) }

    @inline(__always)
    package static func q8_0(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var sum: Float = 0
        for b in 0..<nb {
            let x = w + 34 * b
            let xq = i8(x + 2), yq = UnsafePointer(a.qs + 32 * b)
            var s: Int32 = 0
            for j in 0..<32 { s &+= Int32(xq[j]) &* Int32(yq[j]) }
            sum += Float(s) * (loadHalf(x) * a.scales[b])
        }
        return sum
    }

    @inline(__always)
    package static func q4_0(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var sum: Float = 0
        for b in 0..<nb {
            let x = w + 18 * b
            let q = u8(x + 2), yq = UnsafePointer(a.qs + 32 * b)
            var s: Int32 = 0
            for j in 0..<16 {
                s &+= (Int32(q[j] & 0x0F) &- 8) &* Int32(yq[j]) &+ (Int32(q[j] >> 4) &- 8) &* Int32(yq[j + 16])
            }
            sum += Float(s) * (loadHalf(x) * a.scales[b])
        }
        return sum
    }

    @inline(__always)
    package static func q4_1(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var sum: Float = 0
        for b in 0..<nb {
            let x = w + 20 * b
            let q = u8(x + 4), yq = UnsafePointer(a.qs + 32 * b)
            var s: Int32 = 0
            for j in 0..<16 { s &+= Int32(q[j] & 0x0F) &* Int32(yq[j]) &+ Int32(q[j] >> 4) &* Int32(yq[j + 16]) }
            sum += (loadHalf(x) * a.scales[b]) * Float(s) + loadHalf(x, 2) * a.sums[b]
        }
        return sum
    }

    @inline(__always)
    package static func q5_0(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var sum: Float = 0
        for b in 0..<nb {
            let x = w + 22 * b
            let qh = x.loadUnaligned(fromByteOffset: 2, as: UInt32.self)
            let q = u8(x + 6), yq = UnsafePointer(a.qs + 32 * b)
            var s: Int32 = 0
            for j in 0..<16 {
                let h0 = Int32(truncatingIfNeeded: (qh >> UInt32(j)) & 1) << 4
                let h1 = Int32(truncatingIfNeeded: (qh >> UInt32(j + 16)) & 1) << 4
                s &+= ((Int32(q[j] & 0x0F) | h0) &- 16) &* Int32(yq[j]) &+ ((Int32(q[j] >> 4) | h1) &- 16) &* Int32(yq[j + 16])
            }
            sum += Float(s) * (loadHalf(x) * a.scales[b])
        }
        return sum
    }

    @inline(__always)
    package static func q5_1(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var sum: Float = 0
        for b in 0..<nb {
            let x = w + 24 * b
            let qh = x.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
            let q = u8(x + 8), yq = UnsafePointer(a.qs + 32 * b)
            var s: Int32 = 0
            for j in 0..<16 {
                let h0 = Int32(truncatingIfNeeded: (qh >> UInt32(j)) & 1) << 4
                let h1 = Int32(truncatingIfNeeded: (qh >> UInt32(j + 16)) & 1) << 4
                s &+= (Int32(q[j] & 0x0F) | h0) &* Int32(yq[j]) &+ (Int32(q[j] >> 4) | h1) &* Int32(yq[j + 16])
            }
            sum += (loadHalf(x) * a.scales[b]) * Float(s) + loadHalf(x, 2) * a.sums[b]
        }
        return sum
    }

    @inline(__always)
    package static func q2_K(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var sum: Float = 0
        for b in 0..<nb {
            let x = w + 84 * b
            let sc = u8(x), yq = UnsafePointer(a.qs + 256 * b), bs = a.bsums + 16 * b
            var summs: Int32 = 0
            for g in 0..<16 { summs &+= bs[g] &* Int32(sc[g] >> 4) }
            var isum: Int32 = 0
            for half in 0..<2 {
                let q = u8(x + 16 + 32 * half)
                for j in 0..<4 {
                    let shift = UInt8(2 * j), g = 8 * half + 2 * j, y = yq + 128 * half + 32 * j
                    var s0: Int32 = 0, s1: Int32 = 0
                    for l in 0..<16 {
                        s0 &+= Int32((q[l] >> shift) & 3) &* Int32(y[l])
                        s1 &+= Int32((q[l + 16] >> shift) & 3) &* Int32(y[l + 16])
                    }
                    isum &+= Int32(sc[g] & 0x0F) &* s0 &+ Int32(sc[g + 1] & 0x0F) &* s1
                }
            }
            let yd = a.scales[b]
            sum += (yd * loadHalf(x, 80)) * Float(isum) - (yd * loadHalf(x, 82)) * Float(summs)
        }
        return sum
    }

    @inline(__always)
    package static func q3_K(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        withUnsafeTemporaryAllocation(of: Int8.self, capacity: 16) { scaleBuffer in
            let scales = scaleBuffer.baseAddress!
            var sum: Float = 0
            for b in 0..<nb {
                let x = w + 110 * b
                let yq = UnsafePointer(a.qs + 256 * b)
                Dequantize.q3_KScales(x + 96, scales)
                var isum: Int32 = 0
                for half in 0..<2 {
                    for j in 0..<4 {
                        let shift = UInt8(2 * j), bit = UInt8(4 * half + j), g = 8 * half + 2 * j
                        let y = yq + 128 * half + 32 * j
                        let q = u8(x + 32 + 32 * half), hm = u8(x)
                        var s0: Int32 = 0, s1: Int32 = 0
                        for l in 0..<16 {
                            // The high bit set means no −4 offset.
                            let v0 = Int32((q[l] >> shift) & 3) &- (Int32(((hm[l] >> bit) & 1) ^ 1) << 2)
                            let v1 = Int32((q[l + 16] >> shift) & 3) &- (Int32(((hm[l + 16] >> bit) & 1) ^ 1) << 2)
                            s0 &+= v0 &* Int32(y[l])
                            s1 &+= v1 &* Int32(y[l + 16])
                        }
                        isum &+= Int32(scales[g]) &* s0 &+ Int32(scales[g + 1]) &* s1
                    }
                }
                sum += (loadHalf(x, 108) * a.scales[b]) * Float(isum)
            }
            return sum
        }
    }

    @inline(__always)
    package static func q4_K(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var sum: Float = 0
        for b in 0..<nb {
            let x = w + 144 * b
            let yq = UnsafePointer(a.qs + 256 * b), bs = a.bsums + 16 * b
            var isum: Int32 = 0, summs: Int32 = 0
            for chunk in 0..<4 {
                let q = u8(x + 16 + 32 * chunk), y0 = yq + 64 * chunk, y1 = y0 + 32
                var s0: Int32 = 0, s1: Int32 = 0
                for l in 0..<32 {
                    s0 &+= Int32(q[l] & 0x0F) &* Int32(y0[l])
                    s1 &+= Int32(q[l] >> 4) &* Int32(y1[l])
                }
                let (sc0, m0) = Dequantize.scaleMinK4(2 * chunk, x + 4)
                let (sc1, m1) = Dequantize.scaleMinK4(2 * chunk + 1, x + 4)
                isum &+= Int32(sc0) &* s0 &+ Int32(sc1) &* s1
                summs &+= Int32(m0) &* (bs[4 * chunk] &+ bs[4 * chunk + 1]) &+ Int32(m1) &* (bs[4 * chunk + 2] &+ bs[4 * chunk + 3])
            }
            let yd = a.scales[b]
            sum += (yd * loadHalf(x)) * Float(isum) - (yd * loadHalf(x, 2)) * Float(summs)
        }
        return sum
    }

    @inline(__always)
    package static func q5_K(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var sum: Float = 0
        for b in 0..<nb {
            let x = w + 176 * b
            let yq = UnsafePointer(a.qs + 256 * b), bs = a.bsums + 16 * b
            let qh = u8(x + 16)
            var isum: Int32 = 0, summs: Int32 = 0
            for chunk in 0..<4 {
                let q = u8(x + 48 + 32 * chunk), y0 = yq + 64 * chunk, y1 = y0 + 32
                let bit0 = UInt8(2 * chunk), bit1 = UInt8(2 * chunk + 1)
                var s0: Int32 = 0, s1: Int32 = 0
                for l in 0..<32 {
                    let h = qh[l]
                    s0 &+= Int32((q[l] & 0x0F) | (((h >> bit0) & 1) << 4)) &* Int32(y0[l])
                    s1 &+= Int32((q[l] >> 4) | (((h >> bit1) & 1) << 4)) &* Int32(y1[l])
                }
                let (sc0, m0) = Dequantize.scaleMinK4(2 * chunk, x + 4)
                let (sc1, m1) = Dequantize.scaleMinK4(2 * chunk + 1, x + 4)
                isum &+= Int32(sc0) &* s0 &+ Int32(sc1) &* s1
                summs &+= Int32(m0) &* (bs[4 * chunk] &+ bs[4 * chunk + 1]) &+ Int32(m1) &* (bs[4 * chunk + 2] &+ bs[4 * chunk + 3])
            }
            let yd = a.scales[b]
            sum += (yd * loadHalf(x)) * Float(isum) - (yd * loadHalf(x, 2)) * Float(summs)
        }
        return sum
    }

    @inline(__always)
    package static func q6_K(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var sum: Float = 0
        for b in 0..<nb {
            let x = w + 210 * b
            let yq = UnsafePointer(a.qs + 256 * b)
            let sc = i8(x + 192)
            var isum: Int32 = 0
            for half in 0..<2 {
                let ql = u8(x + 64 * half), qh = u8(x + 128 + 32 * half), y = yq + 128 * half
                var s0: Int32 = 0, s1: Int32 = 0, s2: Int32 = 0, s3: Int32 = 0
                var t0: Int32 = 0, t1: Int32 = 0, t2: Int32 = 0, t3: Int32 = 0
                for l in 0..<16 {
                    let h = qh[l]
                    s0 &+= (Int32((ql[l] & 0x0F) | ((h & 3) << 4)) &- 32) &* Int32(y[l])
                    s1 &+= (Int32((ql[l + 32] & 0x0F) | (((h >> 2) & 3) << 4)) &- 32) &* Int32(y[l + 32])
                    s2 &+= (Int32((ql[l] >> 4) | (((h >> 4) & 3) << 4)) &- 32) &* Int32(y[l + 64])
                    s3 &+= (Int32((ql[l + 32] >> 4) | (((h >> 6) & 3) << 4)) &- 32) &* Int32(y[l + 96])
                }
                for l in 16..<32 {
                    let h = qh[l]
                    t0 &+= (Int32((ql[l] & 0x0F) | ((h & 3) << 4)) &- 32) &* Int32(y[l])
                    t1 &+= (Int32((ql[l + 32] & 0x0F) | (((h >> 2) & 3) << 4)) &- 32) &* Int32(y[l + 32])
                    t2 &+= (Int32((ql[l] >> 4) | (((h >> 4) & 3) << 4)) &- 32) &* Int32(y[l + 64])
                    t3 &+= (Int32((ql[l + 32] >> 4) | (((h >> 6) & 3) << 4)) &- 32) &* Int32(y[l + 96])
                }
                let g = sc + 8 * half
                isum &+= Int32(g[0]) &* s0 &+ Int32(g[1]) &* t0 &+ Int32(g[2]) &* s1 &+ Int32(g[3]) &* t1
                isum &+= Int32(g[4]) &* s2 &+ Int32(g[5]) &* t2 &+ Int32(g[6]) &* s3 &+ Int32(g[7]) &* t3
            }
            sum += (loadHalf(x, 208) * a.scales[b]) * Float(isum)
        }
        return sum
    }

    @inline(__always)
    package static func f32(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, _ n: Int) -> Float {
        Kernels.dot(w.assumingMemoryBound(to: Float.self), x, count: n)
    }

    /// BF16 weights · BF16-rounded activations (`a.blocks` holds the BF16 row), eight float lanes.
    @inline(__always)
    package static func bf16(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ n: Int) -> Float {
        let x = w.assumingMemoryBound(to: UInt16.self), y = UnsafeRawPointer(a.blocks).assumingMemoryBound(to: UInt16.self)
        var acc = SIMD8<Float>()
        var i = 0
        while i + 8 <= n {
            let xb = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<UInt16>.self)
            let yb = UnsafeRawPointer(y + i).loadUnaligned(as: SIMD8<UInt16>.self)
            let xf = unsafeBitCast(SIMD8<UInt32>(truncatingIfNeeded: xb) &<< 16, to: SIMD8<Float>.self)
            let yf = unsafeBitCast(SIMD8<UInt32>(truncatingIfNeeded: yb) &<< 16, to: SIMD8<Float>.self)
            acc += xf * yf
            i += 8
        }
        var sum = acc.sum()
        while i < n { sum += bf16ToFloat(x[i]) * bf16ToFloat(y[i]); i += 1 }
        return sum
    }

    /// F16 weights · F16-rounded activations (`a.blocks` holds the F16 row), accumulated in float.
    @inline(__always)
    package static func f16(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ n: Int) -> Float {
        Kernels.dotF16(w.assumingMemoryBound(to: UInt16.self), UnsafePointer(a.blocks.assumingMemoryBound(to: UInt16.self)), count: n)
    }
}
