import Foundation
import LocalLMKernels
import Testing
@testable import LocalLMRuntime

/// The AVX2 Q8_0 rounding of prefill activations (`AVX2Rows.roundQ8_0`) against the Swift loop
/// (`ActivationRounding.roundQ8_0`), bit for bit: ordinary rows, ties, outliers past F16's range, a
/// zero block, NaN and infinity.
struct ActivationRoundingTests {
    /// `count` deterministic values in (−3, 3) (the fractional part of a scaled sine).
    static func values(_ count: Int, seed: Double) -> [Float] {
        (0..<count).map { i in
            let t = sin((Double(i) + seed) * 12.9898) * 43758.5453
            return Float((t - t.rounded(.down)) * 6 - 3)
        }
    }

    @Test(.enabled(if: CPUFeatures.avx2FMAF16C))
    func avx2Q8_0RoundingEqualsSwift() {
        var values = Self.values(32 * 40, seed: 17)
        for i in stride(from: 0, to: 64, by: 3) { values[i] = Float(i % 9) * 0.5 - 2 }
        values[70] = 1e7          // d = amax/127 overflows F16: infinity
        values[100] = -1e-40      // subnormal
        for i in 128..<160 { values[i] = 0 }
        values[170] = .nan
        values[200] = .infinity
        values[230] = -.infinity
        values[231] = .nan
        var swift = values, c = values
        swift.withUnsafeMutableBufferPointer { ActivationRounding.roundQ8_0($0.baseAddress!, count: $0.count) }
        let ran = c.withUnsafeMutableBufferPointer { AVX2Rows.roundQ8_0($0.baseAddress!, count: $0.count) }
        #expect(ran)
        for i in values.indices {
            #expect(c[i].bitPattern == swift[i].bitPattern || (c[i].isNaN && swift[i].isNaN),
                    "value \(i) (\(values[i])): C \(c[i]) vs Swift \(swift[i])")
        }
    }
}

extension ActivationRoundingTests {
    /// The AVX2 Q8_1 block-sum errors (SmolLM2's Q4_1 prefill) against the Swift loop, bit for bit, on
    /// the same kinds of values.
    @Test(.enabled(if: CPUFeatures.avx2FMAF16C))
    func avx2Q8_1SumErrorsEqualSwift() {
        var values = Self.values(32 * 40, seed: 18)
        values[70] = 1e7
        for i in 128..<160 { values[i] = 0 }
        values[170] = .nan
        values[200] = .infinity
        let blocks = values.count / 32
        var swift = [Float](repeating: 1, count: blocks), c = swift
        ActivationRounding.q8_1SumErrorsPortable(values, blocks: blocks, into: &swift)
        #expect(AVX2Rows.q8_1SumErrors(values, blocks: blocks, into: &c))
        for b in 0..<blocks {
            #expect(c[b].bitPattern == swift[b].bitPattern || (c[b].isNaN && swift[b].isNaN), "block \(b): C \(c[b]) vs Swift \(swift[b])")
        }
        #expect(swift.contains { $0 != 0 })
    }
}
