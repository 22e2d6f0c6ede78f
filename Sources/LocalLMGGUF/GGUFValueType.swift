/// The type id of a GGUF metadata value, as written in the file.
public enum GGUFValueType: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    case uint8 = 0, int8, uint16, int16, uint32, int32, float32, bool, string, array, uint64, int64, float64

    /// Encoded size of one value, or nil when it varies (string, array).
    public var fixedSize: Int? {
        switch self {
        case .uint8, .int8, .bool: 1
        case .uint16, .int16: 2
        case .uint32, .int32, .float32: 4
        case .uint64, .int64, .float64: 8
        case .string, .array: nil
        }
    }

    /// The fewest bytes one value can take: the basis of every "can this count fit?" check.
    var minimumSize: Int {
        switch self {
        case .string: 8  // u64 length, empty string
        case .array: 12  // u32 element type + u64 count, empty array
        default: fixedSize ?? 1
        }
    }

    public var isInteger: Bool {
        switch self {
        case .uint8, .int8, .uint16, .int16, .uint32, .int32, .uint64, .int64: true
        default: false
        }
    }

    /// gguf-py's name for the type (`GGUFValueType.UINT32` → `UINT32`).
    public var description: String {
        switch self {
        case .uint8: "UINT8"
        case .int8: "INT8"
        case .uint16: "UINT16"
        case .int16: "INT16"
        case .uint32: "UINT32"
        case .int32: "INT32"
        case .float32: "FLOAT32"
        case .bool: "BOOL"
        case .string: "STRING"
        case .array: "ARRAY"
        case .uint64: "UINT64"
        case .int64: "INT64"
        case .float64: "FLOAT64"
        }
    }
}
