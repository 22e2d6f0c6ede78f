import CLocalLMShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocalLMGGUF

/// Prompt batches through the interleaved C kernels (`locallm_avx2_tiles_*`, `locallm_avx512_tiles_*`):
/// faster than the decode-exact prefill kernels and than sgemm, not decode's bits.
///
/// The decode kernels keep each row's integer sums in eight lanes (ggml's `vec_dot` order) so that a
/// prompt row is exactly what decode computes for it; that costs one `madd` with the scales per 32
/// values and activation, and a horizontal sum per row. The interleaved kernels hold eight or sixteen
/// weight rows in the lanes of one vector: each multiply instruction takes four values of every row
/// against one broadcast activation dword, and the rows' results leave in one store. Each row is then
/// one float chain over its blocks, defined by the Swift twins ``q4_K(_:_:blocks:)``,
/// ``q6_K(_:_:blocks:)`` and ``block32(_:_:_:blocks:)``, which the C kernels are tested against (bit
/// for bit).
package enum TiledPrefill {
    /// One interleaved kernel: the C function and the rows it packs together.
    package struct Kernel: Sendable {
        package let function: AVX2Rows.Tiles
        /// Rows per packed group (8 with 256-bit vectors, 16 with 512-bit ones): parts of a product
        /// split at multiples of it.
        package let rowsPerGroup: Int
        package let name: String
    }

    /// The fastest interleaved kernel for weights of `type` on this CPU, or nil. `LOCALLM_PREFILL_TILES`
    /// narrows the choice for comparisons: `avx2` (the 256-bit kernels only) or `off` (none: prompt
    /// batches then take the decode-exact kernels or sgemm).
    package static func kernel(for type: GGMLType) -> Kernel? {
        switch limit {
        case "off": return nil
        case "avx2": return kernels(for: type).first { $0.name == "avx2" }
        default: return kernels(for: type).first
        }
    }

    static let limit: String? = getenv("LOCALLM_PREFILL_TILES").map { String(cString: $0).lowercased() }

    /// Every interleaved kernel for `type` that this CPU runs, widest first (they compute the same
    /// bits; the tests check each against the Swift twin).
    package static func kernels(for type: GGMLType) -> [Kernel] {
        guard CPUFeatures.avx2FMAF16C else { return [] }
        let wide: AVX2Rows.Tiles, narrow: AVX2Rows.Tiles?, narrowRows: Int
        switch type {
        case .q4_K: (wide, narrow, narrowRows) = (locallm_avx512_tiles_q4_K, locallm_avx2_tiles_q4_K, 8)
        case .q6_K: (wide, narrow, narrowRows) = (locallm_avx512_tiles_q6_K, locallm_avx2_tiles_q6_K, 8)
        // 32-value blocks: sixteen rows in either width. Q8_0's values do not fit `maddubs` pairs
        // without the sign trick, so it has no 256-bit form.
        case .q8_0: (wide, narrow, narrowRows) = (locallm_avx512_tiles_q8_0, nil, 16)
        case .q4_0: (wide, narrow, narrowRows) = (locallm_avx512_tiles_q4_0, locallm_avx2_tiles_q4_0, 16)
        case .q5_0: (wide, narrow, narrowRows) = (locallm_avx512_tiles_q5_0, locallm_avx2_tiles_q5_0, 16)
        case .q4_1: (wide, narrow, narrowRows) = (locallm_avx512_tiles_q4_1, locallm_avx2_tiles_q4_1, 16)
        default: return []
        }
        var kernels: [Kernel] = []
        if CPUFeatures.avx512VNNI { kernels.append(Kernel(function: wide, rowsPerGroup: 16, name: "avx512-vnni")) }
        if let narrow { kernels.append(Kernel(function: narrow, rowsPerGroup: narrowRows, name: "avx2")) }
        return kernels
    }

    /// Row · activation as `locallm_avx512_tiles_q8_0`, `_q4_0`, `_q5_0` and `_q4_1` compute it: per
    /// block b, the exact integer s = Σ q·y (q the signed value, y the Q8_0/Q8_1 activation's), then
    /// acc = fma(d·yd, s, acc) and, for Q4_1, acc = fma(m, sum, acc) with the activation's block sum,
    /// blocks in order.
    package static func block32(_ type: GGMLType, _ row: UnsafeRawPointer, _ a: PreparedActivation, blocks nb: Int) -> Float {
        var acc: Float = 0
        for b in 0..<nb {
            var s = 0
            for i in 0..<32 {
                s += block32Value(type, row, block: b, i) * Int(a.qs[32 * b + i])
            }
            let x = row + type.bytesPerBlock * b
            acc = acc.addingProduct(loadHalf(x) * a.scales[b], Float(s))
            if type == .q4_1 { acc = acc.addingProduct(loadHalf(x, 2), a.sums[b]) }
        }
        return acc
    }

    /// Value i of block b of a Q8_0, Q4_0, Q5_0 or Q4_1 row (without the scale; Q4_1's without its minimum).
    static func block32Value(_ type: GGMLType, _ row: UnsafeRawPointer, block b: Int, _ i: Int) -> Int {
        let x = row + type.bytesPerBlock * b
        func nibble(_ at: Int) -> Int {
            let byte = x.load(fromByteOffset: at + i % 16, as: UInt8.self)
            return Int(i < 16 ? byte & 0x0F : byte >> 4)
        }
        switch type {
        case .q8_0: return Int(x.load(fromByteOffset: 2 + i, as: Int8.self))
        case .q4_0: return nibble(2) - 8
        case .q4_1: return nibble(4)
        default:  // Q5_0
            let high = Int((x.load(fromByteOffset: 2 + i / 8, as: UInt8.self) >> UInt8(i % 8)) & 1)
            return (nibble(6) | high << 4) - 16
        }
    }

    /// Row · activation as `locallm_avx2_tiles_q4_K` computes it: per block b, the exact integer sums
    /// s = Σ scale·q·y and m = Σ min·(sum of the activation's sub-block), then
    /// acc = fma(d·yd, s, acc) and acc = fma(−(dmin·yd), m, acc), blocks in order.
    package static func q4_K(_ row: UnsafeRawPointer, _ a: PreparedActivation, blocks nb: Int) -> Float {
        var acc: Float = 0
        for b in 0..<nb {
            let x = row + 144 * b
            let scales = x + BlockLayout.q4_KScales
            var s = 0, m = 0
            for sub in 0..<8 {
                let (scale, minimum) = Dequantize.scaleMinK4(sub, scales)
                let bytes = x + BlockLayout.q4_KQs + 32 * (sub / 2)
                var dot = 0
                for i in 0..<32 {
                    let byte = bytes.load(fromByteOffset: i, as: UInt8.self)
                    let q = sub % 2 == 0 ? byte & 0x0F : byte >> 4
                    dot += Int(q) * Int(a.qs[256 * b + 32 * sub + i])
                }
                s += Int(scale) * dot
                m += Int(minimum) * Int(a.bsums[16 * b + 2 * sub] + a.bsums[16 * b + 2 * sub + 1])
            }
            let yd = a.scales[b]
            acc = acc.addingProduct(loadHalf(x) * yd, Float(s))
            acc = acc.addingProduct(-(loadHalf(x, BlockLayout.q4_KDmin) * yd), Float(m))
        }
        return acc
    }

    /// Row · activation as `locallm_avx2_tiles_q6_K` computes it: per block b, the exact integer
    /// s = Σ scale·(q − 32)·y over its sixteen 16-value sub-blocks, then acc = fma(d·yd, s, acc), blocks
    /// in order.
    package static func q6_K(_ row: UnsafeRawPointer, _ a: PreparedActivation, blocks nb: Int) -> Float {
        var acc: Float = 0
        for b in 0..<nb {
            let x = row + 210 * b
            var s = 0
            for half in 0..<2 {
                let ql = x + 64 * half, qh = x + BlockLayout.q6_KQh + 32 * half
                for l in 0..<32 {
                    let lo0 = ql.load(fromByteOffset: l, as: UInt8.self), lo1 = ql.load(fromByteOffset: l + 32, as: UInt8.self)
                    let h = qh.load(fromByteOffset: l, as: UInt8.self)
                    let values = [(lo0 & 0x0F) | ((h & 3) << 4), (lo1 & 0x0F) | (((h >> 2) & 3) << 4),
                                  (lo0 >> 4) | (((h >> 4) & 3) << 4), (lo1 >> 4) | (((h >> 6) & 3) << 4)]
                    for (k, q) in values.enumerated() {
                        let v = 128 * half + 32 * k + l
                        let scale = x.load(fromByteOffset: BlockLayout.q6_KScales + v / 16, as: Int8.self)
                        s += Int(scale) * (Int(q) - 32) * Int(a.qs[256 * b + v])
                    }
                }
            }
            acc = acc.addingProduct(loadHalf(x, BlockLayout.q6_KD) * a.scales[b], Float(s))
        }
        return acc
    }
}

extension Kernels {
    /// Y[n × rows] = X[n × columns] · Wᵀ through the interleaved prefill kernel for `w.type`
    /// (``TiledPrefill``); false, having written nothing, when there is none on this CPU. The
    /// activations are quantized as ``matvec(_:_:rowsOfX:_:pool:scratch:)`` quantizes them; the row
    /// products are not decode's bits (see ``TiledPrefill``).
    package static func tiledProduct(
        _ w: WeightMatrix, _ x: UnsafePointer<Float>, rowsOfX n: Int, _ y: UnsafeMutablePointer<Float>,
        pool: ThreadPool, scratch: KernelScratch
    ) -> Bool {
        guard n > 0, let kernel = TiledPrefill.kernel(for: w.type),
              let multi = AVX2Rows.gemmFunction(for: w.type) ?? AVX2Rows.multiFunction(for: w.type)
        else { return false }
        let tiles = kernel.function, group = kernel.rowsPerGroup
        let columns = w.columns, rows = w.rows, stride = w.rowStride
        withBatchActivations(w, x, rowsOfX: n, scratch: scratch) { prepared in
            withUnsafeTemporaryAllocation(of: locallm_activation.self, capacity: n) { c in
                for t in 0..<n { c.initializeElement(at: t, to: prepared[t].cActivation) }
                let bytes = UnsafeRawPointer(w.data).assumingMemoryBound(to: UInt8.self), nb = columns / w.type.blockSize
                let activations = c.baseAddress!
                // Parts of whole row groups: each part packs its rows once and runs every activation.
                let parts = rows * columns < 16 * 1024 || pool.threadCount == 1
                    ? 1 : min(2 * pool.threadCount, max(1, rows / (8 * group)))
                pool.run(parts: parts) { part, parts in
                    let (start, end) = evenSplit(rows, parts: parts, part: part, granularity: group)
                    guard end > start else { return }
                    if tiles(bytes, stride, activations, n, nb, y, rows, start, end) == 0 {
                        // No memory for the packed rows: the decode-exact kernel, in groups it takes.
                        var first = 0
                        while first < n {
                            let count = min(AVX2Rows.multiMaximum, n - first)
                            multi(bytes, stride, activations + first, count, nb, y + first * rows, rows, start, end)
                            first += count
                        }
                    }
                }
                _ = c.deinitialize()
            }
        }
        return true
    }
}
