/// Unicode properties of one code point, as the BPE pre-tokenizer regexes test them:
/// the major general category (`\p{N}`, `\p{L}`, …) plus the White_Space property (`\s`).
///
/// The data is Unicode 15.1, the version of llama.cpp's own table, so splits agree with it
/// code point for code point (see `scripts/goldens/tokenizer_unicode_table.py`).
struct UnicodeFlags: OptionSet, Sendable {
    let rawValue: UInt8

    static let number = UnicodeFlags(rawValue: 1 << 0)       // \p{N}
    static let letter = UnicodeFlags(rawValue: 1 << 1)       // \p{L}
    static let separator = UnicodeFlags(rawValue: 1 << 2)    // \p{Z}
    static let mark = UnicodeFlags(rawValue: 1 << 3)         // \p{M}
    static let punctuation = UnicodeFlags(rawValue: 1 << 4)  // \p{P}
    static let symbol = UnicodeFlags(rawValue: 1 << 5)       // \p{S}
    static let other = UnicodeFlags(rawValue: 1 << 6)        // \p{C} and unassigned
    static let whitespace = UnicodeFlags(rawValue: 1 << 7)   // \s

    /// Flags of every code point 0..<0x110000, one byte each (1.1 MB), expanded once from `ranges`.
    /// A flat table because the pre-tokenizer looks up every code point of the input.
    static let table: [UInt8] = {
        var table = [UInt8](repeating: UnicodeFlags.other.rawValue, count: 0x110000)
        let ranges = UnicodeFlags.ranges
        table.withUnsafeMutableBufferPointer { out in
            for i in ranges.indices {
                let start = Int(ranges[i] >> 8)
                let end = i + 1 < ranges.count ? Int(ranges[i + 1] >> 8) : 0x110000
                let value = UInt8(truncatingIfNeeded: ranges[i])
                for cp in start..<end { out[cp] = value }
            }
        }
        return table
    }()

    @inline(__always)
    init(rawValue: UInt8) { self.rawValue = rawValue }

    init(_ codePoint: UInt32) {
        self.rawValue = codePoint < 0x110000 ? UnicodeFlags.table[Int(codePoint)] : UnicodeFlags.other.rawValue
    }
}
