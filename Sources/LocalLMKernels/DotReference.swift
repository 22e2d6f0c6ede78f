import LocalLMGGUF

// The plain dot products of one weight row with one quantized activation row, in ggml's generic
// formulas (`ggml_vec_dot_*_generic`): integer sums inside a block, one float multiply-add per block
// (or per sub-block scale). These are the references the fast kernels are tested against.
//
// Every function: `w` = one weight row of `n` elements, `a` = the activation row quantized in
// `Kernels.activationType(for:)` of the weight type, result = Σ w[i]·a[i].

package enum DotReference {
    package typealias Function = (_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float

    package static func function(_ type: GGMLType) -> Function? {
        switch type {
        case .f32: f32
        case .f16: f16
        case .bf16: bf16
        case .q4_0: q4_0
        case .q4_1: q4_1
        case .q5_0: q5_0
        case .q5_1: q5_1
        case .q8_0: q8_0
        case .q2_K: q2_K
        case .q3_K: q3_K
        case .q4_K: q4_K
        case .q5_K: q5_K
        case .q6_K: q6_K
        case .iq4_NL: iq4_NL
        case .iq4_XS: iq4_XS
        default: nil
        }
    }

    package static func f32(_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float {
        var sum: Double = 0
        for i in 0..<n { sum += Double(w.loadUnaligned(fromByteOffset: 4 * i, as: Float.self) * a.loadUnaligned(fromByteOffset: 4 * i, as: Float.self)) }
        return Float(sum)
    }

    package static func f16(_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float {
        var sum: Double = 0
        for i in 0..<n { sum += Double(loadHalf(w, 2 * i) * loadHalf(a, 2 * i)) }
        return Float(sum)
    }

    package static func bf16(_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float {
        var sum: Double = 0
        for i in 0..<n {
            sum += Double(bf16ToFloat(w.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))
                * bf16ToFloat(a.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)))
        }
        return Float(sum)
    }

    @inline(__always)
    static func i8(_ p: UnsafeRawPointer, _ i: Int) -> Int32 { Int32(p.load(fromByteOffset: i, as: Int8.self)) }
    @inline(__always)
    static func u8(_ p: UnsafeRawPointer, _ i: Int) -> Int32 { Int32(p.load(fromByteOffset: i, as: UInt8.self)) }

    package static func q4_0(_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float {
        var sum: Float = 0
        for b in 0..<(n / 32) {
            let x = w + 18 * b, y = a + 34 * b
            var sumi: Int32 = 0
            for j in 0..<16 {
                let q = u8(x + BlockLayout.q4_0Qs, j)
                sumi += ((q & 0x0F) - 8) * i8(y + 2, j) + ((q >> 4) - 8) * i8(y + 2, j + 16)
            }
            sum += Float(sumi) * (loadHalf(x) * loadHalf(y))
        }
        return sum
    }

    package static func q4_1(_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float {
        var sum: Float = 0
        for b in 0..<(n / 32) {
            let x = w + 20 * b, y = a + 36 * b
            var sumi: Int32 = 0
            for j in 0..<16 {
                let q = u8(x + BlockLayout.q4_1Qs, j)
                sumi += (q & 0x0F) * i8(y + 4, j) + (q >> 4) * i8(y + 4, j + 16)
            }
            sum += (loadHalf(x) * loadHalf(y)) * Float(sumi) + loadHalf(x, 2) * loadHalf(y, 2)
        }
        return sum
    }

    package static func q5_0(_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float {
        var sum: Float = 0
        for b in 0..<(n / 32) {
            let x = w + 22 * b, y = a + 34 * b
            let qh = x.loadUnaligned(fromByteOffset: 2, as: UInt32.self)
            var sumi: Int32 = 0
            for j in 0..<16 {
                let q = u8(x + BlockLayout.q5_0Qs, j)
                let h0 = Int32((qh >> UInt32(j)) & 1) << 4, h1 = Int32((qh >> UInt32(j + 16)) & 1) << 4
                sumi += (((q & 0x0F) | h0) - 16) * i8(y + 2, j) + (((q >> 4) | h1) - 16) * i8(y + 2, j + 16)
            }
            sum += Float(sumi) * (loadHalf(x) * loadHalf(y))
        }
        return sum
    }

    package static func q5_1(_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float {
        var sum: Float = 0
        for b in 0..<(n / 32) {
            let x = w + 24 * b, y = a + 36 * b
            let qh = x.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
            var sumi: Int32 = 0
            for j in 0..<16 {
                let q = u8(x + BlockLayout.q5_1Qs, j)
                let h0 = Int32((qh >> UInt32(j)) & 1) << 4, h1 = Int32((qh >> UInt32(j + 16)) & 1) << 4
                sumi += ((q & 0x0F) | h0) * i8(y + 4, j) + ((q >> 4) | h1) * i8(y + 4, j + 16)
            }
            sum += (loadHalf(x) * loadHalf(y)) * Float(sumi) + loadHalf(x, 2) * loadHalf(y, 2)
        }
        return sum
    }

    package static func q8_0(_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float {
        var sum: Float = 0
        for b in 0..<(n / 32) {
            let x = w + 34 * b, y = a + 34 * b
            var sumi: Int32 = 0
            for j in 0..<32 { sumi += i8(x + 2, j) * i8(y + 2, j) }
            sum += Float(sumi) * (loadHalf(x) * loadHalf(y))
        }
        return sum
    }

    /// Σ over 16-element groups of bsums[g] · weight(g) for the min terms of the K-quants.
    @inline(__always)
    static func bsum(_ y: UnsafeRawPointer, _ g: Int) -> Int32 {
        Int32(y.loadUnaligned(fromByteOffset: BlockLayout.q8_KBsums + 2 * g, as: Int16.self))
    }

    package static func q2_K(_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float {
        var sum: Float = 0
        for b in 0..<(n / 256) {
            let x = w + 84 * b, y = a + 292 * b
            let yd = y.loadUnaligned(as: Float.self), q8 = y + BlockLayout.q8_KQs
            var summs: Int32 = 0
            for g in 0..<16 { summs += bsum(y, g) * (u8(x, g) >> 4) }
            var isum: Int32 = 0
            for g in 0..<16 {  // group g: half g/8, shift 2·((g/2)%4), bytes 16·(g%2) of that half
                let q = x + BlockLayout.q2_KQs + 32 * (g / 8) + 16 * (g % 2)
                let shift = Int32(2 * ((g / 2) % 4))
                var s: Int32 = 0
                for l in 0..<16 { s += i8(q8, 16 * g + l) * ((u8(q, l) >> shift) & 3) }
                isum += (u8(x, g) & 0x0F) * s
            }
            sum += (yd * loadHalf(x, BlockLayout.q2_KD)) * Float(isum) - (yd * loadHalf(x, BlockLayout.q2_KDmin)) * Float(summs)
        }
        return sum
    }

    package static func q3_K(_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float {
        var sum: Float = 0
        withUnsafeTemporaryAllocation(of: Int8.self, capacity: 16) { scales in
            for b in 0..<(n / 256) {
                let x = w + 110 * b, y = a + 292 * b
                let q8 = y + BlockLayout.q8_KQs
                Dequantize.q3_KScales(x + BlockLayout.q3_KScales, scales.baseAddress!)
                var isum: Int32 = 0
                for g in 0..<16 {
                    let q = x + BlockLayout.q3_KQs + 32 * (g / 8) + 16 * (g % 2)
                    let hm = x + 16 * (g % 2)
                    let shift = Int32(2 * ((g / 2) % 4))
                    let bit = Int32(g / 2)
                    var s: Int32 = 0
                    for l in 0..<16 {
                        let low = (u8(q, l) >> shift) & 3
                        let high: Int32 = (u8(hm, l) >> bit) & 1 != 0 ? 0 : 4
                        s += i8(q8, 16 * g + l) * (low - high)
                    }
                    isum += Int32(scales[g]) * s
                }
                sum += (loadHalf(x, BlockLayout.q3_KD) * y.loadUnaligned(as: Float.self)) * Float(isum)
            }
        }
        return sum
    }

    package static func q4_K(_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float {
        var sum: Float = 0
        for b in 0..<(n / 256) {
            let x = w + 144 * b, y = a + 292 * b
            let q8 = y + BlockLayout.q8_KQs, yd = y.loadUnaligned(as: Float.self)
            var isum: Int32 = 0, summs: Int32 = 0
            for j in 0..<8 {
                let (sc, m) = Dequantize.scaleMinK4(j, x + BlockLayout.q4_KScales)
                summs += Int32(m) * (bsum(y, 2 * j) + bsum(y, 2 * j + 1))
                let q = x + BlockLayout.q4_KQs + 32 * (j / 2)
                let shift = Int32(4 * (j % 2))
                var s: Int32 = 0
                for l in 0..<32 { s += i8(q8, 32 * j + l) * ((u8(q, l) >> shift) & 0x0F) }
                isum += Int32(sc) * s
            }
            sum += (yd * loadHalf(x)) * Float(isum) - (yd * loadHalf(x, BlockLayout.q4_KDmin)) * Float(summs)
        }
        return sum
    }

    package static func q5_K(_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float {
        var sum: Float = 0
        for b in 0..<(n / 256) {
            let x = w + 176 * b, y = a + 292 * b
            let q8 = y + BlockLayout.q8_KQs, yd = y.loadUnaligned(as: Float.self)
            var isum: Int32 = 0, summs: Int32 = 0
            for j in 0..<8 {
                let (sc, m) = Dequantize.scaleMinK4(j, x + BlockLayout.q5_KScales)
                summs += Int32(m) * (bsum(y, 2 * j) + bsum(y, 2 * j + 1))
                let q = x + BlockLayout.q5_KQs + 32 * (j / 2), qh = x + BlockLayout.q5_KQh
                let shift = Int32(4 * (j % 2)), bit = Int32(j)
                var s: Int32 = 0
                for l in 0..<32 {
                    let v = ((u8(q, l) >> shift) & 0x0F) | (((u8(qh, l) >> bit) & 1) << 4)
                    s += i8(q8, 32 * j + l) * v
                }
                isum += Int32(sc) * s
            }
            sum += (yd * loadHalf(x)) * Float(isum) - (yd * loadHalf(x, BlockLayout.q5_KDmin)) * Float(summs)
        }
        return sum
    }

    package static func q6_K(_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float {
        var sum: Float = 0
        for b in 0..<(n / 256) {
            let x = w + 210 * b, y = a + 292 * b
            let q8 = y + BlockLayout.q8_KQs
            var isum: Int32 = 0
            for g in 0..<16 {  // element e = 16g + l; half h = e/128, quarter k = (e%128)/32, l32 = e%32
                let h = g / 8, k = (g % 8) / 2
                let ql = x + 64 * h + 32 * (k % 2), qh = x + BlockLayout.q6_KQh + 32 * h
                let lowShift = Int32(4 * (k / 2)), highShift = Int32(2 * k)
                var s: Int32 = 0
                for l in 0..<16 {
                    let l32 = 16 * (g % 2) + l
                    let v = (((u8(ql, l32) >> lowShift) & 0x0F) | (((u8(qh, l32) >> highShift) & 3) << 4)) - 32
                    s += i8(q8, 16 * g + l) * v
                }
                isum += i8(x + BlockLayout.q6_KScales, g) * s
            }
            sum += (loadHalf(x, BlockLayout.q6_KD) * y.loadUnaligned(as: Float.self)) * Float(isum)
        }
        return sum
    }

    /// ggml's `ggml_vec_dot_iq4_nl_q8_0` (generic): Σ over blocks of (d_x·d_y) · Σ value[q]·y.
    package static func iq4_NL(_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float {
        var sum: Float = 0
        for b in 0..<(n / 32) {
            let x = w + 18 * b, y = a + 34 * b
            var sumi1: Int32 = 0, sumi2: Int32 = 0
            for j in 0..<16 {
                let q = u8(x + BlockLayout.iq4_NLQs, j)
                sumi1 += Int32(BlockLayout.iq4Values[Int(q & 0x0F)]) * i8(y + 2, j)
                sumi2 += Int32(BlockLayout.iq4Values[Int(q >> 4)]) * i8(y + 2, j + 16)
            }
            sum += (loadHalf(x) * loadHalf(y)) * Float(sumi1 + sumi2)
        }
        return sum
    }

    /// ggml's `ggml_vec_dot_iq4_xs_q8_K` (generic): per sub-block (d_x·d_y·(scale − 32)) · Σ value[q]·y.
    package static func iq4_XS(_ w: UnsafeRawPointer, _ a: UnsafeRawPointer, _ n: Int) -> Float {
        var sum: Float = 0
        for b in 0..<(n / 256) {
            let x = w + 136 * b, y = a + 292 * b
            let d4d8 = loadHalf(x) * y.loadUnaligned(as: Float.self)
            for ib in 0..<8 {
                let qs = x + BlockLayout.iq4_XSQs + 16 * ib, q8 = y + BlockLayout.q8_KQs + 32 * ib
                var sumi1: Int32 = 0, sumi2: Int32 = 0
                for j in 0..<16 {
                    let q = u8(qs, j)
                    sumi1 += Int32(BlockLayout.iq4Values[Int(q & 0x0F)]) * i8(q8, j)
                    sumi2 += Int32(BlockLayout.iq4Values[Int(q >> 4)]) * i8(q8, j + 16)
                }
                sum += (d4d8 * Float(BlockLayout.iq4_XSScale(x, ib))) * Float(sumi1 + sumi2)
            }
        }
        return sum
    }
}
