import CLocalLMShims
import Foundation
@testable import LocalLMKernels
import Testing

/// The building blocks of ggml's order of operations. Their composition is checked end to end against
/// llama.cpp's logits (FidelityTests.llamaCppArithmeticGivesIdenticalLogits).
@Suite struct GGMLOrderTests {
    /// Triples where a·b + c rounds differently when rounded twice: c cancels most of a·b, or
    /// a·b lands near a halfway point, plus plain random ones and signed zeros.
    static func triples(_ count: Int) -> [(Float, Float, Float)] {
        var rng = SeededRandom(seed: 7)
        var out: [(Float, Float, Float)] = [(0, 0, -0), (-0, 1, 0), (1, 1, -1), (3, 1.0 / 3, -1)]
        // Exact sums just past a Float halfway point by less than a Double ulp: (1 + 2⁻ʲ)·(−(1 − 2⁻ʲ)·2⁻²⁴)
        // + (1 + 2⁻²³) = 1 + 2⁻²⁴ + 2⁻²⁴⁻²ʲ, which a double rounding sends to 1 instead of 1 + 2⁻²³.
        for j in 15...23 {
            let x = Float(sign: .plus, exponent: -j, significand: 1)
            for scale in [Float(1), 4, 0.125, -2] {
                out.append((scale * (1 + x), -(1 - x) * 0x1p-24, scale * (1 + 0x1p-23)))
            }
        }
        for i in 0..<count {
            let a = Float.random(in: -4...4, using: &rng), b = Float.random(in: -4...4, using: &rng)
            switch i % 3 {
            case 0: out.append((a, b, Float.random(in: -16...16, using: &rng)))
            case 1: out.append((a, b, -(a * b)))  // the exact product's rounding error
            default:
                // c a few ulps from −a·b, or a power of two far larger than a·b
                let c = -(a * b) + Float(Int.random(in: -3...3, using: &rng)) * (a * b).ulp
                out.append(i % 2 == 0 ? (a, b, c) : (a, b, Float(1 << 20)))
            }
        }
        return out
    }

    @Test func emulatedFMAEqualsTheFusedOperation() {
        var checked = 0
        for (a, b, c) in Self.triples(30_000) {
            let fused = c.addingProduct(a, b)
            let scalar = GGMLOrder.emulatedFMA(a, b, c)
            let vector = GGMLOrder.emulatedFMA(SIMD8(repeating: a), SIMD8(repeating: b), SIMD8(repeating: c))[3]
            #expect(scalar.bitPattern == fused.bitPattern, "\(a) · \(b) + \(c)")
            #expect(vector.bitPattern == fused.bitPattern, "\(a) · \(b) + \(c)")
            checked += 1
        }
        #expect(checked > 30_000)
    }

    /// The naive double-rounded form is wrong on some of these triples, so the test can tell.
    @Test func doubleRoundingWouldFailTheseTriples() {
        let wrong = Self.triples(30_000).filter { a, b, c in
            Float(Double(a) * Double(b) + Double(c)).bitPattern != c.addingProduct(a, b).bitPattern
        }
        #expect(!wrong.isEmpty)
    }

    @Test func fmaChainEqualsFusedOperationsInOrder() {
        var rng = SeededRandom(seed: 11)
        let blocks = 37
        let lanes = (0..<(8 * blocks)).map { _ in Float(Int32.random(in: -70_000...70_000, using: &rng)) }
        let scales = (0..<blocks).map { _ in Float.random(in: -0.01...0.01, using: &rng) }
        var expected = [Float](repeating: 0, count: 8)
        for b in 0..<blocks { for i in 0..<8 { expected[i] = expected[i].addingProduct(lanes[8 * b + i], scales[b]) } }
        var acc = [Float](repeating: 0, count: 8)
        locallm_fma_chain(lanes, scales, Int32(blocks), 8, &acc)
        #expect(acc.map(\.bitPattern) == expected.map(\.bitPattern))
    }

    @Test func sumsInGGMLOrder() {
        // Values whose sum depends on the order: each order gives a different float.
        let v = SIMD8<Float>(1e8, 1, -1e8, 3, 5, 7, 1, 2)
        let ggml = ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]))
        #expect(GGMLOrder.sum8(v) == ggml)
        let x: [Float] = (0..<40).map { Float($0) * 0.1 + 1e-3 }, y: [Float] = (0..<40).map { 1 / Float($0 + 1) }
        // 4 accumulators over one step of 32, then 8 products added one by one in Double.
        var a = [SIMD8<Float>](repeating: .zero, count: 4)
        for j in 0..<4 { for l in 0..<8 { a[j][l] = x[8 * j + l] * y[8 * j + l] } }
        var expected = Double(GGMLOrder.reduce4x8(a[0], a[1], a[2], a[3]))
        for i in 32..<40 { expected += Double(x[i] * y[i]) }
        #expect(GGMLOrder.dotVec(x, y, count: 40) == Float(expected))
    }

    @Test func exponentialIsCloseToLibmAndExactAtTheEdges() {
        #expect(GGMLOrder.exp(0) == 1)
        #expect(GGMLOrder.exp(-.infinity) == 0)
        #expect(GGMLOrder.exp(-200) == 0)
        #expect(GGMLOrder.exp(100) == .infinity)
        var x: Float = -87
        while x < 88 {
            let e = GGMLOrder.exp(x), reference = Foundation.exp(Double(x))
            #expect(abs(Double(e) - reference) <= 3 * Double(Float(reference).ulp), "exp(\(x))")
            x += 0.37
        }
    }
}
