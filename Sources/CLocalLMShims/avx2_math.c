// Attention and activation loops for AVX2 + FMA, chosen at run time (see include/locallm_avx2.h).
// Each computes, lane by lane, exactly what its Swift twin in `GGMLOrder` / `Attention` computes: the
// same fused multiply-adds (`_mm256_fmadd_ps` where Swift has `GGMLOrder.fma`) and the same sums in the
// same order. Contraction is off, so the compiler adds no FMA of its own.
#include "locallm_avx2.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#pragma STDC FP_CONTRACT OFF
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
#include <immintrin.h>
#include <math.h>
#include <string.h>

#define TARGET __attribute__((target("avx2,fma,f16c")))
#define INLINE static inline __attribute__((always_inline)) TARGET

/// GGML_F32x8_REDUCE of four accumulators: (a0 + a2) + (a1 + a3), then (l0 + l4) + (l1 + l5) and
/// (l2 + l6) + (l3 + l7), then their sum (`GGMLOrder.reduce4x8`).
static inline float reduce4x8_lanes(const float *v) {
    const float t0 = v[0] + v[4], t1 = v[1] + v[5], t2 = v[2] + v[6], t3 = v[3] + v[7];
    return (t0 + t1) + (t2 + t3);
}

/// hsum_float_8 order: ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)) (`GGMLOrder.sum8`).
static inline float sum8_lanes(const float *v) {
    return ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]));
}

INLINE float dot_vec(const float *x, const float *y, long count) {
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
    long i = 0;
    for (; i + 32 <= count; i += 32) {
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), a0);
        a1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), a1);
        a2 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 16), _mm256_loadu_ps(y + i + 16), a2);
        a3 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 24), _mm256_loadu_ps(y + i + 24), a3);
    }
    float v[8];
    _mm256_storeu_ps(v, _mm256_add_ps(_mm256_add_ps(a0, a2), _mm256_add_ps(a1, a3)));
    double sum = (double)reduce4x8_lanes(v);
    for (; i < count; i++) sum += (double)(x[i] * y[i]);
    return (float)sum;
}

TARGET float locallm_avx2_dot_vec(const float *x, const float *y, long count) { return dot_vec(x, y, count); }

TARGET void locallm_avx2_scores(const float *keys, long ldk, long j0, long j1, const float *queries, long qstride,
                                long heads, long count, float *scores, long sstride) {
    for (long j = j0; j < j1; j++) {
        const float *k = keys + j * ldk;
        for (long h = 0; h < heads; h++) scores[h * sstride + j] = dot_vec(k, queries + h * qstride, count);
    }
}

TARGET float locallm_avx2_dot_f16(const uint16_t *x, const uint16_t *y, long count) {
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
#define LOAD_HALVES(p) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p)))
    long i = 0;
    for (; i + 32 <= count; i += 32) {
        a0 = _mm256_fmadd_ps(LOAD_HALVES(x + i), LOAD_HALVES(y + i), a0);
        a1 = _mm256_fmadd_ps(LOAD_HALVES(x + i + 8), LOAD_HALVES(y + i + 8), a1);
        a2 = _mm256_fmadd_ps(LOAD_HALVES(x + i + 16), LOAD_HALVES(y + i + 16), a2);
        a3 = _mm256_fmadd_ps(LOAD_HALVES(x + i + 24), LOAD_HALVES(y + i + 24), a3);
    }
#undef LOAD_HALVES
    float v[8];
    _mm256_storeu_ps(v, _mm256_add_ps(_mm256_add_ps(a0, a2), _mm256_add_ps(a1, a3)));
    double sum = (double)reduce4x8_lanes(v);
    for (; i < count; i++) sum += (double)(_cvtsh_ss(x[i]) * _cvtsh_ss(y[i]));
    return (float)sum;
}

TARGET float locallm_avx2_dot_tiled(const float *x, const float *y, long count) {
    __m256 a = _mm256_setzero_ps();
    for (long i = 0; i + 8 <= count; i += 8) a = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), a);
    float v[8];
    _mm256_storeu_ps(v, a);
    return sum8_lanes(v);
}

/// ggml_v_expf on 8 lanes: the same operations as `GGMLOrder.exp`, with its two rare branches (|n| >
/// 126 and > 192) taken per lane by blending.
INLINE __m256 v_expf(__m256 x) {
    const __m256 shifter = _mm256_set1_ps(0x1.8p23f);
    const __m256 z = _mm256_fmadd_ps(x, _mm256_set1_ps(0x1.715476p+0f), shifter);
    const __m256 n = _mm256_sub_ps(z, shifter);
    const __m256 b = _mm256_fnmadd_ps(n, _mm256_set1_ps(0x1.7f7d1cp-20f), _mm256_fnmadd_ps(n, _mm256_set1_ps(0x1.62e4p-1f), x));
    const __m256i e = _mm256_slli_epi32(_mm256_castps_si256(z), 23);
    const __m256 k = _mm256_castsi256_ps(_mm256_add_epi32(e, _mm256_castps_si256(_mm256_set1_ps(1))));
    const __m256 u = _mm256_mul_ps(b, b);
    const __m256 inner = _mm256_fmadd_ps(_mm256_set1_ps(0x1.0e4020p-7f), b, _mm256_set1_ps(0x1.573e2ep-5f));
    const __m256 outer = _mm256_fmadd_ps(_mm256_set1_ps(0x1.555e66p-3f), b, _mm256_set1_ps(0x1.fffdb6p-2f));
    const __m256 j = _mm256_fmadd_ps(_mm256_fmadd_ps(inner, u, outer), u, _mm256_mul_ps(_mm256_set1_ps(0x1.ffffecp-1f), b));
    const __m256 magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), n);
    const __m256 big = _mm256_cmp_ps(magnitude, _mm256_set1_ps(126), _CMP_GT_OQ);
    const __m256 normal = _mm256_fmadd_ps(j, k, k);
    if (!_mm256_movemask_ps(big)) return normal;
    // g = 0x82000000 where n <= 0, else 0.
    const __m256i g = _mm256_and_si256(_mm256_castps_si256(_mm256_cmp_ps(n, _mm256_setzero_ps(), _CMP_LE_OQ)),
                                       _mm256_set1_epi32((int)0x82000000u));
    const __m256 s1 = _mm256_castsi256_ps(_mm256_add_epi32(g, _mm256_set1_epi32(0x7F000000)));
    const __m256 s2 = _mm256_castsi256_ps(_mm256_sub_epi32(e, g));
    const __m256 huge = _mm256_cmp_ps(magnitude, _mm256_set1_ps(192), _CMP_GT_OQ);
    const __m256 scaled = _mm256_mul_ps(_mm256_fmadd_ps(s2, j, s2), s1);
    const __m256 r = _mm256_blendv_ps(scaled, _mm256_mul_ps(s1, s1), huge);
    return _mm256_blendv_ps(normal, r, big);
}

/// One lane of `v_expf` (for the tails that do not fill 8 lanes).
INLINE float expf_lane(float x) {
    float in[8] = {x, 0, 0, 0, 0, 0, 0, 0}, out[8];
    _mm256_storeu_ps(out, v_expf(_mm256_loadu_ps(in)));
    return out[0];
}

TARGET void locallm_avx2_exp_shifted(float *row, long count, float shift) {
    const __m256 s = _mm256_set1_ps(shift);
    long i = 0;
    for (; i + 8 <= count; i += 8) _mm256_storeu_ps(row + i, v_expf(_mm256_sub_ps(_mm256_loadu_ps(row + i), s)));
    for (; i < count; i++) row[i] = expf_lane(row[i] - shift);
}

/// The runtime's `Attention.softmax` without a soft cap, bit for bit: scores j in [from, to] scaled
/// (x·scale) and their maximum taken (NaN never is), ggml_v_expf(x − max) through
/// `locallm_avx2_exp_shifted`, the sum over groups of 8 cache cells (cell first_cell + j is column j;
/// hidden cells count as 0) each in hsum_float_8's order, the groups added in double; each weight
/// e · (float)(1 / sum), rounded to F16 when `to_half`; columns outside [from, to] zeroed.
TARGET void locallm_avx2_softmax_row(float *row, long span, long from, long to, long first_cell, float scale,
                                     int to_half) {
    const long count = to - from + 1;
    const __m256 sv = _mm256_set1_ps(scale);
    __m256 mv = _mm256_set1_ps(-INFINITY);
    float m = -INFINITY;
    long j = from;
    for (; j + 8 <= to + 1; j += 8) {
        const __m256 x = _mm256_mul_ps(_mm256_loadu_ps(row + j), sv);
        _mm256_storeu_ps(row + j, x);
        mv = _mm256_max_ps(x, mv);
    }
    for (; j <= to; j++) {
        const float x = row[j] * scale;
        row[j] = x;
        m = x > m ? x : m;
    }
    float lanes[8];
    _mm256_storeu_ps(lanes, mv);
    for (int l = 0; l < 8; l++) m = lanes[l] > m ? lanes[l] : m;
    // The Swift loop keeps the last score equal to the maximum: only a zero's sign can tell.
    if (m == 0.0f)
        for (long k = to; k >= from; k--)
            if (row[k] == 0.0f) {
                m = row[k];
                break;
            }
    locallm_avx2_exp_shifted(row + from, count, m);
    double sum = 0;
    for (long cell = (first_cell + from) / 8 * 8; cell <= first_cell + to; cell += 8) {
        const long j0 = cell - first_cell;
        if (j0 >= from && j0 + 7 <= to) {
            _mm256_storeu_ps(lanes, _mm256_loadu_ps(row + j0));
        } else {
            for (int l = 0; l < 8; l++) lanes[l] = (j0 + l >= from && j0 + l <= to) ? row[j0 + l] : 0.0f;
        }
        sum += (double)sum8_lanes(lanes);
    }
    const float inverse = (float)(1.0 / sum);
    const __m256 iv = _mm256_set1_ps(inverse);
    for (long k = 0; k < from; k++) row[k] = 0;
    for (j = from; j + 8 <= to + 1; j += 8) _mm256_storeu_ps(row + j, _mm256_mul_ps(_mm256_loadu_ps(row + j), iv));
    for (; j <= to; j++) row[j] *= inverse;
    if (to_half) locallm_f16c_round_to_half(row + from, row + from, count);
    for (long k = to + 1; k < span; k++) row[k] = 0;
}

/// One fused multiply-add, a·b + c rounded once.
INLINE float fma1(float a, float b, float c) {
    return _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(a), _mm_set_ss(b), _mm_set_ss(c)));
}

TARGET void locallm_avx2_rope(float *head, const float *cos_sin, long dimensions, int neox) {
    if (neox) {
        const long half = dimensions / 2;
        for (long i = 0; i < half; i++) {
            const float c = cos_sin[2 * i], s = cos_sin[2 * i + 1], x0 = head[i], x1 = head[i + half];
            head[i] = fma1(x0, c, -(x1 * s));
            head[i + half] = fma1(x0, s, x1 * c);
        }
    } else {
        for (long i = 0; i + 1 < dimensions; i += 2) {
            const float c = cos_sin[i], s = cos_sin[i + 1], x0 = head[i], x1 = head[i + 1];
            head[i] = fma1(x0, c, -(x1 * s));
            head[i + 1] = fma1(x0, s, x1 * c);
        }
    }
}

TARGET void locallm_avx2_swiglu(const float *gate, const float *up, float *out, long count) {
    const __m256 one = _mm256_set1_ps(1), zero = _mm256_setzero_ps();
    for (long i = 0; i + 8 <= count; i += 8) {
        const __m256 x = _mm256_loadu_ps(gate + i);
        const __m256 silu = _mm256_div_ps(x, _mm256_add_ps(one, v_expf(_mm256_sub_ps(zero, x))));
        _mm256_storeu_ps(out + i, _mm256_mul_ps(silu, _mm256_loadu_ps(up + i)));
    }
}

/// The first position j ≥ j0 whose cache cell (first_cell + j) falls in slot s of `lanes`.
INLINE long first_in_slot(long j0, long first_cell, int s, int lanes) {
    return j0 + ((long)s - (first_cell + j0) % lanes + lanes) % lanes;
}

/// Column i of 32 slots' partial sums reduced as ggml_vec_dot_f16 reduces its accumulators: (a0 + a2) +
/// (a1 + a3) lane by lane, where a_k[l] is slot 8k + l's sum, then GGML_F32x8_REDUCE's lane order.
static inline float reduce_slots32(const float (*slots)[16], long i) {
    float v[8];
    for (int l = 0; l < 8; l++) v[l] = (slots[l][i] + slots[16 + l][i]) + (slots[8 + l][i] + slots[24 + l][i]);
    return reduce4x8_lanes(v);
}

/// Slot by slot: slot s's partial sums take the positions whose cache cell is s modulo `lanes`, in
/// position order — the same fused multiply-adds in the same order as accumulating every position
/// into `partial[slot]` as it comes (the Swift twin's loop), but with the accumulators of 16 columns in
/// registers instead of 32 or 8 spilled ones, and one broadcast weight per position for both halves.
TARGET void locallm_avx2_weighted_values(const float *weights, long j0, long j1, long first_cell, const float *values,
                                         long ldv, long c0, long c1, int lanes, float *out) {
    if (lanes != 8 && lanes != 32) return;
    float lanes_of[32][16];
    for (long c = c0; c < c1; c += 16) {
        const long width = c1 - c < 16 ? c1 - c : 16;
        for (int s = 0; s < lanes; s++) {
            long j = first_in_slot(j0, first_cell, s, lanes);
            __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
            if (width == 16) {
                for (; j < j1; j += lanes) {
                    const float *row = values + j * ldv + c;
                    const __m256 w = _mm256_set1_ps(weights[j]);
                    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(row), w, a0);
                    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(row + 8), w, a1);
                }
            } else {
                for (; j < j1; j += lanes) {
                    float tmp[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
                    memcpy(tmp, values + j * ldv + c, (size_t)width * sizeof(float));
                    const __m256 w = _mm256_set1_ps(weights[j]);
                    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(tmp), w, a0);
                    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(tmp + 8), w, a1);
                }
            }
            _mm256_storeu_ps(lanes_of[s], a0);
            _mm256_storeu_ps(lanes_of[s] + 8, a1);
        }
        for (long i = 0; i < width; i++) {
            if (lanes == 32) {
                out[c + i] = reduce_slots32((const float (*)[16])lanes_of, i);
            } else {
                float v[8];
                for (int l = 0; l < 8; l++) v[l] = lanes_of[l][i];
                out[c + i] = sum8_lanes(v);
            }
        }
    }
}

/// `locallm_avx2_scores` over an F16 key cache: each key row widened once (exactly) into a buffer in L1,
/// then dotted with every query head, the rows a few positions ahead prefetched.
TARGET void locallm_avx2_scores_f16(const uint16_t *keys, long ldk, long j0, long j1, const float *queries,
                                    long qstride, long heads, long count, float *scores, long sstride) {
    float k[LOCALLM_ATTENTION_MAX_HEAD];
    if (count > LOCALLM_ATTENTION_MAX_HEAD) return;
    for (long j = j0; j < j1; j++) {
        const uint16_t *row = keys + j * ldk;
        if (j + 8 < j1)
            for (long o = 0; o < 2 * count; o += 64) _mm_prefetch((const char *)(row + 8 * ldk) + o, _MM_HINT_T0);
        long i = 0;
        for (; i + 8 <= count; i += 8) _mm256_storeu_ps(k + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(row + i))));
        for (; i < count; i++) k[i] = _cvtsh_ss(row[i]);
        for (long h = 0; h < heads; h++) scores[h * sstride + j] = dot_vec(k, queries + h * qstride, count);
    }
}

/// Up to four heads' slot-by-slot sums of `locallm_avx2_weighted_values` (32 lanes) over 16 columns of
/// an F16 value cache: each value row widened once for all of them.
#define WV_HEADS(H)                                                                                         \
    for (int s = 0; s < 32; s++) {                                                                          \
        long j = first_in_slot(j0, first_cell, s, 32);                                                      \
        __m256 a[H][2];                                                                                     \
        for (int h = 0; h < H; h++) a[h][0] = a[h][1] = _mm256_setzero_ps();                                \
        for (; j < j1; j += 32) {                                                                           \
            const uint16_t *row = values + j * ldv + c;                                                     \
            const __m256 v0 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)row));                      \
            const __m256 v1 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(row + 8)));                \
            for (int h = 0; h < H; h++) {                                                                   \
                const __m256 w = _mm256_set1_ps(weights[(h0 + h) * wstride + j]);                           \
                a[h][0] = _mm256_fmadd_ps(v0, w, a[h][0]);                                                  \
                a[h][1] = _mm256_fmadd_ps(v1, w, a[h][1]);                                                  \
            }                                                                                               \
        }                                                                                                   \
        for (int h = 0; h < H; h++) {                                                                       \
            _mm256_storeu_ps(lanes_of[h][s], a[h][0]);                                                      \
            _mm256_storeu_ps(lanes_of[h][s] + 8, a[h][1]);                                                  \
        }                                                                                                   \
    }

TARGET void locallm_avx2_weighted_values_f16(const float *weights, long wstride, long heads, long j0, long j1,
                                             long first_cell, const uint16_t *values, long ldv, long c0, long c1,
                                             float *out, long ostride) {
    if ((c1 - c0) % 16 != 0) return;
    float lanes_of[4][32][16];
    // Bring this stretch of every row in once, in order, before the strided slot-by-slot passes.
    for (long j = j0; j < j1; j++)
        for (long o = 0; o < 2 * (c1 - c0); o += 64) _mm_prefetch((const char *)(values + j * ldv + c0) + o, _MM_HINT_T0);
    for (long c = c0; c < c1; c += 16) {
        for (long h0 = 0; h0 < heads; h0 += 4) {
            const long hn = heads - h0 < 4 ? heads - h0 : 4;
            switch (hn) {
            case 4: { WV_HEADS(4) } break;
            case 3: { WV_HEADS(3) } break;
            case 2: { WV_HEADS(2) } break;
            default: { WV_HEADS(1) } break;
            }
            for (long h = 0; h < hn; h++)
                for (long i = 0; i < 16; i++) out[(h0 + h) * ostride + c + i] = reduce_slots32((const float (*)[16])lanes_of[h], i);
        }
    }
}
#undef WV_HEADS

/// F16C's conversions, 8 values at a time, the tail one at a time with the same instruction.
TARGET void locallm_f16c_to_half(const float *x, uint16_t *out, long count) {
    long i = 0;
    for (; i + 8 <= count; i += 8)
        _mm_storeu_si128((__m128i *)(out + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < count; i++) out[i] = _cvtss_sh(x[i], _MM_FROUND_TO_NEAREST_INT);
}

TARGET void locallm_f16c_from_half(const uint16_t *x, float *out, long count) {
    long i = 0;
    for (; i + 8 <= count; i += 8) _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + i))));
    for (; i < count; i++) out[i] = _cvtsh_ss(x[i]);
}

/// NaNs pass through unchanged, as `roundedToHalf` leaves them (a round trip through F16 would quiet
/// them and drop payload bits).
TARGET void locallm_f16c_round_to_half(const float *x, float *out, long count) {
    long i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        const __m256 r = _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
        _mm256_storeu_ps(out + i, _mm256_blendv_ps(r, v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
    }
    for (; i < count; i++) out[i] = x[i] != x[i] ? x[i] : _cvtsh_ss(_cvtss_sh(x[i], _MM_FROUND_TO_NEAREST_INT));
}

TARGET void locallm_avx2_geglu(const float *gate, const float *up, const float *table, float *out, long count) {
    const __m256 low = _mm256_set1_ps(-10), high = _mm256_set1_ps(10);
    long i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256 x = _mm256_loadu_ps(gate + i), u = _mm256_loadu_ps(up + i);
        const __m256i index = _mm256_cvtepu16_epi32(_mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT));
        const __m256 looked = _mm256_mul_ps(_mm256_i32gather_ps(table, index, 4), u);
        // x ≥ 10: x · up; x ≤ −10: 0; otherwise the table's value · up (NaN takes the table's lane,
        // as the scalar comparisons do).
        __m256 y = _mm256_blendv_ps(looked, _mm256_mul_ps(x, u), _mm256_cmp_ps(x, high, _CMP_GE_OQ));
        y = _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(x, low, _CMP_LE_OQ));
        _mm256_storeu_ps(out + i, y);
    }
    for (; i < count; i++) {
        const float x = gate[i];
        out[i] = x <= -10 ? 0 : x >= 10 ? x * up[i] : table[_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT)] * up[i];
    }
}

#else
void locallm_avx2_scores(const float *keys, long ldk, long j0, long j1, const float *queries, long qstride,
                         long heads, long count, float *scores, long sstride) {
    (void)keys; (void)ldk; (void)j0; (void)j1; (void)queries; (void)qstride; (void)heads; (void)count; (void)scores;
    (void)sstride;
}
void locallm_avx2_scores_f16(const uint16_t *keys, long ldk, long j0, long j1, const float *queries, long qstride,
                             long heads, long count, float *scores, long sstride) {
    (void)keys; (void)ldk; (void)j0; (void)j1; (void)queries; (void)qstride; (void)heads; (void)count; (void)scores;
    (void)sstride;
}
void locallm_avx2_weighted_values_f16(const float *weights, long wstride, long heads, long j0, long j1,
                                      long first_cell, const uint16_t *values, long ldv, long c0, long c1,
                                      float *out, long ostride) {
    (void)weights; (void)wstride; (void)heads; (void)j0; (void)j1; (void)first_cell; (void)values; (void)ldv; (void)c0;
    (void)c1; (void)out; (void)ostride;
}
float locallm_avx2_dot_vec(const float *x, const float *y, long count) { (void)x; (void)y; (void)count; return 0; }
float locallm_avx2_dot_tiled(const float *x, const float *y, long count) { (void)x; (void)y; (void)count; return 0; }
float locallm_avx2_dot_f16(const uint16_t *x, const uint16_t *y, long count) { (void)x; (void)y; (void)count; return 0; }
void locallm_avx2_exp_shifted(float *row, long count, float shift) { (void)row; (void)count; (void)shift; }
void locallm_avx2_softmax_row(float *row, long span, long from, long to, long first_cell, float scale, int to_half) {
    (void)row; (void)span; (void)from; (void)to; (void)first_cell; (void)scale; (void)to_half;
}
void locallm_avx2_rope(float *head, const float *cos_sin, long dimensions, int neox) {
    (void)head; (void)cos_sin; (void)dimensions; (void)neox;
}
void locallm_avx2_swiglu(const float *gate, const float *up, float *out, long count) {
    (void)gate; (void)up; (void)out; (void)count;
}
void locallm_avx2_weighted_values(const float *weights, long j0, long j1, long first_cell, const float *values,
                                  long ldv, long c0, long c1, int lanes, float *out) {
    (void)weights; (void)j0; (void)j1; (void)first_cell; (void)values; (void)ldv; (void)c0; (void)c1; (void)lanes; (void)out;
}
void locallm_f16c_to_half(const float *x, uint16_t *out, long count) { (void)x; (void)out; (void)count; }
void locallm_f16c_from_half(const uint16_t *x, float *out, long count) { (void)x; (void)out; (void)count; }
void locallm_f16c_round_to_half(const float *x, float *out, long count) { (void)x; (void)out; (void)count; }
void locallm_avx2_geglu(const float *gate, const float *up, const float *table, float *out, long count) {
    (void)gate; (void)up; (void)table; (void)out; (void)count;
}
#endif
