// Quantized matvec rows for AVX2 + FMA + F16C, chosen at run time (see include/locallm_avx2.h).
//
// Bit-identity with the Swift kernels rests on doing the same float operations in the same order:
// - every block's int32 lanes are converted to float and FMAed with the block's scale into an 8-lane
//   accumulator (`_mm256_fmadd_ps`), then summed in ggml's hsum_float_8 order;
// - scalar terms (Q4_1/Q5_1 minimums, K-quant minimums, Q2_K/Q3_K/Q5_K block sums) use exactly the
//   Swift expressions, with fused multiply-adds only where Swift has `addingProduct`.
// The compiler must not contract `a * b + c` into an FMA on its own, or results would differ from the
// Swift kernels (Swift never contracts): contraction is switched off for this file.
#include "locallm_avx2.h"
#include "CLocalLMShims.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#pragma STDC FP_CONTRACT OFF
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
#include <immintrin.h>
#include <string.h>

static int cpu_has_avx2_fma_f16c;

__attribute__((constructor))
static void detect_avx2(void) {
    __builtin_cpu_init();
    cpu_has_avx2_fma_f16c = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
        && __builtin_cpu_supports("f16c");
}

int locallm_has_avx2_fma_f16c(void) { return cpu_has_avx2_fma_f16c; }

#define TARGET __attribute__((target("avx2,fma,f16c")))
#define INLINE static inline __attribute__((always_inline)) TARGET

/// Bytes ahead of the current row that a row-at-a-time loop prefetches (as `Prefetch.distance`).
#define PREFETCH_DISTANCE 8192
/// Groups of four rows ahead that the four-row loops prefetch (as `Prefetch.groupsAhead`).
#define GROUPS_AHEAD 4

INLINE float half_at(const uint8_t *p) {
    uint16_t h;
    memcpy(&h, p, 2);
    return _cvtsh_ss(h);
}

INLINE uint32_t u32_at(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

INLINE __m256i load32(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }

/// ggml's hsum_float_8: ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)).
INLINE float hsum8(__m256 v) {
    __m128 r = _mm_add_ps(_mm256_extractf128_ps(v, 1), _mm256_castps256_ps128(v));
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    return _mm_cvtss_f32(r);
}

INLINE int32_t hsum_int(__m256i v) {
    __m128i r = _mm_add_epi32(_mm256_extracti128_si256(v, 1), _mm256_castsi256_si128(v));
    r = _mm_add_epi32(r, _mm_unpackhi_epi64(r, r));
    r = _mm_add_epi32(r, _mm_shuffle_epi32(r, 1));
    return _mm_cvtsi128_si32(r);
}

/// Σ over 32 lanes of x·y as 8 int32 lanes (lane k: elements 4k…4k+3), for signed x and y.
INLINE __m256i signed_dot(__m256i x, __m256i y) {
    const __m256i ax = _mm256_sign_epi8(x, x), sy = _mm256_sign_epi8(y, x);
    return _mm256_madd_epi16(_mm256_maddubs_epi16(ax, sy), _mm256_set1_epi16(1));
}

/// The same for x in 0…127 and signed y.
INLINE __m256i unsigned_dot(__m256i x, __m256i y) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(x, y), _mm256_set1_epi16(1));
}

/// 16 bytes of nibbles → 32 bytes: low nibbles (elements 0…15) then high nibbles (16…31).
INLINE __m256i nibbles(const uint8_t *p) {
    const __m128i bytes = _mm_loadu_si128((const __m128i *)p), mask = _mm_set1_epi8(0x0F);
    const __m128i lo = _mm_and_si128(bytes, mask), hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), mask);
    return _mm256_set_m128i(hi, lo);
}

/// The 32 bits of `bits` as 32 bytes: 0xFF where bit i is set, 0 elsewhere.
INLINE __m256i bytes_from_bits(uint32_t bits) {
    const __m256i v = _mm256_set1_epi32((int32_t)bits);
    const __m256i spread = _mm256_shuffle_epi8(v, _mm256_set_epi64x(0x0303030303030303LL, 0x0202020202020202LL,
                                                                    0x0101010101010101LL, 0));
    const __m256i others = _mm256_or_si256(spread, _mm256_set1_epi64x(0x7fbfdfeff7fbfdfeLL));
    return _mm256_cmpeq_epi8(others, _mm256_set1_epi64x(-1));
}

INLINE void prefetch_row(const uint8_t *p, long stride) {
    for (long o = 0; o < stride; o += 64) locallm_prefetch(p + o);
}

/// Rows one at a time with `dot(row)`, prefetching the row ~8 KB ahead (as the Swift row loops do).
#define ROW_LOOP(DOT)                                                                     \
    const long ahead = (PREFETCH_DISTANCE + stride - 1) / stride > 0                     \
        ? (PREFETCH_DISTANCE + stride - 1) / stride : 1;                                  \
    for (long r = start; r < end; r++) {                                                  \
        if (r + ahead < end) prefetch_row(base + (r + ahead) * stride, stride);           \
        y[r] = DOT(base + r * stride, a, nb);                                             \
    }

// MARK: - 32-element blocks

INLINE float dot_q8_0(const uint8_t *w, const locallm_activation *a, long nb) {
    __m256 acc = _mm256_setzero_ps();
    for (long b = 0; b < nb; b++) {
        const uint8_t *x = w + 34 * b;
        const __m256i s = signed_dot(load32(x + 2), load32(a->qs + 32 * b));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(half_at(x) * a->scales[b]), acc);
    }
    return hsum8(acc);
}

INLINE float dot_q4_0(const uint8_t *w, const locallm_activation *a, long nb) {
    __m256 acc = _mm256_setzero_ps();
    const __m256i eight = _mm256_set1_epi8(8);
    for (long b = 0; b < nb; b++) {
        const uint8_t *x = w + 18 * b;
        const __m256i q = _mm256_sub_epi8(nibbles(x + 2), eight);
        const __m256i s = signed_dot(q, load32(a->qs + 32 * b));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(half_at(x) * a->scales[b]), acc);
    }
    return hsum8(acc);
}

INLINE float dot_q4_1(const uint8_t *w, const locallm_activation *a, long nb) {
    __m256 acc = _mm256_setzero_ps();
    float min_term = 0;
    for (long b = 0; b < nb; b++) {
        const uint8_t *x = w + 20 * b;
        const __m256i s = unsigned_dot(nibbles(x + 4), load32(a->qs + 32 * b));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(half_at(x) * a->scales[b]), acc);
        min_term += half_at(x + 2) * a->sums[b];
    }
    return hsum8(acc) + min_term;
}

INLINE __m256i q5_0_values(const uint8_t *x) {
    // (q | bit·16) − 16 = q when the bit is set, q | 0xF0 (= q − 16 as int8) when not.
    const __m256i missing = _mm256_andnot_si256(bytes_from_bits(u32_at(x + 2)), _mm256_set1_epi8((char)0xF0));
    return _mm256_or_si256(nibbles(x + 6), missing);
}

INLINE float dot_q5_0(const uint8_t *w, const locallm_activation *a, long nb) {
    __m256 acc = _mm256_setzero_ps();
    for (long b = 0; b < nb; b++) {
        const uint8_t *x = w + 22 * b;
        const __m256i s = signed_dot(q5_0_values(x), load32(a->qs + 32 * b));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(half_at(x) * a->scales[b]), acc);
    }
    return hsum8(acc);
}

INLINE float dot_q5_1(const uint8_t *w, const locallm_activation *a, long nb) {
    __m256 acc = _mm256_setzero_ps();
    float min_term = 0;
    for (long b = 0; b < nb; b++) {
        const uint8_t *x = w + 24 * b;
        const __m256i high = _mm256_and_si256(bytes_from_bits(u32_at(x + 4)), _mm256_set1_epi8(0x10));
        const __m256i s = unsigned_dot(_mm256_or_si256(nibbles(x + 8), high), load32(a->qs + 32 * b));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(half_at(x) * a->scales[b]), acc);
        min_term += half_at(x + 2) * a->sums[b];
    }
    return hsum8(acc) + min_term;
}

/// Four consecutive rows at once, each computed exactly as its one-row kernel: four independent FMA
/// chains, each activation block loaded once, and the same stretch of a later group of rows prefetched.
#define FOUR_ROWS(NAME, BLOCK_BYTES, LINES, BLOCK_EXPR, HAS_MIN, MIN_EXPR)                                       \
    TARGET static void four_##NAME(const uint8_t *w, long stride, const locallm_activation *a, long nb, \
                                   float *y) {                                                          \
        __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()}; \
        float mins[4] = {0, 0, 0, 0};                                                                   \
        const uint8_t *ahead = w + GROUPS_AHEAD * 4 * stride;                                           \
        for (long b = 0; b < nb; b++) {                                                                 \
            const __m256i yq = load32(a->qs + 32 * b);                                                  \
            const float yd = a->scales[b];                                                              \
            const long o = BLOCK_BYTES * b;                                                             \
            for (int l = 0; l < LINES; l++) locallm_prefetch(ahead + 4 * o + 64 * l);                  \
            for (int k = 0; k < 4; k++) {                                                               \
                const uint8_t *x = w + k * stride + o;                                                  \
                acc[k] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(BLOCK_EXPR), _mm256_set1_ps(half_at(x) * yd), acc[k]); \
                MIN_EXPR;                                                                               \
            }                                                                                           \
        }                                                                                               \
        for (int k = 0; k < 4; k++) y[k] = HAS_MIN ? hsum8(acc[k]) + mins[k] : hsum8(acc[k]);           \
    }

FOUR_ROWS(q8_0, 34, 3, signed_dot(load32(x + 2), yq), 0, (void)mins)
FOUR_ROWS(q5_0, 22, 2, signed_dot(q5_0_values(x), yq), 0, (void)mins)
FOUR_ROWS(q4_1, 20, 2, unsigned_dot(nibbles(x + 4), yq), 1, mins[k] += half_at(x + 2) * a->sums[b])

/// Rows [start, end) times `n` activations (n ≤ LOCALLM_MULTI_MAX) for weights whose block values are
/// signed bytes and that have no minimum (Q8_0, Q4_0, Q5_0): activation j's result for row r goes to
/// y[j·ystride + r]. Each block is unpacked once for all activations; each row·activation is then
/// formed exactly as `signed_dot` and the one-activation kernel form it (the same int32 lanes, the same
/// FMA chain over blocks, the same final sum), so a decode batch computes what each decode step would.
#define MULTI_SIGNED(NAME, BLOCK_BYTES, VALUES)                                                          \
    /* Activations j0 ..< j0 + K of one row, K ≤ 4 a constant: the accumulators stay in registers. */    \
    INLINE void multi_group_##NAME(const uint8_t *row, const locallm_activation *a, long nb, int K,       \
                                   float *y, long ystride) {                                             \
        __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()}; \
        for (long b = 0; b < nb; b++) {                                                                  \
            const uint8_t *x = row + BLOCK_BYTES * b;                                                    \
            const __m256i v = VALUES;                                                                    \
            const __m256i ax = _mm256_sign_epi8(v, v);                                                   \
            const float d = half_at(x);                                                                  \
            for (int k = 0; k < K; k++) {                                                                \
                const __m256i sy = _mm256_sign_epi8(load32(a[k].qs + 32 * b), v);                        \
                const __m256i s = _mm256_madd_epi16(_mm256_maddubs_epi16(ax, sy), _mm256_set1_epi16(1)); \
                acc[k] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(d * a[k].scales[b]), acc[k]); \
            }                                                                                            \
        }                                                                                                \
        for (int k = 0; k < K; k++) y[k * ystride] = hsum8(acc[k]);                                      \
    }                                                                                                    \
    TARGET void locallm_avx2_multi_##NAME(const uint8_t *base, long stride, const locallm_activation *a, \
                                          long n, long nb, float *y, long ystride, long start, long end) { \
        const long ahead = (PREFETCH_DISTANCE + stride - 1) / stride > 0                                 \
            ? (PREFETCH_DISTANCE + stride - 1) / stride : 1;                                              \
        for (long r = start; r < end; r++) {                                                             \
            if (r + ahead < end) prefetch_row(base + (r + ahead) * stride, stride);                      \
            const uint8_t *row = base + r * stride;                                                      \
            long j = 0;                                                                                  \
            for (; j + 4 <= n; j += 4) multi_group_##NAME(row, a + j, nb, 4, y + j * ystride + r, ystride); \
            switch (n - j) {                                                                             \
            case 3: multi_group_##NAME(row, a + j, nb, 3, y + j * ystride + r, ystride); break;          \
            case 2: multi_group_##NAME(row, a + j, nb, 2, y + j * ystride + r, ystride); break;          \
            case 1: multi_group_##NAME(row, a + j, nb, 1, y + j * ystride + r, ystride); break;          \
            default: break;                                                                              \
            }                                                                                            \
        }                                                                                                \
    }

MULTI_SIGNED(q8_0, 34, load32(x + 2))
MULTI_SIGNED(q4_0, 18, _mm256_sub_epi8(nibbles(x + 2), _mm256_set1_epi8(8)))
MULTI_SIGNED(q5_0, 22, q5_0_values(x))

/// Groups of four rows, then single rows for the rest (the four-row kernels prefetch for themselves).
#define BY_FOURS(NAME)                                                                    \
    long r = start;                                                                       \
    for (; r + 4 <= end; r += 4) four_##NAME(base + r * stride, stride, a, nb, y + r);    \
    for (; r < end; r++) y[r] = dot_##NAME(base + r * stride, a, nb);

TARGET void locallm_avx2_rows_q8_0(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                                   float *y, long start, long end) { BY_FOURS(q8_0) }
TARGET void locallm_avx2_rows_q4_0(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                                   float *y, long start, long end) { ROW_LOOP(dot_q4_0) }
TARGET void locallm_avx2_rows_q4_1(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                                   float *y, long start, long end) { BY_FOURS(q4_1) }
TARGET void locallm_avx2_rows_q5_0(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                                   float *y, long start, long end) { BY_FOURS(q5_0) }
TARGET void locallm_avx2_rows_q5_1(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                                   float *y, long start, long end) { ROW_LOOP(dot_q5_1) }

// MARK: - K-quants (256-element blocks)

/// K-quant scale and min j (0…7) from the 12 packed bytes at q (ggml's get_scale_min_k4).
INLINE void scale_min_k4(int j, const uint8_t *q, int32_t *scale, int32_t *min) {
    if (j < 4) {
        *scale = q[j] & 63;
        *min = q[j + 4] & 63;
    } else {
        *scale = (q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4);
        *min = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

/// unsigned_dot(x, y) times s in every lane, for x in 0…63: madd multiplies maddubs' int16 pair sums by
/// s directly, exactly what multiplying the int32 lanes by s gives (p0·s + p1·s = (p0 + p1)·s), with one
/// instruction instead of a madd and a two-uop mullo.
INLINE __m256i unsigned_dot_scaled(__m256i x, __m256i y, int32_t s) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(x, y), _mm256_set1_epi16((int16_t)s));
}

/// The same with lanes 0…3 (elements 0…15 of 32) times s0 and lanes 4…7 (16…31) times s1.
INLINE __m256i unsigned_dot_halves(__m256i x, __m256i y, int32_t s0, int32_t s1) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(x, y),
                             _mm256_set_m128i(_mm_set1_epi16((int16_t)s1), _mm_set1_epi16((int16_t)s0)));
}

/// Lanes 0…3 (elements 0…15 of 32) times s0, lanes 4…7 (16…31) times s1.
INLINE __m256i scale_halves(__m256i lanes, int32_t s0, int32_t s1) {
    return _mm256_mullo_epi32(lanes, _mm256_set_m128i(_mm_set1_epi32(s1), _mm_set1_epi32(s0)));
}

/// One Q4_K block of one row in ggml's order: its 8 int32 lanes (scaled sub-block sums) FMAed with d
/// into the row's 8-lane accumulator, and its 4 min terms (two sub-blocks each) FMAed with −dmin into
/// the row's 4 min accumulators.
INLINE void q4_K_block(const uint8_t *x, const int8_t *yq, const int32_t *bs, float yd, __m256 *acc, float *m) {
    const __m256i mask = _mm256_set1_epi8(0x0F);
    __m256i isum = _mm256_setzero_si256();
    float mins[4];
    for (int c = 0; c < 4; c++) {
        const __m256i bytes = load32(x + 16 + 32 * c);
        const __m256i lo = _mm256_and_si256(bytes, mask), hi = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), mask);
        int32_t sc0, mn0, sc1, mn1;
        scale_min_k4(2 * c, x + 4, &sc0, &mn0);
        scale_min_k4(2 * c + 1, x + 4, &sc1, &mn1);
        const __m256i s0 = unsigned_dot_scaled(lo, load32(yq + 64 * c), sc0);
        const __m256i s1 = unsigned_dot_scaled(hi, load32(yq + 64 * c + 32), sc1);
        isum = _mm256_add_epi32(isum, _mm256_add_epi32(s0, s1));
        mins[c] = (float)(mn0 * (bs[4 * c] + bs[4 * c + 1]) + mn1 * (bs[4 * c + 2] + bs[4 * c + 3]));
    }
    const float dmin = -yd * half_at(x + 2);
    *acc = _mm256_fmadd_ps(_mm256_set1_ps(yd * half_at(x)), _mm256_cvtepi32_ps(isum), *acc);
    for (int c = 0; c < 4; c++) m[c] = __builtin_fmaf(dmin, mins[c], m[c]);
}

INLINE float dot_q4_K(const uint8_t *w, const locallm_activation *a, long nb) {
    __m256 acc = _mm256_setzero_ps();
    float m[4] = {0, 0, 0, 0};
    for (long b = 0; b < nb; b++) q4_K_block(w + 144 * b, a->qs + 256 * b, a->bsums + 16 * b, a->scales[b], &acc, m);
    return hsum8(acc) + ((m[0] + m[2]) + (m[1] + m[3]));
}

/// Four consecutive Q4_K rows, each exactly as `dot_q4_K`: one pass over the activation for four rows,
/// and the next group of rows prefetched at the pace they are consumed.
TARGET static void four_q4_K(const uint8_t *w, long stride, const locallm_activation *a, long nb, float *y) {
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    float m[4][4] = {{0}};
    const uint8_t *ahead = w + GROUPS_AHEAD * 4 * stride;
    for (long b = 0; b < nb; b++) {
        for (int l = 0; l < 9; l++) locallm_prefetch(ahead + 4 * 144 * b + 64 * l);
        for (int k = 0; k < 4; k++)
            q4_K_block(w + k * stride + 144 * b, a->qs + 256 * b, a->bsums + 16 * b, a->scales[b], &acc[k], m[k]);
    }
    for (int k = 0; k < 4; k++) y[k] = hsum8(acc[k]) + ((m[k][0] + m[k][2]) + (m[k][1] + m[k][3]));
}

/// One Q6_K block of one row in ggml's order: lane k sums q·y·scale over elements 4k…4k+3 of each 32,
/// minus 32·(bsum·scale) of groups 2k and 2k+1; the 8 int32 lanes are FMAed with d.
INLINE void q6_K_block(const uint8_t *x, const int8_t *yq, const int32_t *bs, float yd, __m256 *acc) {
    const __m256i mask4 = _mm256_set1_epi8(0x0F), mask2 = _mm256_set1_epi8(0x30);
    const int8_t *sc = (const int8_t *)(x + 192);
    int32_t off[8];
    for (int m = 0; m < 8; m++) off[m] = -32 * (bs[2 * m] * sc[2 * m] + bs[2 * m + 1] * sc[2 * m + 1]);
    __m256i isum = _mm256_loadu_si256((const __m256i *)off);
    for (int half = 0; half < 2; half++) {
        const uint8_t *ql = x + 64 * half;
        const __m256i qh = load32(x + 128 + 32 * half);
        const int8_t *yy = yq + 128 * half;
        const int8_t *g = sc + 8 * half;
        const __m256i l0 = load32(ql), l1 = load32(ql + 32);
        const __m256i q0 = _mm256_or_si256(_mm256_and_si256(l0, mask4), _mm256_and_si256(_mm256_slli_epi16(qh, 4), mask2));
        const __m256i q1 = _mm256_or_si256(_mm256_and_si256(l1, mask4), _mm256_and_si256(_mm256_slli_epi16(qh, 2), mask2));
        const __m256i q2 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), mask4), _mm256_and_si256(qh, mask2));
        const __m256i q3 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), mask4),
                                           _mm256_and_si256(_mm256_srli_epi16(qh, 2), mask2));
        isum = _mm256_add_epi32(isum, _mm256_add_epi32(unsigned_dot_halves(q0, load32(yy), g[0], g[1]),
                                                       unsigned_dot_halves(q1, load32(yy + 32), g[2], g[3])));
        isum = _mm256_add_epi32(isum, _mm256_add_epi32(unsigned_dot_halves(q2, load32(yy + 64), g[4], g[5]),
                                                       unsigned_dot_halves(q3, load32(yy + 96), g[6], g[7])));
    }
    *acc = _mm256_fmadd_ps(_mm256_set1_ps(yd * half_at(x + 208)), _mm256_cvtepi32_ps(isum), *acc);
}

INLINE float dot_q6_K(const uint8_t *w, const locallm_activation *a, long nb) {
    __m256 acc = _mm256_setzero_ps();
    for (long b = 0; b < nb; b++) q6_K_block(w + 210 * b, a->qs + 256 * b, a->bsums + 16 * b, a->scales[b], &acc);
    return hsum8(acc);
}

/// Four consecutive Q6_K rows, each exactly as `dot_q6_K` (see `four_q4_K`).
TARGET static void four_q6_K(const uint8_t *w, long stride, const locallm_activation *a, long nb, float *y) {
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    const uint8_t *ahead = w + GROUPS_AHEAD * 4 * stride;
    for (long b = 0; b < nb; b++) {
        for (int l = 0; l < 14; l++) locallm_prefetch(ahead + 4 * 210 * b + 64 * l);
        for (int k = 0; k < 4; k++)
            q6_K_block(w + k * stride + 210 * b, a->qs + 256 * b, a->bsums + 16 * b, a->scales[b], &acc[k]);
    }
    for (int k = 0; k < 4; k++) y[k] = hsum8(acc[k]);
}

/// Q4_K rows [start, end) times n activations (see MULTI_SIGNED): each block's nibbles, scales and
/// minimums unpacked once, then for each activation exactly `q4_K_block`'s integer sums, FMAs and min
/// terms, and `dot_q4_K`'s final sum.
TARGET void locallm_avx2_multi_q4_K(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                                    float *y, long ystride, long start, long end) {
    if (n > LOCALLM_MULTI_MAX) return;
    __m256 acc[LOCALLM_MULTI_MAX];
    float m[LOCALLM_MULTI_MAX][4];
    const __m256i mask = _mm256_set1_epi8(0x0F);
    const long ahead = (PREFETCH_DISTANCE + stride - 1) / stride > 0 ? (PREFETCH_DISTANCE + stride - 1) / stride : 1;
    for (long r = start; r < end; r++) {
        if (r + ahead < end) prefetch_row(base + (r + ahead) * stride, stride);
        for (long j = 0; j < n; j++) {
            acc[j] = _mm256_setzero_ps();
            m[j][0] = m[j][1] = m[j][2] = m[j][3] = 0;
        }
        for (long b = 0; b < nb; b++) {
            const uint8_t *x = base + r * stride + 144 * b;
            __m256i lo[4], hi[4];
            int32_t sc[8], mn[8];
            for (int c = 0; c < 4; c++) {
                const __m256i bytes = load32(x + 16 + 32 * c);
                lo[c] = _mm256_and_si256(bytes, mask);
                hi[c] = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), mask);
                scale_min_k4(2 * c, x + 4, &sc[2 * c], &mn[2 * c]);
                scale_min_k4(2 * c + 1, x + 4, &sc[2 * c + 1], &mn[2 * c + 1]);
            }
            const float d = half_at(x), dm = half_at(x + 2);
            for (long j = 0; j < n; j++) {
                const int8_t *yq = a[j].qs + 256 * b;
                const int32_t *bs = a[j].bsums + 16 * b;
                const float yd = a[j].scales[b];
                __m256i isum = _mm256_setzero_si256();
                float mins[4];
                for (int c = 0; c < 4; c++) {
                    const __m256i s0 = unsigned_dot_scaled(lo[c], load32(yq + 64 * c), sc[2 * c]);
                    const __m256i s1 = unsigned_dot_scaled(hi[c], load32(yq + 64 * c + 32), sc[2 * c + 1]);
                    isum = _mm256_add_epi32(isum, _mm256_add_epi32(s0, s1));
                    mins[c] = (float)(mn[2 * c] * (bs[4 * c] + bs[4 * c + 1]) + mn[2 * c + 1] * (bs[4 * c + 2] + bs[4 * c + 3]));
                }
                const float dmin = -yd * dm;
                acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(yd * d), _mm256_cvtepi32_ps(isum), acc[j]);
                for (int c = 0; c < 4; c++) m[j][c] = __builtin_fmaf(dmin, mins[c], m[j][c]);
            }
        }
        for (long j = 0; j < n; j++) y[j * ystride + r] = hsum8(acc[j]) + ((m[j][0] + m[j][2]) + (m[j][1] + m[j][3]));
    }
}

/// Q6_K rows [start, end) times n activations: each block's 6-bit values unpacked once, then for each
/// activation exactly `q6_K_block`'s sums and FMA.
TARGET void locallm_avx2_multi_q6_K(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                                    float *y, long ystride, long start, long end) {
    if (n > LOCALLM_MULTI_MAX) return;
    __m256 acc[LOCALLM_MULTI_MAX];
    const __m256i mask4 = _mm256_set1_epi8(0x0F), mask2 = _mm256_set1_epi8(0x30);
    const long ahead = (PREFETCH_DISTANCE + stride - 1) / stride > 0 ? (PREFETCH_DISTANCE + stride - 1) / stride : 1;
    for (long r = start; r < end; r++) {
        if (r + ahead < end) prefetch_row(base + (r + ahead) * stride, stride);
        for (long j = 0; j < n; j++) acc[j] = _mm256_setzero_ps();
        for (long b = 0; b < nb; b++) {
            const uint8_t *x = base + r * stride + 210 * b;
            const int8_t *sc = (const int8_t *)(x + 192);
            __m256i q[8];
            for (int half = 0; half < 2; half++) {
                const uint8_t *ql = x + 64 * half;
                const __m256i qh = load32(x + 128 + 32 * half);
                const __m256i l0 = load32(ql), l1 = load32(ql + 32);
                q[4 * half] = _mm256_or_si256(_mm256_and_si256(l0, mask4), _mm256_and_si256(_mm256_slli_epi16(qh, 4), mask2));
                q[4 * half + 1] = _mm256_or_si256(_mm256_and_si256(l1, mask4), _mm256_and_si256(_mm256_slli_epi16(qh, 2), mask2));
                q[4 * half + 2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), mask4), _mm256_and_si256(qh, mask2));
                q[4 * half + 3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), mask4),
                                                  _mm256_and_si256(_mm256_srli_epi16(qh, 2), mask2));
            }
            const float d = half_at(x + 208);
            for (long j = 0; j < n; j++) {
                const int8_t *yq = a[j].qs + 256 * b;
                const int32_t *bs = a[j].bsums + 16 * b;
                int32_t off[8];
                for (int g = 0; g < 8; g++) off[g] = -32 * (bs[2 * g] * sc[2 * g] + bs[2 * g + 1] * sc[2 * g + 1]);
                __m256i isum = _mm256_loadu_si256((const __m256i *)off);
                for (int half = 0; half < 2; half++) {
                    const int8_t *yy = yq + 128 * half;
                    const int8_t *g = sc + 8 * half;
                    isum = _mm256_add_epi32(isum, _mm256_add_epi32(unsigned_dot_halves(q[4 * half], load32(yy), g[0], g[1]),
                                                                   unsigned_dot_halves(q[4 * half + 1], load32(yy + 32), g[2], g[3])));
                    isum = _mm256_add_epi32(isum, _mm256_add_epi32(unsigned_dot_halves(q[4 * half + 2], load32(yy + 64), g[4], g[5]),
                                                                   unsigned_dot_halves(q[4 * half + 3], load32(yy + 96), g[6], g[7])));
                }
                acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(a[j].scales[b] * d), _mm256_cvtepi32_ps(isum), acc[j]);
            }
        }
        for (long j = 0; j < n; j++) y[j * ystride + r] = hsum8(acc[j]);
    }
}

/// Q4_1 rows [start, end) times n activations: nibbles unpacked once, then for each activation exactly
/// `dot_q4_1`'s FMA chain and minimum term.
TARGET void locallm_avx2_multi_q4_1(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                                    float *y, long ystride, long start, long end) {
    if (n > LOCALLM_MULTI_MAX) return;
    __m256 acc[LOCALLM_MULTI_MAX];
    float mins[LOCALLM_MULTI_MAX];
    const long ahead = (PREFETCH_DISTANCE + stride - 1) / stride > 0 ? (PREFETCH_DISTANCE + stride - 1) / stride : 1;
    for (long r = start; r < end; r++) {
        if (r + ahead < end) prefetch_row(base + (r + ahead) * stride, stride);
        for (long j = 0; j < n; j++) { acc[j] = _mm256_setzero_ps(); mins[j] = 0; }
        for (long b = 0; b < nb; b++) {
            const uint8_t *x = base + r * stride + 20 * b;
            const __m256i v = nibbles(x + 4);
            const float d = half_at(x), m = half_at(x + 2);
            for (long j = 0; j < n; j++) {
                const __m256i s = unsigned_dot(v, load32(a[j].qs + 32 * b));
                acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(d * a[j].scales[b]), acc[j]);
                mins[j] += m * a[j].sums[b];
            }
        }
        for (long j = 0; j < n; j++) y[j * ystride + r] = hsum8(acc[j]) + mins[j];
    }
}

/// Q5_K in the order of ggml's AVX2 kernel (and `DotFast.q5_K`): each block's 8 integer lanes FMAed
/// with y.d·d into 8 float lanes, the mins' part (−y.d·dmin · Σ m·bsum) summed apart, added last.
INLINE float dot_q5_K(const uint8_t *w, const locallm_activation *a, long nb) {
    __m256 acc = _mm256_setzero_ps();
    float summs = 0;
    const __m256i mask = _mm256_set1_epi8(0x0F), one = _mm256_set1_epi8(1);
    for (long b = 0; b < nb; b++) {
        const uint8_t *x = w + 176 * b;
        const int8_t *yq = a->qs + 256 * b;
        const int32_t *bs = a->bsums + 16 * b;
        const __m256i qh = load32(x + 16);
        __m256i isum = _mm256_setzero_si256();
        int32_t mins = 0;
        for (int c = 0; c < 4; c++) {
            const __m256i bytes = load32(x + 48 + 32 * c);
            const __m256i h0 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * c), one), 4);
            const __m256i h1 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * c + 1), one), 4);
            const __m256i lo = _mm256_or_si256(_mm256_and_si256(bytes, mask), h0);
            const __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(bytes, 4), mask), h1);
            int32_t sc0, mn0, sc1, mn1;
            scale_min_k4(2 * c, x + 4, &sc0, &mn0);
            scale_min_k4(2 * c + 1, x + 4, &sc1, &mn1);
            isum = _mm256_add_epi32(isum, unsigned_dot_scaled(lo, load32(yq + 64 * c), sc0));
            isum = _mm256_add_epi32(isum, unsigned_dot_scaled(hi, load32(yq + 64 * c + 32), sc1));
            mins += mn0 * (bs[4 * c] + bs[4 * c + 1]) + mn1 * (bs[4 * c + 2] + bs[4 * c + 3]);
        }
        const float yd = a->scales[b];
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_set1_ps(yd * half_at(x)), acc);
        summs += (-yd * half_at(x + 2)) * (float)mins;
    }
    return hsum8(acc) + summs;
}

/// Q2_K in the per-block float order of the Swift kernel: Σ (yd·d)·isum − (yd·dmin)·summs.
INLINE float dot_q2_K(const uint8_t *w, const locallm_activation *a, long nb) {
    float sum = 0;
    const __m256i three = _mm256_set1_epi8(3);
    for (long b = 0; b < nb; b++) {
        const uint8_t *x = w + 84 * b;
        const uint8_t *sc = x;
        const int8_t *yq = a->qs + 256 * b;
        const int32_t *bs = a->bsums + 16 * b;
        int32_t summs = 0;
        for (int g = 0; g < 16; g++) summs += bs[g] * (int32_t)(sc[g] >> 4);
        __m256i isum = _mm256_setzero_si256();
        for (int half = 0; half < 2; half++) {
            const __m256i q = load32(x + 16 + 32 * half);
            for (int j = 0; j < 4; j++) {
                const int g = 8 * half + 2 * j;
                const __m256i v = _mm256_and_si256(_mm256_srli_epi16(q, 2 * j), three);
                const __m256i lanes = unsigned_dot(v, load32(yq + 128 * half + 32 * j));
                isum = _mm256_add_epi32(isum, scale_halves(lanes, sc[g] & 0x0F, sc[g + 1] & 0x0F));
            }
        }
        const float yd = a->scales[b];
        sum += (yd * half_at(x + 80)) * (float)hsum_int(isum) - (yd * half_at(x + 82)) * (float)summs;
    }
    return sum;
}

/// Q3_K in the order of ggml's AVX2 kernel (and `DotFast.q3_K`): each block's 8 integer lanes FMAed with y.d·d.
INLINE float dot_q3_K(const uint8_t *w, const locallm_activation *a, long nb) {
    __m256 acc = _mm256_setzero_ps();
    const __m256i three = _mm256_set1_epi8(3), four = _mm256_set1_epi8(4), one = _mm256_set1_epi8(1);
    for (long b = 0; b < nb; b++) {
        const uint8_t *x = w + 110 * b;
        const int8_t *yq = a->qs + 256 * b;
        const uint8_t *s = x + 96;
        int32_t scales[16];
        for (int i = 0; i < 16; i++) {
            const int low = (s[i % 8] >> (i < 8 ? 0 : 4)) & 0x0F;
            const int high = (s[8 + i % 4] >> (2 * (i / 4))) & 3;
            scales[i] = (int32_t)(int8_t)(low | (high << 4)) - 32;
        }
        const __m256i hm = load32(x);
        __m256i isum = _mm256_setzero_si256();
        for (int half = 0; half < 2; half++) {
            const __m256i q = load32(x + 32 + 32 * half);
            for (int j = 0; j < 4; j++) {
                const int g = 8 * half + 2 * j;
                const __m256i low = _mm256_and_si256(_mm256_srli_epi16(q, 2 * j), three);
                // The high bit set means no −4 offset.
                const __m256i bit = _mm256_and_si256(_mm256_srli_epi16(hm, 4 * half + j), one);
                const __m256i v = _mm256_sub_epi8(low, _mm256_andnot_si256(_mm256_cmpeq_epi8(bit, one), four));
                const __m256i lanes = signed_dot(v, load32(yq + 128 * half + 32 * j));
                isum = _mm256_add_epi32(isum, scale_halves(lanes, scales[g], scales[g + 1]));
            }
        }
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_set1_ps(a->scales[b] * half_at(x + 108)), acc);
    }
    return hsum8(acc);
}

TARGET void locallm_avx2_rows_q2_K(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                                   float *y, long start, long end) { ROW_LOOP(dot_q2_K) }
TARGET void locallm_avx2_rows_q3_K(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                                   float *y, long start, long end) { ROW_LOOP(dot_q3_K) }
TARGET void locallm_avx2_rows_q4_K(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                                   float *y, long start, long end) { BY_FOURS(q4_K) }
TARGET void locallm_avx2_rows_q5_K(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                                   float *y, long start, long end) { ROW_LOOP(dot_q5_K) }
TARGET void locallm_avx2_rows_q6_K(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                                   float *y, long start, long end) { BY_FOURS(q6_K) }

// MARK: - IQ4_NL and IQ4_XS: 4-bit indices into a 16-value non-linear grid

/// ggml's `kvalues_iq4nl`.
static const int8_t iq4_values[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

/// 16 bytes of indices → the 32 values they stand for (elements 0…15 from the low nibbles, 16…31 high).
INLINE __m256i iq4_grid(const uint8_t *p) {
    const __m256i table = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)iq4_values));
    return _mm256_shuffle_epi8(table, nibbles(p));
}

/// IQ4_NL in the order of ggml's AVX2 kernel: blocks in pairs, even blocks FMAed into one accumulator
/// and odd ones into another, the two added before the horizontal sum; an odd last block in the
/// scalar form. (|value| ≤ 127, so `signed_dot`'s pair sums cannot saturate.)
INLINE float dot_iq4_nl(const uint8_t *w, const locallm_activation *a, long nb) {
    __m256 even = _mm256_setzero_ps(), odd = _mm256_setzero_ps();
    long b = 0;
    for (; b + 1 < nb; b += 2) {
        const uint8_t *x0 = w + 18 * b, *x1 = x0 + 18;
        const __m256i s0 = signed_dot(iq4_grid(x0 + 2), load32(a->qs + 32 * b));
        const __m256i s1 = signed_dot(iq4_grid(x1 + 2), load32(a->qs + 32 * (b + 1)));
        even = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s0), _mm256_set1_ps(half_at(x0) * a->scales[b]), even);
        odd = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s1), _mm256_set1_ps(half_at(x1) * a->scales[b + 1]), odd);
    }
    float sum = hsum8(_mm256_add_ps(even, odd));
    for (; b < nb; b++) {
        const uint8_t *x = w + 18 * b;
        const int8_t *q8 = a->qs + 32 * b;
        int32_t sumi = 0;
        for (int j = 0; j < 16; j++) {
            sumi += iq4_values[x[2 + j] & 0x0F] * q8[j] + iq4_values[x[2 + j] >> 4] * q8[j + 16];
        }
        sum += (half_at(x) * a->scales[b]) * (float)sumi;
    }
    return sum;
}

/// IQ4_XS in the order of ggml's AVX2 kernel: per super-block, each sub-block's int16 pair sums times
/// its scale − 32 (`madd`) summed into 8 int32 lanes, then one FMA with d_x·d_y.
INLINE float dot_iq4_xs(const uint8_t *w, const locallm_activation *a, long nb) {
    __m256 acc = _mm256_setzero_ps();
    for (long b = 0; b < nb; b++) {
        const uint8_t *x = w + 136 * b;
        const int8_t *q8 = a->qs + 256 * b;
        uint16_t high;
        memcpy(&high, x + 2, 2);
        __m256i sumi = _mm256_setzero_si256();
        for (int ib = 0; ib < 8; ib++) {
            const int16_t scale = (int16_t)((((x[4 + ib / 2] >> (4 * (ib % 2))) & 0x0F) | (((high >> (2 * ib)) & 0x03) << 4)) - 32);
            const __m256i q = iq4_grid(x + 8 + 16 * ib), y = load32(q8 + 32 * ib);
            const __m256i pairs = _mm256_maddubs_epi16(_mm256_sign_epi8(q, q), _mm256_sign_epi8(y, q));
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(pairs, _mm256_set1_epi16(scale)));
        }
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi), _mm256_set1_ps(half_at(x) * a->scales[b]), acc);
    }
    return hsum8(acc);
}

TARGET void locallm_avx2_rows_iq4_nl(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                                     float *y, long start, long end) { ROW_LOOP(dot_iq4_nl) }
TARGET void locallm_avx2_rows_iq4_xs(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                                     float *y, long start, long end) { ROW_LOOP(dot_iq4_xs) }

// MARK: - Prefill (many activations)

/// The most 256-element blocks a row may have for the prefill kernels' row buffers (16,384 columns);
/// longer rows go to the several-activation kernels, which compute the same values.
#define GEMM_MAX_BLOCKS 64

/// Q4_K rows [start, end) times n activations, each result exactly as `locallm_avx2_multi_q4_K`
/// computes it: prefill form. Each row's blocks are unpacked once into a row buffer (values and the
/// sub-block scales as int16 vectors), then activations go four at a time with their accumulators in
/// registers; the min terms come from one 128-bit madd of the eight mins with the activation's pair
/// sums of bsums.
TARGET void locallm_avx2_gemm_q4_K(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                                   float *y, long ystride, long start, long end) {
    if (n > LOCALLM_MULTI_MAX || nb > GEMM_MAX_BLOCKS) {
        locallm_avx2_multi_q4_K(base, stride, a, n, nb, y, ystride, start, end);
        return;
    }
    __m256i w[GEMM_MAX_BLOCKS][8];
    __m256i s[GEMM_MAX_BLOCKS][8];
    __m128i mnv[GEMM_MAX_BLOCKS];
    float dd[GEMM_MAX_BLOCKS], dmm[GEMM_MAX_BLOCKS];
    int16_t bsp[LOCALLM_MULTI_MAX][GEMM_MAX_BLOCKS][8] __attribute__((aligned(16)));
    for (long j = 0; j < n; j++)
        for (long b = 0; b < nb; b++)
            for (int i = 0; i < 8; i++)
                bsp[j][b][i] = (int16_t)(a[j].bsums[16 * b + 2 * i] + a[j].bsums[16 * b + 2 * i + 1]);
    const __m256i mask = _mm256_set1_epi8(0x0F);
    const long ahead = (PREFETCH_DISTANCE + stride - 1) / stride > 0 ? (PREFETCH_DISTANCE + stride - 1) / stride : 1;
    for (long r = start; r < end; r++) {
        if (r + ahead < end) prefetch_row(base + (r + ahead) * stride, stride);
        const uint8_t *row = base + r * stride;
        for (long b = 0; b < nb; b++) {
            const uint8_t *x = row + 144 * b;
            int32_t sc[8], mn[8];
            for (int c = 0; c < 4; c++) {
                const __m256i bytes = load32(x + 16 + 32 * c);
                w[b][2 * c] = _mm256_and_si256(bytes, mask);
                w[b][2 * c + 1] = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), mask);
                scale_min_k4(2 * c, x + 4, &sc[2 * c], &mn[2 * c]);
                scale_min_k4(2 * c + 1, x + 4, &sc[2 * c + 1], &mn[2 * c + 1]);
            }
            for (int i = 0; i < 8; i++) s[b][i] = _mm256_set1_epi16((int16_t)sc[i]);
            mnv[b] = _mm_setr_epi16((int16_t)mn[0], (int16_t)mn[1], (int16_t)mn[2], (int16_t)mn[3],
                                    (int16_t)mn[4], (int16_t)mn[5], (int16_t)mn[6], (int16_t)mn[7]);
            dd[b] = half_at(x);
            dmm[b] = half_at(x + 2);
        }
        long j = 0;
        for (; j < n; j += 2) {
            const int two = (n - j) >= 2;
            __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
            __m128 m0 = _mm_setzero_ps(), m1 = _mm_setzero_ps();
            const locallm_activation *a0 = a + j, *a1 = a + j + (two ? 1 : 0);
            for (long b = 0; b < nb; b++) {
                const int8_t *y0 = a0->qs + 256 * b, *y1 = a1->qs + 256 * b;
                __m256i i0 = _mm256_setzero_si256(), i1 = _mm256_setzero_si256();
                for (int c = 0; c < 8; c++) {
                    const __m256i wc = w[b][c];
                    i0 = _mm256_add_epi32(i0, _mm256_madd_epi16(_mm256_maddubs_epi16(wc, load32(y0 + 32 * c)), s[b][c]));
                    i1 = _mm256_add_epi32(i1, _mm256_madd_epi16(_mm256_maddubs_epi16(wc, load32(y1 + 32 * c)), s[b][c]));
                }
                const float yd0 = a0->scales[b], yd1 = a1->scales[b];
                acc0 = _mm256_fmadd_ps(_mm256_set1_ps(yd0 * dd[b]), _mm256_cvtepi32_ps(i0), acc0);
                acc1 = _mm256_fmadd_ps(_mm256_set1_ps(yd1 * dd[b]), _mm256_cvtepi32_ps(i1), acc1);
                const __m128 mins0 = _mm_cvtepi32_ps(_mm_madd_epi16(mnv[b], _mm_load_si128((const __m128i *)bsp[j][b])));
                const __m128 mins1 = _mm_cvtepi32_ps(_mm_madd_epi16(mnv[b], _mm_load_si128((const __m128i *)bsp[j + (two ? 1 : 0)][b])));
                m0 = _mm_fmadd_ps(_mm_set1_ps(-yd0 * dmm[b]), mins0, m0);
                m1 = _mm_fmadd_ps(_mm_set1_ps(-yd1 * dmm[b]), mins1, m1);
            }
            float mm0[4], mm1[4];
            _mm_storeu_ps(mm0, m0);
            _mm_storeu_ps(mm1, m1);
            y[j * ystride + r] = hsum8(acc0) + ((mm0[0] + mm0[2]) + (mm0[1] + mm0[3]));
            if (two) y[(j + 1) * ystride + r] = hsum8(acc1) + ((mm1[0] + mm1[2]) + (mm1[1] + mm1[3]));
        }
    }
}

/// Q6_K rows [start, end) times n activations, each result exactly as `locallm_avx2_multi_q6_K`
/// computes it: prefill form (see `locallm_avx2_gemm_q4_K`). The −32 offset's sums come from one
/// 256-bit madd of the activation's bsums with the sixteen scales.
TARGET void locallm_avx2_gemm_q6_K(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                                   float *y, long ystride, long start, long end) {
    if (n > LOCALLM_MULTI_MAX || nb > GEMM_MAX_BLOCKS) {
        locallm_avx2_multi_q6_K(base, stride, a, n, nb, y, ystride, start, end);
        return;
    }
    __m256i q[GEMM_MAX_BLOCKS][8];
    __m256i s[GEMM_MAX_BLOCKS][8];
    __m256i s16[GEMM_MAX_BLOCKS];
    float dd[GEMM_MAX_BLOCKS];
    int16_t bs[LOCALLM_MULTI_MAX][GEMM_MAX_BLOCKS][16] __attribute__((aligned(32)));
    for (long j = 0; j < n; j++)
        for (long b = 0; b < nb; b++)
            for (int i = 0; i < 16; i++) bs[j][b][i] = (int16_t)a[j].bsums[16 * b + i];
    const __m256i mask4 = _mm256_set1_epi8(0x0F), mask2 = _mm256_set1_epi8(0x30);
    const long ahead = (PREFETCH_DISTANCE + stride - 1) / stride > 0 ? (PREFETCH_DISTANCE + stride - 1) / stride : 1;
    for (long r = start; r < end; r++) {
        if (r + ahead < end) prefetch_row(base + (r + ahead) * stride, stride);
        const uint8_t *row = base + r * stride;
        for (long b = 0; b < nb; b++) {
            const uint8_t *x = row + 210 * b;
            const int8_t *sc = (const int8_t *)(x + 192);
            for (int half = 0; half < 2; half++) {
                const uint8_t *ql = x + 64 * half;
                const __m256i qh = load32(x + 128 + 32 * half);
                const __m256i l0 = load32(ql), l1 = load32(ql + 32);
                q[b][4 * half] = _mm256_or_si256(_mm256_and_si256(l0, mask4), _mm256_and_si256(_mm256_slli_epi16(qh, 4), mask2));
                q[b][4 * half + 1] = _mm256_or_si256(_mm256_and_si256(l1, mask4), _mm256_and_si256(_mm256_slli_epi16(qh, 2), mask2));
                q[b][4 * half + 2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), mask4), _mm256_and_si256(qh, mask2));
                q[b][4 * half + 3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), mask4),
                                                     _mm256_and_si256(_mm256_srli_epi16(qh, 2), mask2));
            }
            for (int c = 0; c < 8; c++)
                s[b][c] = _mm256_set_m128i(_mm_set1_epi16((int16_t)sc[2 * c + 1]), _mm_set1_epi16((int16_t)sc[2 * c]));
            s16[b] = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)sc));
            dd[b] = half_at(x + 208);
        }
        for (long j = 0; j < n; j += 2) {
            const long j1 = (n - j) >= 2 ? j + 1 : j;
            __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
            for (long b = 0; b < nb; b++) {
                const int8_t *y0 = a[j].qs + 256 * b, *y1 = a[j1].qs + 256 * b;
                __m256i i0 = _mm256_sub_epi32(_mm256_setzero_si256(),
                                              _mm256_slli_epi32(_mm256_madd_epi16(_mm256_load_si256((const __m256i *)bs[j][b]), s16[b]), 5));
                __m256i i1 = _mm256_sub_epi32(_mm256_setzero_si256(),
                                              _mm256_slli_epi32(_mm256_madd_epi16(_mm256_load_si256((const __m256i *)bs[j1][b]), s16[b]), 5));
                for (int c = 0; c < 8; c++) {
                    const __m256i qc = q[b][c];
                    i0 = _mm256_add_epi32(i0, _mm256_madd_epi16(_mm256_maddubs_epi16(qc, load32(y0 + 32 * c)), s[b][c]));
                    i1 = _mm256_add_epi32(i1, _mm256_madd_epi16(_mm256_maddubs_epi16(qc, load32(y1 + 32 * c)), s[b][c]));
                }
                acc0 = _mm256_fmadd_ps(_mm256_set1_ps(a[j].scales[b] * dd[b]), _mm256_cvtepi32_ps(i0), acc0);
                acc1 = _mm256_fmadd_ps(_mm256_set1_ps(a[j1].scales[b] * dd[b]), _mm256_cvtepi32_ps(i1), acc1);
            }
            y[j * ystride + r] = hsum8(acc0);
            if (j1 != j) y[j1 * ystride + r] = hsum8(acc1);
        }
    }
}

#else
// Not x86-64: the Swift kernels are the path; these are never called (the flag is 0).
int locallm_has_avx2_fma_f16c(void) { return 0; }
#define NONE(T)                                                                                  \
    void locallm_avx2_rows_##T(const uint8_t *base, long stride, const locallm_activation *a,   \
                               long nb, float *y, long start, long end) {                        \
        (void)base; (void)stride; (void)a; (void)nb; (void)y; (void)start; (void)end;            \
    }
NONE(q8_0) NONE(q4_0) NONE(q4_1) NONE(q5_0) NONE(q5_1) NONE(q2_K) NONE(q3_K) NONE(q4_K) NONE(q5_K) NONE(q6_K)
NONE(iq4_nl) NONE(iq4_xs)
#define NONE_MULTI(T)                                                                                   \
    void locallm_avx2_multi_##T(const uint8_t *base, long stride, const locallm_activation *a, long n,  \
                                long nb, float *y, long ystride, long start, long end) {                 \
        (void)base; (void)stride; (void)a; (void)n; (void)nb; (void)y; (void)ystride; (void)start; (void)end; \
    }
NONE_MULTI(q8_0) NONE_MULTI(q4_0) NONE_MULTI(q5_0) NONE_MULTI(q4_1) NONE_MULTI(q4_K) NONE_MULTI(q6_K)
#define NONE_GEMM(T)                                                                                    \
    void locallm_avx2_gemm_##T(const uint8_t *base, long stride, const locallm_activation *a, long n,   \
                               long nb, float *y, long ystride, long start, long end) {                  \
        (void)base; (void)stride; (void)a; (void)n; (void)nb; (void)y; (void)ystride; (void)start; (void)end; \
    }
NONE_GEMM(q4_K) NONE_GEMM(q6_K)
#endif
