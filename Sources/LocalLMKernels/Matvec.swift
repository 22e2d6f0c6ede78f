import LocalLMGGUF

extension Kernels {
    /// y[rows] = W · x[columns] (decode).
    ///
    /// Quantizes x once into the activation format llama.cpp pairs with `w.type` (Q8_0, Q8_1 or Q8_K,
    /// F16 for F16 weights, BF16 for BF16) and then computes integer dot products directly on the
    /// quantized weights, rows split evenly over the pool's threads.
    public static func matvec(
        _ w: WeightMatrix, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>,
        pool: ThreadPool, scratch: KernelScratch
    ) {
        let activationType = activationType(for: w.type)
        let activation: UnsafeRawPointer
        if activationType == .f32 {
            activation = UnsafeRawPointer(x)
        } else {
            let bytes = activationType.rowBytes(elements: w.columns) ?? 0
            let buffer = scratch.buffer(KernelScratch.activationSlot, bytes: bytes)
            quantizeActivation(type: activationType, x, count: w.columns, into: buffer)
            activation = UnsafeRawPointer(buffer)
        }
        matvecQuantized(w, activation, y, pool: pool)
    }

    /// y = W · a where `a` is already quantized in `activationType(for: w.type)`.
    package static func matvecQuantized(
        _ w: WeightMatrix, _ activation: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>, pool: ThreadPool
    ) {
        let rows = w.rows, columns = w.columns
        guard rows > 0 else { return }
        guard let dot = DotReference.function(w.type) else { return }
        // Small matrices are not worth waking workers for.
        let threads = rows * w.rowStride < 64 * 1024 ? 1 : pool.threadCount
        let body: (Int, Int) -> Void = { thread, _ in
            let (start, end) = evenSplit(rows, parts: threads, part: thread, granularity: 4)
            for r in start..<end { y[r] = dot(w.row(r), activation, columns) }
        }
        if threads == 1 { body(0, 1) } else { pool.run { t, _ in if t < threads { body(t, threads) } } }
    }

    /// The half-open range of part `part` of `count` items split into `parts` nearly equal ranges whose
    /// boundaries are multiples of `granularity` (the last range takes the remainder).
    @inline(__always)
    package static func evenSplit(_ count: Int, parts: Int, part: Int, granularity: Int = 1) -> (Int, Int) {
        let units = (count + granularity - 1) / granularity
        let start = min(count, (units * part / parts) * granularity)
        let end = min(count, (units * (part + 1) / parts) * granularity)
        return (start, end)
    }
}
