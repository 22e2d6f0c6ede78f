import COpenBLAS
import LocalLMGGUF

extension Kernels {
    /// The most rows of W dequantized per panel (the per-thread scratch holds this many rows).
    ///
    /// OpenBLAS packs X again for every sgemm call, so each panel costs one copy of X: with 64-row
    /// panels that copy was 9% of a Qwen2.5-0.5B prefill profile. 256 rows make it a quarter of that,
    /// and OpenBLAS blocks the panel for its caches itself.
    package static let panelRows = 256

    /// Panel height for a matrix of `rows` rows on `threads` threads: at most ``panelRows``, at least
    /// 16, and as many panels as threads or a multiple of it, so that no thread waits on another's
    /// extra panel.
    @inline(__always)
    static func panelHeight(rows: Int, threads: Int) -> Int {
        let threads = max(1, threads)
        var panels = (rows + panelRows - 1) / panelRows
        panels = max(threads, (panels + threads - 1) / threads * threads)
        let height = ((rows + panels - 1) / panels + 7) / 8 * 8
        return min(panelRows, max(16, height))
    }

    /// Y[n × rows] = X[n × columns] · Wᵀ (prefill, batches).
    ///
    /// W is dequantized in panels of ``panelRows`` rows into per-thread scratch and multiplied with
    /// ``Sgemm`` (OpenBLAS `cblas_sgemm`, or the shims' own product where OpenBLAS runs old kernels),
    /// which the pool's threads call concurrently on disjoint panels (OpenBLAS itself is kept
    /// single-threaded so it does not compete with the pool). F32 weights go to it directly. X and Y are row-major with leading dimensions `columns` and `rows`.
    public static func matmul(
        _ w: WeightMatrix, _ x: UnsafePointer<Float>, rowsOfX n: Int, _ y: UnsafeMutablePointer<Float>,
        pool: ThreadPool, scratch: KernelScratch
    ) {
        let rows = w.rows, columns = w.columns
        guard n > 0, rows > 0 else { return }
        guard columns > 0 else {
            y.initialize(repeating: 0, count: n * rows)
            return
        }
        if w.type == .f32 {
            let wf = w.data.assumingMemoryBound(to: Float.self)
            pool.run { thread, threads in
                let (start, end) = evenSplit(rows, parts: threads, part: thread, granularity: 16)
                guard end > start else { return }
                Sgemm.multiply(m: n, n: end - start, k: columns, x, lda: columns, wf + start * columns, ldb: columns,
                               transposedB: true, y + start, ldc: rows)
            }
            return
        }
        let threads = pool.threadCount
        let panel = panelHeight(rows: rows, threads: threads)
        let panelFloats = panel * columns
        let panels = scratch.buffer(KernelScratch.panelSlot, bytes: threads * panelFloats * 4)
            .bindMemory(to: Float.self, capacity: threads * panelFloats)
        let panelCount = (rows + panel - 1) / panel
        pool.run { thread, threads in
            let mine = panels + thread * panelFloats
            let (first, last) = evenSplit(panelCount, parts: threads, part: thread)
            for p in first..<last {
                let start = p * panel, count = min(panel, rows - start)
                for r in 0..<count { dequantizeRow(w, row: start + r, into: mine + r * columns) }
                Sgemm.multiply(m: n, n: count, k: columns, x, lda: columns, mine, ldb: columns,
                               transposedB: true, y + start, ldc: rows)
            }
        }
    }
}

/// OpenBLAS thread control: our pool already uses every core, so OpenBLAS must not start its own.
package enum OpenBLAS {
    private static let once: Void = { openblas_set_num_threads(1) }()

    package static func useSingleThread() { _ = once }
}
