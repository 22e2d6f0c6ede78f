import Foundation
import LocalLMGGUF
import LocalLMTestSupport
import Testing
@testable import LocalLMKernels

/// Goldens from gguf-py's numpy reference (scripts/goldens/quant_fixtures.py): dequantization of random
/// blocks of every type, and quantization of random rows to Q8_0/F16/BF16, compared bit for bit.
struct GoldenQuantTests {
    static let dequantizedTypes: [GGMLType] = [
        .f16, .bf16, .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q2_K, .q3_K, .q4_K, .q5_K, .q6_K, .iq4_NL, .iq4_XS,
    ]

    @Test(arguments: dequantizedTypes)
    func dequantizationIsBitExact(type: GGMLType) throws {
        let blocks = try fixtureBytes("\(type).blocks")
        let expected = try fixtureBytes("\(type).f32")
        let count = expected.count / 4
        #expect(blocks.count == count / type.blockSize * type.bytesPerBlock)
        var out = [Float](repeating: .nan, count: count)
        blocks.withUnsafeBytes { src in
            Kernels.dequantize(type: type, src.baseAddress!, count: count, into: &out)
        }
        var mismatches = 0
        expected.withUnsafeBytes { raw in
            for i in 0..<count where raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self) != out[i].bitPattern {
                if mismatches < 5 {
                    Issue.record("\(type) element \(i): expected \(raw.loadUnaligned(fromByteOffset: 4 * i, as: Float.self)), got \(out[i])")
                }
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }

    @Test(arguments: dequantizedTypes.filter { $0 != .f16 && $0 != .bf16 })
    func dequantizeRowMatchesDequantize(type: GGMLType) throws {
        let blocks = try fixtureBytes("\(type).blocks")
        let count = blocks.count / type.bytesPerBlock * type.blockSize
        let rows = 2, columns = count / rows
        try blocks.withUnsafeBytes { src in
            let w = try WeightMatrix(type: type, rows: rows, columns: columns, data: src.baseAddress!)
            var whole = [Float](repeating: 0, count: count), row = [Float](repeating: 0, count: columns)
            Kernels.dequantize(type: type, src.baseAddress!, count: count, into: &whole)
            Kernels.dequantizeRow(w, row: 1, into: &row)
            #expect(Array(whole[columns...]) == row)
        }
    }

    static let quantizedTypes: [GGMLType] = [.q8_0, .f16, .bf16]

    @Test(arguments: quantizedTypes)
    func quantizationIsBitExact(type: GGMLType) throws {
        let input = try fixtureBytes("quantize_input.f32")
        let expected = try fixtureBytes("quantize_\(type).bin")
        let count = input.count / 4
        var out = [UInt8](repeating: 0xAA, count: type.rowBytes(elements: count)!)
        #expect(out.count == expected.count)
        input.withUnsafeBytes { raw in
            let x = raw.bindMemory(to: Float.self)
            out.withUnsafeMutableBytes { Kernels.quantize(type: type, x.baseAddress!, count: count, into: $0.baseAddress!) }
        }
        let firstDifference = zip(out, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "first differing byte \(firstDifference ?? -1)")
    }

    /// Q8_1's reference has the same d and qs as Q8_0's (gguf-py has no Q8_1 quantizer), and
    /// s = half(d · Σqs) with the unrounded float d = amax/127.
    @Test func q8_1ReferenceAgreesWithQ8_0Golden() throws {
        let input = try fixtureBytes("quantize_input.f32")
        let q8_0 = try fixtureBytes("quantize_Q8_0.bin")
        let count = input.count / 4, blocks = count / 32
        var out = [UInt8](repeating: 0, count: blocks * 36)
        input.withUnsafeBytes { raw in
            out.withUnsafeMutableBytes { Kernels.quantize(type: .q8_1, raw.bindMemory(to: Float.self).baseAddress!, count: count, into: $0.baseAddress!) }
        }
        let x = input.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        for b in 0..<blocks {
            let g = q8_0[(34 * b)..<(34 * b + 34)], o = out[(36 * b)..<(36 * b + 36)]
            #expect(Array(g.prefix(2)) == Array(o.prefix(2)), "d of block \(b)")
            #expect(Array(g.dropFirst(2)) == Array(o.dropFirst(4)), "qs of block \(b)")
            let d = x[(32 * b)..<(32 * b + 32)].map(abs).max()! / 127
            let s = UInt16(o[o.startIndex + 2]) | UInt16(o[o.startIndex + 3]) << 8
            let sum = o.dropFirst(4).reduce(Int32(0)) { $0 + Int32(Int8(bitPattern: $1)) }
            #expect(s == floatToHalf(Float(sum) * d))
        }
    }
}
