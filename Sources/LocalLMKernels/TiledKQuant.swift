import LocalLMGGUF

extension Kernels {
    /// Whether ggml's CPU backend multiplies `n` activation rows by weights of `type` with its tiled
    /// K-quant GEMM rather than row-by-row dot products: K-quant weights (not repacked) and at least 8
    /// rows, as measured against llama.cpp (llama-cpp-python 0.3.36).
    package static func ggmlUsesTiledProduct(_ type: GGMLType, rows n: Int) -> Bool {
        guard n >= 8 else { return false }
        switch type {
        case .q2_K, .q3_K, .q4_K, .q5_K, .q6_K: return true
        default: return false
        }
    }

    /// Y[n × w.rows] = X[n × w.columns] · Wᵀ for K-quant weights, in the order of ggml's tiled K-quant
    /// GEMM: each activation row is quantized to Q8_K as for a dot product; then for each output, per
    /// 256-block in order, s₁ = Σ scale·(q − bias)·y exactly in integers, r = d·Float(s₁) (rounded),
    /// r = fma(−dmin, Float(Σ min·bsum), r) for the types with mins, and acc = fma(r, d_y, acc), with no
    /// lane sums at all. Used for batches in ``BatchArithmetic``-style exact evaluation; not fast.
    package static func tiledKQuantProduct(
        _ w: WeightMatrix, _ x: UnsafePointer<Float>, rowsOfX n: Int, _ y: UnsafeMutablePointer<Float>,
        pool: ThreadPool, scratch: KernelScratch
    ) {
        let columns = w.columns, blocks = columns / 256
        guard n > 0, blocks > 0 else { return }
        let perRow = (PreparedActivation.scratchBytes(type: .q8_K, count: columns) + 63) & ~63
        let memory = scratch.buffer(KernelScratch.extraSlot, bytes: n * perRow)
        let activations = (0..<n).map { t in
            PreparedActivation(type: .q8_K, x + t * columns, count: columns, memory: memory + t * perRow)
        }
        let rows = w.rows, base = w.data, stride = w.rowStride, type = w.type
        pool.run(parts: pool.threadCount) { part, parts in
            let (r0, r1) = evenSplit(rows, parts: parts, part: part)
            guard r1 > r0 else { return }
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 256 + 32 + 32) { ints in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: n) { accs in
                    guard let q = ints.baseAddress, let acc = accs.baseAddress else { return }
                    let scales = q + 256, mins = q + 288
                    for r in r0..<r1 {
                        for t in 0..<n { acc[t] = 0 }
                        for b in 0..<blocks {
                            let block = base + r * stride + b * type.bytesPerBlock
                            let (sub, d, dmin) = decodeKBlock(type, block, q: q, scales: scales, mins: mins)
                            for t in 0..<n {
                                let a = activations[t]
                                let yq = a.qs + 256 * b
                                var s1: Int32 = 0
                                var e = 0
                                while e < 256 {
                                    var s: Int32 = 0
                                    for j in 0..<sub { s &+= q[e + j] &* Int32(yq[e + j]) }
                                    s1 &+= scales[e / sub] &* s
                                    e += sub
                                }
                                var res = d * Float(s1)
                                if let dmin {
                                    var s2: Int32 = 0
                                    let bs = a.bsums + 16 * b  // sums of 16 values
                                    for g in 0..<(256 / sub) {
                                        let sum = sub == 16 ? bs[g] : bs[2 * g] &+ bs[2 * g + 1]
                                        s2 &+= mins[g] &* sum
                                    }
                                    res = GGMLOrder.fma(-dmin, Float(s2), res)
                                }
                                acc[t] = GGMLOrder.fma(res, a.scales[b], acc[t])
                            }
                        }
                        for t in 0..<n { y[t * rows + r] = acc[t] }
                    }
                }
            }
        }
    }

    /// One K-quant block's integer values (bias applied) in `q[256]`, its sub-block scales and mins
    /// (`mins` only for the types that have them), the sub-block size, d and dmin.
    @inline(__always)
    static func decodeKBlock(
        _ type: GGMLType, _ x: UnsafeRawPointer, q: UnsafeMutablePointer<Int32>, scales: UnsafeMutablePointer<Int32>,
        mins: UnsafeMutablePointer<Int32>
    ) -> (sub: Int, d: Float, dmin: Float?) {
        let u = x.assumingMemoryBound(to: UInt8.self)
        switch type {
        case .q2_K:
            for g in 0..<16 { scales[g] = Int32(u[g] & 0x0F); mins[g] = Int32(u[g] >> 4) }
            for e in 0..<256 {
                let half = e >> 7, el = e & 127
                q[e] = Int32((u[16 + half * 32 + (el & 31)] >> UInt8(2 * (el >> 5))) & 3)
            }
            return (16, loadHalf(x, 80), loadHalf(x, 82))
        case .q3_K:
            withUnsafeTemporaryAllocation(of: Int8.self, capacity: 16) { s in
                guard let s = s.baseAddress else { return }
                Dequantize.q3_KScales(x + 96, s)
                for g in 0..<16 { scales[g] = Int32(s[g]) }
            }
            for e in 0..<256 {
                let half = e >> 7, el = e & 127, g = el >> 5, l = el & 31
                let low = (u[32 + half * 32 + l] >> UInt8(2 * g)) & 3
                let high = (u[l] >> UInt8(half * 4 + g)) & 1
                q[e] = Int32(low | (high << 2)) - 4
            }
            return (16, loadHalf(x, 108), nil)
        case .q4_K, .q5_K:
            for j in 0..<8 {
                let (sc, m) = Dequantize.scaleMinK4(j, x + 4)
                scales[j] = Int32(sc); mins[j] = Int32(m)
            }
            let five = type == .q5_K
            let qs = u + (five ? 48 : 16)
            for j in 0..<4 {
                for l in 0..<32 {
                    var low = qs[32 * j + l] & 0x0F, high = qs[32 * j + l] >> 4
                    if five {
                        low |= ((u[16 + l] >> UInt8(2 * j)) & 1) << 4
                        high |= ((u[16 + l] >> UInt8(2 * j + 1)) & 1) << 4
                    }
                    q[64 * j + l] = Int32(low)
                    q[64 * j + 32 + l] = Int32(high)
                }
            }
            return (32, loadHalf(x), loadHalf(x, 2))
        case .q6_K:
            let sc = (x + 192).assumingMemoryBound(to: Int8.self)
            for g in 0..<16 { scales[g] = Int32(sc[g]) }
            for half in 0..<2 {
                let ql = u + 64 * half, qh = u + 128 + 32 * half, out = q + 128 * half
                for l in 0..<32 {
                    let h = qh[l]
                    out[l] = Int32((ql[l] & 0x0F) | ((h & 3) << 4)) - 32
                    out[l + 32] = Int32((ql[l + 32] & 0x0F) | (((h >> 2) & 3) << 4)) - 32
                    out[l + 64] = Int32((ql[l] >> 4) | (((h >> 4) & 3) << 4)) - 32
                    out[l + 96] = Int32((ql[l + 32] >> 4) | (((h >> 6) & 3) << 4)) - 32
                }
            }
            return (16, loadHalf(x, 208), nil)
        default:
            for e in 0..<256 { q[e] = 0 }
            return (256, 0, nil)
        }
    }
}
