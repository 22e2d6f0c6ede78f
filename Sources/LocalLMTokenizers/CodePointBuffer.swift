/// UTF-8 text decoded into code points, their byte offsets and their Unicode flags: the input of
/// the pre-tokenizer scanners. Kept per call and reused across fragments.
struct CodePointBuffer {
    /// [n] code points.
    var cps: [UInt32] = []
    /// [n] flags of each code point.
    var flags: [UInt8] = []
    /// [n + 1] byte offset of each code point in `bytes`, then the total length.
    var offsets: [Int32] = []
    /// The UTF-8 the offsets index: the input itself, or its re-encoding when it had invalid bytes.
    var reencoded: [UInt8] = []
    var usesReencoded = false

    /// Decodes like llama.cpp's `unicode_cpts_from_utf8`: a lead byte's length is trusted when its
    /// continuation bytes are present and valid, otherwise the byte becomes U+FFFD on its own.
    mutating func load(_ bytes: UnsafeBufferPointer<UInt8>) {
        cps.removeAll(keepingCapacity: true)
        flags.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        usesReencoded = false
        let n = bytes.count
        var i = 0
        let table = UnicodeFlags.table
        table.withUnsafeBufferPointer { table in
            while i < n {
                let b0 = bytes[i]
                var cp: UInt32
                var len = 1
                if b0 < 0x80 {
                    cp = UInt32(b0)
                } else if b0 & 0xE0 == 0xC0, i + 1 < n, bytes[i + 1] & 0xC0 == 0x80 {
                    cp = UInt32(b0 & 0x1F) << 6 | UInt32(bytes[i + 1] & 0x3F)
                    len = 2
                } else if b0 & 0xF0 == 0xE0, i + 2 < n, bytes[i + 1] & 0xC0 == 0x80, bytes[i + 2] & 0xC0 == 0x80 {
                    cp = UInt32(b0 & 0x0F) << 12 | UInt32(bytes[i + 1] & 0x3F) << 6 | UInt32(bytes[i + 2] & 0x3F)
                    len = 3
                } else if b0 & 0xF8 == 0xF0, i + 3 < n, bytes[i + 1] & 0xC0 == 0x80, bytes[i + 2] & 0xC0 == 0x80,
                          bytes[i + 3] & 0xC0 == 0x80 {
                    cp = UInt32(b0 & 0x07) << 18 | UInt32(bytes[i + 1] & 0x3F) << 12 | UInt32(bytes[i + 2] & 0x3F) << 6
                        | UInt32(bytes[i + 3] & 0x3F)
                    len = 4
                } else {
                    cp = 0xFFFD
                    usesReencoded = true
                }
                if cp >= 0x110000 {
                    // Not encodable back; llama.cpp would throw here. Read it as U+FFFD.
                    cp = 0xFFFD
                    usesReencoded = true
                }
                cps.append(cp)
                flags.append(table[Int(cp)])
                offsets.append(Int32(i))
                i += len
            }
        }
        offsets.append(Int32(n))
        if usesReencoded {
            reencoded.removeAll(keepingCapacity: true)
            for k in cps.indices {
                offsets[k] = Int32(reencoded.count)
                appendUTF8(cps[k], to: &reencoded)
            }
            offsets[cps.count] = Int32(reencoded.count)
        }
    }
}

func appendUTF8(_ cp: UInt32, to out: inout [UInt8]) {
    switch cp {
    case 0..<0x80:
        out.append(UInt8(cp))
    case 0x80..<0x800:
        out.append(UInt8(0xC0 | (cp >> 6)))
        out.append(UInt8(0x80 | (cp & 0x3F)))
    case 0x800..<0x10000:
        out.append(UInt8(0xE0 | (cp >> 12)))
        out.append(UInt8(0x80 | ((cp >> 6) & 0x3F)))
        out.append(UInt8(0x80 | (cp & 0x3F)))
    default:
        out.append(UInt8(0xF0 | (cp >> 18)))
        out.append(UInt8(0x80 | ((cp >> 12) & 0x3F)))
        out.append(UInt8(0x80 | ((cp >> 6) & 0x3F)))
        out.append(UInt8(0x80 | (cp & 0x3F)))
    }
}
