import LocalLMGGUF

/// Writes small synthetic GGUF files for tests, including deliberately broken ones.
///
/// Build a well-formed file from metadata and tensors, then break it with the override knobs
/// (magic, version, counts, tensor offsets) or by patching bytes at the offsets in ``Output/marks``.
public struct GGUFWriter: Sendable {
    /// A metadata value to write. `raw` writes any type id with any payload, for malformed cases.
    public indirect enum Value: Sendable {
        case uint8(UInt8), int8(Int8), uint16(UInt16), int16(Int16), uint32(UInt32), int32(Int32)
        case uint64(UInt64), int64(Int64), float32(Float), float64(Double), bool(Bool)
        case string(String)
        /// A string given as raw bytes (need not be UTF-8).
        case stringBytes([UInt8])
        case array(GGUFValueType, [Value])
        case raw(typeID: UInt32, payload: [UInt8])

        var typeID: UInt32 {
            switch self {
            case .uint8: GGUFValueType.uint8.rawValue
            case .int8: GGUFValueType.int8.rawValue
            case .uint16: GGUFValueType.uint16.rawValue
            case .int16: GGUFValueType.int16.rawValue
            case .uint32: GGUFValueType.uint32.rawValue
            case .int32: GGUFValueType.int32.rawValue
            case .uint64: GGUFValueType.uint64.rawValue
            case .int64: GGUFValueType.int64.rawValue
            case .float32: GGUFValueType.float32.rawValue
            case .float64: GGUFValueType.float64.rawValue
            case .bool: GGUFValueType.bool.rawValue
            case .string, .stringBytes: GGUFValueType.string.rawValue
            case .array: GGUFValueType.array.rawValue
            case .raw(let id, _): id
            }
        }
    }

    public struct Tensor: Sendable {
        public var name: String
        /// ggml order (innermost first).
        public var dimensions: [UInt64]
        public var typeID: UInt32
        public var data: [UInt8]
        /// Offset relative to the data section; nil places the tensor after the previous one, aligned.
        public var offset: UInt64?

        public init(name: String, dimensions: [UInt64], typeID: UInt32, data: [UInt8], offset: UInt64? = nil) {
            self.name = name
            self.dimensions = dimensions
            self.typeID = typeID
            self.data = data
            self.offset = offset
        }

        /// A tensor of `type` with the right number of data bytes (filled with a pattern).
        public init(name: String, dimensions: [UInt64], type: GGMLType, offset: UInt64? = nil) {
            let elements = dimensions.reduce(1, *)
            let bytes = Int(elements) / type.blockSize * type.bytesPerBlock
            self.init(
                name: name, dimensions: dimensions, typeID: type.rawValue,
                data: (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }, offset: offset
            )
        }
    }

    public struct Output: Sendable {
        public var bytes: [UInt8]
        /// Byte offsets of named places: `tensor_count`, `kv_count`, `kv:<key>` (key length field),
        /// `value:<key>` (after the type id), `tensor:<name>` (name length field), `tensor_offset:<name>`,
        /// `tensor_type:<name>`, `tensor_dims:<name>` (n_dims field), `data` (data section start).
        public var marks: [String: Int]
    }

    public var magic: [UInt8] = Array("GGUF".utf8)
    public var version: UInt32 = 3
    public var tensorCountOverride: UInt64?
    public var keyValueCountOverride: UInt64?
    /// Alignment used to lay out the data; also written as `general.alignment` when `writeAlignmentKey`.
    public var alignment: Int = 32
    public var writeAlignmentKey = false
    public var metadata: [(String, Value)] = []
    public var tensors: [Tensor] = []

    public init() {}

    public mutating func add(_ key: String, _ value: Value) { metadata.append((key, value)) }
    public mutating func add(_ tensor: Tensor) { tensors.append(tensor) }

    public func build() -> Output {
        var out = ByteSink()
        out.append(magic)
        out.append(version)
        out.mark("tensor_count")
        out.append(tensorCountOverride ?? UInt64(tensors.count))
        out.mark("kv_count")
        var entries = metadata
        if writeAlignmentKey { entries.insert(("general.alignment", .uint32(UInt32(alignment))), at: 0) }
        out.append(keyValueCountOverride ?? UInt64(entries.count))
        for (key, value) in entries {
            out.mark("kv:\(key)")
            out.appendString(Array(key.utf8))
            out.append(value.typeID)
            out.mark("value:\(key)")
            out.appendPayload(value)
        }
        // Lay out the data first so each tensor info can carry its offset.
        var placed: [UInt64] = []
        var end: UInt64 = 0
        for tensor in tensors {
            let offset = tensor.offset ?? Self.align(end, alignment)
            placed.append(offset)
            end = max(end, offset + UInt64(tensor.data.count))
        }
        for (tensor, offset) in zip(tensors, placed) {
            out.mark("tensor:\(tensor.name)")
            out.appendString(Array(tensor.name.utf8))
            out.mark("tensor_dims:\(tensor.name)")
            out.append(UInt32(tensor.dimensions.count))
            for dim in tensor.dimensions { out.append(dim) }
            out.mark("tensor_type:\(tensor.name)")
            out.append(tensor.typeID)
            out.mark("tensor_offset:\(tensor.name)")
            out.append(offset)
        }
        if !tensors.isEmpty {
            out.bytes += [UInt8](repeating: 0, count: Int(Self.align(UInt64(out.bytes.count), alignment)) - out.bytes.count)
        }
        out.mark("data")
        let dataStart = out.bytes.count
        for (tensor, offset) in zip(tensors, placed) {
            let start = dataStart + Int(offset)
            if out.bytes.count < start + tensor.data.count {
                out.bytes += [UInt8](repeating: 0, count: start + tensor.data.count - out.bytes.count)
            }
            out.bytes.replaceSubrange(start..<start + tensor.data.count, with: tensor.data)
        }
        return Output(bytes: out.bytes, marks: out.marks)
    }

    static func align(_ value: UInt64, _ alignment: Int) -> UInt64 {
        let a = UInt64(alignment)
        return (value + a - 1) / a * a
    }
}

/// Little-endian byte accumulation for ``GGUFWriter``.
private struct ByteSink {
    var bytes: [UInt8] = []
    var marks: [String: Int] = [:]

    mutating func mark(_ name: String) { marks[name] = bytes.count }
    mutating func append(_ raw: [UInt8]) { bytes += raw }
    mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
    mutating func appendString(_ utf8: [UInt8]) {
        append(UInt64(utf8.count))
        bytes += utf8
    }

    mutating func appendPayload(_ value: GGUFWriter.Value) {
        switch value {
        case .uint8(let v): append(v)
        case .int8(let v): append(v)
        case .uint16(let v): append(v)
        case .int16(let v): append(v)
        case .uint32(let v): append(v)
        case .int32(let v): append(v)
        case .uint64(let v): append(v)
        case .int64(let v): append(v)
        case .float32(let v): append(v.bitPattern)
        case .float64(let v): append(v.bitPattern)
        case .bool(let v): append(UInt8(v ? 1 : 0))
        case .string(let s): appendString(Array(s.utf8))
        case .stringBytes(let b): appendString(b)
        case .array(let type, let elements):
            append(type.rawValue)
            append(UInt64(elements.count))
            for element in elements {
                // Nested arrays carry their own header; other elements are bare payloads.
                appendPayload(element)
            }
        case .raw(_, let payload): bytes += payload
        }
    }
}

extension [UInt8] {
    /// Overwrites little-endian `value` at `offset` (for breaking files in tests).
    public mutating func patch<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        let le = value.littleEndian
        Swift.withUnsafeBytes(of: le) { raw in
            for (i, byte) in raw.enumerated() where offset + i < count { self[offset + i] = byte }
        }
    }
}
