import Testing
@testable import LocalLMGrammar

/// Integer bounds are exact: every integer in [-150, 1500] (plus edge strings) against each range.
@Suite struct NumberRangeTests {
    static let ranges: [(Int?, Int?)] = [
        (0, 100), (-5, 5), (1, 12), (10, 99), (3, 2000), (0, 1_000_000), (-150, -20), (-1, 1), (7, 7),
        (nil, 0), (nil, -42), (0, nil), (456, nil), (-123, nil), (-123, 42), (100, 1000), (19, 91), (-1000, -999),
    ]

    @Test(arguments: 0..<ranges.count)
    func integerRangeIsExact(_ k: Int) throws {
        let (lo, hi) = Self.ranges[k]
        var schema = #"{"type":"integer""#
        if let lo { schema += #","minimum":\#(lo)"# }
        if let hi { schema += #","maximum":\#(hi)"# }
        let g = try CompiledGrammar(jsonSchema: schema + "}")
        for v in -150...1500 {
            let inside = (lo.map { v >= $0 } ?? true) && (hi.map { v <= $0 } ?? true)
            #expect(matches(g, String(v)) == inside, "\(v) in \(String(describing: lo))...\(String(describing: hi))")
        }
        for v in [1_000_000, 1_000_001, -1_000_000, 999_999, 12_345_678_901_234] {
            let inside = (lo.map { v >= $0 } ?? true) && (hi.map { v <= $0 } ?? true)
            #expect(matches(g, String(v)) == inside, "\(v)")
        }
        for bad in ["-0", "00", "01", "+1", "1.0", ""] { #expect(!matches(g, bad), "\(bad)") }
    }

    @Test func exclusiveBoundsOnIntegers() throws {
        let g = try CompiledGrammar(jsonSchema: #"{"type":"integer","exclusiveMinimum":-3,"exclusiveMaximum":10.5}"#)
        for v in -20...20 { #expect(matches(g, String(v)) == (v > -3 && v < 11), "\(v)") }
    }

    @Test(arguments: [(Optional(0), true, Optional(1), true), (-2, false, 3, false), (nil, true, -1, false), (5, false, nil, true), (-1, true, -1, true)])
    func numberRangeIsExact(_ lo: Int?, _ loIncl: Bool, _ hi: Int?, _ hiIncl: Bool) throws {
        var schema = #"{"type":"number""#
        if let lo { schema += loIncl ? #","minimum":\#(lo)"# : #","exclusiveMinimum":\#(lo)"# }
        if let hi { schema += hiIncl ? #","maximum":\#(hi)"# : #","exclusiveMaximum":\#(hi)"# }
        let g = try CompiledGrammar(jsonSchema: schema + "}")
        var samples: [String] = []
        for i in -8...8 {
            samples.append(String(i))
            for f in ["0", "00", "5", "05", "999", "001"] { samples.append("\(i).\(f)") }
        }
        samples += ["-0.5", "-0.0", "-0.25", "0.5"]
        for s in samples {
            let v = Double(s)!
            var inside = true
            if let lo { inside = inside && (loIncl ? v >= Double(lo) : v > Double(lo)) }
            if let hi { inside = inside && (hiIncl ? v <= Double(hi) : v < Double(hi)) }
            // "-0.0" denotes 0 but the grammar never writes a negative zero; skip that spelling.
            if s.hasPrefix("-0") && v == 0 { #expect(!matches(g, s)); continue }
            #expect(matches(g, s) == inside, "\(s)")
        }
    }
}
