import CLocalLMShims
import Testing
@testable import LocalLMKernels

/// The C shims' own single-precision product (`locallm_sgemm`, for CPUs whose OpenBLAS runs old
/// kernels): every element is the chain of fused multiply-adds over k in blocks of
/// `LOCALLM_SGEMM_KC` the header describes, bit for bit, in both its AVX2 and AVX-512 forms, whatever
/// the shape (partial tiles, several k-blocks, A blocks and B blocks).
struct SgemmTests {
    /// The forms this CPU runs: 1 (AVX2 + FMA), and 2 (AVX-512) where it has it.
    static let levels: [Int32] = locallm_sgemm_level() >= 2 ? [1, 2] : locallm_sgemm_level() == 1 ? [1] : []

    /// (m, n, k): one element; partial tiles of both forms; k over one block and not a multiple of it;
    /// m over one A block (120 rows); n over one B block (512 columns); exact tiles.
    static let shapes: [(Int, Int, Int)] = [
        (1, 1, 1), (5, 7, 3), (13, 37, 300), (130, 70, 513), (7, 600, 40), (12, 32, 256), (6, 16, 257), (25, 9, 0),
    ]

    /// C = A · op(B) as the header defines it, one element at a time.
    static func chains(m: Int, n: Int, k: Int, a: [Float], lda: Int, b: [Float], ldb: Int, transposed: Bool) -> [Float] {
        let block = Int(LOCALLM_SGEMM_KC)
        var c = [Float](repeating: 0, count: m * n)
        for i in 0..<m {
            for j in 0..<n {
                var value: Float = 0
                for start in stride(from: 0, to: k, by: block) {
                    var acc: Float = 0
                    for p in start..<min(k, start + block) {
                        let bv = transposed ? b[j * ldb + p] : b[p * ldb + j]
                        acc = acc.addingProduct(a[i * lda + p], bv)
                    }
                    value = start == 0 ? acc : value + acc
                }
                c[i * n + j] = value
            }
        }
        return c
    }

    @Test(.enabled(if: !levels.isEmpty, "the CPU has no AVX2 + FMA"), arguments: [false, true])
    func ownProductIsTheFMAChains(transposed: Bool) {
        var rng = SeededRandom(seed: transposed ? 11 : 12)
        // Varied exponents, so the sums round.
        func value() -> Float { rng.float(-4...4) * Float(1 << (rng.next() % 4)) }
        for (m, n, k) in Self.shapes {
            // Leading dimensions wider than the matrices, so padding must be skipped and left alone.
            let lda = k + 3, ldb = (transposed ? k : n) + 5, ldc = n + 2
            let a = (0..<(m * lda)).map { _ in value() }
            let b = (0..<((transposed ? n : k) * ldb)).map { _ in value() }
            let expected = Self.chains(m: m, n: n, k: k, a: a, lda: lda, b: b, ldb: ldb, transposed: transposed)
            for level in Self.levels {
                var c = [Float](repeating: -7, count: m * ldc)
                let status = locallm_sgemm(level, m, n, k, a, lda, b, ldb, transposed ? 1 : 0, &c, ldc)
                #expect(status == 0)
                var wrong = 0, padding = 0
                for i in 0..<m {
                    for j in 0..<n where c[i * ldc + j].bitPattern != expected[i * n + j].bitPattern { wrong += 1 }
                    for j in n..<ldc where c[i * ldc + j] != -7 { padding += 1 }
                }
                #expect(wrong == 0, "level \(level), \(m)×\(n)×\(k), transposed \(transposed): \(wrong) elements differ")
                #expect(padding == 0, "level \(level), \(m)×\(n)×\(k): \(padding) padding elements written")
            }
        }
    }

    /// The shims' product runs where the CPU has AVX2 + FMA and OpenBLAS chose kernels older than
    /// that; `LOCALLM_SGEMM` overrides, but never asks for a form the CPU lacks.
    @Test func pathFollowsOpenBLASKernels() {
        #expect(Sgemm.choose(override: nil, ownLevel: 2, openBLASCore: "Prescott") == .own(level: 2))
        #expect(Sgemm.choose(override: nil, ownLevel: 1, openBLASCore: "Sandybridge") == .own(level: 1))
        #expect(Sgemm.choose(override: nil, ownLevel: 1, openBLASCore: "Haswell") == .openBLAS)
        #expect(Sgemm.choose(override: nil, ownLevel: 1, openBLASCore: "Zen") == .openBLAS)
        #expect(Sgemm.choose(override: nil, ownLevel: 2, openBLASCore: "SkylakeX") == .openBLAS)
        #expect(Sgemm.choose(override: nil, ownLevel: 0, openBLASCore: "Prescott") == .openBLAS)
        #expect(Sgemm.choose(override: "openblas", ownLevel: 2, openBLASCore: "Prescott") == .openBLAS)
        #expect(Sgemm.choose(override: "AVX2", ownLevel: 2, openBLASCore: "SkylakeX") == .own(level: 1))
        #expect(Sgemm.choose(override: "avx512", ownLevel: 1, openBLASCore: "Haswell") == .openBLAS)
    }
}
