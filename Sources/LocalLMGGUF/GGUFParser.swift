/// Parses and validates a whole GGUF header region: magic, version, counts, metadata, tensor table,
/// alignment and the placement of every tensor's data. Nothing is allocated from a count before the
/// count is checked against the bytes left in the file.
enum GGUFParser {
    struct Parsed {
        var version: UInt32
        var alignment: Int
        var dataOffset: Int
        var metadata: GGUFMetadata
        var tensors: [GGUFTensorInfo]
    }

    /// `GGUF` read as a little-endian u32.
    static let magic: UInt32 = 0x4655_4747
    static let defaultAlignment = 32
    /// GGML_MAX_DIMS.
    static let maximumDimensions: UInt32 = 4
    /// Smallest encodings, for the count checks: key (u64 length) + type id + 1-byte value;
    /// tensor name (u64 length) + n_dims + type + offset.
    static let minimumKeyValueSize = 8 + 4 + 1
    static let minimumTensorInfoSize = 8 + 4 + 4 + 8
    /// ggml stores tensor names in 64-byte fields (GGML_MAX_NAME, NUL included) and llama.cpp rejects
    /// longer ones; we allow some slack. Keys have no ggml limit; real ones are under 100 bytes.
    static let maximumTensorNameLength = 255
    static let maximumKeyLength = 65_535

    static func parse(_ storage: GGUFStorage) throws(GGUFError) -> Parsed {
        var cursor = GGUFCursor(storage)
        let magic = try cursor.read(UInt32.self)
        guard magic == Self.magic else { throw GGUFError(.badMagic(magic), at: 0) }
        let version = try cursor.read(UInt32.self)
        guard version == 2 || version == 3 else { throw GGUFError(.unsupportedVersion(version), at: 4) }
        let tensorCount = try cursor.readCount("tensor count", minimumItemSize: minimumTensorInfoSize)
        let keyValueCount = try cursor.readCount("metadata key/value count", minimumItemSize: minimumKeyValueSize)

        let metadata = try parseMetadata(&cursor, count: keyValueCount)
        let alignment = try readAlignment(metadata)
        var tensors: [GGUFTensorInfo] = []
        var offsetFields: [Int] = []  // file offset of each tensor's `offset` field, for errors
        // Counts were checked against the file size, but each entry costs more memory than its minimum
        // encoding, so reserve no more than a typical model needs and let real entries grow the rest.
        tensors.reserveCapacity(min(tensorCount, 4096))
        offsetFields.reserveCapacity(min(tensorCount, 4096))
        var names = Set<String>()
        for _ in 0..<tensorCount {
            let (tensor, offsetField) = try parseTensorInfo(&cursor, alignment: alignment)
            guard names.insert(tensor.name).inserted else {
                throw GGUFError(.duplicateTensor, at: offsetField, tensor: tensor.name)
            }
            tensors.append(tensor)
            offsetFields.append(offsetField)
        }

        // The data section starts at the next multiple of the alignment (it may be absent when there
        // are no tensors, so dataOffset can exceed the file size only then).
        let dataOffset = (cursor.position + alignment - 1) / alignment * alignment
        try validatePlacement(tensors, offsetFields: offsetFields, dataSize: storage.count - dataOffset)
        return Parsed(version: version, alignment: alignment, dataOffset: dataOffset, metadata: metadata, tensors: tensors)
    }

    private static func parseMetadata(_ cursor: inout GGUFCursor, count: Int) throws(GGUFError) -> GGUFMetadata {
        var keys: [String] = []
        var entries: [String: GGUFMetadata.Entry] = [:]
        keys.reserveCapacity(min(count, 1024))
        entries.reserveCapacity(min(count, 1024))
        for _ in 0..<count {
            let keyOffset = cursor.position
            let key = try cursor.readName("key length", limit: maximumKeyLength)
            let type = try cursor.readValueType()
            let valueOffset = cursor.position
            let value: GGUFValue
            do {
                value = try cursor.readValue(type, depth: 0)
            } catch {
                throw GGUFError(error.kind, at: error.offset, key: key)
            }
            guard entries[key] == nil else { throw GGUFError(.duplicateKey, at: keyOffset, key: key) }
            keys.append(key)
            entries[key] = GGUFMetadata.Entry(value: value, offset: valueOffset)
        }
        return GGUFMetadata(keys: keys, entries: entries)
    }

    private static func readAlignment(_ metadata: GGUFMetadata) throws(GGUFError) -> Int {
        let key = "general.alignment"
        guard let value = metadata[key] else { return defaultAlignment }
        let offset = metadata.offset(of: key) ?? 0
        guard let alignment = value.intValue else {
            throw GGUFError(.badAlignment("\(value)"), at: offset, key: key)
        }
        guard alignment > 0, alignment <= 1 << 30, alignment & (alignment - 1) == 0 else {
            throw GGUFError(.badAlignment(String(alignment)), at: offset, key: key)
        }
        return alignment
    }

    private static func parseTensorInfo(
        _ cursor: inout GGUFCursor, alignment: Int
    ) throws(GGUFError) -> (GGUFTensorInfo, offsetField: Int) {
        let name = try cursor.readName("tensor name length", limit: maximumTensorNameLength)
        let dimsOffset = cursor.position
        let dimensionCount = try cursor.read(UInt32.self)
        guard dimensionCount <= maximumDimensions else {
            throw GGUFError(.tooManyDimensions(dimensionCount), at: dimsOffset, tensor: name)
        }
        var raw: [UInt64] = []
        for _ in 0..<dimensionCount { raw.append(try cursor.read(UInt64.self)) }
        let typeOffset = cursor.position
        let typeID = try cursor.read(UInt32.self)
        let offsetField = cursor.position
        let dataOffset = try cursor.read(UInt64.self)

        // The product of the nonzero dimensions must fit Int, so that every partial product
        // (element count, row count, in any order) fits too, even when some dimension is zero.
        var dimensions: [Int] = []
        var bound = 1
        for dim in raw {
            guard let d = Int(exactly: dim) else { throw GGUFError(.dimensionOverflow(raw), at: dimsOffset, tensor: name) }
            let (product, overflow) = bound.multipliedReportingOverflow(by: max(d, 1))
            guard !overflow else { throw GGUFError(.dimensionOverflow(raw), at: dimsOffset, tensor: name) }
            bound = product
            dimensions.append(d)
        }
        guard let type = GGMLType(rawValue: typeID) else {
            throw GGUFError(.unknownTensorType(typeID), at: typeOffset, tensor: name)
        }
        let rowLength = dimensions.first ?? 1
        guard rowLength % type.blockSize == 0 else {
            throw GGUFError(.partialBlock(elements: rowLength, type: type), at: dimsOffset, tensor: name)
        }
        let rows = dimensions.dropFirst().reduce(1, *)  // bounded by `bound`, so cannot overflow
        guard let rowBytes = type.rowBytes(elements: rowLength) else {
            throw GGUFError(.dimensionOverflow(raw), at: dimsOffset, tensor: name)
        }
        let (byteCount, overflow) = rowBytes.multipliedReportingOverflow(by: rows)
        guard !overflow else { throw GGUFError(.dimensionOverflow(raw), at: dimsOffset, tensor: name) }
        guard dataOffset % UInt64(alignment) == 0 else {
            throw GGUFError(.tensorMisaligned(offset: dataOffset, alignment: alignment), at: offsetField, tensor: name)
        }
        guard let offset = Int(exactly: dataOffset) else {
            throw GGUFError(.tensorOutOfBounds(start: Int.max, end: Int.max, dataSize: 0), at: offsetField, tensor: name)
        }
        let info = GGUFTensorInfo(name: name, dimensions: dimensions, type: type, offset: offset, byteCount: byteCount)
        return (info, offsetField)
    }

    /// Every tensor's data lies inside the data section and no two overlap.
    private static func validatePlacement(
        _ tensors: [GGUFTensorInfo], offsetFields: [Int], dataSize: Int
    ) throws(GGUFError) {
        for (tensor, field) in zip(tensors, offsetFields) {
            let (end, overflow) = tensor.offset.addingReportingOverflow(tensor.byteCount)
            guard !overflow, end <= dataSize else {
                throw GGUFError(
                    .tensorOutOfBounds(start: tensor.offset, end: overflow ? Int.max : end, dataSize: max(dataSize, 0)),
                    at: field, tensor: tensor.name
                )
            }
        }
        let order = tensors.indices.filter { tensors[$0].byteCount > 0 }.sorted { tensors[$0].offset < tensors[$1].offset }
        for (previous, next) in zip(order, order.dropFirst())
        where tensors[next].offset < tensors[previous].offset + tensors[previous].byteCount {
            throw GGUFError(.tensorsOverlap(with: tensors[previous].name), at: offsetFields[next], tensor: tensors[next].name)
        }
    }
}
