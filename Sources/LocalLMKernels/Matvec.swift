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
        let rows = w.rows, columns = w.columns
        guard rows > 0 else { return }
        let actType = activationType(for: w.type)
        let memory = scratch.buffer(KernelScratch.activationSlot, bytes: PreparedActivation.scratchBytes(type: actType, count: columns))
        let a = PreparedActivation(type: actType, x, count: columns, memory: memory)
        // Small matrices are not worth waking workers for.
        let threads = rows * w.rowStride < 32 * 1024 ? 1 : pool.threadCount
        if threads == 1 {
            matvecRows(w, x, a, y, 0, rows)
        } else {
            // More parts than threads: a thread that is slowed down (a busy machine) costs less.
            let parts = min(4 * threads, max(1, rows / 16))
            pool.run(parts: parts) { t, parts in
                let (start, end) = evenSplit(rows, parts: parts, part: t, granularity: 4)
                matvecRows(w, x, a, y, start, end)
            }
        }
    }

    /// y₀ = W₀·x, y₁ = W₁·x (and y₂ = W₂·x): several products of one input in a single pool call.
    ///
    /// Decode multiplies the same normalized row with Q, K and V, and with the FFN's gate and up. One
    /// call instead of two or three halves the thread hand-offs, quantizes x once per activation format,
    /// and lets the weight streams of the matrices follow each other without a barrier between them.
    /// Each yᵢ is computed exactly as ``matvec(_:_:_:pool:scratch:)`` computes it.
    public static func matvec(
        _ w0: WeightMatrix, _ y0: UnsafeMutablePointer<Float>,
        _ w1: WeightMatrix, _ y1: UnsafeMutablePointer<Float>,
        _ w2: WeightMatrix? = nil, _ y2: UnsafeMutablePointer<Float>? = nil,
        x: UnsafePointer<Float>, pool: ThreadPool, scratch: KernelScratch
    ) {
        let columns = w0.columns
        guard w1.columns == columns, w2.map({ $0.columns == columns }) ?? true, (w2 == nil) == (y2 == nil) else {
            // Not products of one input: do them one by one.
            matvec(w0, x, y0, pool: pool, scratch: scratch)
            matvec(w1, x, y1, pool: pool, scratch: scratch)
            if let w2, let y2 { matvec(w2, x, y2, pool: pool, scratch: scratch) }
            return
        }
        // One prepared activation per distinct format (slots 0, 3, 4), in matrix order.
        let t0 = activationType(for: w0.type), t1 = activationType(for: w1.type)
        let t2 = w2.map { activationType(for: $0.type) }
        func prepare(_ type: GGMLType, slot: Int) -> PreparedActivation {
            let memory = scratch.buffer(slot, bytes: PreparedActivation.scratchBytes(type: type, count: columns))
            return PreparedActivation(type: type, x, count: columns, memory: memory)
        }
        let a0 = prepare(t0, slot: KernelScratch.activationSlot)
        let a1 = t1 == t0 ? a0 : prepare(t1, slot: KernelScratch.secondActivationSlot)
        let a2: PreparedActivation? = t2.map { t in
            t == t0 ? a0 : t == t1 ? a1 : prepare(t, slot: KernelScratch.thirdActivationSlot)
        }
        let r0 = w0.rows, r1 = w1.rows, r2 = w2?.rows ?? 0
        let total = r0 + r1 + r2
        guard total > 0 else { return }
        let bytes = w0.byteCount + w1.byteCount + (w2?.byteCount ?? 0)
        // Rows r0 + r1 + r2 form one index space; a part's range is cut at the matrices' boundaries.
        func rows(_ start: Int, _ end: Int) {
            if start < r0 { matvecRows(w0, x, a0, y0, start, min(end, r0)) }
            if end > r0 && start < r0 + r1 { matvecRows(w1, x, a1, y1, max(start, r0) - r0, min(end, r0 + r1) - r0) }
            if let w2, let y2, let a2, end > r0 + r1 { matvecRows(w2, x, a2, y2, max(start, r0 + r1) - r0 - r1, end - r0 - r1) }
        }
        if bytes < 32 * 1024 || pool.threadCount == 1 {
            rows(0, total)
            return
        }
        let parts = min(4 * pool.threadCount, max(1, total / 16))
        pool.run(parts: parts) { t, parts in
            let (start, end) = evenSplit(total, parts: parts, part: t, granularity: 4)
            rows(start, end)
        }
    }

    /// y[start..<end] for one thread: one specialised loop per weight type.
    @inline(__always)
    static func matvecRows(
        _ w: WeightMatrix, _ x: UnsafePointer<Float>, _ a: PreparedActivation,
        _ y: UnsafeMutablePointer<Float>, _ start: Int, _ end: Int
    ) {
        let n = w.columns, nb = n / w.type.blockSize, base = w.data, stride = w.rowStride
        // Weights stream from DRAM once per token: before each row, prefetch the row some kilobytes ahead,
        // so memory latency overlaps the arithmetic instead of stalling it (rows are contiguous).
        let rowsAhead = max(1, (Prefetch.distance + stride - 1) / stride)
        @inline(__always) func prefetchRow(_ r: Int) {
            if r + rowsAhead < end { Prefetch.bytes(base + (r + rowsAhead) * stride, count: stride) }
        }
        #if LOCALLM_NATIVE && arch(x86_64)
        switch w.type {
        case .q8_0:
            var r = start
            while r + 4 <= end {
                DotAVX2.q8_0x4(base + r * stride, stride: stride, a, nb, y + r)
                r += 4
            }
            while r < end { y[r] = DotAVX2.q8_0(base + r * stride, a, nb); r += 1 }
            return
        case .q4_0: for r in start..<end { prefetchRow(r); y[r] = DotAVX2.q4_0(base + r * stride, a, nb) }; return
        case .q4_1:
            var r = start
            while r + 4 <= end {
                DotAVX2.q4_1x4(base + r * stride, stride: stride, a, nb, y + r)
                r += 4
            }
            while r < end { y[r] = DotAVX2.q4_1(base + r * stride, a, nb); r += 1 }
            return
        case .q4_K: for r in start..<end { prefetchRow(r); y[r] = DotAVX2.q4_K(base + r * stride, a, nb) }; return
        case .q5_0:
            var r = start
            while r + 4 <= end {
                DotAVX2.q5_0x4(base + r * stride, stride: stride, a, nb, y + r)
                r += 4
            }
            while r < end { y[r] = DotAVX2.q5_0(base + r * stride, a, nb); r += 1 }
            return
        case .q5_1: for r in start..<end { prefetchRow(r); y[r] = DotAVX2.q5_1(base + r * stride, a, nb) }; return
        case .q6_K: for r in start..<end { prefetchRow(r); y[r] = DotAVX2.q6_K(base + r * stride, a, nb) }; return
        default: break
        }
        #endif
        switch w.type {
        case .q8_0: for r in start..<end { prefetchRow(r); y[r] = DotFast.q8_0(base + r * stride, a, nb) }
        case .q4_0: for r in start..<end { prefetchRow(r); y[r] = DotFast.q4_0(base + r * stride, a, nb) }
        case .q4_1: for r in start..<end { prefetchRow(r); y[r] = DotFast.q4_1(base + r * stride, a, nb) }
        case .q5_0: for r in start..<end { prefetchRow(r); y[r] = DotFast.q5_0(base + r * stride, a, nb) }
        case .q5_1: for r in start..<end { prefetchRow(r); y[r] = DotFast.q5_1(base + r * stride, a, nb) }
        case .q4_K: for r in start..<end { prefetchRow(r); y[r] = DotFast.q4_K(base + r * stride, a, nb) }
        case .q5_K: for r in start..<end { prefetchRow(r); y[r] = DotFast.q5_K(base + r * stride, a, nb) }
        case .q6_K: for r in start..<end { prefetchRow(r); y[r] = DotFast.q6_K(base + r * stride, a, nb) }
        case .q2_K: for r in start..<end { prefetchRow(r); y[r] = DotFast.q2_K(base + r * stride, a, nb) }
        case .q3_K: for r in start..<end { prefetchRow(r); y[r] = DotFast.q3_K(base + r * stride, a, nb) }
        case .f32: for r in start..<end { prefetchRow(r); y[r] = DotFast.f32(base + r * stride, x, n) }
        case .f16: for r in start..<end { prefetchRow(r); y[r] = DotFast.f16(base + r * stride, a, n) }
        case .bf16: for r in start..<end { prefetchRow(r); y[r] = DotFast.bf16(base + r * stride, a, n) }
        default:
            // Every weight type has a case above; keep the reference as the fallback.
            guard let dot = DotReference.function(w.type) else { return }
            for r in start..<end { y[r] = dot(base + r * stride, UnsafeRawPointer(a.blocks), n) }
        }
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
