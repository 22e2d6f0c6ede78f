import CLocalLMShims
import COpenBLAS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Kernels {
    /// C[m × n] = A[m × k] · B[n × k]ᵀ, row-major with leading dimensions `lda`, `ldb`, `ldc`, on the
    /// calling thread (callers parallelize with the pool).
    package static func gemmTransposedB(
        m: Int, n: Int, k: Int, _ a: UnsafePointer<Float>, lda: Int, _ b: UnsafePointer<Float>, ldb: Int,
        _ c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        guard m > 0, n > 0 else { return }
        Sgemm.multiply(m: m, n: n, k: k, a, lda: lda, b, ldb: ldb, transposedB: true, c, ldc: ldc)
    }

    /// C[m × n] = A[m × k] · B[k × n], row-major with leading dimensions `lda`, `ldb`, `ldc`, on the
    /// calling thread.
    package static func gemm(
        m: Int, n: Int, k: Int, _ a: UnsafePointer<Float>, lda: Int, _ b: UnsafePointer<Float>, ldb: Int,
        _ c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        guard m > 0, n > 0 else { return }
        Sgemm.multiply(m: m, n: n, k: k, a, lda: lda, b, ldb: ldb, transposedB: false, c, ldc: ldc)
    }

    /// Widens `count` F16 values to Float (exact): F16C's `vcvtph2ps` when the CPU has it.
    @inline(__always)
    package static func widen(_ src: UnsafePointer<UInt16>, _ dst: UnsafeMutablePointer<Float>, count: Int) {
        GGMLRows.fromHalf(src, count: count, into: dst)
    }
}

/// The single-precision matrix product behind prefill and batched attention: OpenBLAS, or the C
/// shims' own AVX2/AVX-512 product (`Sources/CLocalLMShims/sgemm.c`) where OpenBLAS would run kernels
/// older than the CPU.
///
/// A DYNAMIC_ARCH OpenBLAS picks its kernels from the CPU model when it loads, and falls back to its
/// SSE3 "Prescott" kernels on a model it does not know: Debian 12's OpenBLAS 0.3.21 does so on Intel's
/// 2023 Xeons (family 6, model 207), where it ran Qwen2.5-0.5B's 512-token prefill at 88 tok/s against
/// 165 with its Haswell kernels (see Docs/benchmarking.md). The choice is made once, from the name of
/// the kernels OpenBLAS chose; `LOCALLM_SGEMM` overrides it: `openblas`, `avx2` or `avx512`.
package enum Sgemm {
    package enum Path: Equatable, Sendable {
        case openBLAS
        /// The shims' product at `locallm_sgemm` level 1 (AVX2 + FMA) or 2 (AVX-512).
        case own(level: Int32)
    }

    /// OpenBLAS kernel sets (`openblas_get_corename`) that use AVX2 and FMA or wider.
    static let currentCores: Set<String> = ["haswell", "zen", "skylakex", "cooperlake", "sapphirerapids"]

    /// The path this process uses (decided once).
    package static let path: Path = choose(
        override: getenv("LOCALLM_SGEMM").map { String(cString: $0) },
        ownLevel: locallm_sgemm_level(),
        openBLASCore: openblas_get_corename().map { String(cString: $0) } ?? "")

    /// The path for an override (`LOCALLM_SGEMM`), the shims' level on this CPU and OpenBLAS's kernel
    /// set: the shims' product when the CPU has AVX2 + FMA and OpenBLAS's kernels are older.
    static func choose(override: String?, ownLevel: Int32, openBLASCore: String) -> Path {
        switch override?.lowercased() {
        case "openblas": return .openBLAS
        case "avx2" where ownLevel >= 1: return .own(level: 1)
        case "avx512" where ownLevel >= 2: return .own(level: 2)
        default: break
        }
        guard ownLevel >= 1, !currentCores.contains(openBLASCore.lowercased()) else { return .openBLAS }
        return .own(level: ownLevel)
    }

    /// C[m × n] = A[m × k] · op(B) (op(B) = Bᵀ for a B of n × k rows when `transposedB`, else B of
    /// k × n), row-major, β = 0, on the calling thread.
    @inline(__always)
    package static func multiply(
        m: Int, n: Int, k: Int, _ a: UnsafePointer<Float>, lda: Int, _ b: UnsafePointer<Float>, ldb: Int,
        transposedB: Bool, _ c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        if case .own(let level) = path,
           locallm_sgemm(level, m, n, k, a, lda, b, ldb, transposedB ? 1 : 0, c, ldc) == 0 {
            return
        }
        guard k > 0 else {
            for r in 0..<m { (c + r * ldc).initialize(repeating: 0, count: n) }
            return
        }
        OpenBLAS.useSingleThread()
        cblas_sgemm(CblasRowMajor, CblasNoTrans, transposedB ? CblasTrans : CblasNoTrans, Int32(m), Int32(n),
                    Int32(k), 1, a, Int32(lda), b, Int32(ldb), 0, c, Int32(ldc))
    }
}
