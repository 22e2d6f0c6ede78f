/// An immutable hash map from byte strings to `Int32` values, looked up by unsafe buffer without allocating.
///
/// The tokenizers look up every candidate piece (an SPM bigram, a BPE word, a special token),
/// so lookups must not build an `Array` or a `String` per call.
struct ByteStringTable: Sendable {
    /// All keys, back to back.
    private let bytes: [UInt8]
    /// Key `i` is `bytes[starts[i] ..< starts[i + 1]]`; `starts.count == keyCount + 1`.
    private let starts: [Int]
    private let values: [Int32]
    /// No key is longer: longer lookups fail without hashing.
    private let maxKeyLength: Int
    /// Open addressing, power-of-two size, load ≤ 0.5: each slot is `hash high 32 bits << 32 | key index + 1`,
    /// or 0 when empty; comparing the stored hash first skips the key bytes of almost every mismatch.
    private let slots: [UInt64]

    /// Later duplicates replace earlier ones, as `std::map::operator[]` does in llama.cpp.
    init(keys: [[UInt8]], values: [Int32]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(keys.reduce(0) { $0 + $1.count })
        var starts: [Int] = [0]
        starts.reserveCapacity(keys.count + 1)
        for key in keys {
            bytes.append(contentsOf: key)
            starts.append(bytes.count)
        }
        var capacity = 16
        while capacity < keys.count * 2 { capacity <<= 1 }
        var slots = [UInt64](repeating: 0, count: capacity)
        var storedValues = values
        let mask = capacity - 1
        bytes.withUnsafeBufferPointer { all in
            for (k, key) in keys.enumerated() {
                let h = key.withUnsafeBufferPointer { ByteStringTable.hash($0) }
                var slot = Int(truncatingIfNeeded: h) & mask
                while true {
                    let existing = slots[slot]
                    if existing == 0 {
                        slots[slot] = (h >> 32) << 32 | UInt64(k + 1)
                        break
                    }
                    let e = Int(existing & 0xFFFF_FFFF) - 1
                    let range = starts[e]..<starts[e + 1]
                    if range.count == key.count && all[range].elementsEqual(key) {
                        storedValues[e] = values[k]
                        break
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
        self.bytes = bytes
        self.starts = starts
        self.values = storedValues
        self.slots = slots
        self.maxKeyLength = keys.map(\.count).max() ?? 0
    }

    /// Eight bytes at a time (unaligned loads), then a final mix so every bit depends on every byte.
    @inline(__always)
    static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(key.count)
        guard let base = key.baseAddress else { return mix(h) }
        let raw = UnsafeRawPointer(base)
        var i = 0
        let n = key.count
        while i + 8 <= n {
            let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            h = (h ^ word) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
            i += 8
        }
        if i < n {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < n {
                tail |= UInt64(base[i]) << shift
                shift += 8
                i += 1
            }
            h = (h ^ tail) &* 0x94D0_49BB_1331_11EB
        }
        return mix(h)
    }

    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        var h = value
        h ^= h >> 30
        h = h &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 27
        h = h &* 0x94D0_49BB_1331_11EB
        h ^= h >> 31
        return h
    }

    /// The value stored for `key`, or nil.
    func lookup(_ key: UnsafeBufferPointer<UInt8>) -> Int32? {
        guard key.count <= maxKeyLength else { return nil }
        let mask = slots.count - 1
        let h = ByteStringTable.hash(key)
        let tag = h >> 32
        var slot = Int(truncatingIfNeeded: h) & mask
        return bytes.withUnsafeBufferPointer { all in
            while true {
                let entry = slots[slot]
                if entry == 0 { return nil }
                let k = Int(entry & 0xFFFF_FFFF) - 1
                let s = starts[k]
                let e = starts[k + 1]
                if entry >> 32 == tag && e - s == key.count {
                    var equal = true
                    var i = 0
                    while i < key.count {
                        if all[s + i] != key[i] { equal = false; break }
                        i += 1
                    }
                    if equal { return values[k] }
                }
                slot = (slot + 1) & mask
            }
        }
    }

    func lookup(_ key: [UInt8]) -> Int32? {
        key.withUnsafeBufferPointer { lookup($0) }
    }
}
