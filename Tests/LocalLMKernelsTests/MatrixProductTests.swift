import LocalLMGGUF
import Testing
@testable import LocalLMKernels

/// matvec and matmul against per-row reference dots and dequantized products, on 1 and 2 threads.
struct MatrixProductTests {
    static let pools = [ThreadPool(threadCount: 1), ThreadPool(threadCount: 2), ThreadPool(threadCount: 3)]

    @Test(arguments: weightTypes)
    func matvecMatchesReferenceDots(type: GGMLType) throws {
        let rows = 197, columns = 512
        let weights = try RandomWeights(type: type, rows: rows, columns: columns, seed: 99 + UInt64(type.rawValue))
        let x = randomActivations(columns, seed: 8)
        let actType = Kernels.activationType(for: type)
        var act = [UInt8](repeating: 0, count: actType.rowBytes(elements: columns)!)
        x.withUnsafeBufferPointer { xp in
            act.withUnsafeMutableBytes { Kernels.quantizeActivation(type: actType, xp.baseAddress!, count: columns, into: $0.baseAddress!) }
        }
        let dot = try #require(DotReference.function(type))
        let expected = act.withUnsafeBytes { a in (0..<rows).map { dot(weights.matrix.row($0), a.baseAddress!, columns) } }
        let scratch = KernelScratch()
        for pool in Self.pools {
            var y = [Float](repeating: .nan, count: rows)
            Kernels.matvec(weights.matrix, x, &y, pool: pool, scratch: scratch)
            for r in 0..<rows {
                #expect(abs(y[r] - expected[r]) <= 1e-4 * max(1, abs(expected[r])), "\(type) row \(r) on \(pool.threadCount) threads")
            }
        }
    }

    /// The several-row matvec (decode batches, prefills) gives every row bit for bit what the one-row
    /// matvec gives it, for every weight type, with more rows than one C call takes (17 and 37 > 16:
    /// the prefill kernels of Q4_K and Q6_K, an odd last pair included), and on 1, 2 and 3 threads.
    @Test(arguments: weightTypes)
    func severalRowMatvecEqualsOneRowAtATime(type: GGMLType) throws {
        let rows = 197, columns = 512, n = 37
        let weights = try RandomWeights(type: type, rows: rows, columns: columns, seed: 5 + UInt64(type.rawValue))
        let x = randomActivations(n * columns, seed: 77)
        let scratch = KernelScratch()
        for pool in Self.pools {
            var single = [Float](repeating: .nan, count: n * rows)
            x.withUnsafeBufferPointer { xp in
                single.withUnsafeMutableBufferPointer { yp in
                    for t in 0..<n {
                        Kernels.matvec(weights.matrix, xp.baseAddress! + t * columns, yp.baseAddress! + t * rows, pool: pool, scratch: scratch)
                    }
                }
            }
            for count in [2, 3, 17, n] {
                var batch = [Float](repeating: .nan, count: count * rows)
                Kernels.matvec(weights.matrix, x, rowsOfX: count, &batch, pool: pool, scratch: scratch)
                let mismatches = (0..<(count * rows)).filter { batch[$0].bitPattern != single[$0].bitPattern }
                #expect(mismatches.isEmpty, "\(type), \(count) rows on \(pool.threadCount) threads: \(mismatches.count) differ, first at \(mismatches.first ?? -1)")
            }
        }
    }

    /// Rows longer than the prefill kernels' row buffer (64 blocks of 256) go to the several-activation
    /// kernels, with the same results.
    @Test(arguments: [GGMLType.q4_K, .q6_K])
    func longRowsGiveTheSameRowsAsOneRowAtATime(type: GGMLType) throws {
        let rows = 9, columns = 65 * 256, n = 18
        let weights = try RandomWeights(type: type, rows: rows, columns: columns, seed: 11 + UInt64(type.rawValue))
        let x = randomActivations(n * columns, seed: 78)
        let scratch = KernelScratch()
        let pool = Self.pools[0]
        var single = [Float](repeating: .nan, count: n * rows)
        x.withUnsafeBufferPointer { xp in
            single.withUnsafeMutableBufferPointer { yp in
                for t in 0..<n {
                    Kernels.matvec(weights.matrix, xp.baseAddress! + t * columns, yp.baseAddress! + t * rows, pool: pool, scratch: scratch)
                }
            }
        }
        var batch = [Float](repeating: .nan, count: n * rows)
        Kernels.matvec(weights.matrix, x, rowsOfX: n, &batch, pool: pool, scratch: scratch)
        #expect((0..<(n * rows)).allSatisfy { batch[$0].bitPattern == single[$0].bitPattern })
    }

    @Test(arguments: [GGMLType.f32, .f16, .q4_0, .q4_1, .q8_0, .q4_K, .q6_K, .iq4_NL, .iq4_XS])
    func matmulMatchesDequantizedProduct(type: GGMLType) throws {
        let rows = 150, columns = 256, n = 7
        let weights = try RandomWeights(type: type, rows: rows, columns: columns, seed: 7 + UInt64(type.rawValue))
        let x = randomActivations(n * columns, seed: 21)
        var w = [Float](repeating: 0, count: rows * columns)
        for r in 0..<rows { w.withUnsafeMutableBufferPointer { Kernels.dequantizeRow(weights.matrix, row: r, into: $0.baseAddress! + r * columns) } }
        let scratch = KernelScratch()
        for pool in Self.pools {
            var y = [Float](repeating: .nan, count: n * rows)
            Kernels.matmul(weights.matrix, x, rowsOfX: n, &y, pool: pool, scratch: scratch)
            for i in 0..<n {
                for r in 0..<rows {
                    var exact: Double = 0, magnitude: Double = 0
                    for k in 0..<columns {
                        let p = Double(x[i * columns + k]) * Double(w[r * columns + k])
                        exact += p
                        magnitude += abs(p)
                    }
                    // sgemm accumulates in float: allow a few ulps of the magnitude of the terms.
                    #expect(abs(Double(y[i * rows + r]) - exact) <= 1e-6 * magnitude + 1e-6, "\(type) [\(i), \(r)]")
                }
            }
        }
    }
}
