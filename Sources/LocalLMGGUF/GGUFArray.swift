/// A metadata array, decoded only when asked: parsing records its element type, count and place in
/// the file, so a 262k-token vocabulary costs a bounds-checked walk at open time and nothing more.
///
/// Holds the file's storage, so it stays valid after the ``GGUFFile`` it came from is released.
public struct GGUFArray: Sendable, Equatable {
    public let elementType: GGUFValueType
    public let count: Int
    let storage: GGUFStorage
    /// File offset of the first element.
    let offset: Int
    /// Encoded size of all elements, validated at parse time to lie inside the file.
    let byteLength: Int

    /// Arrays are equal when they hold the same elements (same type, count and encoded bytes).
    public static func == (lhs: GGUFArray, rhs: GGUFArray) -> Bool {
        guard lhs.elementType == rhs.elementType, lhs.count == rhs.count, lhs.byteLength == rhs.byteLength else {
            return false
        }
        return lhs.rawBytes.elementsEqual(rhs.rawBytes)
    }

    var rawBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage.base + offset, count: byteLength) }

    private func mismatch(_ expected: String) -> GGUFError {
        GGUFError(.typeMismatch(expected: expected, actual: elementType), at: offset)
    }

    /// Each string's raw bytes (token texts need not be valid UTF-8).
    public func stringBytes() throws(GGUFError) -> [[UInt8]] {
        guard elementType == .string else { throw mismatch("array of STRING") }
        var cursor = GGUFCursor(storage, at: offset)
        var result: [[UInt8]] = []
        result.reserveCapacity(count)
        for _ in 0..<count { result.append(Array(try cursor.readStringBytes())) }
        return result
    }

    /// Each string decoded as UTF-8 (ill-formed bytes become U+FFFD).
    public func strings() throws(GGUFError) -> [String] {
        guard elementType == .string else { throw mismatch("array of STRING") }
        var cursor = GGUFCursor(storage, at: offset)
        var result: [String] = []
        result.reserveCapacity(count)
        for _ in 0..<count { result.append(try cursor.readString()) }
        return result
    }

    /// FLOAT32 or FLOAT64 elements as Float.
    public func floats() throws(GGUFError) -> [Float] {
        switch elementType {
        case .float32:
            return decodeFixed { (c: inout GGUFCursor) throws(GGUFError) in try c.readFloat() }
        case .float64:
            return decodeFixed { (c: inout GGUFCursor) throws(GGUFError) in Float(try c.readDouble()) }
        default:
            throw mismatch("array of FLOAT32 or FLOAT64")
        }
    }

    /// Integer elements of any width as Int; a UINT64 above Int.max is `.valueOutOfRange`.
    public func ints() throws(GGUFError) -> [Int] {
        guard elementType.isInteger else { throw mismatch("array of integers") }
        var cursor = GGUFCursor(storage, at: offset)
        var result: [Int] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            let value = try cursor.readScalar(elementType)
            guard let int = value.intValue else {
                throw GGUFError(.valueOutOfRange("element \(index) = \(value) does not fit Int"), at: cursor.position)
            }
            result.append(int)
        }
        return result
    }

    /// Every element as a ``GGUFValue``; nested arrays stay lazy.
    public func values() throws(GGUFError) -> [GGUFValue] {
        var cursor = GGUFCursor(storage, at: offset)
        var result: [GGUFValue] = []
        result.reserveCapacity(count)
        for _ in 0..<count { result.append(try cursor.readValue(elementType, depth: 1)) }
        return result
    }

    private func decodeFixed<T>(_ read: (inout GGUFCursor) throws(GGUFError) -> T) -> [T] {
        var cursor = GGUFCursor(storage, at: offset)
        var result: [T] = []
        result.reserveCapacity(count)
        for _ in 0..<count {
            // The walk at parse time proved count * size bytes are in the file.
            guard let value = try? read(&cursor) else { break }
            result.append(value)
        }
        return result
    }
}

/// Arrays inside arrays deeper than this are rejected: each level costs a stack frame while parsing.
let maximumArrayNesting = 8

extension GGUFCursor {
    /// Reads a scalar or string value of `type`; arrays go through ``readValue(_:depth:)``.
    mutating func readScalar(_ type: GGUFValueType) throws(GGUFError) -> GGUFValue {
        switch type {
        case .uint8: return .uint8(try read())
        case .int8: return .int8(try read())
        case .uint16: return .uint16(try read())
        case .int16: return .int16(try read())
        case .uint32: return .uint32(try read())
        case .int32: return .int32(try read())
        case .uint64: return .uint64(try read())
        case .int64: return .int64(try read())
        case .float32: return .float32(try readFloat())
        case .float64: return .float64(try readDouble())
        case .bool:
            // gguf-py reads any nonzero byte as True; so do we.
            return .bool(try read(UInt8.self) != 0)
        case .string: return .string(try readString())
        case .array: return .array(try readArray(depth: 1))
        }
    }

    /// Reads a value, validating nested arrays down to ``maximumArrayNesting``.
    mutating func readValue(_ type: GGUFValueType, depth: Int) throws(GGUFError) -> GGUFValue {
        if type == .array { return .array(try readArray(depth: depth + 1)) }
        return try readScalar(type)
    }

    /// Reads an array header and walks its elements (bounds-checked) to find where it ends.
    mutating func readArray(depth: Int) throws(GGUFError) -> GGUFArray {
        guard depth <= maximumArrayNesting else {
            throw GGUFError(.nestingTooDeep(limit: maximumArrayNesting), at: position)
        }
        let elementType = try readValueType()
        let count = try readCount("array element count", minimumItemSize: elementType.minimumSize)
        let start = position
        if let size = elementType.fixedSize {
            try skip(count * size)  // readCount proved count * size <= remaining
        } else if elementType == .string {
            for _ in 0..<count { _ = try readStringBytes() }
        } else {
            for _ in 0..<count { _ = try readArray(depth: depth + 1) }
        }
        return GGUFArray(elementType: elementType, count: count, storage: storage, offset: start, byteLength: position - start)
    }
}
