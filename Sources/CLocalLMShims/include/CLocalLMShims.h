// Small C helpers the Swift kernels cannot express. `_mm_prefetch` is a C macro, so the intrinsics
// module does not export it to Swift; these static inline wrappers compile to one instruction each.
#ifndef CLOCALLM_SHIMS_H
#define CLOCALLM_SHIMS_H

/// Hint that the cache line holding `p` will be read soon (into every cache level). Never faults,
/// whatever `p` points to, so callers may prefetch past the end of a buffer.
static inline __attribute__((always_inline)) void locallm_prefetch(const void *p) {
    __builtin_prefetch(p, 0, 3);
}

#endif
