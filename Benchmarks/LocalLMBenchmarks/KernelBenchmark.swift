import Foundation
import LocalLMGGUF
import LocalLMKernels

// `swift run -c release LocalLMBenchmarks kernels [threads=N]`: quantized matvec of every weight type at
// the shapes of SmolLM2-135M, Gemma 3 270M and Qwen2.5-Coder 0.5B/1.5B, activation quantization, and sgemm panels (matmul of 512
// rows). `match=TEXT` keeps only the matvec lines whose label or type contains TEXT (and skips the rest).
// Prints µs per call and the weight bytes streamed per second (GB/s), the figure that bounds decode, and
// from DRAM as a share of the read bandwidth measured at the start of the run.
// `batch=N` also times the several-row matvec of N rows (a decode batch of N sequences) from DRAM and
// prints its cost in one-row matvecs (1.0 would be free rows, N no gain).

let kernelsBenchmark = BenchmarkSuite(name: "kernels") { arguments in
    let threads = arguments.compactMap { $0.hasPrefix("threads=") ? Int($0.dropFirst(8)) : nil }.first ?? ThreadPool.coreCount
    let match = arguments.compactMap { $0.hasPrefix("match=") ? String($0.dropFirst(6)) : nil }.first
    let batch = arguments.compactMap { $0.hasPrefix("batch=") ? Int($0.dropFirst(6)) : nil }.first
    let pool = ThreadPool(threadCount: threads)
    let scratch = KernelScratch()
    print("threads: \(threads)")

    // (label, type, rows, columns)
    let shapes: [(String, GGMLType, Int, Int)] = [
        ("smollm2 attn q/o", .q4_1, 576, 576),
        ("smollm2 ffn up", .q4_1, 1536, 576),
        ("smollm2 ffn down", .q4_1, 576, 1536),
        ("smollm2 output", .q8_0, 49152, 576),
        ("gemma attn q", .q5_0, 1024, 640),
        ("gemma ffn up", .q5_0, 2048, 640),
        ("gemma ffn up", .q8_0, 2048, 640),
        ("gemma ffn down", .q4_K, 640, 2048),
        ("gemma ffn down", .q6_K, 640, 2048),
        ("gemma output", .q8_0, 262144, 640),
        ("qwen0.5b attn q", .q5_0, 896, 896),
        ("qwen0.5b ffn up", .q5_0, 4864, 896),
        ("qwen0.5b ffn down", .q4_K, 896, 4864),
        ("qwen0.5b ffn down", .q6_K, 896, 4864),
        ("qwen0.5b ffn down", .q8_0, 896, 4864),
        ("qwen0.5b output", .q8_0, 151936, 896),
        ("qwen1.5b ffn up", .q4_K, 8960, 1536),
        ("qwen1.5b ffn down", .q6_K, 1536, 8960),
        ("qwen1.5b ffn down", .q5_K, 1536, 8960),
        ("qwen1.5b ffn down", .q3_K, 1536, 8960),
        ("qwen1.5b ffn down", .q2_K, 1536, 8960),
    ]
    // The read bandwidth the DRAM figures are compared with (the same measurement as `locallm bench
    // --bandwidth`: a 256 MiB buffer read by the pool's threads, prefetching as the kernels do).
    let bandwidth = ReadBandwidth.measure(pool: pool)
    print(String(format: "read bandwidth: %.1f GB/s", bandwidth / 1e9))
    var all = shapes
    for type in [GGMLType.f32, .f16, .bf16, .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q2_K, .q3_K, .q4_K, .q5_K, .q6_K, .iq4_NL, .iq4_XS] {
        all.append(("every type", type, 2048, 2048))
    }
    for (label, type, rows, columns) in all {
        if let match, !label.contains(match), !type.description.contains(match) { continue }
        benchMatvec(label, type, rows, columns, pool, scratch, batch: batch, bandwidth: bandwidth)
    }
    if match != nil { return }

    // Activation quantization of one row.
    for (type, n) in [(GGMLType.q8_0, 576), (.q8_1, 576), (.q8_0, 2048), (.q8_K, 2048)] {
        let x = (0..<n).map { Float(sin(Double($0))) }
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: type.rowBytes(elements: n)!, alignment: 64)
        defer { bytes.deallocate() }
        let us = measure(minimumSeconds: 0.2) { Kernels.quantizeActivation(type: type, x, count: n, into: bytes) }
        print(String(format: "quantize %@ x[%d]: %.2f µs", type.description, n, us))
    }

    // Attention over an F16 cache: K·q for 512 cached rows of 64 (SmolLM2) and 256 (Gemma) floats.
    for headDim in [64, 256] {
        let context = 512
        let keys = [UInt16](repeating: Kernels.halfBits(0.5), count: context * headDim)
        let q = [UInt16](repeating: Kernels.halfBits(0.25), count: headDim)
        var scores = [Float](repeating: 0, count: context)
        let us = measure(minimumSeconds: 0.2) {
            keys.withUnsafeBufferPointer { k in
                for t in 0..<context { scores[t] = Kernels.dotF16(k.baseAddress! + t * headDim, q, count: headDim) }
            }
        }
        print(String(format: "attention K·q F16 %d × %d: %.2f µs", context, headDim, us))
    }

    // sgemm on dequantized panels: 512 prompt rows.
    for (type, rows, columns) in [(GGMLType.q4_1, 1536, 576), (.q8_0, 576, 576), (.q5_0, 2048, 640), (.q4_K, 640, 2048)] {
        let w = RandomMatrix(type: type, rows: rows, columns: columns)
        let n = 512
        let x = (0..<(n * columns)).map { Float(sin(Double($0) * 0.37)) }
        var y = [Float](repeating: 0, count: n * rows)
        let us = measure(minimumSeconds: 0.5) { Kernels.matmul(w.matrix, x, rowsOfX: n, &y, pool: pool, scratch: scratch) }
        let gflops = 2 * Double(n * rows * columns) / us / 1e3
        print(String(format: "matmul %@ %dx%d · X[%d]: %.0f µs, %.1f GFLOP/s", type.description, rows, columns, n, us, gflops))
    }
}

private func benchMatvec(_ label: String, _ type: GGMLType, _ rows: Int, _ columns: Int, _ pool: ThreadPool, _ scratch: KernelScratch,
                         batch: Int? = nil, bandwidth: Double) {
    let w = RandomMatrix(type: type, rows: rows, columns: columns)
    let x = (0..<columns).map { Float(cos(Double($0) * 0.11)) }
    var y = [Float](repeating: 0, count: rows)
    let us = measure(minimumSeconds: 0.3) { Kernels.matvec(w.matrix, x, &y, pool: pool, scratch: scratch) }
    let gbps = Double(w.matrix.byteCount) / us / 1e3
    // Decode reads every layer's weights from DRAM, not from a warm cache: cycle through copies that
    // together exceed the last-level cache (≥ 96 MB) for the figure that bounds decode.
    let copies = max(1, (96 << 20) / max(1, w.matrix.byteCount) + 1)
    let cold = copies == 1 ? [w] : (0..<copies).map { _ in RandomMatrix(type: type, rows: rows, columns: columns) }
    var next = 0
    let coldUs = measure(minimumSeconds: 0.3) {
        Kernels.matvec(cold[next].matrix, x, &y, pool: pool, scratch: scratch)
        next = (next + 1) % cold.count
    }
    let coldGbps = Double(w.matrix.byteCount) / coldUs / 1e3
    var batchFigure = ""
    if let batch, batch > 1 {
        let xs = (0..<(batch * columns)).map { Float(cos(Double($0) * 0.11)) }
        var ys = [Float](repeating: 0, count: batch * rows)
        let batchUs = measure(minimumSeconds: 0.3) {
            Kernels.matvec(cold[next].matrix, xs, rowsOfX: batch, &ys, pool: pool, scratch: scratch)
            next = (next + 1) % cold.count
        }
        batchFigure = String(format: "   %d rows %9.1f µs = %.2f rows' cost", batch, batchUs, batchUs / coldUs)
    }
    print(String(format: "matvec %-18@ %-5@ %6d x %-5d %9.1f µs %7.1f GB/s   from DRAM %9.1f µs %7.1f GB/s (%3.0f%%)%@",
                 label, type.description, rows, columns, us, gbps, coldUs, coldGbps, 100 * coldGbps * 1e9 / bandwidth,
                 batchFigure))
}

/// µs per call: the best of five rounds' means, the rounds together at least `minimumSeconds`, after
/// a warm-up call. The read bandwidth these figures are compared with is the best of five passes too
/// (`ReadBandwidth.measure`): on a shared machine a mean over all calls would compare the kernels'
/// average with the memory's best.
private func measure(minimumSeconds: Double, _ body: () -> Void) -> Double {
    body()
    var best = Double.infinity
    for _ in 0..<5 {
        var calls = 0
        let start = DispatchTime.now().uptimeNanoseconds
        var elapsed: UInt64 = 0
        repeat {
            body()
            calls += 1
            elapsed = DispatchTime.now().uptimeNanoseconds - start
        } while Double(elapsed) < minimumSeconds / 5 * 1e9
        best = min(best, Double(elapsed) / 1e3 / Double(calls))
    }
    return best
}

/// Random weights with finite half scales (random bytes elsewhere), owning their memory.
private final class RandomMatrix {
    let bytes: UnsafeMutableRawPointer
    let matrix: WeightMatrix

    init(type: GGMLType, rows: Int, columns: Int) {
        let count = rows * type.rowBytes(elements: columns)!
        bytes = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 64)
        var state: UInt64 = 0x1234_5678
        for i in stride(from: 0, to: count - 7, by: 8) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.storeBytes(of: state, toByteOffset: i, as: UInt64.self)
        }
        let scale = Kernels.halfBits(0.01)
        switch type {
        case .f32:
            for i in 0..<(rows * columns) { bytes.storeBytes(of: Float(i % 7) * 0.01, toByteOffset: 4 * i, as: Float.self) }
        case .f16, .bf16:
            for i in 0..<(rows * columns) { bytes.storeBytes(of: UInt16(0x3c00 ^ (i & 0x3ff)), toByteOffset: 2 * i, as: UInt16.self) }
        default:
            let offsets: [Int] = switch type {
            case .q4_0, .q5_0, .q8_0, .iq4_NL, .iq4_XS: [0]
            case .q4_1, .q5_1, .q4_K, .q5_K: [0, 2]
            case .q2_K: [80, 82]
            case .q3_K: [108]
            case .q6_K: [208]
            default: []
            }
            for b in 0..<(count / type.bytesPerBlock) {
                for o in offsets { bytes.storeBytes(of: scale, toByteOffset: b * type.bytesPerBlock + o, as: UInt16.self) }
            }
        }
        matrix = try! WeightMatrix(type: type, rows: rows, columns: columns, data: bytes)
    }

    deinit { bytes.deallocate() }
}
