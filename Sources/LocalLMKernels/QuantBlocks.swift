// ggml's quantization blocks (ggml/src/ggml-common.h), field for field. Swift lays out these structs
// in declaration order with natural alignment, which gives exactly ggml's byte layout; a test asserts
// every size and field offset. Kernels address blocks through raw pointers with the offsets below
// (the structs document the layout and pin it down in tests).
//
// Scales named `d`/`dmin`/`m`/`s` are IEEE half floats stored as their bit patterns (`UInt16`).

/// 16 bytes, 32 bytes … as homogeneous tuples (the C arrays of ggml-common.h).
package typealias Bytes4 = (UInt8, UInt8, UInt8, UInt8)
package typealias Bytes12 = (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)
package typealias Bytes16 = (Bytes4, Bytes4, Bytes4, Bytes4)
package typealias Bytes32 = (Bytes16, Bytes16)
package typealias Bytes64 = (Bytes32, Bytes32)
package typealias Bytes128 = (Bytes64, Bytes64)
package typealias Bytes256 = (Bytes128, Bytes128)
package typealias Int16x16 = (Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16,
                              Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16)

/// Elements per block of the K-quants (ggml `QK_K`).
package let qkK = 256

/// `block_q4_0`: x = d · (q − 8), q in 0…15; element j in the low nibble of qs[j], j+16 in the high.
package struct BlockQ4_0 { var d: UInt16; var qs: Bytes16 }
/// `block_q4_1`: x = d · q + m.
package struct BlockQ4_1 { var d: UInt16; var m: UInt16; var qs: Bytes16 }
/// `block_q5_0`: x = d · (q − 16); bit 4 of element j is bit j of qh (little-endian u32).
package struct BlockQ5_0 { var d: UInt16; var qh: Bytes4; var qs: Bytes16 }
/// `block_q5_1`: x = d · q + m.
package struct BlockQ5_1 { var d: UInt16; var m: UInt16; var qh: Bytes4; var qs: Bytes16 }
/// `block_q8_0`: x = d · q, q signed bytes.
package struct BlockQ8_0 { var d: UInt16; var qs: Bytes32 }
/// `block_q8_1`: x = d · q; s = d · Σq (lets Q4_1/Q5_1 dots add the min term in one multiply).
package struct BlockQ8_1 { var d: UInt16; var s: UInt16; var qs: Bytes32 }
/// `block_q2_K`: 16 groups of 16; scales byte = 4-bit scale | 4-bit min << 4; x = d·sc·q − dmin·m.
package struct BlockQ2_K { var scales: Bytes16; var qs: Bytes64; var d: UInt16; var dmin: UInt16 }
/// `block_q3_K`: 2 low bits in qs, the third bit in hmask (set = no −4), 16 six-bit scales (−32 offset).
package struct BlockQ3_K { var hmask: Bytes32; var qs: Bytes64; var scales: Bytes12; var d: UInt16 }
/// `block_q4_K`: 8 groups of 32, 6-bit scales and mins packed in 12 bytes; x = d·sc·q − dmin·m.
package struct BlockQ4_K { var d: UInt16; var dmin: UInt16; var scales: Bytes12; var qs: Bytes128 }
/// `block_q5_K`: Q4_K plus a fifth bit per element in qh.
package struct BlockQ5_K { var d: UInt16; var dmin: UInt16; var scales: Bytes12; var qh: Bytes32; var qs: Bytes128 }
/// `block_q6_K`: low 4 bits in ql, high 2 in qh, 16 signed 8-bit scales; x = d·sc·(q − 32).
package struct BlockQ6_K { var ql: Bytes128; var qh: Bytes64; var scales: Bytes16; var d: UInt16 }
/// `block_q8_K`: the activation format of the K-quant dots; `d` is a float, bsums are sums of 16 qs.
package struct BlockQ8_K { var d: Float; var qs: Bytes256; var bsums: Int16x16 }

/// Byte offsets of the fields inside each block, as ggml-common.h lays them out.
package enum BlockLayout {
    // Q4_0
    package static let q4_0Qs = 2
    // Q4_1
    package static let q4_1M = 2, q4_1Qs = 4
    // Q5_0
    package static let q5_0Qh = 2, q5_0Qs = 6
    // Q5_1
    package static let q5_1M = 2, q5_1Qh = 4, q5_1Qs = 8
    // Q8_0 / Q8_1
    package static let q8_0Qs = 2
    package static let q8_1S = 2, q8_1Qs = 4
    // Q2_K
    package static let q2_KQs = 16, q2_KD = 80, q2_KDmin = 82
    // Q3_K
    package static let q3_KQs = 32, q3_KScales = 96, q3_KD = 108
    // Q4_K
    package static let q4_KDmin = 2, q4_KScales = 4, q4_KQs = 16
    // Q5_K
    package static let q5_KDmin = 2, q5_KScales = 4, q5_KQh = 16, q5_KQs = 48
    // Q6_K
    package static let q6_KQh = 128, q6_KScales = 192, q6_KD = 208
    // IQ4_NL: d, then 16 bytes of nibbles (element j low, j+16 high), as Q4_0
    package static let iq4_NLQs = 2
    // IQ4_XS: d, scales_h (2 bits per sub-block), scales_l (4 bits per sub-block), 8 × 16 bytes of nibbles
    package static let iq4_XSScalesH = 2, iq4_XSScalesL = 4, iq4_XSQs = 8

    /// The 16 values a 4-bit IQ4_NL/IQ4_XS index stands for (ggml's `kvalues_iq4nl`): a non-linear grid,
    /// denser near zero.
    package static let iq4Values: SIMD16<Int8> = [-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113]

    /// The 6-bit scale of IQ4_XS sub-block `ib` (0…7) minus 32: low 4 bits from scales_l, high 2 from scales_h.
    @inline(__always)
    package static func iq4_XSScale(_ x: UnsafeRawPointer, _ ib: Int) -> Int32 {
        let low = Int32(x.load(fromByteOffset: iq4_XSScalesL + ib / 2, as: UInt8.self) >> (4 * UInt8(ib % 2))) & 0x0F
        let high = Int32(x.loadUnaligned(fromByteOffset: iq4_XSScalesH, as: UInt16.self) >> (2 * UInt16(ib))) & 0x03
        return (low | (high << 4)) - 32
    }
    // Q8_K
    package static let q8_KQs = 4, q8_KBsums = 260
}
