// C = A · op(B) for CPUs with AVX2 + FMA (and an AVX-512 form); see include/locallm_sgemm.h.
//
// The layout is the classic one (Goto and van de Geijn; BLIS): op(B) is packed in blocks of
// KC rows × up to NC_MAX columns, as slivers of NR columns stored k by k; A in blocks of MC rows × KC,
// as slivers of MR rows stored k by k. A micro-kernel keeps an MR × NR tile of C in registers, reads an
// NR-wide row of the B sliver and broadcasts MR values of the A sliver per k. The B sliver (KC × NR,
// 16 or 32 KB) stays in L1 while the micro-kernel walks down the A block, which stays in L2.
//
// Chains: each element is fma(a[k], b[k], acc) for k in the block in order from acc = 0, then stored
// (first block) or added to C. Packing pads partial slivers with zeros, whose products are discarded.
#include "locallm_sgemm.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#pragma STDC FP_CONTRACT OFF
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
#include <immintrin.h>

static int sgemm_level;

__attribute__((constructor))
static void detect_sgemm_level(void) {
    __builtin_cpu_init();
    if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) return;
    // The runtime sets avx512f only when the system saves the AVX-512 registers (XCR0).
    sgemm_level = __builtin_cpu_supports("avx512f") ? 2 : 1;
}

int locallm_sgemm_level(void) { return sgemm_level; }

#define KC LOCALLM_SGEMM_KC
/// Rows of an A block: a multiple of both forms' MR (6 and 12); 120 × 256 floats = 120 KB.
#define MC 120
/// Columns of a B block at most: 256 × 512 floats = 512 KB.
#define NC_MAX 512

/// Adds (or, for the first k-block, stores) the mr × nr corner of an MR × NR tile held in `tile`.
static inline void put_partial(const float *tile, int tile_width, float *c, long ldc, int first, int mr, int nr) {
    for (int i = 0; i < mr; i++) {
        float *ci = c + i * ldc;
        const float *ti = tile + i * tile_width;
        if (first) {
            for (int j = 0; j < nr; j++) ci[j] = ti[j];
        } else {
            for (int j = 0; j < nr; j++) ci[j] = ci[j] + ti[j];
        }
    }
}

#define AVX2_MR 6
#define AVX2_NR 16

__attribute__((target("avx2,fma")))
static void kernel_avx2(long kc, const float *ap, const float *bp, float *c, long ldc, int first, int mr, int nr) {
    __m256 acc[AVX2_MR][2];
    for (int i = 0; i < AVX2_MR; i++) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
    for (long p = 0; p < kc; p++) {
        __m256 b0 = _mm256_loadu_ps(bp), b1 = _mm256_loadu_ps(bp + 8);
#pragma clang loop unroll(full)
        for (int i = 0; i < AVX2_MR; i++) {
            __m256 a = _mm256_broadcast_ss(ap + i);
            acc[i][0] = _mm256_fmadd_ps(a, b0, acc[i][0]);
            acc[i][1] = _mm256_fmadd_ps(a, b1, acc[i][1]);
        }
        ap += AVX2_MR;
        bp += AVX2_NR;
    }
    if (mr == AVX2_MR && nr == AVX2_NR) {
        for (int i = 0; i < AVX2_MR; i++) {
            float *ci = c + i * ldc;
            if (first) {
                _mm256_storeu_ps(ci, acc[i][0]);
                _mm256_storeu_ps(ci + 8, acc[i][1]);
            } else {
                _mm256_storeu_ps(ci, _mm256_add_ps(_mm256_loadu_ps(ci), acc[i][0]));
                _mm256_storeu_ps(ci + 8, _mm256_add_ps(_mm256_loadu_ps(ci + 8), acc[i][1]));
            }
        }
        return;
    }
    float tile[AVX2_MR * AVX2_NR];
    for (int i = 0; i < AVX2_MR; i++) {
        _mm256_storeu_ps(tile + i * AVX2_NR, acc[i][0]);
        _mm256_storeu_ps(tile + i * AVX2_NR + 8, acc[i][1]);
    }
    put_partial(tile, AVX2_NR, c, ldc, first, mr, nr);
}

#define AVX512_MR 12
#define AVX512_NR 32

__attribute__((target("avx512f,avx2,fma")))
static void kernel_avx512(long kc, const float *ap, const float *bp, float *c, long ldc, int first, int mr, int nr) {
    __m512 acc[AVX512_MR][2];
    for (int i = 0; i < AVX512_MR; i++) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    for (long p = 0; p < kc; p++) {
        __m512 b0 = _mm512_loadu_ps(bp), b1 = _mm512_loadu_ps(bp + 16);
#pragma clang loop unroll(full)
        for (int i = 0; i < AVX512_MR; i++) {
            __m512 a = _mm512_set1_ps(ap[i]);
            acc[i][0] = _mm512_fmadd_ps(a, b0, acc[i][0]);
            acc[i][1] = _mm512_fmadd_ps(a, b1, acc[i][1]);
        }
        ap += AVX512_MR;
        bp += AVX512_NR;
    }
    if (mr == AVX512_MR && nr == AVX512_NR) {
        for (int i = 0; i < AVX512_MR; i++) {
            float *ci = c + i * ldc;
            if (first) {
                _mm512_storeu_ps(ci, acc[i][0]);
                _mm512_storeu_ps(ci + 16, acc[i][1]);
            } else {
                _mm512_storeu_ps(ci, _mm512_add_ps(_mm512_loadu_ps(ci), acc[i][0]));
                _mm512_storeu_ps(ci + 16, _mm512_add_ps(_mm512_loadu_ps(ci + 16), acc[i][1]));
            }
        }
        return;
    }
    float tile[AVX512_MR * AVX512_NR];
    for (int i = 0; i < AVX512_MR; i++) {
        _mm512_storeu_ps(tile + i * AVX512_NR, acc[i][0]);
        _mm512_storeu_ps(tile + i * AVX512_NR + 16, acc[i][1]);
    }
    put_partial(tile, AVX512_NR, c, ldc, first, mr, nr);
}

/// Packs rows [i0, i0 + mc) × columns [p0, p0 + kc) of A as slivers of `mr_full` rows (even), k by k:
/// two rows at a time, eight columns at a time interleaved into pairs.
__attribute__((target("avx2,fma")))
static void pack_a(const float *a, long lda, long i0, long mc, long p0, long kc, int mr_full, float *ap) {
    for (long ir = 0; ir < mc; ir += mr_full) {
        long rows = mc - ir < mr_full ? mc - ir : mr_full;
        float *dst = ap + ir * kc;
        for (int i = 0; i < mr_full; i += 2) {
            const float *r0 = i < rows ? a + (i0 + ir + i) * lda + p0 : NULL;
            const float *r1 = i + 1 < rows ? a + (i0 + ir + i + 1) * lda + p0 : NULL;
            float *d = dst + i;
            long p = 0;
            for (; p + 8 <= kc; p += 8) {
                __m256 x0 = r0 ? _mm256_loadu_ps(r0 + p) : _mm256_setzero_ps();
                __m256 x1 = r1 ? _mm256_loadu_ps(r1 + p) : _mm256_setzero_ps();
                // (x0[0] x1[0] x0[1] x1[1] | x0[4] x1[4] x0[5] x1[5]) and the same for 2, 3, 6, 7.
                __m256 lo = _mm256_unpacklo_ps(x0, x1), hi = _mm256_unpackhi_ps(x0, x1);
                __m128 lo0 = _mm256_castps256_ps128(lo), lo1 = _mm256_extractf128_ps(lo, 1);
                __m128 hi0 = _mm256_castps256_ps128(hi), hi1 = _mm256_extractf128_ps(hi, 1);
                _mm_storel_pi((__m64 *)(d + (p + 0) * mr_full), lo0);
                _mm_storeh_pi((__m64 *)(d + (p + 1) * mr_full), lo0);
                _mm_storel_pi((__m64 *)(d + (p + 2) * mr_full), hi0);
                _mm_storeh_pi((__m64 *)(d + (p + 3) * mr_full), hi0);
                _mm_storel_pi((__m64 *)(d + (p + 4) * mr_full), lo1);
                _mm_storeh_pi((__m64 *)(d + (p + 5) * mr_full), lo1);
                _mm_storel_pi((__m64 *)(d + (p + 6) * mr_full), hi1);
                _mm_storeh_pi((__m64 *)(d + (p + 7) * mr_full), hi1);
            }
            for (; p < kc; p++) {
                d[p * mr_full] = r0 ? r0[p] : 0;
                d[p * mr_full + 1] = r1 ? r1[p] : 0;
            }
        }
    }
}

/// r[q][j] = r[j][q] for an 8 × 8 block.
__attribute__((target("avx2,fma")))
static inline void transpose8(__m256 r[8]) {
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

/// Packs rows [p0, p0 + kc) × columns [j0, j0 + nc) of op(B) as slivers of `nr_full` columns (a
/// multiple of 8), k by k. For Bᵀ, eight rows of B × eight columns at a time, transposed.
__attribute__((target("avx2,fma")))
static void pack_b(const float *b, long ldb, int transposed, long p0, long kc, long j0, long nc, int nr_full,
                   float *bp) {
    for (long jr = 0; jr < nc; jr += nr_full) {
        long cols = nc - jr < nr_full ? nc - jr : nr_full;
        float *dst = bp + jr * kc;
        if (transposed) {
            for (int j = 0; j < nr_full; j += 8) {
                if (j + 8 <= cols) {
                    const float *src = b + (j0 + jr + j) * ldb + p0;
                    long p = 0;
                    for (; p + 8 <= kc; p += 8) {
                        __m256 r[8];
                        for (int q = 0; q < 8; q++) r[q] = _mm256_loadu_ps(src + q * ldb + p);
                        transpose8(r);
                        for (int q = 0; q < 8; q++) _mm256_storeu_ps(dst + (p + q) * nr_full + j, r[q]);
                    }
                    for (; p < kc; p++) {
                        for (int q = 0; q < 8; q++) dst[p * nr_full + j + q] = src[q * ldb + p];
                    }
                } else {
                    for (int q = j; q < j + 8; q++) {
                        if (q < cols) {
                            const float *src = b + (j0 + jr + q) * ldb + p0;
                            for (long p = 0; p < kc; p++) dst[p * nr_full + q] = src[p];
                        } else {
                            for (long p = 0; p < kc; p++) dst[p * nr_full + q] = 0;
                        }
                    }
                }
            }
        } else {
            for (long p = 0; p < kc; p++) {
                const float *src = b + (p0 + p) * ldb + j0 + jr;
                float *row = dst + p * nr_full;
                long j = 0;
                for (; j < cols; j++) row[j] = src[j];
                for (; j < nr_full; j++) row[j] = 0;
            }
        }
    }
}

int locallm_sgemm(int level, long m, long n, long k, const float *a, long lda, const float *b, long ldb,
                  int b_transposed, float *c, long ldc) {
    if (m <= 0 || n <= 0) return 0;
    if (k <= 0) {
        for (long i = 0; i < m; i++) memset(c + i * ldc, 0, (size_t)n * sizeof(float));
        return 0;
    }
    const int wide = level >= 2 && sgemm_level >= 2;
    const int mr_full = wide ? AVX512_MR : AVX2_MR, nr_full = wide ? AVX512_NR : AVX2_NR;
    long nc_max = n < NC_MAX ? n : NC_MAX;
    nc_max = (nc_max + nr_full - 1) / nr_full * nr_full;
    // Both buffers are bounded by the block sizes, not by the matrices.
    size_t b_bytes = (size_t)KC * (size_t)nc_max * sizeof(float);
    size_t a_bytes = (size_t)KC * MC * sizeof(float);
    float *bp = aligned_alloc(64, (b_bytes + 63) / 64 * 64);
    float *ap = aligned_alloc(64, a_bytes);
    if (!bp || !ap) {
        free(bp);
        free(ap);
        return -1;
    }
    for (long jc = 0; jc < n; jc += NC_MAX) {
        long nc = n - jc < NC_MAX ? n - jc : NC_MAX;
        for (long pc = 0; pc < k; pc += KC) {
            long kc = k - pc < KC ? k - pc : KC;
            int first = pc == 0;
            pack_b(b, ldb, b_transposed, pc, kc, jc, nc, nr_full, bp);
            for (long ic = 0; ic < m; ic += MC) {
                long mc = m - ic < MC ? m - ic : MC;
                pack_a(a, lda, ic, mc, pc, kc, mr_full, ap);
                for (long jr = 0; jr < nc; jr += nr_full) {
                    int nr = (int)(nc - jr < nr_full ? nc - jr : nr_full);
                    for (long ir = 0; ir < mc; ir += mr_full) {
                        int mr = (int)(mc - ir < mr_full ? mc - ir : mr_full);
                        float *tile = c + (ic + ir) * ldc + jc + jr;
                        if (wide) {
                            kernel_avx512(kc, ap + ir * kc, bp + jr * kc, tile, ldc, first, mr, nr);
                        } else {
                            kernel_avx2(kc, ap + ir * kc, bp + jr * kc, tile, ldc, first, mr, nr);
                        }
                    }
                }
            }
        }
    }
    free(bp);
    free(ap);
    return 0;
}

#else

int locallm_sgemm_level(void) { return 0; }

int locallm_sgemm(int level, long m, long n, long k, const float *a, long lda, const float *b, long ldb,
                  int b_transposed, float *c, long ldc) {
    (void)level; (void)m; (void)n; (void)k; (void)a; (void)lda; (void)b; (void)ldb; (void)b_transposed;
    (void)c; (void)ldc;
    return -1;
}

#endif
