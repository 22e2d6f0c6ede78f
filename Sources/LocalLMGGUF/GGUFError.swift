/// Why a GGUF file (untrusted input) or a metadata lookup was rejected, and where.
///
/// Every failure carries the file offset at which it was detected, and the key or tensor it concerns
/// when there is one, so a message like `GGUF error at offset 0x1a2 (418), key 'general.name': …`
/// points at the byte to look at with a hex dump.
public struct GGUFError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The file could not be opened, stat'ed or mapped.
        case io(String)
        /// The file ends before `needed` more bytes could be read.
        case truncated(needed: Int, available: Int)
        /// The first four bytes are not `GGUF`.
        case badMagic(UInt32)
        /// A version other than 2 or 3 (v1 used 32-bit counts and is not supported).
        case unsupportedVersion(UInt32)
        /// A count or length read from the file cannot possibly fit in the bytes that remain.
        case absurdCount(what: String, count: UInt64, remainingBytes: Int)
        /// A key or tensor name longer than the reader accepts (see ``GGUFFile``'s limits).
        case nameTooLong(what: String, length: UInt64, limit: Int)
        /// A metadata value type id outside 0...12.
        case unknownValueType(UInt32)
        /// A tensor type id that ggml does not define.
        case unknownTensorType(UInt32)
        /// Two metadata entries with the same key.
        case duplicateKey
        /// Two tensors with the same name.
        case duplicateTensor
        /// Arrays nested deeper than ``GGUFFile/maximumArrayNesting``.
        case nestingTooDeep(limit: Int)
        /// `general.alignment` is not a power of two in 1...2^30, or not an integer.
        case badAlignment(String)
        /// A tensor with more than four dimensions (GGML_MAX_DIMS).
        case tooManyDimensions(UInt32)
        /// A dimension above Int.max, or dimensions whose product (elements or bytes) overflows.
        case dimensionOverflow([UInt64])
        /// The innermost dimension is not a whole number of the type's blocks.
        case partialBlock(elements: Int, type: GGMLType)
        /// A tensor's data offset is not a multiple of the alignment.
        case tensorMisaligned(offset: UInt64, alignment: Int)
        /// A tensor's data runs past the end of the file.
        case tensorOutOfBounds(start: Int, end: Int, dataSize: Int)
        /// Two tensors' data ranges overlap.
        case tensorsOverlap(with: String)
        /// A metadata accessor found a value of another type than it asked for.
        case typeMismatch(expected: String, actual: GGUFValueType)
        /// An integer value that does not fit the requested Swift type.
        case valueOutOfRange(String)
    }

    public let kind: Kind
    /// File offset at which the problem was found (for lookups: where the value is stored).
    public let offset: Int
    /// The metadata key involved, if any.
    public let key: String?
    /// The tensor involved, if any.
    public let tensor: String?

    public init(_ kind: Kind, at offset: Int, key: String? = nil, tensor: String? = nil) {
        self.kind = kind
        self.offset = offset
        self.key = key
        self.tensor = tensor
    }

    public var description: String {
        if case .io(let what) = kind { return what }  // no byte of the file was read: no offset to give
        var place = "GGUF error at offset 0x\(String(offset, radix: 16)) (\(offset))"
        if let key { place += ", key '\(Self.clipped(key))'" }
        if let tensor { place += ", tensor '\(Self.clipped(tensor))'" }
        return "\(place): \(message)"
    }

    /// Names from a damaged file can be long or contain line breaks; the message stays one short line.
    private static func clipped(_ name: String) -> String {
        let flat = String(name.map { $0.isNewline ? " " : $0 })
        return flat.count <= 80 ? flat : flat.prefix(80) + "…"
    }

    /// The problem alone, without the place.
    public var message: String {
        switch kind {
        case .io(let what):
            return what
        case .truncated(let needed, let available):
            return "file is truncated: \(needed) bytes needed but only \(available) remain"
        case .badMagic(let magic):
            return "not a GGUF file (magic 0x\(String(magic, radix: 16)), expected 'GGUF')"
        case .unsupportedVersion(let version):
            if version == 1 {
                return "GGUF version 1 (32-bit counts) is not supported; convert the file to version 3"
            }
            if version.byteSwapped == 2 || version.byteSwapped == 3 {
                return "big-endian GGUF (version \(version.byteSwapped)) is not supported; only little-endian files are"
            }
            return "unsupported GGUF version \(version) (supported: 2 and 3)"
        case .absurdCount(let what, let count, let remaining):
            return "\(what) \(count) cannot fit in the \(remaining) bytes that remain in the file"
        case .nameTooLong(let what, let length, let limit):
            return "\(what) of \(length) bytes is longer than the \(limit) allowed"
        case .unknownValueType(let id):
            return "unknown metadata value type id \(id)"
        case .unknownTensorType(let id):
            return "unknown ggml tensor type id \(id)"
        case .duplicateKey:
            return "duplicate metadata key"
        case .duplicateTensor:
            return "duplicate tensor name"
        case .nestingTooDeep(let limit):
            return "arrays nested more than \(limit) deep"
        case .badAlignment(let what):
            return "general.alignment must be a power of two between 1 and 2^30, got \(what)"
        case .tooManyDimensions(let n):
            return "tensor has \(n) dimensions; at most 4 are allowed"
        case .dimensionOverflow(let dims):
            return "tensor dimensions \(dims) overflow"
        case .partialBlock(let elements, let type):
            return "innermost dimension \(elements) is not a multiple of \(type)'s block size \(type.blockSize)"
        case .tensorMisaligned(let offset, let alignment):
            return "tensor data offset \(offset) is not a multiple of the alignment \(alignment)"
        case .tensorOutOfBounds(let start, let end, let dataSize):
            return "tensor data \(start)..<\(end) lies outside the \(dataSize)-byte data section"
        case .tensorsOverlap(let other):
            return "tensor data overlaps that of tensor '\(other)'"
        case .typeMismatch(let expected, let actual):
            return "expected \(expected), found \(actual)"
        case .valueOutOfRange(let what):
            return "value out of range: \(what)"
        }
    }
}
