// The portable dot products: one weight row against a `PreparedActivation`. The integer sums are
// `DotReference`'s; for the types llama.cpp's test models use (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q6_K)
// the float sums are ggml's AVX2 kernels' (8 int32 lanes per block, each FMAed into an 8-lane
// accumulator, then `GGMLOrder.sum8`), so a portable build computes bit for bit what llama.cpp and the
// native build compute. The other types keep the reference's per-block float order.
//
// `w`: one weight row (ggml blocks); `a`: the activation; `nb`: blocks in the row.

package enum DotFast {
    @inline(__always)
    static func i8(_ p: UnsafeRawPointer) -> UnsafePointer<Int8> { p.assumingMemoryBound(to: Int8.self) }
    @inline(__always)
    static func u8(_ p: UnsafeRawPointer) -> UnsafePointer<UInt8> { p.assumingMemoryBound(to: UInt8.self) }

    /// The 8 lanes of ggml's AVX2 int8 dot of one 32-element block: lane k sums the products of
    /// elements 4k…4k+3 (`value(e)` · y[e]).
    @inline(__always)
    static func lanes32(_ y: UnsafePointer<Int8>, _ value: (Int) -> Int32) -> SIMD8<Float> {
        var lanes = SIMD8<Int32>()
        for k in 0..<8 {
            var s: Int32 = 0
            for j in 0..<4 { s &+= value(4 * k + j) &* Int32(y[4 * k + j]) }
            lanes[k] = s
        }
        return SIMD8<Float>(lanes)
    }

    @inline(__always)
    package static func q8_0(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var acc = SIMD8<Float>()
        for b in 0..<nb {
            let x = w + 34 * b
            let xq = i8(x + 2)
            let lanes = lanes32(UnsafePointer(a.qs + 32 * b)) { Int32(xq[$0]) }
            acc = acc.addingProduct(lanes, SIMD8(repeating: loadHalf(x) * a.scales[b]))
        }
        return GGMLOrder.sum8(acc)
    }

    /// Element e of a block's 4-bit values: low nibbles are elements 0…15, high nibbles 16…31.
    @inline(__always)
    static func nibble(_ q: UnsafePointer<UInt8>, _ e: Int) -> Int32 {
        e < 16 ? Int32(q[e] & 0x0F) : Int32(q[e - 16] >> 4)
    }

    @inline(__always)
    package static func q4_0(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var acc = SIMD8<Float>()
        for b in 0..<nb {
            let x = w + 18 * b
            let q = u8(x + 2)
            let lanes = lanes32(UnsafePointer(a.qs + 32 * b)) { nibble(q, $0) &- 8 }
            acc = acc.addingProduct(lanes, SIMD8(repeating: loadHalf(x) * a.scales[b]))
        }
        return GGMLOrder.sum8(acc)
    }

    @inline(__always)
    package static func q4_1(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var acc = SIMD8<Float>()
        var minTerm: Float = 0
        for b in 0..<nb {
            let x = w + 20 * b
            let q = u8(x + 4)
            let lanes = lanes32(UnsafePointer(a.qs + 32 * b)) { nibble(q, $0) }
            acc = acc.addingProduct(lanes, SIMD8(repeating: loadHalf(x) * a.scales[b]))
            minTerm += loadHalf(x, 2) * a.sums[b]
        }
        return GGMLOrder.sum8(acc) + minTerm
    }

    @inline(__always)
    package static func q5_0(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var acc = SIMD8<Float>()
        for b in 0..<nb {
            let x = w + 22 * b
            let qh = x.loadUnaligned(fromByteOffset: 2, as: UInt32.self)
            let q = u8(x + 6)
            let lanes = lanes32(UnsafePointer(a.qs + 32 * b)) { e in
                (nibble(q, e) | (Int32(truncatingIfNeeded: (qh >> UInt32(e)) & 1) << 4)) &- 16
            }
            acc = acc.addingProduct(lanes, SIMD8(repeating: loadHalf(x) * a.scales[b]))
        }
        return GGMLOrder.sum8(acc)
    }

    @inline(__always)
    package static func q5_1(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var acc = SIMD8<Float>()
        var minTerm: Float = 0
        for b in 0..<nb {
            let x = w + 24 * b
            let qh = x.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
            let q = u8(x + 8)
            let lanes = lanes32(UnsafePointer(a.qs + 32 * b)) { e in
                nibble(q, e) | (Int32(truncatingIfNeeded: (qh >> UInt32(e)) & 1) << 4)
            }
            acc = acc.addingProduct(lanes, SIMD8(repeating: loadHalf(x) * a.scales[b]))
            minTerm += loadHalf(x, 2) * a.sums[b]
        }
        return GGMLOrder.sum8(acc) + minTerm
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

    /// Q4_K in the order of ggml's AVX2 kernel (see `DotAVX2.q4_K`): 8 int32 lanes per block (lane k:
    /// elements 4k…4k+3 of every sub-block, times its scale) FMAed with d, and 4 min lanes (two
    /// sub-blocks each) FMAed with −dmin.
    @inline(__always)
    package static func q4_K(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var acc = SIMD8<Float>()
        var minAcc = SIMD4<Float>()
        for b in 0..<nb {
            let x = w + 144 * b
            let yq = UnsafePointer(a.qs + 256 * b), bs = a.bsums + 16 * b
            var lanes = SIMD8<Int32>()
            var mins = SIMD4<Int32>()
            for chunk in 0..<4 {
                let q = u8(x + 16 + 32 * chunk), y0 = yq + 64 * chunk, y1 = y0 + 32
                let (sc0, m0) = Dequantize.scaleMinK4(2 * chunk, x + 4)
                let (sc1, m1) = Dequantize.scaleMinK4(2 * chunk + 1, x + 4)
                for k in 0..<8 {
                    var s0: Int32 = 0, s1: Int32 = 0
                    for j in 0..<4 {
                        let l = 4 * k + j
                        s0 &+= Int32(q[l] & 0x0F) &* Int32(y0[l])
                        s1 &+= Int32(q[l] >> 4) &* Int32(y1[l])
                    }
                    lanes[k] &+= Int32(sc0) &* s0 &+ Int32(sc1) &* s1
                }
                mins[chunk] = Int32(m0) &* (bs[4 * chunk] &+ bs[4 * chunk + 1]) &+ Int32(m1) &* (bs[4 * chunk + 2] &+ bs[4 * chunk + 3])
            }
            let yd = a.scales[b]
            acc = acc.addingProduct(SIMD8<Float>(lanes), SIMD8(repeating: yd * loadHalf(x)))
            minAcc = minAcc.addingProduct(SIMD4<Float>(mins), SIMD4(repeating: -yd * loadHalf(x, 2)))
        }
        return GGMLOrder.sum8(acc) + ((minAcc[0] + minAcc[2]) + (minAcc[1] + minAcc[3]))
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

    /// Q6_K in the order of ggml's AVX2 kernel (see `DotAVX2.q6_K`): lane k of a block sums q·y·scale
    /// over elements 4k…4k+3 of each 32, minus 32·(bsum·scale) of groups 2k and 2k+1; the 8 lanes
    /// are FMAed with d.
    @inline(__always)
    package static func q6_K(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var acc = SIMD8<Float>()
        for b in 0..<nb {
            let x = w + 210 * b
            let yq = UnsafePointer(a.qs + 256 * b), bs = a.bsums + 16 * b
            let sc = i8(x + 192)
            var lanes = SIMD8<Int32>()
            for m in 0..<8 { lanes[m] = 0 &- 32 &* (bs[2 * m] &* Int32(sc[2 * m]) &+ bs[2 * m + 1] &* Int32(sc[2 * m + 1])) }
            for half in 0..<2 {
                let ql = u8(x + 64 * half), qh = u8(x + 128 + 32 * half), y = yq + 128 * half
                let g = sc + 8 * half
                for k in 0..<8 {
                    // Lanes 0…3 see elements 0…15 of each quarter (first scale), lanes 4…7 elements 16…31.
                    let s = k < 4 ? 0 : 1
                    var q0: Int32 = 0, q1: Int32 = 0, q2: Int32 = 0, q3: Int32 = 0
                    for j in 0..<4 {
                        let l = 4 * k + j, h = qh[l]
                        q0 &+= Int32((ql[l] & 0x0F) | ((h & 3) << 4)) &* Int32(y[l])
                        q1 &+= Int32((ql[l + 32] & 0x0F) | (((h >> 2) & 3) << 4)) &* Int32(y[l + 32])
                        q2 &+= Int32((ql[l] >> 4) | (((h >> 4) & 3) << 4)) &* Int32(y[l + 64])
                        q3 &+= Int32((ql[l + 32] >> 4) | (((h >> 6) & 3) << 4)) &* Int32(y[l + 96])
                    }
                    lanes[k] &+= Int32(g[s]) &* q0 &+ Int32(g[2 + s]) &* q1 &+ Int32(g[4 + s]) &* q2 &+ Int32(g[6 + s]) &* q3
                }
            }
            acc = acc.addingProduct(SIMD8<Float>(lanes), SIMD8(repeating: loadHalf(x, 208) * a.scales[b]))
        }
        return GGMLOrder.sum8(acc)
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
