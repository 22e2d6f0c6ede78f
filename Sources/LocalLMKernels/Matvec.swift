import CLocalLMShims
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
        let a = prepareActivation(for: w.type, x, count: w.columns, scratch: scratch, slot: KernelScratch.activationSlot)
        splitRows(w.rows, bytes: w.byteCount, pool: pool) { start, end in matvecRows(w, x, a, y, start, end) }
    }

    /// Bytes of weight rows in one tile when more activations than one C call takes pass over them
    /// (prefill): the tile stays in the core's cache while every group of activations goes through it.
    static let multiTileBytes = 64 * 1024

    /// Y[n × rows] = X[n × columns] · Wᵀ through the decode kernels: each row of Y is exactly what
    /// ``matvec(_:_:_:pool:scratch:)`` computes for that row of X (the same quantized activation, the
    /// same dot product per weight row), but the weights are read from memory once for all n rows.
    ///
    /// For Q8_0, Q4_0, Q5_0, Q4_1, Q4_K and Q6_K a C kernel unpacks each weight block once and multiplies
    /// it with every activation; for the other types each thread takes a tile of weight rows (about
    /// 32 KB, so it stays in the core's cache) and multiplies it with every activation in turn, the next
    /// tile prefetched meanwhile. What n rows save over n matvecs is the weight stream and (for the C
    /// kernels) the unpacking; each row's integer dot products remain. Where one row is bound by memory,
    /// extra rows come nearly free; where it is bound by arithmetic (these models on a 2-core AVX2 CPU),
    /// 4 rows cost about 2 one-row products (`LocalLMBenchmarks kernels batch=N`; Docs/scale-out.md).
    public static func matvec(
        _ w: WeightMatrix, _ x: UnsafePointer<Float>, rowsOfX n: Int, _ y: UnsafeMutablePointer<Float>,
        pool: ThreadPool, scratch: KernelScratch
    ) {
        guard n > 1 else {
            if n == 1 { matvec(w, x, y, pool: pool, scratch: scratch) }
            return
        }
        let columns = w.columns, rows = w.rows, stride = w.rowStride
        withBatchActivations(w, x, rowsOfX: n, scratch: scratch) { activations in
            let base = UnsafeRawPointer(w.data)
            if let multi = AVX2Rows.multiFunction(for: w.type) {
                // Each block unpacked once for every activation (groups of at most `multiMaximum`).
                withUnsafeTemporaryAllocation(of: locallm_activation.self, capacity: n) { c in
                    for t in 0..<n { c.initializeElement(at: t, to: activations[t].cActivation) }
                    let bytes = base.assumingMemoryBound(to: UInt8.self), nb = columns / w.type.blockSize
                    // More activations than one call takes (prefill): tiles of rows that stay in cache
                    // while every group of activations passes over them, so the weights come from memory
                    // once. Decode batches (one group) keep the whole range, as one sequence's matvec. Q4_K
                    // and Q6_K go through their prefill kernels either way (the same values, faster).
                    let many = n > AVX2Rows.multiMaximum
                    let tileRows = many ? max(4, (Self.multiTileBytes / max(1, stride)) & ~3) : rows
                    let kernel = AVX2Rows.gemmFunction(for: w.type) ?? multi
                    splitRows(rows, bytes: w.byteCount * n, pool: pool) { start, end in
                        var r = start
                        while r < end {
                            let e = min(end, r + tileRows)
                            var first = 0
                            while first < n {
                                let count = min(AVX2Rows.multiMaximum, n - first)
                                kernel(bytes, stride, c.baseAddress! + first, count, nb, y + first * rows, rows, r, e)
                                first += count
                            }
                            r = e
                        }
                    }
                    _ = c.deinitialize()
                }
                return
            }
            // Multiples of 4 rows: the four-row kernels then group rows as a single matvec's part does.
            let tile = max(4, (32 * 1024 / max(1, stride)) & ~3)
            splitRows(rows, bytes: w.byteCount * n, pool: pool) { start, end in
                var r = start
                while r < end {
                    let e = min(end, r + tile)
                    if e < end { Prefetch.bytes(base + e * stride, count: (min(end, e + tile) - e) * stride) }
                    for t in 0..<n { matvecRows(w, x + t * columns, activations[t], y + t * rows, r, e) }
                    r = e
                }
            }
        }
    }

    /// Runs `body` with the n rows of X quantized into the activation format of `w.type` (in the
    /// scratch's batch slot), as the several-row and prefill kernels take them.
    @inline(__always)
    static func withBatchActivations(
        _ w: WeightMatrix, _ x: UnsafePointer<Float>, rowsOfX n: Int, scratch: KernelScratch,
        _ body: (UnsafeMutableBufferPointer<PreparedActivation>) -> Void
    ) {
        let columns = w.columns, actType = activationType(for: w.type)
        let perRow = (PreparedActivation.scratchBytes(type: actType, count: columns) + 63) & ~63
        let memory = scratch.buffer(KernelScratch.batchActivationSlot, bytes: perRow * n)
        withUnsafeTemporaryAllocation(of: PreparedActivation.self, capacity: n) { activations in
            for t in 0..<n {
                activations.initializeElement(
                    at: t, to: PreparedActivation(type: actType, x + t * columns, count: columns, memory: memory + t * perRow))
            }
            body(activations)
            _ = activations.deinitialize()
        }
    }

    /// y = W · x as ggml computes one row of a *batch* product: the same as ``matvec(_:_:_:pool:scratch:)``
    /// except for IQ4_NL, whose batches llamafile's tinyBLAS multiplies with one FMA chain where the
    /// single-row kernel keeps two (``DotFast/iq4_NLOneChain(_:_:_:)``). For exact batch evaluation.
    public static func matvecAsBatchRow(
        _ w: WeightMatrix, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>,
        pool: ThreadPool, scratch: KernelScratch
    ) {
        guard w.type == .iq4_NL else { return matvec(w, x, y, pool: pool, scratch: scratch) }
        let a = prepareActivation(for: w.type, x, count: w.columns, scratch: scratch, slot: KernelScratch.activationSlot)
        let nb = w.columns / 32
        splitRows(w.rows, bytes: w.byteCount, pool: pool) { start, end in
            for r in start..<end { y[r] = DotFast.iq4_NLOneChain(w.row(r), a, nb) }
        }
    }

    /// x quantized into the activation format llama.cpp pairs with weights of `type`, in `slot`.
    @inline(__always)
    static func prepareActivation(for type: GGMLType, _ x: UnsafePointer<Float>, count: Int, scratch: KernelScratch,
                                  slot: Int) -> PreparedActivation {
        let actType = activationType(for: type)
        let memory = scratch.buffer(slot, bytes: PreparedActivation.scratchBytes(type: actType, count: count))
        return PreparedActivation(type: actType, x, count: count, memory: memory)
    }

    /// Runs `body(start, end)` over row ranges covering `0..<rows` (matrices of `bytes` bytes in all):
    /// on the caller alone for small matrices, which are not worth waking workers for; otherwise in
    /// more parts than threads, so a thread slowed down by a busy machine costs less.
    @inline(__always)
    static func splitRows(_ rows: Int, bytes: Int, pool: ThreadPool, _ body: (_ start: Int, _ end: Int) -> Void) {
        guard rows > 0 else { return }
        if bytes < 32 * 1024 || pool.threadCount == 1 {
            body(0, rows)
            return
        }
        let parts = min(4 * pool.threadCount, max(1, rows / 16))
        pool.run(parts: parts) { t, parts in
            let (start, end) = evenSplit(rows, parts: parts, part: t, granularity: 4)
            body(start, end)
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
        let a0 = prepareActivation(for: w0.type, x, count: columns, scratch: scratch, slot: KernelScratch.activationSlot)
        let a1 = t1 == t0 ? a0
            : prepareActivation(for: w1.type, x, count: columns, scratch: scratch, slot: KernelScratch.secondActivationSlot)
        let a2: PreparedActivation? = w2.map { w2 in
            let t2 = activationType(for: w2.type)
            return t2 == t0 ? a0 : t2 == t1 ? a1
                : prepareActivation(for: w2.type, x, count: columns, scratch: scratch, slot: KernelScratch.thirdActivationSlot)
        }
        let r0 = w0.rows, r1 = w1.rows, r2 = w2?.rows ?? 0
        // Rows r0 + r1 + r2 form one index space; a part's range is cut at the matrices' boundaries.
        splitRows(r0 + r1 + r2, bytes: w0.byteCount + w1.byteCount + (w2?.byteCount ?? 0), pool: pool) { start, end in
            if start < r0 { matvecRows(w0, x, a0, y0, start, min(end, r0)) }
            if end > r0 && start < r0 + r1 { matvecRows(w1, x, a1, y1, max(start, r0) - r0, min(end, r0 + r1) - r0) }
            if let w2, let y2, let a2, end > r0 + r1 { matvecRows(w2, x, a2, y2, max(start, r0 + r1) - r0 - r1, end - r0 - r1) }
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
        // A plain build cannot compile Swift for AVX2; these C kernels are compiled for it per function
        // and compute exactly what the Swift kernels below compute. Native builds take them too: they
        // are the faster forms (512-bit where the CPU has AVX-512, four rows at a time with prefetches).
        if CPUFeatures.avx2FMAF16C, AVX2Rows.rows(w, a, y, start, end) { return }
        #if LOCALLM_NATIVE && arch(x86_64)
        // On x86-64 CPUs without F16C (a native build for one): the Swift AVX2 kernels, four rows at
        // once where they have the form (prefetching for themselves), then single rows for the rest.
        @inline(__always) func byFours(_ four: (Int) -> Void, _ one: (Int) -> Void) {
            var r = start
            while r + 4 <= end { four(r); r += 4 }
            while r < end { one(r); r += 1 }
        }
        switch w.type {
        case .q8_0:
            byFours({ DotAVX2.q8_0x4(base + $0 * stride, stride: stride, a, nb, y + $0) },
                    { y[$0] = DotAVX2.q8_0(base + $0 * stride, a, nb) })
            return
        case .q4_0: for r in start..<end { prefetchRow(r); y[r] = DotAVX2.q4_0(base + r * stride, a, nb) }; return
        case .q4_1:
            byFours({ DotAVX2.q4_1x4(base + $0 * stride, stride: stride, a, nb, y + $0) },
                    { y[$0] = DotAVX2.q4_1(base + $0 * stride, a, nb) })
            return
        case .q5_0:
            byFours({ DotAVX2.q5_0x4(base + $0 * stride, stride: stride, a, nb, y + $0) },
                    { y[$0] = DotAVX2.q5_0(base + $0 * stride, a, nb) })
            return
        case .q5_1: for r in start..<end { prefetchRow(r); y[r] = DotAVX2.q5_1(base + r * stride, a, nb) }; return
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
        case .iq4_NL: for r in start..<end { prefetchRow(r); y[r] = DotFast.iq4_NL(base + r * stride, a, nb) }
        case .iq4_XS: for r in start..<end { prefetchRow(r); y[r] = DotFast.iq4_XS(base + r * stride, a, nb) }
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
