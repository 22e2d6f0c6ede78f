import COpenBLAS

extension Kernels {
    /// C[m × n] = A[m × k] · B[n × k]ᵀ, row-major with leading dimensions `lda`, `ldb`, `ldc`, on the
    /// calling thread (OpenBLAS single-threaded; callers parallelize with the pool).
    package static func gemmTransposedB(
        m: Int, n: Int, k: Int, _ a: UnsafePointer<Float>, lda: Int, _ b: UnsafePointer<Float>, ldb: Int,
        _ c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        guard m > 0, n > 0, k > 0 else { return }
        OpenBLAS.useSingleThread()
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(m), Int32(n), Int32(k),
                    1, a, Int32(lda), b, Int32(ldb), 0, c, Int32(ldc))
    }

    /// C[m × n] = A[m × k] · B[k × n], row-major with leading dimensions `lda`, `ldb`, `ldc`, on the
    /// calling thread.
    package static func gemm(
        m: Int, n: Int, k: Int, _ a: UnsafePointer<Float>, lda: Int, _ b: UnsafePointer<Float>, ldb: Int,
        _ c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        guard m > 0, n > 0 else { return }
        guard k > 0 else {
            for r in 0..<m { (c + r * ldc).initialize(repeating: 0, count: n) }
            return
        }
        OpenBLAS.useSingleThread()
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(m), Int32(n), Int32(k),
                    1, a, Int32(lda), b, Int32(ldb), 0, c, Int32(ldc))
    }

    /// Widens `count` F16 values to Float (exact): F16C's `vcvtph2ps` when the CPU has it.
    @inline(__always)
    package static func widen(_ src: UnsafePointer<UInt16>, _ dst: UnsafeMutablePointer<Float>, count: Int) {
        GGMLRows.fromHalf(src, count: count, into: dst)
    }
}
