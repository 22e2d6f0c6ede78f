/// A ggml tensor element type, identified by the id ggml writes into GGUF tensor infos.
///
/// Block sizes and bytes per block follow ggml's `ggml_type_traits` (`ggml/src/ggml.c`); a test checks
/// them against gguf-py's `GGML_QUANT_SIZES`. Types this runtime does not compute with are still listed
/// so a file that uses them can be inspected, and using one gives ``GGMLType/requireSupported()``'s error.
public enum GGMLType: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    case f32 = 0
    case f16 = 1
    case q4_0 = 2
    case q4_1 = 3
    case q5_0 = 6
    case q5_1 = 7
    case q8_0 = 8
    case q8_1 = 9
    case q2_K = 10
    case q3_K = 11
    case q4_K = 12
    case q5_K = 13
    case q6_K = 14
    case q8_K = 15
    case iq2_XXS = 16
    case iq2_XS = 17
    case iq3_XXS = 18
    case iq1_S = 19
    case iq4_NL = 20
    case iq3_S = 21
    case iq2_S = 22
    case iq4_XS = 23
    case i8 = 24
    case i16 = 25
    case i32 = 26
    case i64 = 27
    case f64 = 28
    case iq1_M = 29
    case bf16 = 30
    case tq1_0 = 34
    case tq2_0 = 35
    case mxfp4 = 39
    case nvfp4 = 40
    case q1_0 = 41

    /// Elements per block (1 for plain element types).
    public var blockSize: Int {
        switch self {
        case .f32, .f16, .bf16, .f64, .i8, .i16, .i32, .i64: 1
        case .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q8_1, .iq4_NL, .mxfp4: 32
        case .nvfp4: 64
        case .q1_0: 128
        case .q2_K, .q3_K, .q4_K, .q5_K, .q6_K, .q8_K,
             .iq2_XXS, .iq2_XS, .iq3_XXS, .iq1_S, .iq3_S, .iq2_S, .iq4_XS, .iq1_M, .tq1_0, .tq2_0: 256
        }
    }

    /// Bytes per block, as laid out in the file.
    public var bytesPerBlock: Int {
        switch self {
        case .f32: 4
        case .f16: 2
        case .bf16: 2
        case .f64: 8
        case .i8: 1
        case .i16: 2
        case .i32: 4
        case .i64: 8
        case .q4_0: 18
        case .q4_1: 20
        case .q5_0: 22
        case .q5_1: 24
        case .q8_0: 34
        case .q8_1: 36
        case .q2_K: 84
        case .q3_K: 110
        case .q4_K: 144
        case .q5_K: 176
        case .q6_K: 210
        case .q8_K: 292
        case .iq2_XXS: 66
        case .iq2_XS: 74
        case .iq3_XXS: 98
        case .iq1_S: 50
        case .iq4_NL: 18
        case .iq3_S: 110
        case .iq2_S: 82
        case .iq4_XS: 136
        case .iq1_M: 56
        case .tq1_0: 54
        case .tq2_0: 66
        case .mxfp4: 17
        case .nvfp4: 36
        case .q1_0: 18
        }
    }

    /// Whether the runtime's kernels compute with this type (as weights or activations).
    public var isSupported: Bool {
        switch self {
        case .f32, .f16, .bf16, .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q8_1,
             .q2_K, .q3_K, .q4_K, .q5_K, .q6_K, .q8_K, .iq4_NL, .iq4_XS:
            true
        default:
            false
        }
    }

    /// ggml's name for the type, e.g. `Q4_K`.
    public var description: String {
        switch self {
        case .f32: "F32"
        case .f16: "F16"
        case .bf16: "BF16"
        case .f64: "F64"
        case .i8: "I8"
        case .i16: "I16"
        case .i32: "I32"
        case .i64: "I64"
        case .q4_0: "Q4_0"
        case .q4_1: "Q4_1"
        case .q5_0: "Q5_0"
        case .q5_1: "Q5_1"
        case .q8_0: "Q8_0"
        case .q8_1: "Q8_1"
        case .q2_K: "Q2_K"
        case .q3_K: "Q3_K"
        case .q4_K: "Q4_K"
        case .q5_K: "Q5_K"
        case .q6_K: "Q6_K"
        case .q8_K: "Q8_K"
        case .iq2_XXS: "IQ2_XXS"
        case .iq2_XS: "IQ2_XS"
        case .iq3_XXS: "IQ3_XXS"
        case .iq1_S: "IQ1_S"
        case .iq4_NL: "IQ4_NL"
        case .iq3_S: "IQ3_S"
        case .iq2_S: "IQ2_S"
        case .iq4_XS: "IQ4_XS"
        case .iq1_M: "IQ1_M"
        case .tq1_0: "TQ1_0"
        case .tq2_0: "TQ2_0"
        case .mxfp4: "MXFP4"
        case .nvfp4: "NVFP4"
        case .q1_0: "Q1_0"
        }
    }

    /// Bytes needed for a row of `elements` values, or nil if `elements` is not a whole number of blocks
    /// or the byte count overflows.
    public func rowBytes(elements: Int) -> Int? {
        guard elements >= 0, elements % blockSize == 0 else { return nil }
        let (bytes, overflow) = (elements / blockSize).multipliedReportingOverflow(by: bytesPerBlock)
        return overflow ? nil : bytes
    }

    /// Throws ``UnsupportedTypeError`` naming the type when the kernels cannot compute with it.
    public func requireSupported(tensor: String? = nil) throws(UnsupportedTypeError) {
        guard isSupported else { throw UnsupportedTypeError(type: self, tensor: tensor) }
    }
}

/// A tensor uses a ggml type that this runtime lists but does not compute with (IQ and ternary types).
public struct UnsupportedTypeError: Error, Sendable, Equatable, CustomStringConvertible {
    public let type: GGMLType
    public let tensor: String?

    public var description: String {
        if let tensor {
            return "tensor '\(tensor)' uses ggml type \(type) (id \(type.rawValue)), which LocalLM does not support"
        }
        return "ggml type \(type) (id \(type.rawValue)) is not supported by LocalLM"
    }
}
