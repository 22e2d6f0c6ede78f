import Foundation
import LocalLMGGUF
@testable import LocalLMKernels

/// Deterministic random data for the kernel tests (SplitMix64, so runs are reproducible).
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    mutating func float(_ range: ClosedRange<Float>) -> Float { Float.random(in: range, using: &self) }

    /// A gaussian-ish value (sum of uniforms), scaled.
    mutating func normal(_ scale: Float = 1) -> Float {
        var s: Float = 0
        for _ in 0..<4 { s += float(-1...1) }
        return s * scale
    }
}

/// Byte offsets of the f16 scales in each block type (random bytes there could be NaN/inf).
let halfFields: [GGMLType: [Int]] = [
    .q4_0: [0], .q4_1: [0, 2], .q5_0: [0], .q5_1: [0, 2], .q8_0: [0],
    .q2_K: [80, 82], .q3_K: [108], .q4_K: [0, 2], .q5_K: [0, 2], .q6_K: [208], .iq4_NL: [0], .iq4_XS: [0],
]

let weightTypes: [GGMLType] = [.f32, .f16, .bf16, .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q2_K, .q3_K, .q4_K, .q5_K, .q6_K, .iq4_NL, .iq4_XS]

/// A weight matrix of random blocks with finite, realistic scales, owning its memory.
final class RandomWeights {
    let bytes: UnsafeMutableRawPointer
    let matrix: WeightMatrix

    init(type: GGMLType, rows: Int, columns: Int, seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let rowBytes = type.rowBytes(elements: columns)!
        let count = rows * rowBytes
        bytes = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 64)
        switch type {
        case .f32:
            for i in 0..<(rows * columns) { bytes.storeBytes(of: rng.normal(0.5), toByteOffset: 4 * i, as: Float.self) }
        case .f16:
            for i in 0..<(rows * columns) { bytes.storeBytes(of: floatToHalf(rng.normal(0.5)), toByteOffset: 2 * i, as: UInt16.self) }
        case .bf16:
            for i in 0..<(rows * columns) { bytes.storeBytes(of: floatToBF16(rng.normal(0.5)), toByteOffset: 2 * i, as: UInt16.self) }
        default:
            for i in 0..<count { bytes.storeBytes(of: UInt8.random(in: 0...255, using: &rng), toByteOffset: i, as: UInt8.self) }
            let blocks = count / type.bytesPerBlock
            for b in 0..<blocks {
                for offset in halfFields[type]! {
                    let scale = rng.float(0.001...0.05) * (rng.next() & 1 == 0 ? 1 : -1)
                    bytes.storeBytes(of: floatToHalf(scale), toByteOffset: b * type.bytesPerBlock + offset, as: UInt16.self)
                }
            }
        }
        matrix = try WeightMatrix(type: type, rows: rows, columns: columns, data: UnsafeRawPointer(bytes))
    }

    deinit { bytes.deallocate() }
}

/// A random activation vector like the hidden states of a transformer (a few large outliers).
func randomActivations(_ n: Int, seed: UInt64) -> [Float] {
    var rng = SeededRandom(seed: seed)
    return (0..<n).map { i in rng.normal(1) * (i % 97 == 0 ? 8 : 1) }
}

/// Reads a committed fixture as raw bytes.
func fixtureBytes(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: Fixtures.url("quants/\(name)")))
}

import LocalLMTestSupport
