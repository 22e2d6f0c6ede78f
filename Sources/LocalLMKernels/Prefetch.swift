import CLocalLMShims

/// Software prefetch for the weight streams of decode. A matvec reads each weight byte once per token
/// from DRAM; the hardware prefetcher alone leaves the loads stalled on memory latency (the Gemma 3 output
/// matrix ran at 12 GB/s of this machine's 20). Asking for the bytes a few kilobytes ahead lets the
/// latency overlap the arithmetic. A prefetch never faults, so addresses past the end are harmless.
package enum Prefetch {
    /// How far ahead of the current row, in bytes, a row-at-a-time kernel prefetches. Tuned on the
    /// Gemma 3 and SmolLM2 shapes with `LocalLMBenchmarks kernels` and `locallm bench`: 4–16 KB all
    /// measured alike, below 2 KB the gain fades.
    package static let distance = 8192

    /// How many groups of four rows ahead the four-row Q8_0 kernel prefetches (16 rows ≈ 11 KB for
    /// Gemma's 640-wide output matrix).
    package static let groupsAhead = 4

    /// Prefetches the `count` bytes at `p`, one 64-byte cache line at a time.
    @inline(__always)
    package static func bytes(_ p: UnsafeRawPointer, count: Int) {
        var offset = 0
        while offset < count {
            locallm_prefetch(p + offset)
            offset += 64
        }
    }

    /// Prefetches the cache line holding `p`.
    @inline(__always)
    package static func line(_ p: UnsafeRawPointer) {
        locallm_prefetch(p)
    }
}
