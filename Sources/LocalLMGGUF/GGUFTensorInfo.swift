/// One entry of the tensor table: where a tensor's data lies and how to read it.
public struct GGUFTensorInfo: Sendable, Equatable {
    public let name: String
    /// ggml order: `dimensions[0]` is the contiguous (innermost) one, i.e. the row length.
    public let dimensions: [Int]
    public let type: GGMLType
    /// Byte offset of the data, relative to ``GGUFFile/dataOffset``.
    public let offset: Int
    /// Bytes of data: rows × the type's bytes per row.
    public let byteCount: Int

    /// Product of the dimensions (validated not to overflow when the file was opened).
    public var elementCount: Int { dimensions.reduce(1, *) }

    /// Row length (`dimensions[0]`) and number of rows (the product of the other dimensions).
    public var rowLength: Int { dimensions.first ?? 1 }
    public var rowCount: Int { dimensions.dropFirst().reduce(1, *) }
}
