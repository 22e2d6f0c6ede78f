import LocalLMGGUF

// Dequantization of one block per call, in the exact float operations of ggml's
// `dequantize_row_*` (and gguf-py's numpy port): every product and difference is one float32 op, so
// results are bit-identical to the reference. Swift does not contract `a * b - c` into an FMA.

/// The plain per-block dequantizers. `src` points at one block; `y` receives `type.blockSize` floats.
package enum Dequantize {
    @inline(__always)
    package static func q4_0(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(x)
        let qs = x + BlockLayout.q4_0Qs
        for j in 0..<16 {
            let b = qs.load(fromByteOffset: j, as: UInt8.self)
            y[j] = Float(Int32(b & 0x0F) - 8) * d
            y[j + 16] = Float(Int32(b >> 4) - 8) * d
        }
    }

    @inline(__always)
    package static func q4_1(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(x), m = loadHalf(x, BlockLayout.q4_1M)
        let qs = x + BlockLayout.q4_1Qs
        for j in 0..<16 {
            let b = qs.load(fromByteOffset: j, as: UInt8.self)
            y[j] = Float(b & 0x0F) * d + m
            y[j + 16] = Float(b >> 4) * d + m
        }
    }

    @inline(__always)
    package static func q5_0(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(x)
        let qh = x.loadUnaligned(fromByteOffset: BlockLayout.q5_0Qh, as: UInt32.self)
        let qs = x + BlockLayout.q5_0Qs
        for j in 0..<16 {
            let b = qs.load(fromByteOffset: j, as: UInt8.self)
            let h0 = Int32((qh >> UInt32(j)) & 1) << 4
            let h1 = Int32((qh >> UInt32(j + 16)) & 1) << 4
            y[j] = Float((Int32(b & 0x0F) | h0) - 16) * d
            y[j + 16] = Float((Int32(b >> 4) | h1) - 16) * d
        }
    }

    @inline(__always)
    package static func q5_1(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(x), m = loadHalf(x, BlockLayout.q5_1M)
        let qh = x.loadUnaligned(fromByteOffset: BlockLayout.q5_1Qh, as: UInt32.self)
        let qs = x + BlockLayout.q5_1Qs
        for j in 0..<16 {
            let b = qs.load(fromByteOffset: j, as: UInt8.self)
            let h0 = Int32((qh >> UInt32(j)) & 1) << 4
            let h1 = Int32((qh >> UInt32(j + 16)) & 1) << 4
            y[j] = Float(Int32(b & 0x0F) | h0) * d + m
            y[j + 16] = Float(Int32(b >> 4) | h1) * d + m
        }
    }

    @inline(__always)
    package static func q8_0(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(x)
        let qs = x + BlockLayout.q8_0Qs
        for j in 0..<32 { y[j] = Float(qs.load(fromByteOffset: j, as: Int8.self)) * d }
    }

    @inline(__always)
    package static func q8_1(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(x)
        let qs = x + BlockLayout.q8_1Qs
        for j in 0..<32 { y[j] = Float(qs.load(fromByteOffset: j, as: Int8.self)) * d }
    }

    @inline(__always)
    package static func q2_K(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(x, BlockLayout.q2_KD), dmin = loadHalf(x, BlockLayout.q2_KDmin)
        var out = y
        var group = 0
        for half in 0..<2 {  // 128 elements each, 32 bytes of qs
            let q = x + BlockLayout.q2_KQs + 32 * half
            for shift in stride(from: 0, to: 8, by: 2) {
                for sub in 0..<2 {  // two groups of 16 share the 32 bytes at this shift
                    let sc = x.load(fromByteOffset: group, as: UInt8.self)
                    group += 1
                    let dl = d * Float(sc & 0x0F), ml = dmin * Float(sc >> 4)
                    for l in 0..<16 {
                        let v = (q.load(fromByteOffset: 16 * sub + l, as: UInt8.self) >> UInt8(shift)) & 3
                        out[l] = dl * Float(v) - ml
                    }
                    out += 16
                }
            }
        }
    }

    /// The 16 six-bit Q3_K scales (still offset by 32), unpacked from 12 bytes.
    @inline(__always)
    package static func q3_KScales(_ s: UnsafeRawPointer, _ out: UnsafeMutablePointer<Int8>) {
        for i in 0..<16 {
            let low = (s.load(fromByteOffset: i % 8, as: UInt8.self) >> (i < 8 ? 0 : 4)) & 0x0F
            let high = (s.load(fromByteOffset: 8 + i % 4, as: UInt8.self) >> UInt8(2 * (i / 4))) & 3
            out[i] = Int8(low | (high << 4)) - 32
        }
    }

    @inline(__always)
    package static func q3_K(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(x, BlockLayout.q3_KD)
        withUnsafeTemporaryAllocation(of: Int8.self, capacity: 16) { scales in
            q3_KScales(x + BlockLayout.q3_KScales, scales.baseAddress!)
            var out = y
            var group = 0
            var mask: UInt8 = 1
            for half in 0..<2 {
                let q = x + BlockLayout.q3_KQs + 32 * half
                for shift in stride(from: 0, to: 8, by: 2) {
                    for sub in 0..<2 {
                        let dl = d * Float(scales[group])
                        group += 1
                        for l in 0..<16 {
                            let low = Int8((q.load(fromByteOffset: 16 * sub + l, as: UInt8.self) >> UInt8(shift)) & 3)
                            let hm = x.load(fromByteOffset: 16 * sub + l, as: UInt8.self)
                            out[l] = dl * Float(low - (hm & mask != 0 ? 0 : 4))
                        }
                        out += 16
                    }
                    mask <<= 1
                }
            }
        }
    }

    /// Scale and min `j` (0..<8) of a Q4_K/Q5_K block (ggml `get_scale_min_k4`).
    @inline(__always)
    package static func scaleMinK4(_ j: Int, _ q: UnsafeRawPointer) -> (scale: UInt8, min: UInt8) {
        if j < 4 {
            return (q.load(fromByteOffset: j, as: UInt8.self) & 63, q.load(fromByteOffset: j + 4, as: UInt8.self) & 63)
        }
        let a = q.load(fromByteOffset: j + 4, as: UInt8.self)
        let lowScale = q.load(fromByteOffset: j - 4, as: UInt8.self), lowMin = q.load(fromByteOffset: j, as: UInt8.self)
        return ((a & 0x0F) | ((lowScale >> 6) << 4), (a >> 4) | ((lowMin >> 6) << 4))
    }

    @inline(__always)
    package static func q4_K(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(x), dmin = loadHalf(x, BlockLayout.q4_KDmin)
        let scales = x + BlockLayout.q4_KScales
        for chunk in 0..<4 {  // 64 elements: low nibbles then high nibbles of 32 bytes
            let q = x + BlockLayout.q4_KQs + 32 * chunk
            let (s1, m1) = scaleMinK4(2 * chunk, scales), (s2, m2) = scaleMinK4(2 * chunk + 1, scales)
            let d1 = d * Float(s1), dm1 = dmin * Float(m1), d2 = d * Float(s2), dm2 = dmin * Float(m2)
            let out = y + 64 * chunk
            for l in 0..<32 {
                let b = q.load(fromByteOffset: l, as: UInt8.self)
                out[l] = d1 * Float(b & 0x0F) - dm1
                out[l + 32] = d2 * Float(b >> 4) - dm2
            }
        }
    }

    @inline(__always)
    package static func q5_K(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(x), dmin = loadHalf(x, BlockLayout.q5_KDmin)
        let scales = x + BlockLayout.q5_KScales
        let qh = x + BlockLayout.q5_KQh
        for chunk in 0..<4 {
            let q = x + BlockLayout.q5_KQs + 32 * chunk
            let (s1, m1) = scaleMinK4(2 * chunk, scales), (s2, m2) = scaleMinK4(2 * chunk + 1, scales)
            let d1 = d * Float(s1), dm1 = dmin * Float(m1), d2 = d * Float(s2), dm2 = dmin * Float(m2)
            let u1 = UInt8(1) << UInt8(2 * chunk), u2 = UInt8(2) << UInt8(2 * chunk)
            let out = y + 64 * chunk
            for l in 0..<32 {
                let b = q.load(fromByteOffset: l, as: UInt8.self), h = qh.load(fromByteOffset: l, as: UInt8.self)
                out[l] = d1 * Float((b & 0x0F) + (h & u1 != 0 ? 16 : 0)) - dm1
                out[l + 32] = d2 * Float((b >> 4) + (h & u2 != 0 ? 16 : 0)) - dm2
            }
        }
    }

    @inline(__always)
    package static func q6_K(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(x, BlockLayout.q6_KD)
        for half in 0..<2 {  // 128 elements from 64 ql bytes, 32 qh bytes, 8 scales
            let ql = x + 64 * half, qh = x + BlockLayout.q6_KQh + 32 * half
            let sc = x + BlockLayout.q6_KScales + 8 * half
            let out = y + 128 * half
            for l in 0..<32 {
                let group = l / 16
                let a = ql.load(fromByteOffset: l, as: UInt8.self), b = ql.load(fromByteOffset: l + 32, as: UInt8.self)
                let h = qh.load(fromByteOffset: l, as: UInt8.self)
                let q1 = Int8((a & 0x0F) | ((h & 3) << 4)) - 32
                let q2 = Int8((b & 0x0F) | (((h >> 2) & 3) << 4)) - 32
                let q3 = Int8((a >> 4) | (((h >> 4) & 3) << 4)) - 32
                let q4 = Int8((b >> 4) | (((h >> 6) & 3) << 4)) - 32
                out[l] = (d * Float(sc.load(fromByteOffset: group, as: Int8.self))) * Float(q1)
                out[l + 32] = (d * Float(sc.load(fromByteOffset: group + 2, as: Int8.self))) * Float(q2)
                out[l + 64] = (d * Float(sc.load(fromByteOffset: group + 4, as: Int8.self))) * Float(q3)
                out[l + 96] = (d * Float(sc.load(fromByteOffset: group + 6, as: Int8.self))) * Float(q4)
            }
        }
    }

    @inline(__always)
    package static func q8_K(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = x.loadUnaligned(as: Float.self)
        for j in 0..<256 { y[j] = Float(x.load(fromByteOffset: BlockLayout.q8_KQs + j, as: Int8.self)) * d }
    }

    /// IQ4_NL: x = d · value[q] (gguf-py: `d * kvalues[q]`).
    @inline(__always)
    package static func iq4_NL(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(x)
        let qs = x + BlockLayout.iq4_NLQs
        for j in 0..<16 {
            let b = qs.load(fromByteOffset: j, as: UInt8.self)
            y[j] = d * Float(BlockLayout.iq4Values[Int(b & 0x0F)])
            y[j + 16] = d * Float(BlockLayout.iq4Values[Int(b >> 4)])
        }
    }

    /// IQ4_XS: eight sub-blocks of 32, each x = (d · (scale − 32)) · value[q].
    @inline(__always)
    package static func iq4_XS(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(x)
        for ib in 0..<8 {
            let dl = d * Float(BlockLayout.iq4_XSScale(x, ib))
            let qs = x + BlockLayout.iq4_XSQs + 16 * ib, out = y + 32 * ib
            for j in 0..<16 {
                let b = qs.load(fromByteOffset: j, as: UInt8.self)
                out[j] = dl * Float(BlockLayout.iq4Values[Int(b & 0x0F)])
                out[j + 16] = dl * Float(BlockLayout.iq4Values[Int(b >> 4)])
            }
        }
    }

    /// The per-block dequantizer of `type`, or nil for unsupported types.
    package static func blockFunction(_ type: GGMLType) -> ((UnsafeRawPointer, UnsafeMutablePointer<Float>) -> Void)? {
        switch type {
        case .f32: { x, y in y[0] = x.loadUnaligned(as: Float.self) }
        case .f16: { x, y in y[0] = loadHalf(x) }
        case .bf16: { x, y in y[0] = bf16ToFloat(x.loadUnaligned(as: UInt16.self)) }
        case .q4_0: q4_0
        case .q4_1: q4_1
        case .q5_0: q5_0
        case .q5_1: q5_1
        case .q8_0: q8_0
        case .q8_1: q8_1
        case .q2_K: q2_K
        case .q3_K: q3_K
        case .q4_K: q4_K
        case .q5_K: q5_K
        case .q6_K: q6_K
        case .q8_K: q8_K
        case .iq4_NL: iq4_NL
        case .iq4_XS: iq4_XS
        default: nil
        }
    }
}

extension Kernels {
    /// Dequantizes `count` elements (a whole number of blocks) of `type` from `src` into `into`.
    /// Bit-exact with ggml's `dequantize_row_*` and gguf-py. Unsupported types write nothing.
    public static func dequantize(type: GGMLType, _ src: UnsafeRawPointer, count: Int, into out: UnsafeMutablePointer<Float>) {
        switch type {
        case .f32:
            out.update(from: src.assumingMemoryBound(to: Float.self), count: count)
        case .f16:
            for i in 0..<count { out[i] = halfToFloat(src.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)) }
        case .bf16:
            for i in 0..<count { out[i] = bf16ToFloat(src.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)) }
        default:
            if AVX2Rows.dequantize(type, src, count: count, into: out) { return }
            guard let block = Dequantize.blockFunction(type) else { return }
            let blockSize = type.blockSize, bytes = type.bytesPerBlock
            for b in 0..<(count / blockSize) { block(src + b * bytes, out + b * blockSize) }
        }
    }

    /// Dequantizes row `row` of `w` (`w.columns` floats), e.g. an embedding lookup.
    public static func dequantizeRow(_ w: WeightMatrix, row: Int, into out: UnsafeMutablePointer<Float>) {
        dequantize(type: w.type, w.row(row), count: w.columns, into: out)
    }
}
