/// A JSON Schema bound (`minimum`, `exclusiveMaximum`, …) as an exact decimal, read from the
/// number's text rather than through `Double`: `0.1` must mean one tenth, not the binary
/// fraction nearest to it, for the digit grammars to put the edge in the right place.
struct DecimalBound: Equatable, Sendable {
    /// True only for values below zero (`-0` is zero).
    var isNegative: Bool
    /// The integer part of the magnitude, below `maxInteger`.
    var integer: Int
    /// The digits (0…9) after the decimal point, without trailing zeros.
    var fraction: [UInt8]

    /// Integer parts at or beyond this are refused (the digit grammars work in `Int`).
    static let maxInteger = 1 << 62
    /// Bounds with more decimal places than this are refused: each place is a grammar state.
    static let maxFractionDigits = 64

    static let zero = DecimalBound(isNegative: false, integer: 0, fraction: [])

    var isZero: Bool { integer == 0 && fraction.isEmpty }
    var isIntegral: Bool { fraction.isEmpty }
    /// |self|.
    var magnitude: DecimalBound { DecimalBound(isNegative: false, integer: integer, fraction: fraction) }

    /// The smallest integer ≥ self.
    var ceiling: Int {
        let whole = isNegative ? -integer : integer
        return !isIntegral && !isNegative ? whole + 1 : whole
    }

    /// The largest integer ≤ self.
    var floor: Int {
        let whole = isNegative ? -integer : integer
        return !isIntegral && isNegative ? whole - 1 : whole
    }

    /// Why a number's text cannot be a bound; the caller adds the keyword and path.
    enum Problem: Error, Equatable {
        case notANumber
        case tooLarge
        case tooPrecise
    }

    /// Parses JSON number text (`-?int(.frac)?(e[+-]?exp)?`), exactly.
    init(jsonNumber text: String) throws(Problem) {
        var bytes = Array(text.utf8)[...]
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        var digits: [UInt8] = []
        var pointAt: Int? = nil
        var exponent = 0
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        while let c = bytes.first, isDigit(c) || c == UInt8(ascii: ".") {
            if c == UInt8(ascii: ".") {
                guard pointAt == nil else { throw .notANumber }
                pointAt = digits.count
            } else {
                digits.append(c - 0x30)
            }
            bytes = bytes.dropFirst()
        }
        guard !digits.isEmpty, pointAt.map({ $0 > 0 && $0 < digits.count }) ?? true else { throw .notANumber }
        if let e = bytes.first {
            guard e == UInt8(ascii: "e") || e == UInt8(ascii: "E") else { throw .notANumber }
            bytes = bytes.dropFirst()
            var sign = 1
            if bytes.first == UInt8(ascii: "-") { sign = -1; bytes = bytes.dropFirst() } else if bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            guard !bytes.isEmpty else { throw .notANumber }
            for c in bytes {
                guard isDigit(c) else { throw .notANumber }
                // Clamped: anything this far out is refused below, and the sum cannot overflow.
                exponent = min(exponent * 10 + Int(c - 0x30), 1_000_000)
            }
            exponent *= sign
        }
        // Value = 0.d1d2… × 10^point, with `point` digits before the decimal point.
        var point = (pointAt ?? digits.count) + exponent
        let leading = digits.prefix { $0 == 0 }.count
        digits.removeFirst(leading)
        point -= leading
        while digits.last == 0 { digits.removeLast() }
        guard !digits.isEmpty else { self = .zero; return }
        if point > 19 { throw .tooLarge }
        if digits.count - point > Self.maxFractionDigits { throw .tooPrecise }
        var integer = 0
        for k in 0..<max(point, 0) {
            let (scaled, o1) = integer.multipliedReportingOverflow(by: 10)
            let (next, o2) = scaled.addingReportingOverflow(Int(k < digits.count ? digits[k] : 0))
            guard !o1, !o2 else { throw .tooLarge }
            integer = next
        }
        guard integer < Self.maxInteger else { throw .tooLarge }
        self.isNegative = negative
        self.integer = integer
        self.fraction = point >= digits.count ? [] : [UInt8](repeating: 0, count: max(-point, 0)) + digits[max(point, 0)...]
    }

    init(isNegative: Bool, integer: Int, fraction: [UInt8]) {
        self.isNegative = isNegative && (integer != 0 || !fraction.isEmpty)
        self.integer = integer
        self.fraction = fraction
    }

    /// -1, 0 or 1 as self is below, equal to or above `other`.
    func compare(_ other: DecimalBound) -> Int {
        if isNegative != other.isNegative { return isNegative ? -1 : 1 }
        let m = Self.compareMagnitudes(self, other)
        return isNegative ? -m : m
    }

    private static func compareMagnitudes(_ a: DecimalBound, _ b: DecimalBound) -> Int {
        if a.integer != b.integer { return a.integer < b.integer ? -1 : 1 }
        for (x, y) in zip(a.fraction, b.fraction) where x != y { return x < y ? -1 : 1 }
        // Equal prefixes: without trailing zeros, the longer fraction has more after it.
        if a.fraction.count == b.fraction.count { return 0 }
        return a.fraction.count < b.fraction.count ? -1 : 1
    }
}
