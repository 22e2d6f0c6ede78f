import LocalLMGGUF

/// Why a kernel refused a weight matrix. Thrown when a tensor is wrapped, never inside the hot loops.
public enum KernelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The ggml type is listed but the kernels do not compute with it (IQ, ternary, integer types).
    case unsupportedType(GGMLType)
    /// A row length that is not a whole number of blocks of the type.
    case columnsNotMultipleOfBlock(type: GGMLType, columns: Int)
    /// Negative or overflowing dimensions.
    case invalidShape(rows: Int, columns: Int)

    public var description: String {
        switch self {
        case .unsupportedType(let type):
            "ggml type \(type) (id \(type.rawValue)) has no LocalLM kernel"
        case .columnsNotMultipleOfBlock(let type, let columns):
            "a \(type) row needs a multiple of \(type.blockSize) columns, got \(columns)"
        case .invalidShape(let rows, let columns):
            "invalid weight shape \(rows) rows × \(columns) columns"
        }
    }
}
