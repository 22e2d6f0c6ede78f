import Foundation
import Testing
@testable import LocalLMKernels

/// F16 vector operations and half conversions against direct formulas. (Norms, activations and RoPE
/// live in the runtime's `TransformerMath`; `TransformerMathTests` checks them.)
struct ElementwiseTests {
    @Test(arguments: [7, 67, 75, 256])
    func f16VectorOps(n: Int) {
        let a = randomActivations(n, seed: 9), b = randomActivations(n, seed: 10)
        var ah = [UInt16](repeating: 0, count: n), bh = [UInt16](repeating: 0, count: n)
        Kernels.convertToF16(a, count: n, into: &ah)
        Kernels.convertToF16(b, count: n, into: &bh)
        var af = [Float](repeating: 0, count: n)
        Kernels.convertFromF16(ah, count: n, into: &af)
        for i in 0..<n { #expect(af[i] == Float(Float16(a[i]))) }
        var exact: Double = 0
        for i in 0..<n { exact += Double(Float(Float16(a[i]))) * Double(Float(Float16(b[i]))) }
        #expect(abs(Double(Kernels.dotF16(ah, bh, count: n)) - exact) < 1e-5 * Double(n))
        var exact32: Double = 0
        for i in 0..<n { exact32 += Double(Float(Float16(a[i]))) * Double(b[i]) }
        #expect(abs(Double(Kernels.dotF16F32(ah, b, count: n)) - exact32) < 1e-5 * Double(n))
        #expect(abs(Double(Kernels.dot(a, b, count: n)) - zip(a, b).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }) < 1e-5 * Double(n))
        var y = b
        Kernels.axpyF16(0.5, ah, &y, count: n)
        for i in 0..<n { #expect(abs(y[i] - (b[i] + 0.5 * af[i])) < 1e-6) }
    }
}

struct HalfConversionTests {
    /// The portable half→float (bit construction) equals Swift's Float16 conversion on all 65536 values.
    @Test func halfToFloatIsExactForEveryBitPattern() {
        var mismatches = 0
        for bits in 0...UInt16.max {
            let expected = Float(Float16(bitPattern: bits)), got = halfToFloat(bits)
            if expected.isNaN ? !got.isNaN : expected.bitPattern != got.bitPattern { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// Rounding a float to F16 precision equals a round trip through Float16, around every F16 value
    /// (exact values, midpoints — the ties — and their neighbours), over the subnormal, normal and
    /// overflow ranges, and on random bit patterns.
    /// Every F16 value, the midpoints between neighbours (the ties) and their neighbours, both signs,
    /// special values and 200,000 random bit patterns.
    static func halfConversionInputs() -> [Float] {
        var inputs: [Float] = [0, -0, .infinity, -.infinity, .nan, 65504, 65519.99, 65520, 1e9, -1e-30, 5.96e-8, 2.98e-8]
        for bits in 0..<UInt16(0x7c00) {
            let h = Float(Float16(bitPattern: bits)), next = Float(Float16(bitPattern: bits + 1))
            let mid = (h + next) / 2
            for x in [h, mid, mid.nextDown, mid.nextUp] { inputs.append(x); inputs.append(-x) }
        }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200_000 { inputs.append(Float(bitPattern: UInt32.random(in: 0...UInt32.max, using: &rng))) }
        return inputs
    }

    @Test func roundedToHalfEqualsFloat16RoundTrip() {
        var mismatches = 0
        for x in Self.halfConversionInputs() {
            let expected = Float(Float16(x)), got = roundedToHalf(x)
            if expected.isNaN ? !got.isNaN : expected.bitPattern != got.bitPattern { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// The bit construction of a build without a target CPU equals Float16's conversion on the same
    /// inputs as ``roundedToHalfEqualsFloat16RoundTrip()`` (NaNs only need to stay NaNs).
    @Test func floatToHalfEqualsFloat16Bits() {
        var mismatches: [Float] = []
        for x in Self.halfConversionInputs() {
            let expected = Float16(x), got = floatToHalf(x)
            if expected.isNaN ? !Float16(bitPattern: got).isNaN : expected.bitPattern != got { mismatches.append(x) }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(8))")
    }

    /// The magic-number rounding equals `rounded(.toNearestOrEven)` over the range the activation
    /// quantizers use it for (|x| ≤ 127.5 after scaling, and further up to 2^22).
    @Test func roundedHalfEvenEqualsLibraryRounding() {
        var inputs: [Float] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, 127.5, -127.5, 4_194_303.5, -4_194_304]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200_000 { inputs.append(Float.random(in: -130...130, using: &rng)) }
        for _ in 0..<20_000 { inputs.append(Float.random(in: -4_194_304...4_194_304, using: &rng)) }
        for i in -300...300 { inputs.append(Float(i) / 2) }
        let mismatches = inputs.filter { roundedHalfEven($0) != $0.rounded(.toNearestOrEven) }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(8))")
    }

    @Test func roundEvenMatchesRoundingRule() {
        let values: [Float] = [0.5, 1.5, 2.5, -0.5, -1.5, 126.5, 127.4, -127.6, 3.49, -3.51, .nan, 1e9]
        let expected: [Int8] = [0, 2, 2, 0, -2, 126, 127, -128, 3, -4, 0, 127]
        #expect(values.map(roundEvenToInt8) == expected)
    }
}
