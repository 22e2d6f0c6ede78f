// Quantized matvec rows for x86-64 CPUs with AVX2, FMA and F16C, compiled for those instructions
// per function (`__attribute__((target(...)))`) so that a plain `swift build` — which targets baseline
// x86-64 (SSE2) and cannot compile Swift for AVX2 — still runs them, chosen once at run time from the
// CPU's features, as ggml chooses its kernels.
//
// Each function computes exactly what the Swift kernels in LocalLMKernels compute (`DotFast`, and
// `DotAVX2` in native builds): the same integer sums and the same float operations in the same order,
// so results are bit-identical (tests compare them). The Swift kernels stay the reference and the path
// on every other CPU.
#ifndef LOCALLM_AVX2_H
#define LOCALLM_AVX2_H

#include <stdint.h>

/// An activation row quantized for the integer dots (LocalLMKernels' `PreparedActivation`):
/// `qs[n]` int8 values; `scales[n / block]` each block's d; `sums[n / 32]` Q8_1's s; `bsums[n / 16]`
/// Q8_K's sums of each 16 values.
typedef struct {
    const int8_t *qs;
    const float *scales;
    const float *sums;
    const int32_t *bsums;
} locallm_activation;

/// 1 when the CPU has AVX2, FMA and F16C (read once, when the library loads), 0 otherwise.
int locallm_has_avx2_fma_f16c(void);

/// y[r] = row r of the weights (rows `stride` bytes apart from `base`, `nb` blocks each) · the
/// activation, for r in [start, end). One function per weight type. Call only when
/// `locallm_has_avx2_fma_f16c()` is 1.
void locallm_avx2_rows_q8_0(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                            float *y, long start, long end);
void locallm_avx2_rows_q4_0(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                            float *y, long start, long end);
void locallm_avx2_rows_q4_1(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                            float *y, long start, long end);
void locallm_avx2_rows_q5_0(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                            float *y, long start, long end);
void locallm_avx2_rows_q5_1(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                            float *y, long start, long end);
void locallm_avx2_rows_q2_K(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                            float *y, long start, long end);
void locallm_avx2_rows_q3_K(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                            float *y, long start, long end);
void locallm_avx2_rows_q4_K(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                            float *y, long start, long end);
void locallm_avx2_rows_q5_K(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                            float *y, long start, long end);
void locallm_avx2_rows_q6_K(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                            float *y, long start, long end);
void locallm_avx2_rows_iq4_nl(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                              float *y, long start, long end);
void locallm_avx2_rows_iq4_xs(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                              float *y, long start, long end);

/// The most activations one `locallm_avx2_multi_*` call takes.
#define LOCALLM_MULTI_MAX 16

/// y[j·ystride + r] = row r of the weights · activation j, for r in [start, end) and j < n (n at most
/// LOCALLM_MULTI_MAX), each exactly as the one-activation function of the type computes it, the weights
/// read once for all activations. For Q8_0, Q4_0, Q5_0, Q4_1, Q4_K and Q6_K. Call only when `locallm_has_avx2_fma_f16c()` is 1.
void locallm_avx2_multi_q8_0(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                             float *y, long ystride, long start, long end);
void locallm_avx2_multi_q4_0(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                             float *y, long ystride, long start, long end);
void locallm_avx2_multi_q5_0(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                             float *y, long ystride, long start, long end);
void locallm_avx2_multi_q4_1(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                             float *y, long ystride, long start, long end);
void locallm_avx2_multi_q4_K(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                             float *y, long ystride, long start, long end);
void locallm_avx2_multi_q6_K(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                             float *y, long ystride, long start, long end);

/// What `locallm_avx2_multi_*` computes, bit for bit, shaped for prefill: each weight row is unpacked
/// once into a buffer and the activations go through it in register-held pairs, with the K-quants'
/// minimum and offset terms from vector `madd`s over the activation's block sums. About 1.5× the
/// several-activation kernel's speed with the rows in cache; rows are prefetched ahead as there, so decode
/// batches use them too. For Q4_K and Q6_K. Call only when
/// `locallm_has_avx2_fma_f16c()` is 1.
void locallm_avx2_gemm_q4_K(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                            float *y, long ystride, long start, long end);
void locallm_avx2_gemm_q6_K(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                            float *y, long ystride, long start, long end);

/// 1 when the CPU has AVX-512 F, BW, VL and VNNI besides AVX2 + FMA + F16C (read once), 0 otherwise.
int locallm_has_avx512_vnni(void);

/// `locallm_avx2_gemm_*` with 512-bit vectors and `vpdpwssd`: the same bits. Call only when
/// `locallm_has_avx512_vnni()` is 1.
void locallm_avx512_gemm_q4_K(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                              float *y, long ystride, long start, long end);
void locallm_avx512_gemm_q6_K(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                              float *y, long ystride, long start, long end);

/// Prompt batches, faster than `locallm_avx2_gemm_*` but not decode's bits: y[j·ystride + r] = row r
/// of the Q4_K weights · activation j (Q8_K) for r in [start, end) and j < n. Eight rows at a time are
/// unpacked into an interleaved buffer (row r in dword r of each vector) and every activation goes
/// through them, so a sub-block's eight `maddubs` are summed in int16 before one `madd` with the
/// scales and the eight rows' results fill one vector, with no horizontal sums. Each row's float is
/// the chain acc = fma(d·yd, s_b, acc), acc = fma(−(dmin·yd), m_b, acc) over its blocks b in order
/// (s_b, m_b the block's exact integer sums; `TiledPrefill` in LocalLMKernels is the Swift twin).
/// Returns 0, having written nothing, when it cannot allocate its buffers (about 2.5 KB per block
/// and 16 bytes per block and activation); 1 otherwise. Call only when `locallm_has_avx2_fma_f16c()` is 1.
int locallm_avx2_tiles_q4_K(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                            float *y, long ystride, long start, long end);
/// The same for Q6_K: per 16-value sub-block two `maddubs` summed in int16, one `madd` with the
/// scales; each block's exact Σ scale·(q − 32)·y gives acc = fma(d·yd, s_b, acc).
int locallm_avx2_tiles_q6_K(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                            float *y, long ystride, long start, long end);
/// `locallm_avx2_tiles_q4_K` and `_q6_K` with 512-bit vectors: sixteen rows interleaved (row r in
/// dword r), each sub-block's Σ q·y of a row summed by `vpdpbusd` in one int32 lane and multiplied by
/// the row's scale. The integers are the 8-row kernels', so are the results, bit for bit. About 5 KB
/// per block for the packed rows. Call only when `locallm_has_avx512_vnni()` is 1.
int locallm_avx512_tiles_q4_K(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                              float *y, long ystride, long start, long end);
int locallm_avx512_tiles_q6_K(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                              float *y, long ystride, long start, long end);
/// Q8_0's decode rows four at a time (the AVX2 rows run one at a time): the same bits. Chosen on CPUs with
/// AVX-512 VNNI, where it was measured; it uses AVX2 only.
void locallm_avx512_rows_q8_0(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                              float *y, long start, long end);
/// `locallm_avx2_rows_q5_0` with two blocks per 512-bit vector (the fifth bits from a mask register):
/// the same int32 lanes and the same FMA chain per row, so the same bits. Call only when
/// `locallm_has_avx512_vnni()` is 1 (it uses AVX-512 BW).
void locallm_avx512_rows_q5_0(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                              float *y, long start, long end);
/// `locallm_avx2_rows_q4_1` with two blocks per 512-bit vector and `vpdpbusd`: the same int32 lanes
/// and the same float operations per row, so the same bits. Call only when `locallm_has_avx512_vnni()`
/// is 1.
void locallm_avx512_rows_q4_1(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                              float *y, long start, long end);
/// `locallm_avx2_multi_q5_0` with `vpdpbusd` onto precomputed negated offsets: the same int32 lanes
/// and float operations, so the same bits (activation bytes in −127…127, as Q8_0 quantization
/// writes). Call only when `locallm_has_avx512_vnni()` is 1.
void locallm_avx512_multi_q5_0(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                               float *y, long ystride, long start, long end);
/// `locallm_avx2_multi_q8_0` and `_q4_0` with `vpdpbusd` (activation bytes + 128 against the signed
/// values, onto −128 × the values' sums): the same bits for activation bytes in −127…127. Call only
/// when `locallm_has_avx512_vnni()` is 1.
void locallm_avx512_multi_q8_0(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                               float *y, long ystride, long start, long end);
void locallm_avx512_multi_q4_0(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                               float *y, long ystride, long start, long end);
/// `locallm_avx2_multi_q4_1` with `vpdpbusd` (nibbles times each activation's bytes) and groups of 8,
/// 4, 2 and 1 activations: the same int32 lanes and float operations, so the same bits. Call only when
/// `locallm_has_avx512_vnni()` is 1.
void locallm_avx512_multi_q4_1(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                               float *y, long ystride, long start, long end);
/// Q4_K's decode rows two blocks at a time, with 256-bit `vpdpwssd` and the sub-block scales broadcast
/// from memory: the AVX2 form's integers and float operations, so the same bits. Call only when
/// `locallm_has_avx512_vnni()` is 1.
void locallm_avx512_rows_q4_K(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                              float *y, long start, long end);
/// Q6_K's decode rows with two 32-value chunks per 512-bit instruction and the scales fused by `vpdpwssd`,
/// folded to the AVX2 form's integers before the same float operations: the same bits. Call only when
/// `locallm_has_avx512_vnni()` is 1.
void locallm_avx512_rows_q6_K(const uint8_t *base, long stride, const locallm_activation *a, long nb,
                              float *y, long start, long end);
/// `locallm_avx512_tiles_q4_K` for 32-value blocks (Q8_0, Q4_0, Q5_0 with Q8_0 activations; Q4_1 with Q8_1): per block
/// the exact integer s = Σ q·y of each row, then acc = fma(d·yd, s, acc) and, for Q4_1,
/// acc = fma(m, sum, acc) with the activation's block sum, blocks in order.
int locallm_avx512_tiles_q8_0(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                              float *y, long ystride, long start, long end);
int locallm_avx512_tiles_q4_0(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                              float *y, long ystride, long start, long end);
int locallm_avx512_tiles_q5_0(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                              float *y, long ystride, long start, long end);
int locallm_avx512_tiles_q4_1(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                              float *y, long ystride, long start, long end);
/// `locallm_avx512_tiles_q4_0`, `_q5_0` and `_q4_1` with 256-bit vectors (values below 32, so four
/// `maddubs` sum in int16): the same integers and the same float steps, so the same bits. Call only
/// when `locallm_has_avx2_fma_f16c()` is 1.
int locallm_avx2_tiles_q4_0(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                            float *y, long ystride, long start, long end);
int locallm_avx2_tiles_q5_0(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                            float *y, long ystride, long start, long end);
int locallm_avx2_tiles_q4_1(const uint8_t *base, long stride, const locallm_activation *a, long n, long nb,
                            float *y, long ystride, long start, long end);

// MARK: - Attention and activations in ggml's float order (see LocalLMKernels' `GGMLOrder`)

/// ggml_vec_dot_f16's order over float operands: four 8-lane FMA accumulators over steps of 32,
/// reduced as GGML_F32x8_REDUCE, the remainder one product at a time in double (`GGMLOrder.dotVec`).
float locallm_avx2_dot_vec(const float *x, const float *y, long count);

/// scores[h·sstride + j] = locallm_avx2_dot_vec(keys + j·ldk, queries + h·qstride, count) for j in
/// [j0, j1) and h < heads: one call for a key/value head's positions and its query heads.
void locallm_avx2_scores(const float *keys, long ldk, long j0, long j1, const float *queries, long qstride,
                         long heads, long count, float *scores, long sstride);

/// The longest key row `locallm_avx2_scores_f16` takes (it does nothing for longer ones).
#define LOCALLM_ATTENTION_MAX_HEAD 1024

/// `locallm_avx2_scores` with F16 keys (bit patterns, widened exactly): the same values.
void locallm_avx2_scores_f16(const uint16_t *keys, long ldk, long j0, long j1, const float *queries, long qstride,
                             long heads, long count, float *scores, long sstride);

/// `locallm_avx2_weighted_values` with 32 lanes for `heads` heads at once over F16 values (bit
/// patterns, widened exactly): out[h·ostride + c] for c in [c0, c1) from weights[h·wstride + j], j in
/// [j0, j1) — for each head the same values. (c1 − c0) must be a multiple of 16 (it does nothing
/// otherwise).
void locallm_avx2_weighted_values_f16(const float *weights, long wstride, long heads, long j0, long j1,
                                      long first_cell, const uint16_t *values, long ldv, long c0, long c1,
                                      float *out, long ostride);

/// ggml_vec_dot_f16 itself: `locallm_avx2_dot_vec`'s order over F16 operands (bit patterns).
float locallm_avx2_dot_f16(const uint16_t *x, const uint16_t *y, long count);

/// tinyBLAS's dot (ggml's batched F16/F32 products): one 8-lane FMA accumulator over steps of 8, then
/// hsum_float_8's order (`GGMLOrder.dotTiled`). `count` must be a multiple of 8.
float locallm_avx2_dot_tiled(const float *x, const float *y, long count);

/// row[i] = ggml_v_expf(row[i] − shift) for i < count (`GGMLOrder.exp`, lane by lane).
void locallm_avx2_exp_shifted(float *row, long count, float shift);

/// One row of attention scores turned into softmax weights (no soft cap), bit for bit as the runtime's
/// `Attention.softmax` computes them (see the definition). Columns outside [from, to] become 0.
void locallm_avx2_softmax_row(float *row, long span, long from, long to, long first_cell, float scale, int to_half);

/// RoPE of one head in place, as ggml's rope compiled with contraction: x0·cos − x1·sin as
/// fma(x0, cos, −(x1·sin)) and x0·sin + x1·cos as fma(x0, sin, x1·cos); pairs (2i, 2i+1), or (i, i +
/// dimensions/2) when `neox` is 1; `cos_sin` holds (cos, sin) per pair (`TransformerMath.rope`).
void locallm_avx2_rope(float *head, const float *cos_sin, long dimensions, int neox);

/// out[i] = x / (1 + ggml_v_expf(0 − x)) · up[i] with x = gate[i], for i < count, count a multiple of 8
/// (ggml_vec_swiglu_f32's vector part, `GGMLOrder.silu`).
void locallm_avx2_swiglu(const float *gate, const float *up, float *out, long count);

/// nb blocks at x dequantized into y (32 floats per block), exactly as `Dequantize` (value · d, one
/// float multiply each).
void locallm_avx2_dequantize_q8_0(const uint8_t *x, long nb, float *y);
void locallm_avx2_dequantize_q4_0(const uint8_t *x, long nb, float *y);
void locallm_avx2_dequantize_q5_0(const uint8_t *x, long nb, float *y);
void locallm_avx2_dequantize_q4_1(const uint8_t *x, long nb, float *y);

/// out[b] = f16(d·Σq) − f16(d)·Σq for each block b of 32 floats of x, with ggml's Q8_1 quantization of
/// the block, bit for bit as LocalLMRuntime's `ActivationRounding.q8_1SumErrors` computes it. Call
/// only when `locallm_has_avx2_fma_f16c()` is 1.
void locallm_avx2_q8_1_sum_errors(const float *x, long blocks, float *out);

/// `nb` Q8_K blocks of x (256 floats each) into y (292 bytes each), bit for bit as LocalLMKernels'
/// `Quantize.q8_K` writes them. Call only when `locallm_has_avx2_fma_f16c()` is 1.
/// `nb` Q8_0 (34-byte) or Q8_1 (36-byte) blocks from x: the bytes `Quantize.q8_0Activation` and
/// `q8_1Activation` write (NaN and infinity included). Call only when `locallm_has_avx2_fma_f16c()` is 1.
void locallm_avx2_quantize_q8_0(const float *x, long nb, uint8_t *y);
void locallm_avx2_quantize_q8_1(const float *x, long nb, uint8_t *y);
void locallm_avx2_quantize_q8_K(const float *x, long nb, uint8_t *y);

/// x (`nb` blocks of 32 floats) replaced by its Q8_0 quantization dequantized again, bit for bit as
/// LocalLMRuntime's `ActivationRounding` computes it (in a native build too: |x·id| ≤ 127, where
/// the 1.5·2²³ trick and `rounded(.toNearestOrEven)` agree). Call only when
/// `locallm_has_avx2_fma_f16c()` is 1.
void locallm_avx2_round_q8_0(float *x, long nb);

/// F32 → F16 bits rounded to nearest even (`floatToHalf`); `out` may not overlap `x`.
void locallm_f16c_to_half(const float *x, uint16_t *out, long count);

/// F16 bits → F32, exact (`halfToFloat`).
void locallm_f16c_from_half(const uint16_t *x, float *out, long count);

/// out[i] = x[i] rounded to the nearest F16 value, as F32 (`roundedToHalf`); `out` may be `x`.
void locallm_f16c_round_to_half(const float *x, float *out, long count);

/// out[i] = gelu(gate[i]) · up[i] as ggml_vec_geglu_f32 with its F16 table: 0 for x ≤ −10, x · up for
/// x ≥ 10, else table[F16 bits of x] · up (`TransformerMath.geglu`). `table` has 65,536 entries.
void locallm_avx2_geglu(const float *gate, const float *up, const float *table, float *out, long count);

/// out[c] = Σ_j weights[j] · values[j·ldv + c] for c in [c0, c1) and j in [j0, j1), each output's terms
/// accumulated with FMA into `lanes` (8 or 32) partial sums by cache cell (first_cell + j) mod lanes,
/// then reduced as tinyBLAS (8) or ggml_vec_dot_f16 (32) reduce them (`Attention.weightedValues`).
void locallm_avx2_weighted_values(const float *weights, long j0, long j1, long first_cell, const float *values,
                                  long ldv, long c0, long c1, int lanes, float *out);

#endif
