// The prefetch helper is static inline in include/CLocalLMShims.h; the FMA chain is here.
#include "CLocalLMShims.h"
#include <math.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("fma")))
static void fma_chain_instruction(const float *lanes, const float *scales, int blocks, int width, float *acc) {
    for (int b = 0; b < blocks; b++) {
        const float s = scales[b];
        const float *l = lanes + (long)b * width;
        for (int i = 0; i < width; i++) acc[i] = __builtin_fmaf(l[i], s, acc[i]);
    }
}
#endif

static void fma_chain_library(const float *lanes, const float *scales, int blocks, int width, float *acc) {
    for (int b = 0; b < blocks; b++) {
        const float s = scales[b];
        const float *l = lanes + (long)b * width;
        for (int i = 0; i < width; i++) acc[i] = fmaf(l[i], s, acc[i]);
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
static int has_fma;

// Set once when the library loads, before any thread can call the chain.
__attribute__((constructor))
static void detect_fma(void) {
    __builtin_cpu_init();
    has_fma = __builtin_cpu_supports("fma") ? 1 : 0;
}
#endif

void locallm_fma_chain(const float *lanes, const float *scales, int blocks, int width, float *acc) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (has_fma) {
        fma_chain_instruction(lanes, scales, blocks, width, acc);
        return;
    }
#endif
    fma_chain_library(lanes, scales, blocks, width, acc);
}
