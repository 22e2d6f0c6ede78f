// A single-precision matrix product for x86-64 CPUs with AVX2 and FMA (and an AVX-512 form), compiled
// per function for those instructions and chosen at run time, for the CPUs where the system's OpenBLAS
// falls back to old kernels: a DYNAMIC_ARCH OpenBLAS that does not know the CPU model (Debian 12's
// 0.3.21 on Intel's 2023 Xeons, for one) runs its SSE3 "Prescott" kernels, at half the speed of its
// AVX2 ones or less.
//
// Every element of C is one chain of fused multiply-adds over k in order, in blocks of
// `LOCALLM_SGEMM_KC`: the first block's chain starts from zero and is stored, each later block's chain
// starts from zero and is added to C. So an element depends only on its row of A and its column of
// op(B), never on the matrix sizes, the tiling or the instruction width: the AVX2 and AVX-512 forms
// give the same bits (tests compare both with a scalar chain).
#ifndef LOCALLM_SGEMM_H
#define LOCALLM_SGEMM_H

/// The k-block of the chains (see above).
#define LOCALLM_SGEMM_KC 256

/// 1 when the CPU has AVX2 and FMA, 2 when it also has AVX-512F with its registers enabled by the
/// system, 0 otherwise (read once, when the library loads).
int locallm_sgemm_level(void);

/// C[m × n] = A[m × k] · op(B), row-major with leading dimensions lda, ldb, ldc; op(B) is B[n × k]
/// transposed when `b_transposed` is 1, else B[k × n]. C is overwritten (β = 0). `level` is 1 (AVX2)
/// or 2 (AVX-512) and must not exceed `locallm_sgemm_level()`. Returns 0, or −1 having written nothing
/// when its packing buffers could not be allocated. Single-threaded; concurrent calls are safe.
int locallm_sgemm(int level, long m, long n, long k, const float *a, long lda, const float *b, long ldb,
                  int b_transposed, float *c, long ldc);

#endif
