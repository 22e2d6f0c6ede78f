import LocalLMGGUF
import Testing
@testable import LocalLMKernels

/// The block structs must have exactly ggml's sizes (ggml-common.h static_asserts) and field offsets.
struct BlockLayoutTests {
    @Test func sizesMatchGGML() {
        #expect(MemoryLayout<BlockQ4_0>.size == GGMLType.q4_0.bytesPerBlock)
        #expect(MemoryLayout<BlockQ4_1>.size == GGMLType.q4_1.bytesPerBlock)
        #expect(MemoryLayout<BlockQ5_0>.size == GGMLType.q5_0.bytesPerBlock)
        #expect(MemoryLayout<BlockQ5_1>.size == GGMLType.q5_1.bytesPerBlock)
        #expect(MemoryLayout<BlockQ8_0>.size == GGMLType.q8_0.bytesPerBlock)
        #expect(MemoryLayout<BlockQ8_1>.size == GGMLType.q8_1.bytesPerBlock)
        #expect(MemoryLayout<BlockQ2_K>.size == GGMLType.q2_K.bytesPerBlock)
        #expect(MemoryLayout<BlockQ3_K>.size == GGMLType.q3_K.bytesPerBlock)
        #expect(MemoryLayout<BlockQ4_K>.size == GGMLType.q4_K.bytesPerBlock)
        #expect(MemoryLayout<BlockQ5_K>.size == GGMLType.q5_K.bytesPerBlock)
        #expect(MemoryLayout<BlockQ6_K>.size == GGMLType.q6_K.bytesPerBlock)
        #expect(MemoryLayout<BlockQ8_K>.size == GGMLType.q8_K.bytesPerBlock)
        // ggml sizes, independently of GGMLType's table.
        let sizes: [Int] = [
            MemoryLayout<BlockQ4_0>.size, MemoryLayout<BlockQ4_1>.size, MemoryLayout<BlockQ5_0>.size,
            MemoryLayout<BlockQ5_1>.size, MemoryLayout<BlockQ8_0>.size, MemoryLayout<BlockQ8_1>.size,
            MemoryLayout<BlockQ2_K>.size, MemoryLayout<BlockQ3_K>.size, MemoryLayout<BlockQ4_K>.size,
            MemoryLayout<BlockQ5_K>.size, MemoryLayout<BlockQ6_K>.size, MemoryLayout<BlockQ8_K>.size,
        ]
        #expect(sizes == [18, 20, 22, 24, 34, 36, 84, 110, 144, 176, 210, 292])
    }

    @Test func offsetsMatchTheStructs() {
        #expect(MemoryLayout<BlockQ4_0>.offset(of: \.qs) == BlockLayout.q4_0Qs)
        #expect(MemoryLayout<BlockQ4_1>.offset(of: \.m) == BlockLayout.q4_1M)
        #expect(MemoryLayout<BlockQ4_1>.offset(of: \.qs) == BlockLayout.q4_1Qs)
        #expect(MemoryLayout<BlockQ5_0>.offset(of: \.qh) == BlockLayout.q5_0Qh)
        #expect(MemoryLayout<BlockQ5_0>.offset(of: \.qs) == BlockLayout.q5_0Qs)
        #expect(MemoryLayout<BlockQ5_1>.offset(of: \.qh) == BlockLayout.q5_1Qh)
        #expect(MemoryLayout<BlockQ5_1>.offset(of: \.qs) == BlockLayout.q5_1Qs)
        #expect(MemoryLayout<BlockQ8_0>.offset(of: \.qs) == BlockLayout.q8_0Qs)
        #expect(MemoryLayout<BlockQ8_1>.offset(of: \.s) == BlockLayout.q8_1S)
        #expect(MemoryLayout<BlockQ8_1>.offset(of: \.qs) == BlockLayout.q8_1Qs)
        #expect(MemoryLayout<BlockQ2_K>.offset(of: \.qs) == BlockLayout.q2_KQs)
        #expect(MemoryLayout<BlockQ2_K>.offset(of: \.d) == BlockLayout.q2_KD)
        #expect(MemoryLayout<BlockQ2_K>.offset(of: \.dmin) == BlockLayout.q2_KDmin)
        #expect(MemoryLayout<BlockQ3_K>.offset(of: \.qs) == BlockLayout.q3_KQs)
        #expect(MemoryLayout<BlockQ3_K>.offset(of: \.scales) == BlockLayout.q3_KScales)
        #expect(MemoryLayout<BlockQ3_K>.offset(of: \.d) == BlockLayout.q3_KD)
        #expect(MemoryLayout<BlockQ4_K>.offset(of: \.dmin) == BlockLayout.q4_KDmin)
        #expect(MemoryLayout<BlockQ4_K>.offset(of: \.scales) == BlockLayout.q4_KScales)
        #expect(MemoryLayout<BlockQ4_K>.offset(of: \.qs) == BlockLayout.q4_KQs)
        #expect(MemoryLayout<BlockQ5_K>.offset(of: \.qh) == BlockLayout.q5_KQh)
        #expect(MemoryLayout<BlockQ5_K>.offset(of: \.qs) == BlockLayout.q5_KQs)
        #expect(MemoryLayout<BlockQ6_K>.offset(of: \.qh) == BlockLayout.q6_KQh)
        #expect(MemoryLayout<BlockQ6_K>.offset(of: \.scales) == BlockLayout.q6_KScales)
        #expect(MemoryLayout<BlockQ6_K>.offset(of: \.d) == BlockLayout.q6_KD)
        #expect(MemoryLayout<BlockQ8_K>.offset(of: \.qs) == BlockLayout.q8_KQs)
        #expect(MemoryLayout<BlockQ8_K>.offset(of: \.bsums) == BlockLayout.q8_KBsums)
    }

    @Test func weightMatrixRejectsBadShapes() {
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: 1024, alignment: 64)
        defer { bytes.deallocate() }
        #expect(throws: KernelError.columnsNotMultipleOfBlock(type: .q4_K, columns: 100)) {
            try WeightMatrix(type: .q4_K, rows: 1, columns: 100, data: bytes)
        }
        #expect(throws: KernelError.unsupportedType(.iq2_XXS)) {
            try WeightMatrix(type: .iq2_XXS, rows: 1, columns: 256, data: bytes)
        }
        #expect(throws: KernelError.unsupportedType(.q8_K)) {
            try WeightMatrix(type: .q8_K, rows: 1, columns: 256, data: bytes)
        }
        #expect(throws: KernelError.invalidShape(rows: -1, columns: 32)) {
            try WeightMatrix(type: .q8_0, rows: -1, columns: 32, data: bytes)
        }
    }
}
