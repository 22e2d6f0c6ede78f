import Foundation

/// The memory read bandwidth the decode kernels can reach: the bound on decode speed, since one decode
/// step reads every weight once from DRAM. Measured, not assumed, so that benchmarks can report decode
/// as a fraction of the limit of the machine they ran on.
package enum ReadBandwidth {
    /// Bytes per second of reading a 256 MiB buffer (far above any last-level cache) with the pool's
    /// threads, prefetched as the kernels' weight streams are; the best of five passes.
    package static func measure(pool: ThreadPool) -> Double {
        let count = 64 << 20
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: count)
        defer { buffer.deallocate() }
        buffer.initialize(repeating: 1, count: count)
        var best = 0.0
        for _ in 0..<5 {
            let start = DispatchTime.now().uptimeNanoseconds
            pool.run { part, parts in
                let (first, end) = Kernels.evenSplit(count, parts: parts, part: part, granularity: 64)
                var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
                var i = first
                while i < end {
                    Prefetch.line(buffer + i + 2048)
                    Prefetch.line(buffer + i + 2064)
                    Prefetch.line(buffer + i + 2080)
                    Prefetch.line(buffer + i + 2096)
                    // One float of each 64-byte line: every line is read, the adds stay cheap.
                    s0 += buffer[i]; s1 += buffer[i + 16]; s2 += buffer[i + 32]; s3 += buffer[i + 48]
                    i += 64
                }
                if s0 + s1 + s2 + s3 == -1 { print("") }  // keeps the loads
            }
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            best = max(best, Double(count * 4) / elapsed)
        }
        return best
    }
}
