import CLocalLMShims
import LocalLMGGUF
import Testing
@testable import LocalLMKernels

/// The run-time-dispatched C kernels (AVX2 + FMA + F16C) against their Swift twins (`DotFast` and
/// `GGMLOrder`, the kernels of a plain build), bit for bit, on random data: they must compute the same
/// integer sums and the same float operations in the same order. Skipped on CPUs without the
/// instructions (there the Swift kernels are the only path).
struct AVX2KernelsTests {
    static let types: [GGMLType] = [.q8_0, .q4_0, .q4_1, .q5_0, .q5_1, .q2_K, .q3_K, .q4_K, .q5_K, .q6_K, .iq4_NL, .iq4_XS]

    static func swiftDot(_ type: GGMLType) -> (UnsafeRawPointer, PreparedActivation, Int) -> Float {
        switch type {
        case .q8_0: DotFast.q8_0
        case .q4_0: DotFast.q4_0
        case .q4_1: DotFast.q4_1
        case .q5_0: DotFast.q5_0
        case .q5_1: DotFast.q5_1
        case .q2_K: DotFast.q2_K
        case .q3_K: DotFast.q3_K
        case .q4_K: DotFast.q4_K
        case .q5_K: DotFast.q5_K
        case .iq4_NL: DotFast.iq4_NL
        case .iq4_XS: DotFast.iq4_XS
        default: DotFast.q6_K
        }
    }

    @Test(.enabled(if: CPUFeatures.avx2FMAF16C), arguments: types, [512, 2304, 4864])
    func cRowsEqualSwiftKernels(type: GGMLType, columns: Int) throws {
        try compareRows(type: type, columns: columns)
    }

    /// IQ4_NL (and Q5_0's 512-bit loop) take blocks in pairs; an odd count leaves a last block to the
    /// one-block form.
    @Test(.enabled(if: CPUFeatures.avx2FMAF16C), arguments: [GGMLType.iq4_NL, .q5_0], [32, 544, 2336])
    func oddNumbersOfBlocks(type: GGMLType, columns: Int) throws {
        try compareRows(type: type, columns: columns)
    }

    func compareRows(type: GGMLType, columns: Int) throws {
        // 23 rows: five groups of four and three single rows, with start offsets that split a group.
        let rows = 23
        let weights = try RandomWeights(type: type, rows: rows, columns: columns, seed: 1234 + UInt64(columns) + UInt64(type.rawValue))
        let x = randomActivations(columns, seed: UInt64(columns))
        let scratch = KernelScratch()
        let a = x.withUnsafeBufferPointer {
            Kernels.prepareActivation(for: type, $0.baseAddress!, count: columns, scratch: scratch, slot: KernelScratch.activationSlot)
        }
        let nb = columns / type.blockSize, dot = Self.swiftDot(type)
        let expected = (0..<rows).map { dot(weights.matrix.row($0), a, nb) }
        // The AVX2 loop, and the AVX-512 one where there is one and the CPU has it.
        let forms = [false] + (CPUFeatures.avx512VNNI && AVX2Rows.wideFunction(for: type) != nil ? [true] : [])
        for wide in forms {
            for (start, end) in [(0, rows), (1, rows), (3, 18), (5, 6)] {
                var y = [Float](repeating: .nan, count: rows)
                let ran = y.withUnsafeMutableBufferPointer { AVX2Rows.rows(weights.matrix, a, $0.baseAddress!, start, end, wide: wide) }
                #expect(ran)
                for r in start..<end {
                    #expect(y[r].bitPattern == expected[r].bitPattern,
                            "\(type) \(columns) columns\(wide ? " (512-bit)" : ""), row \(r) of \(start)..<\(end): C \(y[r]) vs Swift \(expected[r])")
                }
                for r in 0..<rows where r < start || r >= end { #expect(y[r].isNaN, "row \(r) outside the range was written") }
            }
        }
    }

    /// The AVX-512 VNNI forms of the Q4_K and Q6_K prefill kernels (512-bit, `vpdpwssd` in place of
    /// `vpmaddwd` + `vpaddd`) give the AVX2 form's bits: 7 activations (an odd last pair), rows split
    /// at odd offsets. Skipped on CPUs without AVX-512 VNNI.
    @Test(.enabled(if: CPUFeatures.avx512VNNI), arguments: [GGMLType.q4_K, .q6_K])
    func avx512PrefillKernelsEqualTheAVX2Form(type: GGMLType) throws {
        let columns = 2304
        try compareWideForms(type: type, rows: 23, columns: columns, seed: 4321 + UInt64(type.rawValue),
                             x: randomActivations(7 * columns, seed: 606), counts: [7]) {
            AVX2Rows.gemmFunction(for: type, wide: $0)
        }
    }

    /// The `vpdpbusd` forms of the several-activation Q8_0, Q4_0, Q5_0 and Q4_1 kernels give the AVX2
    /// forms' bits for every group size (1…16 activations: groups of 8, 4, 2 and 1), on rows whose tables
    /// fit their stack (896 columns, Qwen 0.5B's hidden size) and longer ones that put them on the heap
    /// (4,864, its FFN-down rows), rows split at odd offsets, nothing outside the range written; the
    /// random Q8_0 weights include −128. Skipped on CPUs without AVX-512 VNNI.
    @Test(.enabled(if: CPUFeatures.avx512VNNI), arguments: [GGMLType.q8_0, .q4_0, .q5_0, .q4_1], [896, 4864])
    func avx512SeveralActivationKernelsEqualTheAVX2Form(type: GGMLType, columns: Int) throws {
        let n = AVX2Rows.multiMaximum
        var x = randomActivations(n * columns, seed: 808 + UInt64(columns))
        // A block of large values of both signs, so quantized bytes reach ±127.
        for i in 0..<32 { x[32 + i] = i % 2 == 0 ? 40 : -40 }
        try compareWideForms(type: type, rows: 21, columns: columns, seed: 97 + UInt64(columns) + UInt64(type.rawValue),
                             x: x, counts: Array(1...n)) {
            AVX2Rows.multiFunction(for: type, wide: $0)
        }
    }

    /// `kernel(false)` (the AVX2 form) against `kernel(true)` (the AVX-512 VNNI form) on random `type`
    /// weights and each count of the activations in `x` (`columns` values each), over all rows and over
    /// rows 3..<18: the same bits, every row of the range written and none outside it.
    func compareWideForms(type: GGMLType, rows: Int, columns: Int, seed: UInt64, x: [Float], counts: [Int],
                          kernel: (Bool) -> AVX2Rows.MultiRows?) throws {
        let n = x.count / columns
        let weights = try RandomWeights(type: type, rows: rows, columns: columns, seed: seed)
        let perRow = PreparedActivation.scratchBytes(type: Kernels.activationType(for: type), count: columns)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: n * perRow, alignment: 64)
        defer { memory.deallocate() }
        let activations = x.withUnsafeBufferPointer { xp in
            (0..<n).map { PreparedActivation(type: Kernels.activationType(for: type), xp.baseAddress! + $0 * columns,
                                             count: columns, memory: memory + $0 * perRow) }
        }
        let c = activations.map(\.cActivation)
        let bytes = weights.matrix.data.assumingMemoryBound(to: UInt8.self), nb = columns / type.blockSize
        func run(wide: Bool, _ count: Int, _ start: Int, _ end: Int) throws -> [Float] {
            let f = try #require(kernel(wide))
            var y = [Float](repeating: .nan, count: count * rows)
            c.withUnsafeBufferPointer { f(bytes, weights.matrix.rowStride, $0.baseAddress!, count, nb, &y, rows, start, end) }
            return y
        }
        for count in counts {
            for (start, end) in [(0, rows), (3, 18)] {
                let expected = try run(wide: false, count, start, end), y = try run(wide: true, count, start, end)
                let differing = (0..<(count * rows)).filter { y[$0].bitPattern != expected[$0].bitPattern }
                #expect(differing.isEmpty, "\(type), \(columns) columns, \(count) activations, rows \(start)..<\(end): \(differing.count) differ")
                #expect((0..<(count * rows)).allSatisfy { ($0 % rows >= start && $0 % rows < end) != y[$0].isNaN })
            }
        }
    }

    /// The C Q8_K quantization writes `Quantize.q8_K`'s bytes: ordinary rows, outliers, ties at .5,
    /// values past the nearest-integer clamp, zeros, a block whose largest magnitude appears twice with
    /// both signs, and NaN and infinity.
    @Test(.enabled(if: CPUFeatures.avx2FMAF16C))
    func q8_KQuantizationEqualsSwift() {
        var values = Self.randomFloats(256 * 6, seed: 31, range: -3...3)
        for i in stride(from: 0, to: 256, by: 7) { values[i] = Float(i % 11) * 0.5 - 2.5 }
        values[256 + 3] = 1e30
        values[256 + 9] = -1e-30
        for i in 512..<768 { values[i] = 0 }
        values[768 + 5] = -2.75
        values[768 + 200] = 2.75
        values[1024 + 7] = .nan
        values[1024 + 100] = .infinity
        values[1280 + 1] = -.infinity
        values[1280 + 2] = .nan
        let blocks = values.count / 256
        var swift = [UInt8](repeating: 0xAA, count: 292 * blocks), c = swift
        values.withUnsafeBufferPointer { x in
            swift.withUnsafeMutableBytes { y in
                for b in 0..<blocks { Quantize.q8_K(x.baseAddress! + 256 * b, y.baseAddress! + 292 * b) }
            }
            c.withUnsafeMutableBufferPointer { locallm_avx2_quantize_q8_K(x.baseAddress!, blocks, $0.baseAddress!) }
        }
        for b in 0..<blocks {
            let range = (292 * b)..<(292 * (b + 1))
            #expect(Array(c[range]) == Array(swift[range]), "block \(b)")
        }
    }

    /// Q8_0 and Q8_1 activation blocks from the C loops, byte for byte the Swift ones: ties, clamping,
    /// a zero block, NaN, ±infinity, values whose d is an F16 subnormal or overflows F16.
    @Test(.enabled(if: CPUFeatures.avx2FMAF16C), arguments: [GGMLType.q8_0, .q8_1])
    func q8_0AndQ8_1QuantizationEqualSwift(type: GGMLType) {
        var values = Self.randomFloats(32 * 12, seed: 37, range: -3...3)
        for i in stride(from: 0, to: 32, by: 3) { values[i] = Float(i % 7) * 0.5 - 1.5 }
        for i in 32..<64 { values[i] = 0 }
        values[64 + 3] = .nan
        values[96 + 5] = .infinity
        values[128 + 1] = -.infinity
        values[128 + 2] = .nan
        for i in 160..<192 { values[i] *= 1e-6 }
        for i in 192..<224 { values[i] *= 1e-9 }
        values[224 + 4] = 1e7
        values[256 + 8] = -3e38
        values[288 + 31] = 127
        values[288 + 30] = -127.5
        let blocks = values.count / 32, bytes = type == .q8_0 ? 34 : 36
        var swift = [UInt8](repeating: 0xAA, count: bytes * blocks), c = swift
        values.withUnsafeBufferPointer { x in
            swift.withUnsafeMutableBytes { y in
                for b in 0..<blocks {
                    if type == .q8_0 {
                        Quantize.q8_0Activation(x.baseAddress! + 32 * b, y.baseAddress! + bytes * b)
                    } else {
                        Quantize.q8_1Activation(x.baseAddress! + 32 * b, y.baseAddress! + bytes * b)
                    }
                }
            }
            c.withUnsafeMutableBufferPointer {
                if type == .q8_0 {
                    locallm_avx2_quantize_q8_0(x.baseAddress!, blocks, $0.baseAddress!)
                } else {
                    locallm_avx2_quantize_q8_1(x.baseAddress!, blocks, $0.baseAddress!)
                }
            }
        }
        for b in 0..<blocks {
            let range = (bytes * b)..<(bytes * (b + 1))
            #expect(Array(c[range]) == Array(swift[range]), "\(type) block \(b)")
        }
    }

    @Test func dispatchCoversTheTypesItClaims() {
        for type in Self.types { #expect(AVX2Rows.function(for: type) != nil, "\(type)") }
        for type in [GGMLType.f32, .f16, .bf16] { #expect(AVX2Rows.function(for: type) == nil, "\(type)") }
    }

    static func randomFloats(_ count: Int, seed: UInt64, range: ClosedRange<Float> = -2...2) -> [Float] {
        var rng = SeededRandom(seed: seed)
        return (0..<count).map { _ in rng.float(range) }
    }

    @Test(.enabled(if: CPUFeatures.avx2FMAF16C), arguments: [8, 32, 37, 64, 80, 128, 256])
    func dotsEqualGGMLOrder(count: Int) {
        for seed in 0..<20 as Range<UInt64> {
            let x = Self.randomFloats(count, seed: seed), y = Self.randomFloats(count, seed: 1000 + seed)
            let vec = GGMLRows.dotVec(x, y, count: count), vecSwift = GGMLOrder.dotVec(x, y, count: count)
            #expect(vec.bitPattern == vecSwift.bitPattern, "dotVec \(count) seed \(seed): \(vec) vs \(vecSwift)")
            if count % 8 == 0 {
                let tiled = GGMLRows.dotTiled(x, y, count: count), tiledSwift = GGMLOrder.dotTiled(x, y, count: count)
                #expect(tiled.bitPattern == tiledSwift.bitPattern, "dotTiled \(count) seed \(seed)")
            }
        }
    }

    /// Every branch of ggml_v_expf: ordinary arguments, |n| > 126 (gradual underflow / overflow scaling),
    /// |n| > 192 (0 or infinity), and the tail that does not fill 8 lanes.
    @Test(.enabled(if: CPUFeatures.avx2FMAF16C))
    func expEqualsGGMLOrder() {
        var values = Self.randomFloats(4003, seed: 7, range: -30...30)
        values += Self.randomFloats(1001, seed: 8, range: -200...120)
        values += [0, -0.0, 88.7, 88.8, -87.3, -103.9, -104, -150, 1e-30, .infinity, -.infinity]
        for shift: Float in [0, 3.25, -12] {
            var row = values
            row.withUnsafeMutableBufferPointer { GGMLRows.expShifted($0.baseAddress!, count: $0.count, shift: shift) }
            for (i, x) in values.enumerated() {
                let expected = GGMLOrder.exp(x - shift)
                #expect(row[i].bitPattern == expected.bitPattern || (row[i].isNaN && expected.isNaN),
                        "exp(\(x) - \(shift)): C \(row[i]) vs Swift \(expected)")
            }
        }
    }

    @Test(.enabled(if: CPUFeatures.avx2FMAF16C))
    func swigluEqualsGGMLOrder() {
        let count = 4864
        let gate = Self.randomFloats(count, seed: 11, range: -100...100), up = Self.randomFloats(count, seed: 12)
        var out = [Float](repeating: .nan, count: count)
        out.withUnsafeMutableBufferPointer { GGMLRows.swiglu(gate: gate, up: up, out: $0.baseAddress!, count: count) }
        for i in 0..<count {
            let expected = GGMLOrder.silu(gate[i]) * up[i]
            #expect(out[i].bitPattern == expected.bitPattern, "swiglu \(i): gate \(gate[i])")
        }
    }

    /// Every F16 value as F32, its F32 neighbours one ulp either side and halfway to the next F16
    /// value (the ties), infinities, NaNs with payloads, and random values: the inputs on which
    /// F16C's conversions and the Swift ones could differ.
    static func halfConversionInputs() -> [Float] {
        var values: [Float] = []
        for bits in 0..<65536 {
            let x = halfToFloat(UInt16(bits))
            values += [x, x.nextUp, x.nextDown]
            let next = halfToFloat(UInt16(bits) &+ 1)
            if x.isFinite, next.isFinite, (bits & 0x7fff) != 0x7bff { values.append((x + next) / 2) }
        }
        values += [.infinity, -.infinity, .nan, -.nan, Float(bitPattern: 0x7f80_0001), Float(bitPattern: 0xffc0_1234),
                   65504, 65519.99, 65520, -65520, 1e-8, -1e-8, 5.9604645e-8, 2.9802322e-8, 2.9802326e-8]
        values += randomFloats(4096, seed: 21, range: -70000...70000) + randomFloats(4096, seed: 22, range: -1e-4...1e-4)
        values.append(1.5)   // an odd count, so the one-at-a-time tail runs too
        return values
    }

    @Test(.enabled(if: CPUFeatures.avx2FMAF16C))
    func halfConversionsEqualTheSwiftOnes() {
        let x = Self.halfConversionInputs()
        var half = [UInt16](repeating: 0, count: x.count)
        var rounded = [Float](repeating: 0, count: x.count)
        half.withUnsafeMutableBufferPointer { GGMLRows.toHalf(x, count: x.count, into: $0.baseAddress!) }
        rounded.withUnsafeMutableBufferPointer { GGMLRows.roundToHalf(x, count: x.count, into: $0.baseAddress!) }
        var wide = [Float](repeating: 0, count: x.count)
        wide.withUnsafeMutableBufferPointer { GGMLRows.fromHalf(half, count: half.count, into: $0.baseAddress!) }
        var mismatches = 0
        for i in x.indices {
            let ok = half[i] == floatToHalf(x[i]) && rounded[i].bitPattern == roundedToHalf(x[i]).bitPattern
                && wide[i].bitPattern == halfToFloat(half[i]).bitPattern
            if !ok {
                mismatches += 1
                if mismatches <= 5 {
                    Issue.record("x \(x[i]) (\(String(x[i].bitPattern, radix: 16))): half \(half[i]) vs \(floatToHalf(x[i])), rounded \(rounded[i]) vs \(roundedToHalf(x[i]))")
                }
            }
        }
        #expect(mismatches == 0)
        // Every F16 pattern widened. F16C quiets a signalling NaN (as ggml's conversion on x86 does);
        // the Swift construction keeps its bits; both are NaN.
        let all = (0..<65536).map { UInt16($0) }
        var widened = [Float](repeating: 0, count: all.count)
        widened.withUnsafeMutableBufferPointer { GGMLRows.fromHalf(all, count: all.count, into: $0.baseAddress!) }
        for (bits, value) in zip(all, widened) {
            let expected = halfToFloat(bits)
            #expect(value.bitPattern == expected.bitPattern || (value.isNaN && expected.isNaN), "F16 \(bits)")
        }
        // In place, as ActivationRounding calls it.
        var inPlace = x
        inPlace.withUnsafeMutableBufferPointer { GGMLRows.roundToHalf($0.baseAddress!, count: x.count, into: $0.baseAddress!) }
        #expect(inPlace.map(\.bitPattern) == rounded.map(\.bitPattern))
    }

    @Test(.enabled(if: CPUFeatures.avx2FMAF16C))
    func gegluEqualsTheScalarForm() {
        let table = Self.randomFloats(65536, seed: 31, range: -3...3)
        var gate = Self.randomFloats(4861, seed: 32, range: -14...14)
        gate += [-10, 10, -10.000001, 9.999999, .nan, .infinity, -.infinity, 0, -0.0]
        let up = Self.randomFloats(gate.count, seed: 33)
        var out = [Float](repeating: .nan, count: gate.count)
        out.withUnsafeMutableBufferPointer {
            GGMLRows.geglu(gate: gate, up: up, table: table, count: gate.count, into: $0.baseAddress!)
        }
        for i in gate.indices {
            let x = gate[i]
            let expected: Float = x <= -10 ? 0 : x >= 10 ? x * up[i] : table[Int(floatToHalf(x))] * up[i]
            #expect(out[i].bitPattern == expected.bitPattern, "geglu \(i): gate \(x)")
        }
    }

    /// The C dequantizers of the sgemm path against the Swift block functions, on random bytes (any
    /// byte pattern is a valid block, F16 scales included: NaN scales must give NaN).
    @Test(.enabled(if: CPUFeatures.avx2FMAF16C), arguments: [GGMLType.q8_0, .q4_0, .q5_0, .q4_1])
    func dequantizersEqualTheSwiftOnes(type: GGMLType) throws {
        var generator = SeededRandom(seed: 41)
        let blocks = 257
        let bytes = (0..<(blocks * type.bytesPerBlock)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        var c = [Float](repeating: 0, count: blocks * 32), swift = c
        let block = try #require(Dequantize.blockFunction(type))
        bytes.withUnsafeBytes { src in
            #expect(AVX2Rows.dequantize(type, src.baseAddress!, count: blocks * 32, into: &c))
            for b in 0..<blocks { swift.withUnsafeMutableBufferPointer { block(src.baseAddress! + b * type.bytesPerBlock, $0.baseAddress! + 32 * b) } }
        }
        // NaN scales give NaN either way; their payloads may differ (F16C quiets a signalling NaN).
        let differing = c.indices.filter { c[$0].bitPattern != swift[$0].bitPattern && !(c[$0].isNaN && swift[$0].isNaN) }
        #expect(differing.isEmpty, "\(type): \(differing.count) differ, first \(differing.prefix(3).map { (c[$0], swift[$0]) })")
        #expect(c.contains { $0.isNaN })
    }
}
