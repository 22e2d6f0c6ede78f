import Foundation
import LocalLMKernels

/// Scaled dot-product attention of a block of query rows of one head, as llama.cpp computes it without
/// flash attention: K·Q from the query rounded to the cache's precision, a softmax whose sum is
/// accumulated in Double, then the weights rounded like the query and multiplied with the values.
///
/// Both products are sgemm calls on Float panels: an F32 cache is read in place (strided), an F16
/// cache's head slice is first widened into per-thread panels. Scalar loops here were the largest cost
/// of a forward pass (a float reduction does not vectorize without reassociation).
enum Attention {
    /// Per-thread scratch for one block of at most `rowBlock` query rows.
    struct Workspace {
        /// Rounded queries `[rowBlock × keyLength]`.
        let queries: UnsafeMutablePointer<Float>
        /// Scores, then weights `[rowBlock × contextSize]`.
        let scores: UnsafeMutablePointer<Float>
        /// Widened keys `[contextSize × keyLength]` and values `[contextSize × valueLength]` (F16 cache).
        let keys: UnsafeMutablePointer<Float>
        let values: UnsafeMutablePointer<Float>
    }

    /// Query rows per block: bounds the score scratch to `rowBlock × contextSize` per thread.
    static let rowBlock = 64

    /// Floats of one thread's ``Workspace`` whose key and value panels hold `panelRows` rows
    /// (`contextSize` for ``block``; `kvHeads × contextSize` for ``decodeSplit``).
    static func workspaceFloats(contextSize: Int, keyLength: Int, valueLength: Int, panelRows: Int? = nil) -> Int {
        rowBlock * keyLength + rowBlock * contextSize + (panelRows ?? contextSize) * (keyLength + valueLength)
    }

    static func workspace(_ base: UnsafeMutablePointer<Float>, contextSize: Int, keyLength: Int, panelRows: Int? = nil) -> Workspace {
        let scores = base + rowBlock * keyLength
        let keys = scores + rowBlock * contextSize
        return Workspace(queries: base, scores: scores, keys: keys, values: keys + (panelRows ?? contextSize) * keyLength)
    }

    /// The cache of one layer as attention reads it.
    struct LayerCache {
        let type: KVCacheStorage
        let keys: UnsafeRawPointer
        let values: UnsafeRawPointer
        /// Elements per position row: kvHeads·keyLength and kvHeads·valueLength.
        let keyStride: Int
        let valueStride: Int
    }

    /// Attention of query rows `rows` of one key/value head: row r is at position
    /// `start + r / rowsPerPosition` (rowsPerPosition > 1 when a decode step's query heads that share
    /// the key/value head are done together, so the cache slice is widened once for all of them).
    ///
    /// - Parameters:
    ///   - queries: the first row's query `[keyLength]`, rows `queryStride` floats apart.
    ///   - kvHead: the key/value head this query head reads.
    ///   - window: visible positions per query (`Int.max` for global layers).
    ///   - out: the first row's output `[valueLength]`, rows `outStride` floats apart.
    static func block(
        queries: UnsafePointer<Float>, queryStride: Int, rows: Int, rowsPerPosition: Int = 1, start: Int,
        cache: LayerCache, kvHead: Int,
        keyLength: Int, valueLength: Int, window: Int, scale: Float, softcap: Float? = nil, workspace w: Workspace,
        out: UnsafeMutablePointer<Float>, outStride: Int, exact: Bool = false
    ) {
        guard rows > 0 else { return }
        func lower(_ position: Int) -> Int { window == Int.max ? 0 : max(0, position - window + 1) }
        let first = lower(start), last = start + (rows - 1) / rowsPerPosition  // positions any row sees
        let span = last - first + 1
        let f16 = cache.type == .f16

        if f16 {
            widen(cache, first: first, positions: 0..<span, kvHeads: kvHead..<(kvHead + 1), keyLength: keyLength,
                  valueLength: valueLength, panelRows: span, workspace: w)
        }
        let (k, ldk, v, ldv) = panels(cache, first: first, kvHead: kvHead, slot: 0, panelRows: span,
                                      keyLength: keyLength, valueLength: valueLength, workspace: w)
        for r in 0..<rows {
            prepareQuery(queries + r * queryStride, into: w.queries + r * keyLength, count: keyLength, toHalf: f16)
        }

        if exact {
            // tinyBLAS's order, as ggml multiplies batches (one 8-lane accumulator per product).
            for r in 0..<rows {
                let position = start + r / rowsPerPosition
                let q = UnsafePointer(w.queries + r * keyLength), row = w.scores + r * span
                for j in (lower(position) - first)...(position - first) {
                    row[j] = keyLength % 8 == 0 ? GGMLRows.dotTiled(k + j * ldk, q, count: keyLength)
                        : GGMLRows.dotVec(k + j * ldk, q, count: keyLength)
                }
            }
        } else {
            Kernels.gemmTransposedB(m: rows, n: span, k: keyLength, w.queries, lda: keyLength, k, ldb: ldk,
                                    w.scores, ldc: span)
        }

        for r in 0..<rows {
            let position = start + r / rowsPerPosition
            softmax(w.scores + r * span, span: span, from: lower(position) - first, to: position - first,
                    firstCell: first, scale: scale, softcap: softcap, roundToHalf: f16)
        }

        if exact {
            for r in 0..<rows {
                let position = start + r / rowsPerPosition
                weightedValues(UnsafePointer(w.scores + r * span), positions: (lower(position) - first)..<(position - first + 1),
                               firstCell: first, values: v, ldv: ldv, columns: 0..<valueLength, lanes: 8, out: out + r * outStride)
            }
        } else {
            Kernels.gemm(m: rows, n: valueLength, k: span, w.scores, lda: span, v, ldb: ldv, out, ldc: outStride)
        }
    }

    /// `count` query values as the products use them: rounded to F16 against an F16 cache (ggml
    /// converts the query to the cache's vec_dot type), unchanged against an F32 one.
    @inline(__always)
    static func prepareQuery(_ src: UnsafePointer<Float>, into dst: UnsafeMutablePointer<Float>, count: Int, toHalf: Bool) {
        if toHalf {
            GGMLRows.roundToHalf(src, count: count, into: dst)
        } else {
            dst.update(from: src, count: count)
        }
    }

    /// Widens positions `first + j`, j in `positions`, of key/value heads `kvHeads` of an F16 cache into
    /// the workspace's F32 panels (head g's row j at panel row `(g − kvHeads.lowerBound)·panelRows + j`).
    /// Each position's slices are a short run inside a longer cache row, read from DRAM once per token:
    /// the rows a few positions ahead are prefetched, or every slice would wait on memory.
    static func widen(
        _ cache: LayerCache, first: Int, positions: Range<Int>, kvHeads: Range<Int>, keyLength: Int, valueLength: Int,
        panelRows: Int, workspace w: Workspace
    ) {
        let keys = cache.keys.assumingMemoryBound(to: UInt16.self) + kvHeads.lowerBound * keyLength
        let values = cache.values.assumingMemoryBound(to: UInt16.self) + kvHeads.lowerBound * valueLength
        let ahead = 8
        for j in positions {
            let keyRow = keys + (first + j) * cache.keyStride, valueRow = values + (first + j) * cache.valueStride
            if j + ahead < positions.upperBound {
                Prefetch.bytes(keyRow + ahead * cache.keyStride, count: 2 * kvHeads.count * keyLength)
                Prefetch.bytes(valueRow + ahead * cache.valueStride, count: 2 * kvHeads.count * valueLength)
            }
            for g in 0..<kvHeads.count {
                Kernels.widen(keyRow + g * keyLength, w.keys + (g * panelRows + j) * keyLength, count: keyLength)
                Kernels.widen(valueRow + g * valueLength, w.values + (g * panelRows + j) * valueLength, count: valueLength)
            }
        }
    }

    /// Key/value head `kvHead`'s K and V panels (row j = position `first + j`) with their leading
    /// dimensions: the widened copy in panel `slot` of the workspace for an F16 cache, the cache
    /// itself (strided) for an F32 one.
    @inline(__always)
    static func panels(
        _ cache: LayerCache, first: Int, kvHead: Int, slot: Int, panelRows: Int, keyLength: Int, valueLength: Int,
        workspace w: Workspace
    ) -> (keys: UnsafePointer<Float>, ldk: Int, values: UnsafePointer<Float>, ldv: Int) {
        if cache.type == .f16 {
            return (UnsafePointer(w.keys + slot * panelRows * keyLength), keyLength,
                    UnsafePointer(w.values + slot * panelRows * valueLength), valueLength)
        }
        return (cache.keys.assumingMemoryBound(to: Float.self) + first * cache.keyStride + kvHead * keyLength, cache.keyStride,
                cache.values.assumingMemoryBound(to: Float.self) + first * cache.valueStride + kvHead * valueLength, cache.valueStride)
    }

    /// Soft-caps (cap·tanh(score/cap), when `softcap` is set), scales a row of scores and turns its visible columns `from...to` into softmax weights, zeroing
    /// the others; the weights are rounded to F16 against an F16 cache.
    ///
    /// As ggml_compute_forward_soft_max_f32: the exponentials are ggml_v_expf's (``GGMLOrder/exp(_:)``),
    /// summed in groups of 8 cache cells (cell `firstCell + j` is column j; hidden cells count as 0)
    /// with ``GGMLOrder/sum8(_:)``, the groups in Double; the weights are e · Float(1 / sum).
    /// Without a soft cap, on AVX2 CPUs, the C kernel computes it (`GGMLRows.softmaxRow`, the same bits;
    /// `portable` keeps the Swift loop, for the test that compares them).
    @inline(__always)
    static func softmax(_ row: UnsafeMutablePointer<Float>, span: Int, from: Int, to: Int, firstCell: Int = 0,
                        scale: Float, softcap: Float? = nil, roundToHalf: Bool, portable: Bool = false) {
        if softcap == nil, !portable,
           GGMLRows.softmaxRow(row, span: span, from: from, to: to, firstCell: firstCell, scale: scale, roundToHalf: roundToHalf) {
            return
        }
        var maxScore = -Float.infinity
        if let softcap {
            let inverse = 1 / softcap
            for j in from...to { row[j] = tanhf(row[j] * inverse) * softcap }
        }
        for j in from...to {
            let s = row[j] * scale
            row[j] = s
            maxScore = max(maxScore, s)
        }
        GGMLRows.expShifted(row + from, count: to - from + 1, shift: maxScore)
        var sum: Double = 0
        var cell = (firstCell + from) / 8 * 8
        while cell <= firstCell + to {
            var group = SIMD8<Float>()
            for lane in 0..<8 {
                let j = cell + lane - firstCell
                if j >= from && j <= to { group[lane] = row[j] }
            }
            sum += Double(GGMLOrder.sum8(group))
            cell += 8
        }
        let inverse = Float(1 / sum)
        for j in 0..<from { row[j] = 0 }
        for j in from...to { row[j] *= inverse }
        if roundToHalf { GGMLRows.roundToHalf(row + from, count: to - from + 1, into: row + from) }
        for j in (to + 1)..<span { row[j] = 0 }
    }

    /// out[c] = Σ_j weights[j] · values[j·ldv + c] for c in `columns`, over `positions`, summed as ggml's
    /// products sum: each output's terms go to `lanes` partial sums by cache cell (`firstCell + j`)
    /// modulo `lanes`, accumulated with FMA in position order. 32 lanes and ``GGMLOrder/reduce4x8`` is
    /// ggml_vec_dot_f16 (one query: decode); 8 lanes and ``GGMLOrder/sum8(_:)`` is tinyBLAS (batches).
    /// Hidden positions have weight 0 and add nothing, so only `positions` are visited.
    static func weightedValues(
        _ weights: UnsafePointer<Float>, positions: Range<Int>, firstCell: Int, values: UnsafePointer<Float>, ldv: Int,
        columns: Range<Int>, lanes: Int, out: UnsafeMutablePointer<Float>
    ) {
        if GGMLRows.weightedValuesAVX2(weights, positions: positions, firstCell: firstCell, values: values, ldv: ldv,
                                       columns: columns, lanes: lanes, out: out) {
            return
        }
        weightedValuesPortable(weights, positions: positions, firstCell: firstCell, values: values, ldv: ldv,
                               columns: columns, lanes: lanes, out: out)
    }

    /// ``weightedValues(_:positions:firstCell:values:ldv:columns:lanes:out:)`` in Swift: the reference of
    /// its C kernel, and the path on CPUs without AVX2.
    static func weightedValuesPortable(
        _ weights: UnsafePointer<Float>, positions: Range<Int>, firstCell: Int, values: UnsafePointer<Float>, ldv: Int,
        columns: Range<Int>, lanes: Int, out: UnsafeMutablePointer<Float>
    ) {
        withUnsafeTemporaryAllocation(of: SIMD8<Float>.self, capacity: 32) { partial in
            var c = columns.lowerBound
            while c < columns.upperBound {
                let width = min(8, columns.upperBound - c)
                for i in 0..<lanes { partial[i] = SIMD8<Float>() }
                for j in positions {
                    let p = weights[j]
                    let row = values + j * ldv + c
                    var v = SIMD8<Float>()
                    if width == 8 {
                        v = UnsafeRawPointer(row).loadUnaligned(as: SIMD8<Float>.self)
                    } else {
                        for i in 0..<width { v[i] = row[i] }
                    }
                    let slot = (firstCell + j) % lanes
                    partial[slot] = GGMLOrder.fma(v, SIMD8<Float>(repeating: p), partial[slot])
                }
                for i in 0..<width {
                    if lanes == 32 {
                        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>(), a2 = SIMD8<Float>(), a3 = SIMD8<Float>()
                        for l in 0..<8 {
                            a0[l] = partial[l][i]; a1[l] = partial[8 + l][i]
                            a2[l] = partial[16 + l][i]; a3[l] = partial[24 + l][i]
                        }
                        out[c + i] = GGMLOrder.reduce4x8(a0, a1, a2, a3)
                    } else {
                        var a0 = SIMD8<Float>()
                        for l in 0..<8 { a0[l] = partial[l][i] }
                        out[c + i] = GGMLOrder.sum8(a0)
                    }
                }
                c += width
            }
        }
    }

    /// Decode attention (one position) of every head, with the work split over the pool by positions,
    /// then heads, then value columns rather than by key/value head: with fewer key/value heads than
    /// threads (Gemma 3 has one) or a number that does not divide among them (SmolLM2's three on two
    /// threads), one ``block`` per key/value head leaves threads idle. Three pool calls:
    /// 1. each thread widens (F16) and scores a share of the positions, for every key/value head;
    /// 2. each normalizes a share of the heads;
    /// 3. each multiplies the weights with a share of (key/value head, value columns).
    /// Every score, weight and output element is formed as ``block`` forms it.
    ///
    /// - Parameters:
    ///   - queries: `[heads × keyLength]`; out: `[heads × valueLength]`.
    ///   - workspace: its `keys`/`values` must hold `kvHeads × contextSize` rows (`panelRows` of
    ///     ``workspace(_:contextSize:keyLength:panelRows:)``).
    static func decodeSplit(
        queries: UnsafePointer<Float>, heads: Int, kvHeads: Int, position: Int, cache: LayerCache,
        keyLength: Int, valueLength: Int, window: Int, scale: Float, softcap: Float? = nil, contextSize: Int,
        workspace w: Workspace,
        out: UnsafeMutablePointer<Float>, pool: ThreadPool
    ) {
        guard heads > 0, kvHeads > 0, heads % kvHeads == 0, heads <= rowBlock else { return }
        let group = heads / kvHeads
        let first = window == Int.max ? 0 : max(0, position - window + 1)
        let span = position - first + 1
        let f16 = cache.type == .f16
        prepareQuery(queries, into: w.queries, count: heads * keyLength, toHalf: f16)
        let threads = pool.threadCount
        // On AVX2 an F16 cache is read in place, each row widened once in registers for every query head
        // of its key/value head; elsewhere it is first widened into the workspace's F32 panels.
        let direct = f16 && GGMLRows.hasF16Attention(keyLength: keyLength, valueLength: valueLength)
        pool.run(parts: threads) { part, parts in
            let (j0, j1) = Kernels.evenSplit(span, parts: parts, part: part, granularity: 16)
            guard j1 > j0 else { return }
            if direct {
                for g in 0..<kvHeads {
                    let keys = UnsafePointer(cache.keys.assumingMemoryBound(to: UInt16.self)) + first * cache.keyStride
                        + g * keyLength
                    GGMLRows.scoresF16(keys: keys, ldk: cache.keyStride, positions: j0..<j1,
                                       queries: w.queries + g * group * keyLength, queryStride: keyLength, heads: group,
                                       count: keyLength, into: w.scores + g * group * span, scoreStride: span)
                }
                return
            }
            if f16 {
                widen(cache, first: first, positions: j0..<j1, kvHeads: 0..<kvHeads, keyLength: keyLength,
                      valueLength: valueLength, panelRows: contextSize, workspace: w)
            }
            for g in 0..<kvHeads {
                let (k, ldk, _, _) = panels(cache, first: first, kvHead: g, slot: g, panelRows: contextSize,
                                            keyLength: keyLength, valueLength: valueLength, workspace: w)
                GGMLRows.scores(keys: k, ldk: ldk, positions: j0..<j1, queries: w.queries + g * group * keyLength,
                                queryStride: keyLength, heads: group, count: keyLength, into: w.scores + g * group * span,
                                scoreStride: span)
            }
        }
        pool.run(parts: min(threads, heads)) { part, parts in
            let (h0, h1) = Kernels.evenSplit(heads, parts: parts, part: part)
            for h in h0..<h1 {
                softmax(w.scores + h * span, span: span, from: 0, to: span - 1, firstCell: first, scale: scale,
                        softcap: softcap, roundToHalf: f16)
            }
        }
        let chunks = max(1, min(threads, valueLength / 16))
        pool.run(parts: kvHeads * chunks) { part, _ in
            let g = part / chunks
            let (c0, c1) = Kernels.evenSplit(valueLength, parts: chunks, part: part % chunks, granularity: 16)
            guard c1 > c0 else { return }
            if direct {
                let values = UnsafePointer(cache.values.assumingMemoryBound(to: UInt16.self)) + first * cache.valueStride
                    + g * valueLength
                GGMLRows.weightedValuesF16(UnsafePointer(w.scores + g * group * span), weightStride: span, heads: group,
                                           positions: 0..<span, firstCell: first, values: values, ldv: cache.valueStride,
                                           columns: c0..<c1, out: out + g * group * valueLength, outStride: valueLength)
                return
            }
            let (_, _, v, ldv) = panels(cache, first: first, kvHead: g, slot: g, panelRows: contextSize,
                                        keyLength: keyLength, valueLength: valueLength, workspace: w)
            for h in (g * group)..<((g + 1) * group) {
                weightedValues(UnsafePointer(w.scores + h * span), positions: 0..<span, firstCell: first, values: v, ldv: ldv,
                               columns: c0..<c1, lanes: 32, out: out + h * valueLength)
            }
        }
    }
}
