/// Lowers sets of Unicode scalar ranges to byte-level alternatives: each alternative is a sequence
/// of byte sets that matches exactly the UTF-8 encodings of some of the scalars. Surrogates are
/// never produced. This is what lets the matcher work on bytes and still accept tokens that end
/// in the middle of a multi-byte character.
enum UTF8Ranges {
    static let maxScalar: UInt32 = 0x10FFFF

    /// Sorted, merged, surrogate-free ranges.
    static func normalize(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var pieces: [ClosedRange<UInt32>] = []
        for r in ranges {
            let lo = r.lowerBound, hi = min(r.upperBound, maxScalar)
            if lo > hi { continue }
            // Cut out the surrogate block.
            if lo < 0xD800 { pieces.append(lo...min(hi, 0xD7FF)) }
            if hi > 0xDFFF { pieces.append(max(lo, 0xE000)...hi) }
        }
        pieces.sort { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<UInt32>] = []
        for p in pieces {
            if let last = merged.last, p.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, p.upperBound)
            } else {
                merged.append(p)
            }
        }
        return merged
    }

    /// The complement within all scalars.
    static func complement(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        let sorted = normalize(ranges)
        var out: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for r in sorted {
            if r.lowerBound > next { out.append(next...(r.lowerBound - 1)) }
            next = r.upperBound + 1
        }
        if next <= maxScalar { out.append(next...maxScalar) }
        return normalize(out)
    }

    /// Byte-level alternatives for the scalars in `ranges`. All one-byte scalars merge into a single
    /// alternative of length one.
    static func alternatives(_ ranges: [ClosedRange<UInt32>]) -> [[ByteSet]] {
        var ascii = ByteSet()
        var multi: [[ByteSet]] = []
        for r in normalize(ranges) {
            for (lo, hi) in splitByLength(r.lowerBound, r.upperBound) {
                split(lo, hi, into: &multi, ascii: &ascii)
            }
        }
        var out: [[ByteSet]] = []
        if !ascii.isEmpty { out.append([ascii]) }
        // Merge sequences that differ only in their first byte set (common for 3-byte blocks).
        var merged: [[ByteSet]] = []
        for seq in multi {
            if let i = merged.lastIndex(where: { $0.count == seq.count && Array($0.dropFirst()) == Array(seq.dropFirst()) }) {
                merged[i][0].formUnion(seq[0])
            } else {
                merged.append(seq)
            }
        }
        out.append(contentsOf: merged)
        return out
    }

    private static func splitByLength(_ lo: UInt32, _ hi: UInt32) -> [(UInt32, UInt32)] {
        let bounds: [(UInt32, UInt32)] = [(0, 0x7F), (0x80, 0x7FF), (0x800, 0xFFFF), (0x10000, 0x10FFFF)]
        var out: [(UInt32, UInt32)] = []
        for (a, b) in bounds {
            let l = max(lo, a), h = min(hi, b)
            if l <= h { out.append((l, h)) }
        }
        return out
    }

    private static func encodedLength(_ v: UInt32) -> Int {
        v < 0x80 ? 1 : v < 0x800 ? 2 : v < 0x10000 ? 3 : 4
    }

    private static func encode(_ v: UInt32) -> [UInt8] {
        switch encodedLength(v) {
        case 1: return [UInt8(v)]
        case 2: return [UInt8(0xC0 | (v >> 6)), UInt8(0x80 | (v & 0x3F))]
        case 3: return [UInt8(0xE0 | (v >> 12)), UInt8(0x80 | ((v >> 6) & 0x3F)), UInt8(0x80 | (v & 0x3F))]
        default:
            return [UInt8(0xF0 | (v >> 18)), UInt8(0x80 | ((v >> 12) & 0x3F)),
                    UInt8(0x80 | ((v >> 6) & 0x3F)), UInt8(0x80 | (v & 0x3F))]
        }
    }

    /// Splits [lo, hi] (same encoded length) until every piece is a product of per-byte ranges.
    private static func split(_ lo: UInt32, _ hi: UInt32, into out: inout [[ByteSet]], ascii: inout ByteSet) {
        let n = encodedLength(lo)
        if n == 1 {
            for b in lo...hi { ascii.insert(UInt8(b)) }
            return
        }
        for i in 1..<n {
            let m: UInt32 = (1 << (6 * UInt32(i))) - 1
            if lo & ~m != hi & ~m {
                if lo & m != 0 {
                    split(lo, lo | m, into: &out, ascii: &ascii)
                    split((lo | m) + 1, hi, into: &out, ascii: &ascii)
                    return
                }
                if hi & m != m {
                    split(lo, (hi & ~m) - 1, into: &out, ascii: &ascii)
                    split(hi & ~m, hi, into: &out, ascii: &ascii)
                    return
                }
            }
        }
        let a = encode(lo), b = encode(hi)
        out.append(zip(a, b).map { ByteSet(range: $0...$1) })
    }
}

/// The automaton of well-formed UTF-8 (Unicode's table 3-7: no overlong forms, no surrogates,
/// nothing above U+10FFFF), read byte by byte: state 0 between characters, states 1–3 expecting that
/// many continuation bytes (80–BF), and four states after a lead byte whose next byte is narrower
/// (E0: A0–BF, ED: 80–9F, F0: 90–BF, F4: 80–8F). A byte string is a *well-formed prefix* when every
/// byte has a transition: whole characters, the last one possibly cut off. The token trie marks the
/// subtrees all of whose paths are such prefixes (`TokenTrie.utf8Prefixes`), and a walk takes them
/// whole from a stack set whose every such string stays alive (`StackSetDFA.safeBytes`).
enum UTF8Prefix {
    static let stateCount = 8

    /// The state after `byte` from `state`, or nil when `byte` cannot come there.
    @inline(__always)
    static func next(_ state: Int, _ byte: UInt8) -> Int? {
        switch state {
        case 0:
            switch byte {
            case 0x00...0x7F: return 0
            case 0xC2...0xDF: return 1
            case 0xE0: return 4
            case 0xE1...0xEC, 0xEE...0xEF: return 2
            case 0xED: return 5
            case 0xF0: return 6
            case 0xF1...0xF3: return 3
            case 0xF4: return 7
            default: return nil
            }
        case 1, 2, 3: return byte & 0xC0 == 0x80 ? state - 1 : nil
        case 4: return (0xA0...0xBF).contains(byte) ? 1 : nil
        case 5: return (0x80...0x9F).contains(byte) ? 1 : nil
        case 6: return (0x90...0xBF).contains(byte) ? 2 : nil
        default: return (0x80...0x8F).contains(byte) ? 2 : nil
        }
    }
}
