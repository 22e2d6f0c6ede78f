import Foundation
import LocalLMKernels
@testable import LocalLMRuntime
import Testing

/// Decode attention, split over the pool by positions, heads and value columns, must compute what one
/// `Attention.block` per key/value head computes: same scores, weights and outputs.
@Suite struct AttentionTests {
    @Test(arguments: [
        (KVCacheStorage.f16, Int.max, 1), (.f16, 5, 1), (.f32, Int.max, 2), (.f32, 7, 1), (.f16, Int.max, 3), (.f16, 9, 3),
        (.f32, Int.max, 3),
    ])
    func splitDecodeMatchesOneBlockPerHead(type: KVCacheStorage, window: Int, kvHeads: Int) {
        let keyLength = 32, valueLength = 48, group = 4, contextSize = 40, position = 36
        let heads = kvHeads * group
        var generator = SplitMix64(seed: UInt64(kvHeads * 1000 + min(window, 100)))
        let bytes = type == .f16 ? 2 : 4
        let keyStride = kvHeads * keyLength, valueStride = kvHeads * valueLength
        let keys = UnsafeMutableRawPointer.allocate(byteCount: contextSize * keyStride * bytes, alignment: 64)
        let values = UnsafeMutableRawPointer.allocate(byteCount: contextSize * valueStride * bytes, alignment: 64)
        defer { keys.deallocate(); values.deallocate() }
        func fill(_ p: UnsafeMutableRawPointer, _ count: Int) {
            for i in 0..<count {
                let x = Float.random(in: -1..<1, using: &generator)
                if type == .f16 { p.storeBytes(of: Float16(x).bitPattern, toByteOffset: 2 * i, as: UInt16.self) }
                else { p.storeBytes(of: x, toByteOffset: 4 * i, as: Float.self) }
            }
        }
        fill(keys, contextSize * keyStride)
        fill(values, contextSize * valueStride)
        let cache = Attention.LayerCache(type: type, keys: keys, values: values, keyStride: keyStride, valueStride: valueStride)
        let queries = (0..<(heads * keyLength)).map { _ in Float.random(in: -1..<1, using: &generator) }
        let floats = Attention.workspaceFloats(contextSize: contextSize, keyLength: keyLength, valueLength: valueLength)
        let memory = UnsafeMutablePointer<Float>.allocate(capacity: floats)
        defer { memory.deallocate() }
        let workspace = Attention.workspace(memory, contextSize: contextSize, keyLength: keyLength)
        let scale = 1 / Float(keyLength).squareRoot()

        var expected = [Float](repeating: 0, count: heads * valueLength)
        var split = [Float](repeating: .nan, count: heads * valueLength)
        queries.withUnsafeBufferPointer { q in
            expected.withUnsafeMutableBufferPointer { out in
                for kvHead in 0..<kvHeads {
                    Attention.block(
                        queries: q.baseAddress! + kvHead * group * keyLength, queryStride: keyLength, rows: group,
                        rowsPerPosition: group, start: position, cache: cache, kvHead: kvHead, keyLength: keyLength,
                        valueLength: valueLength, window: window, scale: scale, workspace: workspace,
                        out: out.baseAddress! + kvHead * group * valueLength, outStride: valueLength)
                }
            }
            let pool = ThreadPool(threadCount: 2)
            let splitFloats = Attention.workspaceFloats(contextSize: contextSize, keyLength: keyLength,
                                                        valueLength: valueLength, panelRows: kvHeads * contextSize)
            let splitMemory = UnsafeMutablePointer<Float>.allocate(capacity: splitFloats)
            defer { splitMemory.deallocate() }
            let splitWorkspace = Attention.workspace(splitMemory, contextSize: contextSize, keyLength: keyLength,
                                                     panelRows: kvHeads * contextSize)
            split.withUnsafeMutableBufferPointer { out in
                Attention.decodeSplit(
                    queries: q.baseAddress!, heads: heads, kvHeads: kvHeads, position: position, cache: cache,
                    keyLength: keyLength, valueLength: valueLength, window: window, scale: scale,
                    contextSize: contextSize, workspace: splitWorkspace, out: out.baseAddress!, pool: pool)
            }
        }
        let worst = zip(expected, split).map { abs($0 - $1) }.max() ?? .nan
        // The two paths sum scores in different orders (sgemm's against the decode kernels'), and with
        // an F16 cache both round each softmax weight to F16, as ggml does: a score one bit apart can
        // round a weight to the neighbouring F16, which moves an output by that step times a value
        // (|v| < 1): 6.1e-5 for a weight in [1/16, 1/8). Seen with OpenBLAS's SSE3 kernels and with
        // LocalLM's own sgemm; a wrong weight or value moves an output by orders of magnitude more.
        #expect(worst <= (type == .f16 ? 1.25e-4 : 1e-5), "max |Δ| \(worst)")
        #expect(expected.allSatisfy { $0.isFinite })
    }

    /// The C kernel of the weights·values product (AVX2 + FMA, chosen at run time) equals its Swift twin
    /// bit for bit: ggml_vec_dot_f16's 32 partial sums (decode) and tinyBLAS's 8 (batches), value columns
    /// that do not fill 8 lanes, and cache cells that do not start at a multiple of the lane count.
    @Test(.enabled(if: CPUFeatures.avx2FMAF16C), arguments: [32, 8])
    func weightedValuesKernelEqualsSwift(lanes: Int) {
        var generator = SplitMix64(seed: UInt64(lanes))
        let span = 203, ldv = 84
        let weights = (0..<span).map { _ in Float.random(in: 0...1, using: &generator) }
        let values = (0..<(span * ldv)).map { _ in Float.random(in: -3...3, using: &generator) }
        for (positions, columns, firstCell) in [(0..<span, 0..<64, 0), (3..<150, 16..<84, 5), (10..<11, 0..<7, 31)] {
            var c = [Float](repeating: .nan, count: ldv), swift = [Float](repeating: .nan, count: ldv)
            let ran = c.withUnsafeMutableBufferPointer {
                GGMLRows.weightedValuesAVX2(weights, positions: positions, firstCell: firstCell, values: values, ldv: ldv,
                                            columns: columns, lanes: lanes, out: $0.baseAddress!)
            }
            #expect(ran)
            swift.withUnsafeMutableBufferPointer {
                Attention.weightedValuesPortable(weights, positions: positions, firstCell: firstCell, values: values, ldv: ldv,
                                                 columns: columns, lanes: lanes, out: $0.baseAddress!)
            }
            for i in columns {
                #expect(c[i].bitPattern == swift[i].bitPattern, "lanes \(lanes) column \(i): C \(c[i]) vs Swift \(swift[i])")
            }
        }
    }

    /// Decode attention's in-place F16 kernels equal the float path on the widened cache, bit for bit:
    /// the scores (ggml_vec_dot_f16's order) of every query head of a key/value head, and each head's
    /// weights·values sums (32 partial sums by cache cell), for head groups that do and do not fill the
    /// kernel's four-head blocks, cells that do not start at a multiple of 32, and a cache of several
    /// key/value heads (strided rows).
    @Test(.enabled(if: CPUFeatures.avx2FMAF16C), arguments: [(1, 64, 1), (6, 128, 2), (7, 64, 2), (3, 48, 3)])
    func f16AttentionKernelsEqualFloatPath(group: Int, length: Int, kvHeads: Int) {
        var generator = SplitMix64(seed: UInt64(group * 100 + length))
        let span = 203, stride = kvHeads * length, kvHead = kvHeads - 1, firstCell = 13
        let cache = (0..<(span * stride)).map { _ in Kernels.halfBits(Float.random(in: -2...2, using: &generator)) }
        let widened = cache.map { halfToFloat($0) }
        let queries = (0..<(group * length)).map { _ in Float.random(in: -1...1, using: &generator) }
        #expect(GGMLRows.hasF16Attention(keyLength: length, valueLength: length))

        var scores = [Float](repeating: .nan, count: group * span)
        cache.withUnsafeBufferPointer { k in
            GGMLRows.scoresF16(keys: k.baseAddress! + kvHead * length, ldk: stride, positions: 5..<span, queries: queries,
                               queryStride: length, heads: group, count: length, into: &scores, scoreStride: span)
        }
        for h in 0..<group {
            for j in 5..<span {
                let swift = widened.withUnsafeBufferPointer { k in
                    queries.withUnsafeBufferPointer { q in
                        GGMLOrder.dotVec(k.baseAddress! + j * stride + kvHead * length, q.baseAddress! + h * length, count: length)
                    }
                }
                #expect(scores[h * span + j].bitPattern == swift.bitPattern, "score head \(h) position \(j)")
            }
        }

        let weights = (0..<(group * span)).map { _ in Float.random(in: 0...1, using: &generator) }
        let columns = 16..<length
        var out = [Float](repeating: .nan, count: group * length)
        cache.withUnsafeBufferPointer { v in
            GGMLRows.weightedValuesF16(weights, weightStride: span, heads: group, positions: 0..<span, firstCell: firstCell,
                                       values: v.baseAddress! + kvHead * length, ldv: stride, columns: columns, out: &out,
                                       outStride: length)
        }
        for h in 0..<group {
            var swift = [Float](repeating: .nan, count: length)
            weights.withUnsafeBufferPointer { w in
                widened.withUnsafeBufferPointer { v in
                    Attention.weightedValuesPortable(w.baseAddress! + h * span, positions: 0..<span, firstCell: firstCell,
                                                     values: v.baseAddress! + kvHead * length, ldv: stride, columns: columns,
                                                     lanes: 32, out: &swift)
                }
            }
            for c in columns {
                #expect(out[h * length + c].bitPattern == swift[c].bitPattern, "head \(h) column \(c)")
            }
        }
    }

    /// RoPE's C kernel equals the Swift rotation bit for bit, both pairings (adjacent and NeoX).
    @Test(.enabled(if: CPUFeatures.avx2FMAF16C), arguments: [TransformerConfiguration.RoPEPairing.adjacent, .neox])
    func ropeKernelEqualsSwift(pairing: TransformerConfiguration.RoPEPairing) {
        var generator = SplitMix64(seed: pairing == .neox ? 7 : 8)
        for dimensions in [64, 128, 256] {
            let head = (0..<dimensions).map { _ in Float.random(in: -8...8, using: &generator) }
            var table = [Float](repeating: 0, count: dimensions)
            TransformerMath.ropeTable(position: 517, dimensions: dimensions, base: 1_000_000, frequencyScale: 1, into: &table)
            var c = head, swift = head
            let ran = GGMLRows.ropeAVX2(&c, cosSin: table, dimensions: dimensions, neox: pairing == .neox)
            #expect(ran)
            TransformerMath.ropePortable(&swift, cosSin: table, dimensions: dimensions, pairing: pairing)
            for i in 0..<dimensions { #expect(c[i].bitPattern == swift[i].bitPattern, "\(dimensions) dims, element \(i)") }
        }
    }

    /// The C softmax (`GGMLRows.softmaxRow`) against the Swift loop, bit for bit: visible ranges that
    /// start and end inside 8-cell groups, a first cell that is not a multiple of 8, F16 rounding on and
    /// off, a NaN score, all-equal scores, zeros of both signs as the maximum, infinities.
    @Test(.enabled(if: CPUFeatures.avx2FMAF16C), arguments: [false, true])
    func cSoftmaxEqualsTheSwiftLoop(roundToHalf: Bool) {
        var generator = SplitMix64(seed: roundToHalf ? 5 : 6)
        let cases: [(span: Int, from: Int, to: Int, firstCell: Int)] = [
            (1, 0, 0, 0), (9, 0, 8, 3), (40, 5, 33, 11), (64, 0, 63, 0), (37, 12, 12, 0), (100, 3, 97, 7),
        ]
        for (index, c) in cases.enumerated() {
            for variant in 0..<5 {
                var row = (0..<c.span).map { _ in Float.random(in: -8..<8, using: &generator) }
                switch variant {
                case 1: row[c.to] = .nan
                case 2: for j in c.from...c.to { row[j] = 1.5 }
                case 3:
                    for j in c.from...c.to { row[j] = -abs(row[j]) - 1 }
                    row[c.from] = 0
                    row[c.to] = -0.0
                case 4: row[c.from] = .infinity
                default: break
                }
                var swift = row, cRow = row
                Attention.softmax(&swift, span: c.span, from: c.from, to: c.to, firstCell: c.firstCell, scale: 0.37,
                                  roundToHalf: roundToHalf, portable: true)
                let ran = GGMLRows.softmaxRow(&cRow, span: c.span, from: c.from, to: c.to, firstCell: c.firstCell,
                                              scale: 0.37, roundToHalf: roundToHalf)
                #expect(ran)
                for j in 0..<c.span where swift[j].bitPattern != cRow[j].bitPattern {
                    Issue.record("case \(index) variant \(variant) column \(j): Swift \(swift[j]) vs C \(cRow[j])")
                    break
                }
            }
        }
    }
}
