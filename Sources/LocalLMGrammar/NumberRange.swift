/// Exact grammars for JSON numbers between integer bounds (inclusive or exclusive).
/// A bounded number is written without exponent: `-?I(.F)?`. For a magnitude I.F, the value is
/// I when F is all zeros and strictly between I and I+1 otherwise, so each side of zero is:
/// integers in the bounds (optionally with `.0…`), or I in [a, b-1] with a non-zero fraction.
enum NumberRange {
    typealias Symbol = Grammar.Symbol

    struct Bound { var value: Int; var inclusive: Bool }

    static func alternatives(lower: Bound?, upper: Bound?, _ b: inout GrammarBuilder) -> [[Symbol]] {
        var alts: [[Symbol]] = []
        // Non-negative side: [max(lower, 0), upper].
        if upper.map({ $0.value > 0 || ($0.value == 0 && $0.inclusive) }) ?? true {
            let lo = lower.map { $0.value >= 0 ? $0 : Bound(value: 0, inclusive: true) } ?? Bound(value: 0, inclusive: true)
            alts += magnitudes(lo, upper, &b)
        }
        // Negative side: magnitude in [-upper, -lower], strictly above 0.
        if lower.map({ $0.value < 0 }) ?? true {
            let lo = upper.map { $0.value < 0 ? Bound(value: -$0.value, inclusive: $0.inclusive) : Bound(value: 0, inclusive: false) }
                ?? Bound(value: 0, inclusive: false)
            let hi = lower.map { Bound(value: -$0.value, inclusive: $0.inclusive) }
            for a in magnitudes(lo, hi, &b) { alts.append(GrammarBuilder.literal("-") + a) }
        }
        return alts
    }

    /// Magnitudes in (a, b) with the given inclusivity; b nil = unbounded.
    private static func magnitudes(_ a: Bound, _ z: Bound?, _ b: inout GrammarBuilder) -> [[Symbol]] {
        var alts: [[Symbol]] = []
        let digit = Symbol.bytes(ByteSet(range: 0x30...0x39))
        let zeroFraction = b.repeated(GrammarBuilder.literal(".") + b.repeated(GrammarBuilder.literal("0"), min: 1, max: nil), min: 0, max: 1, name: "zero-fraction")
        let nonZeroFraction = GrammarBuilder.literal(".") + b.repeated([digit], min: 0, max: nil)
            + [.bytes(ByteSet(range: 0x31...0x39))] + b.repeated([digit], min: 0, max: nil)
        // Whole values.
        let lo = a.inclusive ? a.value : a.value + 1
        let hi = z.map { $0.inclusive ? $0.value : $0.value - 1 }
        if hi.map({ lo <= $0 }) ?? true {
            for i in IntegerRange.nonNegative(lo: lo, hi: hi, &b) { alts.append(i + zeroFraction) }
        }
        // Values strictly between I and I+1.
        let fracHi = z.map { $0.value - 1 }
        if fracHi.map({ a.value <= $0 }) ?? true {
            for i in IntegerRange.nonNegative(lo: a.value, hi: fracHi, &b) { alts.append(i + nonZeroFraction) }
        }
        return alts
    }
}
