import LocalLMKernels

/// Y[n × rows] = X[n × columns] · Wᵀ, rounding X as ggml does.
///
/// One row (decode) goes to the quantized matvec, which quantizes the activation itself as llama.cpp
/// does. Short batches go to the several-row quantized kernels (each row exactly as decode computes
/// it). Prompt batches go to the interleaved integer kernels where the CPU has one for the weight type
/// (``TiledPrefill``: Q4_K and Q6_K on AVX2 CPUs; Q8_0, Q4_0, Q5_0 and Q4_1 too with AVX-512 VNNI; the
/// same quantized activations, each row an ulp or so from decode's). Other batches go to the
/// sgemm-on-dequantized-panels matmul after X has been rounded to the weight's activation format
/// (``ActivationRounding``), because llama.cpp quantizes the activations of batches too: without that,
/// prefill logits would drift from the reference.
enum MatrixProduct {
    /// Batches of fewer rows go through the quantized decode kernels (each weight block unpacked once
    /// for every row) instead of the dequantized sgemm, whose cost starts with dequantizing every
    /// weight. Measured with `locallm bench --prompt-tokens N` (one pass of N rows, 2 threads, 2-core
    /// EPYC), decode kernels vs sgemm, tok/s: Qwen2.5-0.5B 105 vs 69 at 32 rows, 101 vs 126 at 64;
    /// SmolLM2 272 vs 226 at 32, 297 vs 258 at 64; Gemma 3 332 vs 269 at 32, 329 vs 362 at 64. A
    /// limit of 48 would be faster for 24–47 rows, but it moves which prompts round which way: with it,
    /// `HistoryEditCacheTests` (kept 2) saw a trimmed session's reused cache and a fresh prefill part
    /// at a greedy near-tie. Kept at 24 until prefix reuse is exact whatever the paths (see the notes).
    static let matvecBatchLimit = 24

    /// - Parameters:
    ///   - x: `[n × w.columns]`, left unchanged.
    ///   - y: `[n × w.rows]`.
    ///   - rounded: scratch of `n × w.columns` floats.
    ///   - correction: scratch of `n × (w.columns/32 + w.rows)` floats (Q4_1/Q5_1 only).
    static func multiply(_ w: Linear, _ x: UnsafePointer<Float>, rows n: Int, into y: UnsafeMutablePointer<Float>,
                         rounded: UnsafeMutablePointer<Float>, correction: UnsafeMutablePointer<Float>,
                         pool: ThreadPool, scratch: KernelScratch) {
        let m = w.matrix
        // Prompt batches: the interleaved kernel where there is one (faster; rows not decode's bits).
        if n >= matvecBatchLimit, Kernels.tiledProduct(m, x, rowsOfX: n, y, pool: pool, scratch: scratch) { return }
        if n < matvecBatchLimit {
            // A few rows: the quantized decode kernels, each row as its own matvec computes it but the
            // weights read once for all of them, cost less than dequantizing every weight into floats for
            // sgemm (figures at `matvecBatchLimit`).
            Kernels.matvec(m, x, rowsOfX: n, y, pool: pool, scratch: scratch)
            return
        }
        let columns = m.columns
        let format = ActivationRounding.format(for: m.type)
        if format == .none {
            Kernels.matmul(m, x, rowsOfX: n, y, pool: pool, scratch: scratch)
            return
        }
        rounded.update(from: x, count: n * columns)
        if w.hasBlockMins {
            // Per token and block: f16(d·Σq) − f16(d)·Σq, the part of ggml's Q8_1 block sum that the
            // dequantized product misses (computed before rounding X, from the same quantization).
            let blocks = columns / 32
            for t in 0..<n {
                ActivationRounding.q8_1SumErrors(rounded + t * columns, blocks: blocks, into: correction + t * blocks)
            }
            for t in 0..<n { ActivationRounding.apply(format, rounded + t * columns, count: columns) }
            Kernels.matmul(m, rounded, rowsOfX: n, y, pool: pool, scratch: scratch)
            let extra = correction + n * blocks
            let mins = scratch.buffer(KernelScratch.extraSlot, bytes: 4 * m.rows * blocks)
                .bindMemory(to: Float.self, capacity: m.rows * blocks)
            w.blockMins(into: mins)
            if let minMatrix = try? WeightMatrix(type: .f32, rows: m.rows, columns: blocks, data: UnsafeRawPointer(mins)) {
                Kernels.matmul(minMatrix, correction, rowsOfX: n, extra, pool: pool, scratch: scratch)
            }
            for i in 0..<(n * m.rows) { y[i] += extra[i] }
            return
        }
        for t in 0..<n { ActivationRounding.apply(format, rounded + t * columns, count: columns) }
        Kernels.matmul(m, rounded, rowsOfX: n, y, pool: pool, scratch: scratch)
    }
}
