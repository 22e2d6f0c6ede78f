import COpenBLAS
import LocalLMGGUF

extension Kernels {
    /// Rows of W dequantized per panel: 64 rows × up to a few thousand columns stays in L2.
    package static let panelRows = 64

    /// Y[n × rows] = X[n × columns] · Wᵀ (prefill, batches).
    ///
    /// W is dequantized in panels of ``panelRows`` rows into per-thread scratch and multiplied with
    /// OpenBLAS `cblas_sgemm` (which the pool's threads call concurrently on disjoint panels; OpenBLAS
    /// itself is kept single-threaded so it does not compete with the pool). F32 weights go to sgemm
    /// directly. X and Y are row-major with leading dimensions `columns` and `rows`.
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
        OpenBLAS.useSingleThread()
        if w.type == .f32 {
            let wf = w.data.assumingMemoryBound(to: Float.self)
            pool.run { thread, threads in
                let (start, end) = evenSplit(rows, parts: threads, part: thread, granularity: 16)
                guard end > start else { return }
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(n), Int32(end - start), Int32(columns),
                            1, x, Int32(columns), wf + start * columns, Int32(columns), 0, y + start, Int32(rows))
            }
            return
        }
        let panel = panelRows
        let panelFloats = panel * columns
        let threads = pool.threadCount
        let panels = scratch.buffer(KernelScratch.panelSlot, bytes: threads * panelFloats * 4)
            .bindMemory(to: Float.self, capacity: threads * panelFloats)
        let panelCount = (rows + panel - 1) / panel
        pool.run { thread, threads in
            let mine = panels + thread * panelFloats
            let (first, last) = evenSplit(panelCount, parts: threads, part: thread)
            for p in first..<last {
                let start = p * panel, count = min(panel, rows - start)
                for r in 0..<count { dequantizeRow(w, row: start + r, into: mine + r * columns) }
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(n), Int32(count), Int32(columns),
                            1, x, Int32(columns), mine, Int32(columns), 0, y + start, Int32(rows))
            }
        }
    }
}

/// OpenBLAS thread control: our pool already uses every core, so OpenBLAS must not start its own.
package enum OpenBLAS {
    private static let once: Void = { openblas_set_num_threads(1) }()

    package static func useSingleThread() { _ = once }
}
