import Foundation

/// A GGUF model file, memory-mapped read-only: header, metadata and tensor table are parsed and
/// validated when it is opened (milliseconds, no read of the tensor data); tensor data are views into
/// the map. The map is released when the last owner (this file, or a ``GGUFArray`` taken from it) goes.
///
/// Supports GGUF versions 2 and 3, little-endian. The file is untrusted: every count, length, type id,
/// dimension and offset is checked against the file before use, and a bad file gives a ``GGUFError``
/// naming the problem and its file offset.
public final class GGUFFile: Sendable {
    public let version: UInt32
    /// Size of the whole file in bytes.
    public let fileSize: Int
    /// `general.alignment`, default 32: tensor data offsets are multiples of it.
    public let alignment: Int
    /// File offset where the tensor data section starts.
    public let dataOffset: Int
    public let metadata: GGUFMetadata
    /// The tensor table, in file order.
    public let tensors: [GGUFTensorInfo]

    private let storage: GGUFStorage
    private let tensorIndex: [String: Int]

    /// Maps and parses the file at `url`.
    public convenience init(contentsOf url: URL) throws(GGUFError) {
        try self.init(storage: GGUFStorage(mapping: url.path))
    }

    /// Parses an in-memory file (copied into an owned buffer): for tests and embedded data.
    public convenience init(bytes: [UInt8]) throws(GGUFError) {
        try self.init(storage: GGUFStorage(copying: bytes))
    }

    private init(storage: GGUFStorage) throws(GGUFError) {
        let parsed = try GGUFParser.parse(storage)
        self.storage = storage
        version = parsed.version
        fileSize = storage.count
        alignment = parsed.alignment
        dataOffset = parsed.dataOffset
        metadata = parsed.metadata
        tensors = parsed.tensors
        var index: [String: Int] = [:]
        for (i, tensor) in parsed.tensors.enumerated() { index[tensor.name] = i }
        tensorIndex = index
    }

    public func tensor(named name: String) -> GGUFTensorInfo? {
        tensorIndex[name].map { tensors[$0] }
    }

    /// The tensor's data: a view into the map, no copy, valid while this file lives.
    /// `tensor` must come from this file's table (a programming error otherwise, not an input error).
    public func bytes(of tensor: GGUFTensorInfo) -> UnsafeRawBufferPointer {
        precondition(
            tensorIndex[tensor.name].map { tensors[$0] == tensor } ?? false,
            "tensor '\(tensor.name)' does not belong to this GGUF file"
        )
        // Bounds were validated at parse time: dataOffset + offset + byteCount <= fileSize.
        guard tensor.byteCount > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: storage.base + dataOffset + tensor.offset, count: tensor.byteCount)
    }

    /// Total number of weights over all tensors.
    public var parameterCount: Int { tensors.reduce(0) { $0 &+ $1.elementCount } }
}
