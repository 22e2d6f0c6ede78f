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

    /// IQ4_NL takes blocks in pairs; an odd count leaves a last block to the scalar form.
    @Test(.enabled(if: CPUFeatures.avx2FMAF16C), arguments: [32, 544, 2336])
    func iq4_NLWithAnOddNumberOfBlocks(columns: Int) throws {
        try compareRows(type: .iq4_NL, columns: columns)
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
        for (start, end) in [(0, rows), (1, rows), (3, 18), (5, 6)] {
            var y = [Float](repeating: .nan, count: rows)
            let ran = y.withUnsafeMutableBufferPointer { AVX2Rows.rows(weights.matrix, a, $0.baseAddress!, start, end) }
            #expect(ran)
            for r in start..<end {
                #expect(y[r].bitPattern == expected[r].bitPattern,
                        "\(type) \(columns) columns, row \(r) of \(start)..<\(end): C \(y[r]) vs Swift \(expected[r])")
            }
            for r in 0..<rows where r < start || r >= end { #expect(y[r].isNaN, "row \(r) outside the range was written") }
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
}
