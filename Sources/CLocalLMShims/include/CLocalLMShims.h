// Small C helpers the Swift kernels cannot express. `_mm_prefetch` is a C macro, so the intrinsics
// module does not export it to Swift; these static inline wrappers compile to one instruction each.
#ifndef CLOCALLM_SHIMS_H
#define CLOCALLM_SHIMS_H

/// Hint that the cache line holding `p` will be read soon (into every cache level). Never faults,
/// whatever `p` points to, so callers may prefetch past the end of a buffer.
static inline __attribute__((always_inline)) void locallm_prefetch(const void *p) {
    __builtin_prefetch(p, 0, 3);
}

/// acc[i] = fma(lanes[b·width + i], scales[b], acc[i]) for each block b in order, i < width: the float
/// accumulation of ggml's quantized dot products, fused multiply-adds rounded once as the FMA
/// instruction rounds them. Uses the instruction when the CPU has it (checked once at run time), the C
/// library's fmaf otherwise; either way the result is exact. For builds without a target CPU, where
/// Swift would call fmaf per lane.
void locallm_fma_chain(const float *lanes, const float *scales, int blocks, int width, float *acc);

#include "locallm_avx2.h"
#include "locallm_sgemm.h"

#endif
