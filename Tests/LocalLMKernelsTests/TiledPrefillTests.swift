import CLocalLMShims
import LocalLMGGUF
import Testing
@testable import LocalLMKernels

/// The interleaved prefill kernels (`locallm_avx2_tiles_q4_K`, `_q6_K`) against their Swift twins
/// (`TiledPrefill.q4_K`, `.q6_K`), bit for bit, and the twin against the product of the dequantized weights
/// and activation (`Dequantize`, bit-exact with gguf-py) in double precision.
struct TiledPrefillTests {
    static let types: [GGMLType] = [.q4_K, .q6_K, .q8_0, .q4_0, .q5_0, .q4_1]

    static func twin(_ type: GGMLType) -> (UnsafeRawPointer, PreparedActivation, Int) -> Float {
        switch type {
        case .q4_K: { TiledPrefill.q4_K($0, $1, blocks: $2) }
        case .q6_K: { TiledPrefill.q6_K($0, $1, blocks: $2) }
        default: { TiledPrefill.block32(type, $0, $1, blocks: $2) }
        }
    }

    /// n activations of `columns` values quantized as the kernels take them (Q8_K for Q4_K).
    final class Activations {
        let memory: UnsafeMutableRawPointer
        let prepared: [PreparedActivation]
        init(type: GGMLType, columns: Int, n: Int, seed: UInt64) {
            let x = randomActivations(n * columns, seed: seed)
            let actType = Kernels.activationType(for: type)
            let perRow = (PreparedActivation.scratchBytes(type: actType, count: columns) + 63) & ~63
            memory = UnsafeMutableRawPointer.allocate(byteCount: n * perRow, alignment: 64)
            let memory = memory
            prepared = x.withUnsafeBufferPointer { xp in
                (0..<n).map { PreparedActivation(type: actType, xp.baseAddress! + $0 * columns, count: columns,
                                                 memory: memory + $0 * perRow) }
            }
        }
        deinit { memory.deallocate() }
    }

    /// Every kernel this CPU runs (the AVX2 one — eight rows per group for Q4_K and Q6_K, sixteen for
    /// the 32-value block types — and the 16-row AVX-512 VNNI one where the CPU has it): 37 rows
    /// (groups of eight or sixteen and a tail of five), 7 activations (a group of four and three single
    /// ones), row ranges that start inside a group.
    @Test(.enabled(if: CPUFeatures.avx2FMAF16C), arguments: types, [256, 2304])
    func cKernelEqualsSwiftTwin(type: GGMLType, columns: Int) throws {
        let rows = 37, n = 7, nb = columns / type.blockSize, twin = Self.twin(type)
        let weights = try RandomWeights(type: type, rows: rows, columns: columns, seed: 77 + UInt64(columns))
        let acts = Activations(type: type, columns: columns, n: n, seed: 78)
        let kernels = TiledPrefill.kernels(for: type)
        #expect(kernels.contains { $0.name == "avx512-vnni" } == CPUFeatures.avx512VNNI)
        #expect(kernels.contains { $0.name == "avx2" } == (type != .q8_0))
        for kernel in kernels {
            #expect(kernel.rowsPerGroup == (kernel.name == "avx2" && [.q4_K, .q6_K].contains(type) ? 8 : 16))
        }
        let c = acts.prepared.map(\.cActivation)
        let bytes = weights.matrix.data.assumingMemoryBound(to: UInt8.self)
        for kernel in kernels {
          for (start, end) in [(0, rows), (3, 34), (16, rows), (5, 6), (8, 30)] {
            var y = [Float](repeating: .nan, count: n * rows)
            let status = c.withUnsafeBufferPointer {
                kernel.function(bytes, weights.matrix.rowStride, $0.baseAddress!, n, nb, &y, rows, start, end)
            }
            #expect(status == 1)
            for j in 0..<n {
                for r in 0..<rows {
                    let value = y[j * rows + r]
                    if r < start || r >= end {
                        #expect(value.isNaN, "row \(r) outside \(start)..<\(end) was written")
                        continue
                    }
                    let expected = twin(weights.matrix.row(r), acts.prepared[j], nb)
                    #expect(value.bitPattern == expected.bitPattern,
                            "\(kernel.name) \(type) \(columns) columns, row \(r) of \(start)..<\(end), activation \(j): C \(value) vs Swift \(expected)")
                }
            }
          }
        }
    }

    /// The twin is the product: within float rounding of Σ dequantized weight · dequantized activation.
    @Test(arguments: types)
    func swiftTwinIsTheProduct(type: GGMLType) throws {
        let rows = 6, columns = 1024, nb = columns / type.blockSize, twin = Self.twin(type)
        let weights = try RandomWeights(type: type, rows: rows, columns: columns, seed: 91)
        let acts = Activations(type: type, columns: columns, n: 3, seed: 92)
        var w = [Float](repeating: 0, count: columns)
        for r in 0..<rows {
            w.withUnsafeMutableBufferPointer { Kernels.dequantizeRow(weights.matrix, row: r, into: $0.baseAddress!) }
            for a in acts.prepared {
                var exact = 0.0, magnitude = 0.0
                for i in 0..<columns {
                    let term = Double(w[i]) * Double(a.qs[i]) * Double(a.scales[i / (type.blockSize == 256 ? 256 : 32)])
                    exact += term
                    magnitude += abs(term)
                }
                if type == .q4_1 {
                    // Q8_1's block sum is d·Σq rounded to F16 (ggml's definition), which the kernel uses
                    // for the minimum's term: the exact product with that sum.
                    for b in 0..<nb {
                        let m = Double(loadHalf(weights.matrix.row(r) + 20 * b, 2))
                        let sum = (0..<32).reduce(0.0) { $0 + Double(a.qs[32 * b + $1]) } * Double(a.scales[b])
                        exact += m * (Double(a.sums[b]) - sum)
                    }
                }
                let value = Double(twin(weights.matrix.row(r), a, nb))
                #expect(abs(value - exact) <= 1e-5 * magnitude, "\(type) row \(r): \(value) vs \(exact) (Σ|terms| \(magnitude))")
            }
        }
    }

    /// Through `Kernels.tiledProduct` (quantizing X, parts over the pool's threads): every row as the
    /// twin computes it, for several pool sizes.
    @Test(.enabled(if: CPUFeatures.avx2FMAF16C), arguments: types, [1, 2, 3])
    func productOverThePool(type: GGMLType, threads: Int) throws {
        let rows = 200, columns = 512, n = 30, nb = columns / type.blockSize, twin = Self.twin(type)
        let weights = try RandomWeights(type: type, rows: rows, columns: columns, seed: 93)
        let x = randomActivations(n * columns, seed: 94)
        let acts = Activations(type: type, columns: columns, n: n, seed: 94)
        var y = [Float](repeating: .nan, count: n * rows)
        let pool = ThreadPool(threadCount: threads)
        let ran = x.withUnsafeBufferPointer { xp in
            Kernels.tiledProduct(weights.matrix, xp.baseAddress!, rowsOfX: n, &y, pool: pool, scratch: KernelScratch())
        }
        #expect(ran == !TiledPrefill.kernels(for: type).isEmpty)
        guard ran else { return }
        var differing = 0
        for j in 0..<n {
            for r in 0..<rows where y[j * rows + r].bitPattern
                != twin(weights.matrix.row(r), acts.prepared[j], nb).bitPattern { differing += 1 }
        }
        #expect(differing == 0, "\(type): \(differing) of \(n * rows) differ")
        #expect(TiledPrefill.kernels(for: .q5_K).isEmpty && TiledPrefill.kernels(for: .f16).isEmpty)
    }
}
