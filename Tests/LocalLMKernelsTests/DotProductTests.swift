import LocalLMGGUF
import Testing
@testable import LocalLMKernels

/// The reference dot products against an independent computation: the bit-exact dequantization of the
/// weights times the dequantized activations, summed in double. They differ only by float rounding.
struct DotProductTests {
    @Test(arguments: weightTypes)
    func referenceDotMatchesDequantizedDot(type: GGMLType) throws {
        let columns = 1024
        let weights = try RandomWeights(type: type, rows: 3, columns: columns, seed: 11 + UInt64(type.rawValue))
        let x = randomActivations(columns, seed: 5)
        let actType = Kernels.activationType(for: type)
        var act = [UInt8](repeating: 0, count: actType.rowBytes(elements: columns)!)
        var actFloats = [Float](repeating: 0, count: columns), w = [Float](repeating: 0, count: columns)
        x.withUnsafeBufferPointer { xp in
            act.withUnsafeMutableBytes { Kernels.quantizeActivation(type: actType, xp.baseAddress!, count: columns, into: $0.baseAddress!) }
        }
        act.withUnsafeBytes { Kernels.dequantize(type: actType, $0.baseAddress!, count: columns, into: &actFloats) }
        let dot = try #require(DotReference.function(type))
        for r in 0..<3 {
            Kernels.dequantizeRow(weights.matrix, row: r, into: &w)
            var exact: Double = 0, magnitude: Double = 0
            for i in 0..<columns {
                exact += Double(w[i]) * Double(actFloats[i])
                magnitude += abs(Double(w[i]) * Double(actFloats[i]))
            }
            let got = act.withUnsafeBytes { dot(weights.matrix.row(r), $0.baseAddress!, columns) }
            // Float accumulation over ≤ 1024 terms plus the rounding of the Q8_1 `s` term (half).
            let tolerance = magnitude * (type == .q4_1 || type == .q5_1 ? 2e-3 : 1e-5) + 1e-6
            #expect(abs(Double(got) - exact) <= tolerance, "\(type) row \(r): \(got) vs \(exact)")
        }
    }

    /// Q8_0 activation quantization (the x86 backend's flavour) against the reference: equal except where
    /// x·id lands on a rounding tie or the two inverse scales differ in the last bit, and always within one
    /// step; ties round to even.
    @Test func activationQuantizationRoundsHalfToEven() {
        var x = [Float](repeating: 0, count: 32)
        x[0] = 127
        x[1] = 62.5; x[2] = 63.5; x[3] = -62.5; x[4] = -63.5; x[5] = 0.5; x[6] = 1.5
        var block = [UInt8](repeating: 0, count: 34)
        block.withUnsafeMutableBytes { Quantize.q8_0Activation(x, $0.baseAddress!) }
        let qs = block[2...].map { Int8(bitPattern: $0) }
        #expect(Array(qs[0..<7]) == [127, 62, 64, -62, -64, 0, 2])
        block.withUnsafeMutableBytes { Quantize.q8_0Reference(x, $0.baseAddress!) }
        let qr = block[2...].map { Int8(bitPattern: $0) }
        #expect(Array(qr[0..<7]) == [127, 63, 64, -63, -64, 1, 2])
    }

    @Test func q8_KQuantizationProperties() {
        let n = 512
        let x = randomActivations(n, seed: 3)
        var q = [UInt8](repeating: 0, count: 2 * 292)
        x.withUnsafeBufferPointer { xp in q.withUnsafeMutableBytes { Kernels.quantize(type: .q8_K, xp.baseAddress!, count: n, into: $0.baseAddress!) } }
        var back = [Float](repeating: 0, count: n)
        q.withUnsafeBytes { Kernels.dequantize(type: .q8_K, $0.baseAddress!, count: n, into: &back) }
        q.withUnsafeBytes { raw in
            for b in 0..<2 {
                let d = raw.loadUnaligned(fromByteOffset: 292 * b, as: Float.self)
                let block = x[(256 * b)..<(256 * b + 256)]
                let maxElement = block.max { abs($0) < abs($1) }!
                // The largest-magnitude element maps to exactly ∓127 (ggml scales by −127/max).
                #expect(abs(abs(d) * 127 - abs(maxElement)) <= abs(maxElement) * 1e-6)
                for i in 0..<256 { #expect(abs(back[256 * b + i] - x[256 * b + i]) <= abs(d) * 0.5001) }
                for g in 0..<16 {
                    var sum = 0
                    for l in 0..<16 { sum += Int(raw.load(fromByteOffset: 292 * b + 4 + 16 * g + l, as: Int8.self)) }
                    #expect(Int(raw.loadUnaligned(fromByteOffset: 292 * b + 260 + 2 * g, as: Int16.self)) == sum)
                }
            }
        }
    }

    @Test func nearestIntRoundsHalfToEven() {
        #expect(Quantize.nearestInt(2.5) == 2)
        #expect(Quantize.nearestInt(3.5) == 4)
        #expect(Quantize.nearestInt(-2.5) == -2)
        #expect(Quantize.nearestInt(-126.7) == -127)
    }
}
