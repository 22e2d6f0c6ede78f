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
        #expect(worst <= 1e-5, "max |Δ| \(worst)")
        #expect(expected.allSatisfy { $0.isFinite })
    }
}
