// The portable dot products: one weight row against a `PreparedActivation`. The integer sums are
// `DotReference`'s; for the types llama.cpp's test models use (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q6_K)
// the float sums are ggml's AVX2 kernels' (8 int32 lanes per block, each FMAed into an 8-lane
// accumulator, then `GGMLOrder.sum8`), so a portable build computes bit for bit what llama.cpp and the
// native build compute. The other types keep the reference's per-block float order.
//
// `w`: one weight row (ggml blocks); `a`: the activation; `nb`: blocks in the row.

import CLocalLMShims

package enum DotFast {
    /// Per-block integer scratch of ``accumulate(_:_:)``: 256 Int32 products (K-quants) and 32 Int16
    /// products (32-element blocks: SSE2 multiplies 16-bit lanes, 32-bit multiplies need SSE4.1).
    struct Products {
        let int32: UnsafeMutablePointer<Int32>
        let int16: UnsafeMutablePointer<Int16>
    }

    /// ggml's float accumulation over a row of `nb` blocks: `fill(b, products, lanes)` writes block b's
    /// 8 lane values (using the `products` scratch) and returns its scale; each lane is FMAed with the
    /// scale into an 8-lane accumulator in block order (`locallm_fma_chain`: one exact fused
    /// multiply-add per lane, in every build), and the lanes are summed as `GGMLOrder.sum8`.
    @inline(__always)
    static func accumulate(
        _ nb: Int,
        _ fill: (_ block: Int, _ products: Products, _ lanes: UnsafeMutablePointer<Float>) -> Float
    ) -> Float {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 9 * nb + 8 + 256 + 16) { buffer -> Float in
            guard let base = buffer.baseAddress else { return 0 }
            let lanes = base, scales = base + 8 * nb, acc = base + 9 * nb
            let products = Products(
                int32: UnsafeMutableRawPointer(base + 9 * nb + 8).bindMemory(to: Int32.self, capacity: 256),
                int16: UnsafeMutableRawPointer(base + 9 * nb + 8 + 256).bindMemory(to: Int16.self, capacity: 32))
            for b in 0..<nb { scales[b] = fill(b, products, lanes + 8 * b) }
            for i in 0..<8 { acc[i] = 0 }
            locallm_fma_chain(lanes, scales, Int32(nb), 8, acc)
            return GGMLOrder.sum8(UnsafeRawPointer(acc).loadUnaligned(as: SIMD8<Float>.self))
        }
    }

    /// The 8 lanes of ggml's AVX2 int8 dots from per-element products `p[count]` (count a multiple of
    /// 32): lane k sums elements 4k…4k+3 of every 32.
    @inline(__always)
    static func lanes(_ p: UnsafeMutablePointer<Int32>, count: Int, into out: UnsafeMutablePointer<Float>) {
        var c = 32
        while c < count {
            for i in 0..<32 { p[i] &+= p[c + i] }
            c += 32
        }
        for k in 0..<8 { out[k] = Float(p[4 * k] &+ p[4 * k + 1] &+ p[4 * k + 2] &+ p[4 * k + 3]) }
    }

    @inline(__always)
    static func store(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
    }

    @inline(__always)
    static func i8(_ p: UnsafeRawPointer) -> UnsafePointer<Int8> { p.assumingMemoryBound(to: Int8.self) }
    @inline(__always)
    static func u8(_ p: UnsafeRawPointer) -> UnsafePointer<UInt8> { p.assumingMemoryBound(to: UInt8.self) }

    @inline(__always)
    package static func q8_0(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        accumulate(nb) { b, p, lanes in
            let x = w + 34 * b
            let xq = i8(x + 2), y = a.qs + 32 * b
            for j in 0..<32 { p.int16[j] = Int16(xq[j]) &* Int16(y[j]) }
            Self.lanes(p.int16, into: lanes)
            return loadHalf(x) * a.scales[b]
        }
    }

    /// The 8 lanes of one 32-element block from its Int16 products.
    @inline(__always)
    static func lanes(_ p: UnsafeMutablePointer<Int16>, into out: UnsafeMutablePointer<Float>) {
        for k in 0..<8 {
            out[k] = Float(Int32(p[4 * k]) &+ Int32(p[4 * k + 1]) &+ Int32(p[4 * k + 2]) &+ Int32(p[4 * k + 3]))
        }
    }

    /// Block products (each within ±16384) of 4-bit values `q` (element j: low nibble of byte j; 16 + j:
    /// its high nibble) plus `offset`, with the bits of `high` (bit e → 16) when given, into the
    /// Int16 scratch `p`, then the 8 lanes.
    @inline(__always)
    static func nibbleLanes(_ q: UnsafePointer<UInt8>, high: UInt32?, offset: Int16, _ y: UnsafePointer<Int8>,
                            _ p: UnsafeMutablePointer<Int16>, _ out: UnsafeMutablePointer<Float>) {
        if let high {
            for j in 0..<16 {
                let h0 = Int16(truncatingIfNeeded: (high >> UInt32(j)) & 1) << 4
                let h1 = Int16(truncatingIfNeeded: (high >> UInt32(j + 16)) & 1) << 4
                p[j] = ((Int16(q[j] & 0x0F) | h0) &+ offset) &* Int16(y[j])
                p[j + 16] = ((Int16(q[j] >> 4) | h1) &+ offset) &* Int16(y[j + 16])
            }
        } else {
            for j in 0..<16 {
                p[j] = (Int16(q[j] & 0x0F) &+ offset) &* Int16(y[j])
                p[j + 16] = (Int16(q[j] >> 4) &+ offset) &* Int16(y[j + 16])
            }
        }
        lanes(p, into: out)
    }

    @inline(__always)
    package static func q4_0(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        accumulate(nb) { b, p, lanes in
            let x = w + 18 * b
            nibbleLanes(u8(x + 2), high: nil, offset: -8, a.qs + 32 * b, p.int16, lanes)
            return loadHalf(x) * a.scales[b]
        }
    }

    @inline(__always)
    package static func q4_1(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var minTerm: Float = 0
        for b in 0..<nb { minTerm += loadHalf(w + 20 * b, 2) * a.sums[b] }
        return accumulate(nb) { b, p, lanes in
            let x = w + 20 * b
            nibbleLanes(u8(x + 4), high: nil, offset: 0, a.qs + 32 * b, p.int16, lanes)
            return loadHalf(x) * a.scales[b]
        } + minTerm
    }

    @inline(__always)
    package static func q5_0(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        accumulate(nb) { b, p, lanes in
            let x = w + 22 * b
            nibbleLanes(u8(x + 6), high: x.loadUnaligned(fromByteOffset: 2, as: UInt32.self), offset: -16, a.qs + 32 * b, p.int16, lanes)
            return loadHalf(x) * a.scales[b]
        }
    }

    @inline(__always)
    package static func q5_1(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var minTerm: Float = 0
        for b in 0..<nb { minTerm += loadHalf(w + 24 * b, 2) * a.sums[b] }
        return accumulate(nb) { b, p, lanes in
            let x = w + 24 * b
            nibbleLanes(u8(x + 8), high: x.loadUnaligned(fromByteOffset: 4, as: UInt32.self), offset: 0, a.qs + 32 * b, p.int16, lanes)
            return loadHalf(x) * a.scales[b]
        } + minTerm
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

    /// Q3_K in the order of ggml's AVX2 kernel: lane k of a block sums q·y·scale over elements 4k…4k+3
    /// of each 32, the lanes FMAed with y.d·d over the blocks.
    @inline(__always)
    package static func q3_K(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        withUnsafeTemporaryAllocation(of: Int8.self, capacity: 16) { scaleBuffer -> Float in
            guard let scales = scaleBuffer.baseAddress else { return 0 }
            return accumulate(nb) { b, p, out in
                let x = w + 110 * b
                let yq = UnsafePointer(a.qs + 256 * b)
                Dequantize.q3_KScales(x + 96, scales)
                let q0 = u8(x + 32), hm = u8(x)
                for half in 0..<2 {
                    let q = q0 + 32 * half
                    for j in 0..<4 {
                        let shift = UInt8(2 * j), bit = UInt8(4 * half + j), g = 8 * half + 2 * j
                        let y = yq + 128 * half + 32 * j, out32 = p.int32 + 128 * half + 32 * j
                        for l in 0..<32 {
                            // The high bit set means no −4 offset.
                            let v = Int32((q[l] >> shift) & 3) &- (Int32(((hm[l] >> bit) & 1) ^ 1) << 2)
                            out32[l] = Int32(scales[l < 16 ? g : g + 1]) &* (v &* Int32(y[l]))
                        }
                    }
                }
                Self.lanes(p.int32, count: 256, into: out)
                return a.scales[b] * loadHalf(x, 108)
            }
        }
    }

    /// Q4_K in the order of ggml's AVX2 kernel (see `DotAVX2.q4_K`): 8 int32 lanes per block (lane k:
    /// elements 4k…4k+3 of every sub-block, times its scale) FMAed with d, and 4 min lanes (two
    /// sub-blocks each) FMAed with −dmin.
    @inline(__always)
    package static func q4_K(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var minAcc = SIMD4<Float>()
        let main = accumulate(nb) { b, p, out in
            let x = w + 144 * b
            let yq = UnsafePointer(a.qs + 256 * b), bs = a.bsums + 16 * b
            var mins = SIMD4<Int32>()
            for chunk in 0..<4 {
                let q = u8(x + 16 + 32 * chunk), y0 = yq + 64 * chunk, y1 = y0 + 32
                let (sc0, m0) = Dequantize.scaleMinK4(2 * chunk, x + 4)
                let (sc1, m1) = Dequantize.scaleMinK4(2 * chunk + 1, x + 4)
                let s0 = Int32(sc0), s1 = Int32(sc1), p0 = p.int32 + 64 * chunk, p1 = p0 + 32
                for l in 0..<32 {
                    p0[l] = s0 &* (Int32(q[l] & 0x0F) &* Int32(y0[l]))
                    p1[l] = s1 &* (Int32(q[l] >> 4) &* Int32(y1[l]))
                }
                mins[chunk] = Int32(m0) &* (bs[4 * chunk] &+ bs[4 * chunk + 1]) &+ Int32(m1) &* (bs[4 * chunk + 2] &+ bs[4 * chunk + 3])
            }
            Self.lanes(p.int32, count: 256, into: out)
            let yd = a.scales[b]
            minAcc = GGMLOrder.fma(SIMD4<Float>(mins), SIMD4(repeating: -yd * loadHalf(x, 2)), minAcc)
            return yd * loadHalf(x)
        }
        return main + ((minAcc[0] + minAcc[2]) + (minAcc[1] + minAcc[3]))
    }

    /// Q5_K in the order of ggml's AVX2 kernel: lane k of a block sums q·y·scale over elements 4k…4k+3
    /// of each 32, the lanes FMAed with y.d·d over the blocks; the mins' part (−y.d·dmin times the
    /// integer Σ m·bsum) summed apart in float and added last.
    @inline(__always)
    package static func q5_K(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        var summs: Float = 0
        let main = accumulate(nb) { b, p, out in
            let x = w + 176 * b
            let yq = UnsafePointer(a.qs + 256 * b), bs = a.bsums + 16 * b
            let qh = u8(x + 16)
            var mins: Int32 = 0
            for chunk in 0..<4 {
                let q = u8(x + 48 + 32 * chunk), y0 = yq + 64 * chunk, y1 = y0 + 32
                let bit0 = UInt8(2 * chunk), bit1 = UInt8(2 * chunk + 1)
                let (sc0, m0) = Dequantize.scaleMinK4(2 * chunk, x + 4)
                let (sc1, m1) = Dequantize.scaleMinK4(2 * chunk + 1, x + 4)
                let p0 = p.int32 + 64 * chunk, p1 = p0 + 32
                for l in 0..<32 {
                    let h = qh[l]
                    p0[l] = Int32(sc0) &* (Int32((q[l] & 0x0F) | (((h >> bit0) & 1) << 4)) &* Int32(y0[l]))
                    p1[l] = Int32(sc1) &* (Int32((q[l] >> 4) | (((h >> bit1) & 1) << 4)) &* Int32(y1[l]))
                }
                mins &+= Int32(m0) &* (bs[4 * chunk] &+ bs[4 * chunk + 1]) &+ Int32(m1) &* (bs[4 * chunk + 2] &+ bs[4 * chunk + 3])
            }
            Self.lanes(p.int32, count: 256, into: out)
            let yd = a.scales[b]
            summs += (-yd * loadHalf(x, 2)) * Float(mins)
            return yd * loadHalf(x)
        }
        return main + summs
    }

    /// Q6_K in the order of ggml's AVX2 kernel (see `DotAVX2.q6_K`): lane k of a block sums q·y·scale
    /// over elements 4k…4k+3 of each 32, minus 32·(bsum·scale) of groups 2k and 2k+1; the 8 lanes
    /// are FMAed with d.
    @inline(__always)
    package static func q6_K(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        accumulate(nb) { b, p, out in
            let x = w + 210 * b
            let yq = UnsafePointer(a.qs + 256 * b), bs = a.bsums + 16 * b
            let sc = i8(x + 192)
            for half in 0..<2 {
                let ql = u8(x + 64 * half), qh = u8(x + 128 + 32 * half), y = yq + 128 * half
                let g = sc + 8 * half, ph = p.int32 + 128 * half
                // Quarter t: elements 0…15 with scale g[2t], 16…31 with g[2t + 1].
                for l in 0..<32 {
                    let h = qh[l], s = l >> 4
                    ph[l] = Int32(g[s]) &* (Int32((ql[l] & 0x0F) | ((h & 3) << 4)) &* Int32(y[l]))
                    ph[l + 32] = Int32(g[2 + s]) &* (Int32((ql[l + 32] & 0x0F) | (((h >> 2) & 3) << 4)) &* Int32(y[l + 32]))
                    ph[l + 64] = Int32(g[4 + s]) &* (Int32((ql[l] >> 4) | (((h >> 4) & 3) << 4)) &* Int32(y[l + 64]))
                    ph[l + 96] = Int32(g[6 + s]) &* (Int32((ql[l + 32] >> 4) | (((h >> 6) & 3) << 4)) &* Int32(y[l + 96]))
                }
            }
            Self.lanes(p.int32, count: 256, into: out)
            for m in 0..<8 {
                out[m] -= Float(32 &* (bs[2 * m] &* Int32(sc[2 * m]) &+ bs[2 * m + 1] &* Int32(sc[2 * m + 1])))
            }
            return loadHalf(x, 208) * a.scales[b]
        }
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

    /// F16 weights · F16-rounded activations (`a.blocks` holds the F16 row), in ggml_vec_dot_f16's order
    /// (what llama.cpp uses for one row of activations; it multiplies batches with tinyBLAS).
    @inline(__always)
    package static func f16(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ n: Int) -> Float {
        GGMLRows.dotF16(w.assumingMemoryBound(to: UInt16.self), UnsafePointer(a.blocks.assumingMemoryBound(to: UInt16.self)), count: n)
    }

    /// IQ4_NL in the order of ggml's AVX2 kernel (`locallm_avx2_rows_iq4_nl`): 8 int32 lanes per block
    /// as Q4_0's, blocks in pairs with even blocks FMAed into one accumulator and odd ones into another,
    /// the two added lane by lane before `GGMLOrder.sum8`; an odd last block in the scalar form.
    @inline(__always)
    package static func iq4_NL(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        let pairs = nb / 2
        var sum = withUnsafeTemporaryAllocation(of: Float.self, capacity: 18 * pairs + 16 + 16) { buffer -> Float in
            guard let base = buffer.baseAddress else { return 0 }
            // Even blocks' lanes and scales first, then the odd ones', so each chain reads contiguously.
            let lanes = base, scales = base + 16 * pairs, acc = base + 18 * pairs
            let products = UnsafeMutableRawPointer(acc + 16).bindMemory(to: Int16.self, capacity: 32)
            for b in 0..<(2 * pairs) {
                let x = w + 18 * b, q = u8(x + BlockLayout.iq4_NLQs), y = a.qs + 32 * b
                for j in 0..<16 {
                    products[j] = Int16(BlockLayout.iq4Values[Int(q[j] & 0x0F)]) &* Int16(y[j])
                    products[j + 16] = Int16(BlockLayout.iq4Values[Int(q[j] >> 4)]) &* Int16(y[j + 16])
                }
                let slot = (b % 2) * pairs + b / 2
                Self.lanes(products, into: lanes + 8 * slot)
                scales[slot] = loadHalf(x) * a.scales[b]
            }
            for i in 0..<16 { acc[i] = 0 }
            locallm_fma_chain(lanes, scales, Int32(pairs), 8, acc)
            locallm_fma_chain(lanes + 8 * pairs, scales + pairs, Int32(pairs), 8, acc + 8)
            var both = SIMD8<Float>()
            for i in 0..<8 { both[i] = acc[i] + acc[8 + i] }
            return GGMLOrder.sum8(both)
        }
        for b in (2 * pairs)..<nb {
            let x = w + 18 * b, q = u8(x + BlockLayout.iq4_NLQs), y = a.qs + 32 * b
            var sumi: Int32 = 0
            for j in 0..<16 {
                sumi &+= Int32(BlockLayout.iq4Values[Int(q[j] & 0x0F)]) &* Int32(y[j])
                    &+ Int32(BlockLayout.iq4Values[Int(q[j] >> 4)]) &* Int32(y[j + 16])
            }
            sum += (loadHalf(x) * a.scales[b]) * Float(sumi)
        }
        return sum
    }

    /// IQ4_XS in the order of ggml's AVX2 kernel (`locallm_avx2_rows_iq4_xs`): 8 int32 lanes per
    /// super-block (lane k: elements 4k…4k+3 of every sub-block, times its scale − 32) FMAed with d_x·d_y.
    @inline(__always)
    package static func iq4_XS(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        accumulate(nb) { b, p, out in
            let x = w + 136 * b, yq = a.qs + 256 * b
            for ib in 0..<8 {
                let scale = BlockLayout.iq4_XSScale(x, ib)
                let q = u8(x + BlockLayout.iq4_XSQs + 16 * ib), y = yq + 32 * ib, products = p.int32 + 32 * ib
                for j in 0..<16 {
                    products[j] = scale &* (Int32(BlockLayout.iq4Values[Int(q[j] & 0x0F)]) &* Int32(y[j]))
                    products[j + 16] = scale &* (Int32(BlockLayout.iq4Values[Int(q[j] >> 4)]) &* Int32(y[j + 16]))
                }
            }
            Self.lanes(p.int32, count: 256, into: out)
            return loadHalf(x) * a.scales[b]
        }
    }

    /// IQ4_NL as ggml multiplies a *batch* (llamafile's tinyBLAS, which takes IQ4_NL with Q8_0
    /// activations): Q4_0's order, one 8-lane FMA chain over the blocks, no pairs.
    @inline(__always)
    package static func iq4_NLOneChain(_ w: UnsafeRawPointer, _ a: PreparedActivation, _ nb: Int) -> Float {
        accumulate(nb) { b, p, lanes in
            let x = w + 18 * b, q = u8(x + BlockLayout.iq4_NLQs), y = a.qs + 32 * b
            for j in 0..<16 {
                p.int16[j] = Int16(BlockLayout.iq4Values[Int(q[j] & 0x0F)]) &* Int16(y[j])
                p.int16[j + 16] = Int16(BlockLayout.iq4Values[Int(q[j] >> 4)]) &* Int16(y[j + 16])
            }
            Self.lanes(p.int16, into: lanes)
            return loadHalf(x) * a.scales[b]
        }
    }
}
