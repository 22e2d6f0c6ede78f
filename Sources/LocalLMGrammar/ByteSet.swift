/// A set of bytes (256 bits): the terminal of the byte-level grammar. Codepoint classes are
/// lowered to sequences of these (see `UTF8Ranges`), so the matcher only ever tests one byte.
public struct ByteSet: Hashable, Sendable {
    @usableFromInline var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0, w3: UInt64 = 0

    public init() {}

    public init(_ byte: UInt8) { insert(byte) }

    public init(range: ClosedRange<UInt8>) {
        for b in range { insert(b) }
    }

    public static var all: ByteSet {
        var s = ByteSet()
        s.w0 = ~0; s.w1 = ~0; s.w2 = ~0; s.w3 = ~0
        return s
    }

    @inlinable
    public func contains(_ byte: UInt8) -> Bool {
        let bit = UInt64(1) &<< UInt64(byte & 63)
        switch byte >> 6 {
        case 0: return w0 & bit != 0
        case 1: return w1 & bit != 0
        case 2: return w2 & bit != 0
        default: return w3 & bit != 0
        }
    }

    public mutating func insert(_ byte: UInt8) {
        let bit = UInt64(1) &<< UInt64(byte & 63)
        switch byte >> 6 {
        case 0: w0 |= bit
        case 1: w1 |= bit
        case 2: w2 |= bit
        default: w3 |= bit
        }
    }

    /// Keeps the bytes of `other` (`true`) or the bytes not in it (`false`).
    @inlinable
    mutating func formIntersection(_ other: ByteSet, complemented: Bool) {
        if complemented {
            w0 &= ~other.w0; w1 &= ~other.w1; w2 &= ~other.w2; w3 &= ~other.w3
        } else {
            w0 &= other.w0; w1 &= other.w1; w2 &= other.w2; w3 &= other.w3
        }
    }

    /// Calls `body` with each byte of the set, in increasing order.
    @inlinable
    func forEachByte(_ body: (UInt8) -> Void) {
        let words = (w0, w1, w2, w3)
        for k in 0..<4 {
            var w: UInt64
            switch k { case 0: w = words.0; case 1: w = words.1; case 2: w = words.2; default: w = words.3 }
            while w != 0 {
                body(UInt8(k * 64 + w.trailingZeroBitCount))
                w &= w &- 1
            }
        }
    }

    public mutating func formUnion(_ other: ByteSet) {
        w0 |= other.w0; w1 |= other.w1; w2 |= other.w2; w3 |= other.w3
    }

    public var isEmpty: Bool { (w0 | w1 | w2 | w3) == 0 }

    /// Whether every byte of `other` is in this set.
    func isSuperset(of other: ByteSet) -> Bool {
        other.w0 & ~w0 | other.w1 & ~w1 | other.w2 & ~w2 | other.w3 & ~w3 == 0
    }

    /// The lowest byte in the set.
    public var first: UInt8? {
        for (k, w) in [w0, w1, w2, w3].enumerated() where w != 0 { return UInt8(k * 64 + w.trailingZeroBitCount) }
        return nil
    }

    public var count: Int { w0.nonzeroBitCount + w1.nonzeroBitCount + w2.nonzeroBitCount + w3.nonzeroBitCount }

    /// The lowest and highest byte when the set is exactly the bytes between them (nil when empty
    /// or not contiguous).
    var singleRange: (UInt8, UInt8)? {
        // Read from the words directly: signatures ask this of every terminal they write.
        let lo = w0 != 0 ? w0.trailingZeroBitCount : w1 != 0 ? 64 + w1.trailingZeroBitCount
            : w2 != 0 ? 128 + w2.trailingZeroBitCount : w3 != 0 ? 192 + w3.trailingZeroBitCount : -1
        guard lo >= 0 else { return nil }
        let hi = w3 != 0 ? 255 - w3.leadingZeroBitCount : w2 != 0 ? 191 - w2.leadingZeroBitCount
            : w1 != 0 ? 127 - w1.leadingZeroBitCount : 63 - w0.leadingZeroBitCount
        return count == hi - lo + 1 ? (UInt8(lo), UInt8(hi)) : nil
    }

    /// The members in increasing order.
    public var bytes: [UInt8] { (0...255).compactMap { contains(UInt8($0)) ? UInt8($0) : nil } }
}
