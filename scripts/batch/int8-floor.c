// The least a decode batch can pay per weight block and sequence on an AVX2 CPU without VNNI: the
// instruction sequence that forms one 32-weight block's contribution to one sequence's dot product in
// llama.cpp's Q8_0/Q5_0/Q4_0 arithmetic (which LocalLM's decode and decode-batch kernels reproduce
// bit for bit), run on data already in L1 and registers, with eight independent accumulators so that
// only instruction throughput limits it. Nothing is unpacked, nothing comes from memory beyond L1:
// every real kernel costs at least this much per block and sequence.
//
//   exact:    vpsignb, vpmaddubsw, vpmaddwd, vcvtdq2ps, vfmadd231ps (+ the activation and the
//             broadcast scale loaded from L1) — signed weights × signed activations, int32 lanes of
//             four products, one float FMA per block (the per-block scales forbid integer sums across
//             blocks).
//   unsigned: the same without vpsignb (weights already unsigned, no correction): a lower bound for
//             any int8 form with per-block float scales.
//   no-madd:  vpmaddubsw, vcvtdq2ps, vfmadd231ps only (not a correct dot product): what the two
//             widening steps cost on top.
//
// Built and run by scripts/batch/int8-floor.sh; prints one JSON line, nanoseconds per block and
// sequence (best of 5 runs).
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define KERNEL(NAME, BODY)                                                                          \
    __attribute__((target("avx2,fma"), noinline)) static float NAME(const int8_t *a, const float *sc, \
                                                                      long iters) {                  \
        __m256 acc[8];                                                                              \
        for (int i = 0; i < 8; i++) acc[i] = _mm256_setzero_ps();                                  \
        __m256i w = _mm256_set1_epi8(3);                                                            \
        const __m256i ones = _mm256_set1_epi16(1);                                                  \
        for (long it = 0; it < iters; it++) {                                                       \
            for (int k = 0; k < 8; k++) {                                                           \
                const __m256i y = _mm256_loadu_si256((const __m256i *)(a + 32 * k));               \
                __m256i s;                                                                          \
                BODY;                                                                               \
                acc[k] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_broadcast_ss(sc + k), acc[k]); \
            }                                                                                       \
            w = _mm256_add_epi8(w, ones);                                                           \
        }                                                                                           \
        __m256 t = acc[0];                                                                          \
        for (int i = 1; i < 8; i++) t = _mm256_add_ps(t, acc[i]);                                  \
        return t[0];                                                                                \
    }

KERNEL(exact, s = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(y, w)), ones))
KERNEL(unsigned_weights, s = _mm256_madd_epi16(_mm256_maddubs_epi16(w, y), ones))
KERNEL(no_madd, s = _mm256_maddubs_epi16(w, y))

typedef float (*kernel)(const int8_t *, const float *, long);

static double best_ns(kernel f, const int8_t *a, const float *sc, volatile float *sink) {
    const long iters = 10000000;
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        const double t0 = now();
        *sink += f(a, sc, iters);
        const double dt = now() - t0;
        if (dt < best) best = dt;
    }
    return best / (double)(iters * 8) * 1e9;
}

int main(void) {
    static int8_t a[256];
    static float sc[8];
    for (int i = 0; i < 256; i++) a[i] = (int8_t)(i * 37 % 255 - 127);
    for (int i = 0; i < 8; i++) sc[i] = 1e-3f * (float)(i + 1);
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        printf("{\"error\":\"this CPU has no AVX2/FMA\"}\n");
        return 1;
    }
    volatile float sink = 0;
    const double e = best_ns(exact, a, sc, &sink);
    const double u = best_ns(unsigned_weights, a, sc, &sink);
    const double m = best_ns(no_madd, a, sc, &sink);
    printf("{\"ns_per_block_and_sequence\":{\"exact\":%.3f,\"unsigned\":%.3f,\"no_madd\":%.3f}}\n", e, u, m);
    return sink == 12345.0f;
}
