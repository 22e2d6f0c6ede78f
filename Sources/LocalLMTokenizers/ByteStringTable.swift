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
    /// Open addressing: slot → key index, or -1. Power-of-two size, load ≤ 0.5.
    private let slots: [Int32]

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
        var slots = [Int32](repeating: -1, count: capacity)
        var storedValues = values
        let mask = capacity - 1
        bytes.withUnsafeBufferPointer { all in
            for (k, key) in keys.enumerated() {
                var slot = key.withUnsafeBufferPointer { Int(truncatingIfNeeded: ByteStringTable.hash($0)) } & mask
                while true {
                    let existing = slots[slot]
                    if existing < 0 {
                        slots[slot] = Int32(k)
                        break
                    }
                    let e = Int(existing)
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
    }

    @inline(__always)
    static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        // FNV-1a, then a final mix so the low bits used for the slot depend on every byte.
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in key { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        h ^= h >> 29
        h = h &* 0xbf58_476d_1ce4_e5b9
        h ^= h >> 32
        return h
    }

    /// The value stored for `key`, or nil.
    func lookup(_ key: UnsafeBufferPointer<UInt8>) -> Int32? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: ByteStringTable.hash(key)) & mask
        return bytes.withUnsafeBufferPointer { all in
            while true {
                let k = slots[slot]
                if k < 0 { return nil }
                let s = starts[Int(k)]
                let e = starts[Int(k) + 1]
                if e - s == key.count {
                    var equal = true
                    var i = 0
                    while i < key.count {
                        if all[s + i] != key[i] { equal = false; break }
                        i += 1
                    }
                    if equal { return values[Int(k)] }
                }
                slot = (slot + 1) & mask
            }
        }
    }

    func lookup(_ key: [UInt8]) -> Int32? {
        key.withUnsafeBufferPointer { lookup($0) }
    }
}
