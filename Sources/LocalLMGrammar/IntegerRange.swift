/// Exact grammars for decimal integers in a range, digit position by digit position.
/// (llama.cpp's converter gets common ranges wrong; this one is checked exhaustively in the tests.)
/// No leading zeros, and no "-0".
enum IntegerRange {
    typealias Symbol = Grammar.Symbol

    private static func digitSet(_ lo: Int, _ hi: Int) -> Symbol {
        .bytes(ByteSet(range: UInt8(0x30 + lo)...UInt8(0x30 + hi)))
    }

    private static func digits(_ v: Int) -> [Int] { String(v).map { Int(String($0))! } }

    /// Alternatives for every integer in [lo, hi] (nil = unbounded); empty if the range is empty.
    static func alternatives(lo: Int?, hi: Int?, _ b: inout GrammarBuilder) -> [[Symbol]] {
        var alts: [[Symbol]] = []
        // Negative part: x in [lo, min(hi, -1)], as "-" and a magnitude in [max(1, -hi), -lo].
        if lo.map({ $0 < 0 }) ?? true {
            let magLo = hi.map { max(1, -$0) } ?? 1
            let magHi = lo.map { -$0 }
            if magHi.map({ magLo <= $0 }) ?? true {
                for a in nonNegative(lo: magLo, hi: magHi, &b) { alts.append([.bytes(ByteSet(UInt8(ascii: "-")))] + a) }
            }
        }
        // Non-negative part.
        if hi == nil || hi! >= 0 {
            alts += nonNegative(lo: max(lo ?? 0, 0), hi: hi, &b)
        }
        return alts
    }

    /// Alternatives for every integer in [lo, hi] with lo ≥ 0 (hi nil = unbounded).
    static func nonNegative(lo: Int, hi: Int?, _ b: inout GrammarBuilder) -> [[Symbol]] {
        if let hi, hi < lo { return [] }
        var alts: [[Symbol]] = []
        let loLen = digits(lo).count
        let hiLen = hi.map { digits($0).count } ?? loLen
        var power = 1  // 10^(n-1)
        for _ in 1..<loLen { power *= 10 }
        for n in loLen...hiLen {
            let first = n == 1 ? 0 : power
            let last = n >= 19 ? Int.max : power * 10 - 1
            let a = max(lo, first), z = min(hi ?? Int.max, last)
            if a <= z { alts += sameLength(digits(a), digits(z)) }
            if n < 19 { power *= 10 }
        }
        if hi == nil {
            // Every number with more digits than lo.
            let rest = b.repeated([digitSet(0, 9)], min: loLen, max: nil)
            alts.append([digitSet(1, 9)] + rest)
        }
        return alts
    }

    /// Numbers of equal length from A to B (digit arrays, A ≤ B).
    private static func sameLength(_ a: [Int], _ z: [Int]) -> [[Symbol]] {
        guard let a0 = a.first, let z0 = z.first else { return [[]] }
        let ra = Array(a.dropFirst()), rz = Array(z.dropFirst())
        if a0 == z0 { return sameLength(ra, rz).map { [digitSet(a0, a0)] + $0 } }
        let any = [Symbol](repeating: digitSet(0, 9), count: ra.count)
        if ra.allSatisfy({ $0 == 0 }) && rz.allSatisfy({ $0 == 9 }) {
            return [[digitSet(a0, z0)] + any]
        }
        var alts: [[Symbol]] = []
        var lowStart = a0
        if !ra.allSatisfy({ $0 == 0 }) {
            alts += sameLength(ra, [Int](repeating: 9, count: ra.count)).map { [digitSet(a0, a0)] + $0 }
            lowStart = a0 + 1
        }
        var highEnd = z0
        if !rz.allSatisfy({ $0 == 9 }) { highEnd = z0 - 1 }
        if lowStart <= highEnd { alts.append([digitSet(lowStart, highEnd)] + any) }
        if highEnd < z0 {
            alts += sameLength([Int](repeating: 0, count: rz.count), rz).map { [digitSet(z0, z0)] + $0 }
        }
        return alts
    }
}
