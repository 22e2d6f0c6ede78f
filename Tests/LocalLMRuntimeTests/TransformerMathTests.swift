import Foundation
import Testing
@testable import LocalLMRuntime

/// The forward pass's element-wise pieces against direct double-precision formulas.
struct TransformerMathTests {
    private func values(_ n: Int, seed: UInt64) -> [Float] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<n).map { _ in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Float(Double(state % 2_000_001) / 1_000_000 - 1) * 3
        }
    }

    @Test func rmsNormMatchesFormula() {
        let n = 576
        let x = values(n, seed: 1), w = values(n, seed: 2)
        var y = [Float](repeating: 0, count: n)
        TransformerMath.rmsNorm(x, weight: w, count: n, epsilon: 1e-5, into: &y)
        let mean = x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(n)
        let scale = 1 / (mean + 1e-5).squareRoot()
        for i in 0..<n { #expect(abs(Double(y[i]) - Double(x[i]) * scale * Double(w[i])) <= 1e-5 * max(1, abs(Double(y[i])))) }
    }

    @Test func gegluFollowsGGMLHalfTable() {
        let xs: [Float] = [-12, -10, -3.3, -1, -0.25, 0, 0.001, 0.5, 1, 2.7, 9.99, 10, 15]
        let up = [Float](repeating: 2, count: xs.count)
        var y = [Float](repeating: 0, count: xs.count)
        TransformerMath.geluTable.withUnsafeBufferPointer { table in
            TransformerMath.geglu(gate: xs, up: up, count: xs.count, table: table.baseAddress!, into: &y)
        }
        for (x, got) in zip(xs, y) {
            let expected: Float
            if x <= -10 { expected = 0 } else if x >= 10 { expected = x } else {
                // gelu of the half-rounded input, rounded to half.
                let h = Double(Float(Float16(x)))
                let g = 0.5 * h * (1 + tanh(0.7978845608028654 * h * (1 + 0.044715 * h * h)))
                expected = Float(Float16(Float(g)))
            }
            #expect(abs(got / 2 - expected) <= abs(expected) * 1e-3 + 1e-7, "gelu(\(x)) = \(got / 2), expected \(expected)")
        }
    }

    @Test(arguments: [5, 8, 19])
    func swigluMatchesFormula(width: Int) {
        let xs = values(2 * width, seed: 3)
        let up = [Float](repeating: 3, count: xs.count)
        var y = [Float](repeating: 0, count: xs.count)
        TransformerMath.swiglu(gate: xs, up: up, rows: 2, width: width, into: &y)
        for (x, got) in zip(xs, y) {
            let expected = 3 * Double(x) / (1 + exp(-Double(x)))
            #expect(abs(Double(got) - expected) <= 1e-5 * max(1, abs(expected)))
        }
    }
}
