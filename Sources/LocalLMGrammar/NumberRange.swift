/// Exact grammars for JSON numbers between decimal bounds (inclusive or exclusive).
///
/// A bounded number is written without exponent: `-?I(.F)?`. Its magnitude I.F compares with a
/// bound A.a by integer part first, and only when I = A by the fraction digits, so each side of
/// zero is: I = A with a fraction above a, any I strictly between the integer parts with any
/// fraction, and I = C with a fraction below c. Fractions are matched by a small digit automaton
/// (`NumberRange+Fraction.swift`). Zero is never written with a minus sign.
enum NumberRange {
    typealias Symbol = Grammar.Symbol

    struct Bound {
        var value: DecimalBound
        var inclusive: Bool
    }

    static func alternatives(lower: Bound?, upper: Bound?, _ b: inout GrammarBuilder) -> [[Symbol]] {
        if let lower, let upper {
            let c = lower.value.compare(upper.value)
            if c > 0 || (c == 0 && !(lower.inclusive && upper.inclusive)) { return [] }
        }
        var alts: [[Symbol]] = []
        // Non-negative side: magnitudes in [max(lower, 0), upper].
        let nonNegative = upper.map { !$0.value.isNegative && (!$0.value.isZero || $0.inclusive) } ?? true
        if nonNegative {
            let lo = lower.flatMap { $0.value.isNegative ? nil : $0 } ?? Bound(value: .zero, inclusive: true)
            alts += magnitudes(lo, upper, &b)
        }
        // Negative side: magnitudes in [-upper, -lower], strictly above zero.
        if lower.map({ $0.value.isNegative }) ?? true {
            let lo = upper.flatMap { $0.value.isNegative ? Bound(value: $0.value.magnitude, inclusive: $0.inclusive) : nil }
                ?? Bound(value: .zero, inclusive: false)
            let hi = lower.map { Bound(value: $0.value.magnitude, inclusive: $0.inclusive) }
            for a in magnitudes(lo, hi, &b) { alts.append(GrammarBuilder.literal("-") + a) }
        }
        return alts
    }

    /// Non-negative magnitudes from `lo` to `hi` (nil = unbounded), as `I(.F)?`.
    private static func magnitudes(_ lo: Bound, _ hi: Bound?, _ b: inout GrammarBuilder) -> [[Symbol]] {
        let a = lo.value.integer
        let lower = FractionBound(digits: lo.value.fraction, inclusive: lo.inclusive)
        let upper = hi.map { FractionBound(digits: $0.value.fraction, inclusive: $0.inclusive) }
        var alts: [[Symbol]] = []
        if let hi, hi.value.integer == a {
            if let f = fraction(lower: lower, upper: upper, &b) { alts.append(GrammarBuilder.literal(String(a)) + f) }
            return alts
        }
        if let hi, hi.value.integer < a { return [] }
        if let f = fraction(lower: lower, upper: nil, &b) { alts.append(GrammarBuilder.literal(String(a)) + f) }
        let anyFraction = fraction(lower: nil, upper: nil, &b) ?? []
        for i in IntegerRange.nonNegative(lo: a + 1, hi: hi.map { $0.value.integer - 1 }, &b) {
            alts.append(i + anyFraction)
        }
        if let hi, let upper, let f = fraction(lower: nil, upper: upper, &b) {
            alts.append(GrammarBuilder.literal(String(hi.value.integer)) + f)
        }
        return alts
    }
}
