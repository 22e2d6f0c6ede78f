/// A bounds-checked little-endian reader over a ``GGUFStorage``.
///
/// Every read checks the remaining length first and throws `.truncated` at the current offset,
/// so no read ever touches memory outside the file.
struct GGUFCursor {
    let storage: GGUFStorage
    /// Absolute file offset of the next byte to read.
    var position: Int

    init(_ storage: GGUFStorage, at position: Int = 0) {
        self.storage = storage
        self.position = position
    }

    var remaining: Int { storage.count - position }

    func require(_ byteCount: Int) throws(GGUFError) {
        guard byteCount >= 0, byteCount <= remaining else {
            throw GGUFError(.truncated(needed: byteCount, available: max(remaining, 0)), at: position)
        }
    }

    mutating func skip(_ byteCount: Int) throws(GGUFError) {
        try require(byteCount)
        position += byteCount
    }

    mutating func read<T: FixedWidthInteger>(_: T.Type = T.self) throws(GGUFError) -> T {
        try require(MemoryLayout<T>.size)
        let raw = storage.base.loadUnaligned(fromByteOffset: position, as: T.self)
        position += MemoryLayout<T>.size
        return T(littleEndian: raw)
    }

    mutating func readFloat() throws(GGUFError) -> Float { Float(bitPattern: try read(UInt32.self)) }
    mutating func readDouble() throws(GGUFError) -> Double { Double(bitPattern: try read(UInt64.self)) }

    /// A u64 count or length checked against the bytes that remain, given the fewest bytes each item takes.
    mutating func readCount(_ what: String, minimumItemSize: Int) throws(GGUFError) -> Int {
        let start = position
        let count = try read(UInt64.self)
        let available = remaining
        guard count <= UInt64(available / max(minimumItemSize, 1)) else {
            throw GGUFError(.absurdCount(what: what, count: count, remainingBytes: available), at: start)
        }
        return Int(count)
    }

    /// A GGUF string's raw bytes (u64 length + bytes), as a view into the storage.
    mutating func readStringBytes() throws(GGUFError) -> UnsafeRawBufferPointer {
        let length = try readCount("string length", minimumItemSize: 1)
        let bytes = UnsafeRawBufferPointer(start: storage.base + position, count: length)
        position += length
        return bytes
    }

    /// A GGUF string decoded as UTF-8; ill-formed sequences become U+FFFD (gguf-py would refuse them,
    /// but a name with one bad byte is still worth showing).
    mutating func readString() throws(GGUFError) -> String {
        String(decoding: try readStringBytes(), as: UTF8.self)
    }

    /// A key or tensor name, refused before decoding when longer than `limit` bytes.
    mutating func readName(_ what: String, limit: Int) throws(GGUFError) -> String {
        let start = position
        let length = try read(UInt64.self)
        guard length <= UInt64(limit) else { throw GGUFError(.nameTooLong(what: what, length: length, limit: limit), at: start) }
        position = start
        return try readString()
    }

    mutating func readValueType() throws(GGUFError) -> GGUFValueType {
        let start = position
        let id = try read(UInt32.self)
        guard let type = GGUFValueType(rawValue: id) else { throw GGUFError(.unknownValueType(id), at: start) }
        return type
    }
}
