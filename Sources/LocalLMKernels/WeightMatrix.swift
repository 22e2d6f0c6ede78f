import LocalLMGGUF

/// A weight matrix in ggml layout: `rows` rows (output features, ggml ne[1]) of `columns` elements
/// (ne[0], contiguous); each row is `type.rowBytes(elements: columns)` bytes and rows follow each other.
///
/// The matrix does not own `data` (usually a view into an mmapped GGUF file); whoever made it keeps the
/// memory alive for as long as the matrix is used.
public struct WeightMatrix: @unchecked Sendable {
    public let type: GGMLType
    public let rows: Int
    public let columns: Int
    public let data: UnsafeRawPointer
    /// Bytes from one row to the next.
    public let rowStride: Int

    /// Checks that the kernels support `type` as a weight and that `columns` is a whole number of blocks.
    public init(type: GGMLType, rows: Int, columns: Int, data: UnsafeRawPointer) throws(KernelError) {
        guard Self.isWeightType(type) else { throw .unsupportedType(type) }
        guard rows >= 0, columns >= 0 else { throw .invalidShape(rows: rows, columns: columns) }
        guard columns % type.blockSize == 0 else { throw .columnsNotMultipleOfBlock(type: type, columns: columns) }
        guard let rowBytes = type.rowBytes(elements: columns),
              !rows.multipliedReportingOverflow(by: rowBytes).overflow
        else { throw .invalidShape(rows: rows, columns: columns) }
        self.type = type
        self.rows = rows
        self.columns = columns
        self.data = data
        self.rowStride = rowBytes
    }

    /// Total bytes of the matrix (what one matvec streams from memory).
    public var byteCount: Int { rows * rowStride }

    /// The start of row `row` (0 ..< rows).
    @inline(__always)
    public func row(_ row: Int) -> UnsafeRawPointer { data + row * rowStride }

    /// Types that can be weights. Q8_1 and Q8_K are activation-only formats in ggml.
    public static func isWeightType(_ type: GGMLType) -> Bool {
        switch type {
        case .f32, .f16, .bf16, .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q2_K, .q3_K, .q4_K, .q5_K, .q6_K, .iq4_NL, .iq4_XS: true
        default: false
        }
    }
}
