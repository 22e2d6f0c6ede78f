import Foundation
import Testing
@testable import LocalLMGrammar

/// Decimal bounds on `"type": "number"` are exact: hand-picked strings around each edge, every
/// string the grammar can produce lies in the range, and random decimals are accepted exactly
/// when they lie in it.
@Suite struct DecimalRangeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let schema: String
        let lower: (Double, Bool)?  // value, inclusive
        let upper: (Double, Bool)?
        let pass: [String]
        let fail: [String]
        var testDescription: String { schema }

        func contains(_ v: Double) -> Bool {
            if let (l, inclusive) = lower, inclusive ? v < l : v <= l { return false }
            if let (u, inclusive) = upper, inclusive ? v > u : v >= u { return false }
            return true
        }
    }

    static let cases: [Case] = [
        Case(schema: #"{"type":"number","minimum":0.5,"maximum":2.25}"#, lower: (0.5, true), upper: (2.25, true),
             pass: ["0.5", "0.50", "0.500000", "0.51", "0.5000001", "0.9", "0.99999", "1", "1.0", "1.75", "2", "2.0", "2.2", "2.24999", "2.25", "2.250", "2.2500000"],
             fail: ["0", "0.0", "0.4", "0.49", "0.4999999", "2.2500001", "2.251", "2.26", "2.3", "3", "-1", "-0.5", "0.5e0", "5e-1", "00.5", "0.", ".5", "+1", "1.5 "]),
        Case(schema: #"{"type":"number","minimum":-1.5,"maximum":-0.25}"#, lower: (-1.5, true), upper: (-0.25, true),
             pass: ["-1.5", "-1.50", "-1.4999", "-1", "-1.0", "-0.9", "-0.5", "-0.26", "-0.25", "-0.250", "-0.2500000"],
             fail: ["-1.51", "-1.5000001", "-2", "-0.2499", "-0.24", "-0.2", "-0", "0", "0.3", "1", "-0.0", "-01"]),
        Case(schema: #"{"type":"number","minimum":0,"maximum":1}"#, lower: (0, true), upper: (1, true),
             pass: ["0", "0.0", "0.000", "0.5", "0.999999", "1", "1.0", "1.000"],
             fail: ["-0", "-0.0", "-0.1", "1.0000001", "1.1", "2", "10", "01"]),
        Case(schema: #"{"type":"number","exclusiveMinimum":0.5,"exclusiveMaximum":2.25}"#, lower: (0.5, false), upper: (2.25, false),
             pass: ["0.5000001", "0.51", "0.6", "1", "2", "2.2", "2.24", "2.2499999"],
             fail: ["0.5", "0.50", "0.500", "0.4", "2.25", "2.250", "2.2500001", "2.3", "0"]),
        Case(schema: #"{"type":"number","exclusiveMinimum":-1.5,"exclusiveMaximum":-0.25}"#, lower: (-1.5, false), upper: (-0.25, false),
             pass: ["-1.4999999", "-1.49", "-1", "-0.5", "-0.26", "-0.2500001"],
             fail: ["-1.5", "-1.50", "-1.5000001", "-0.25", "-0.250", "-0.2499", "0", "-2"]),
        Case(schema: #"{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}"#, lower: (0, false), upper: (1, false),
             pass: ["0.1", "0.0001", "0.5", "0.999", "0.9999999"],
             fail: ["0", "0.0", "0.000", "-0.0", "1", "1.0", "1.0001", "-0.5"]),
        Case(schema: #"{"type":"number","minimum":-0.75}"#, lower: (-0.75, true), upper: nil,
             pass: ["-0.75", "-0.7", "-0.05", "0", "0.3", "1", "123456.789"],
             fail: ["-0.751", "-0.76", "-1", "-100", "-0"]),
        Case(schema: #"{"type":"number","exclusiveMaximum":3.125}"#, lower: nil, upper: (3.125, false),
             pass: ["3.124999", "3.12", "3", "0", "-0.5", "-1000.25"],
             fail: ["3.125", "3.1250", "3.1251", "3.13", "4", "100"]),
        Case(schema: #"{"type":"number","minimum":1e-3,"maximum":2.5E1}"#, lower: (0.001, true), upper: (25, true),
             pass: ["0.001", "0.0010", "0.0011", "0.01", "1", "24.999", "25", "25.000"],
             fail: ["0.0009999", "0.0001", "0", "25.001", "26", "1e-3"]),
        Case(schema: #"{"type":"number","minimum":0.1,"exclusiveMinimum":0.1,"maximum":0.3,"exclusiveMaximum":0.35}"#, lower: (0.1, false), upper: (0.3, true),
             pass: ["0.10001", "0.2", "0.3", "0.300"],
             fail: ["0.1", "0.100", "0.3000001", "0.31", "0.34"]),
        Case(schema: #"{"type":"number","minimum":12.5,"maximum":12.75}"#, lower: (12.5, true), upper: (12.75, true),
             pass: ["12.5", "12.6", "12.7", "12.75", "12.7499", "12.50001"],
             fail: ["12.4", "12.49", "12", "13", "12.76", "12.751", "12.8", "1", "125"]),
        Case(schema: #"{"type":"number","minimum":99.95,"maximum":100.05}"#, lower: (99.95, true), upper: (100.05, true),
             pass: ["99.95", "99.99", "100", "100.0", "100.05", "100.049"],
             fail: ["99.94", "99.9", "100.051", "100.1", "101", "99"]),
    ]

    @Test(arguments: cases)
    func edgesAreExact(_ c: Case) throws {
        let g = try CompiledGrammar(jsonSchema: c.schema)
        for s in c.pass {
            #expect(matches(g, s), "\(s) should pass")
            #expect(c.contains(try #require(Double(s))), "bad test data: \(s)")
        }
        for s in c.fail { #expect(!matches(g, s), "\(s) should fail") }
    }

    /// Every string the grammar derives parses to a Double inside the range.
    @Test(arguments: cases)
    func derivedStringsAreInRange(_ c: Case) throws {
        let g = try CompiledGrammar(jsonSchema: c.schema)
        let gen = GrammarGenerator(g.grammar)
        var rng = SplitMix64(seed: 11)
        for _ in 0..<300 {
            let bytes = try #require(gen.generate(using: &rng, depthBudget: 24))
            let text = String(decoding: bytes, as: UTF8.self)
            let v = try #require(Double(text), "not a number: \(text)")
            #expect(c.contains(v), "\(text) outside the range")
            #expect(!text.hasPrefix("-") || v != 0, "negative zero \(text)")
            #expect(matches(g, text))
        }
    }

    /// Random decimals (up to 7 places, so no two distinct ones round to the same Double) are
    /// accepted exactly when in range, for random bounds.
    @Test func randomDecimalsAgainstRandomBounds() throws {
        var rng = SplitMix64(seed: 3)
        func decimal(_ rng: inout SplitMix64, scale: Int) -> String {
            let whole = Int(rng.next() % UInt64(scale))
            let places = Int(rng.next() % 5)
            var s = (rng.next() % 2 == 0 ? "-" : "") + String(whole)
            if places > 0 { s += "." + (0..<places).map { _ in String(rng.next() % 10) }.joined() }
            return s == "-0" || s.hasPrefix("-0.") && Double(s) == 0 ? String(s.dropFirst()) : s
        }
        for _ in 0..<60 {
            var lo = decimal(&rng, scale: 30), hi = decimal(&rng, scale: 30)
            if Double(lo)! > Double(hi)! { swap(&lo, &hi) }
            let loIncl = rng.next() % 2 == 0, hiIncl = rng.next() % 2 == 0
            let schema = #"{"type":"number","\#(loIncl ? "minimum" : "exclusiveMinimum")":\#(lo),"\#(hiIncl ? "maximum" : "exclusiveMaximum")":\#(hi)}"#
            let c = Case(schema: schema, lower: (Double(lo)!, loIncl), upper: (Double(hi)!, hiIncl), pass: [], fail: [])
            let g = try CompiledGrammar(jsonSchema: schema)
            var samples = [lo, hi, lo + "1", hi + "1", lo + "0", hi + "0"]
            for _ in 0..<200 {
                var s = decimal(&rng, scale: 32)
                if rng.next() % 2 == 0 { s += String(rng.next() % 10) }
                samples.append(s)
            }
            for s in samples {
                // Leading zeros ("03") are not JSON numbers; the grammar's refusal of them is tested above.
                if s.range(of: "^-?0[0-9]", options: .regularExpression) != nil { continue }
                guard let v = Double(s), !(s.hasPrefix("-") && v == 0) else { continue }
                #expect(matches(g, s) == c.contains(v), "\(s) in \(schema)")
            }
        }
    }

    @Test func boundsAreReadExactly() throws {
        #expect(try DecimalBound(jsonNumber: "2.50") == DecimalBound(isNegative: false, integer: 2, fraction: [5]))
        #expect(try DecimalBound(jsonNumber: "-0.0125e2") == DecimalBound(isNegative: true, integer: 1, fraction: [2, 5]))
        #expect(try DecimalBound(jsonNumber: "125E-4") == DecimalBound(isNegative: false, integer: 0, fraction: [0, 1, 2, 5]))
        #expect(try DecimalBound(jsonNumber: "-0") == DecimalBound.zero)
        #expect(try DecimalBound(jsonNumber: "0e999999999999999999999") == DecimalBound.zero)
        #expect(try DecimalBound(jsonNumber: "4.2e1") == DecimalBound(isNegative: false, integer: 42, fraction: []))
        #expect(throws: DecimalBound.Problem.tooLarge) { try DecimalBound(jsonNumber: "1e19") }
        #expect(throws: DecimalBound.Problem.tooLarge) { try DecimalBound(jsonNumber: "5000000000000000000") }
        #expect(throws: DecimalBound.Problem.tooPrecise) { try DecimalBound(jsonNumber: "1e-65") }
        #expect(throws: DecimalBound.Problem.tooPrecise) { try DecimalBound(jsonNumber: "1e-99999999999999999999") }
        #expect(try DecimalBound(jsonNumber: "-2.5").ceiling == -2)
        #expect(try DecimalBound(jsonNumber: "-2.5").floor == -3)
        #expect(try DecimalBound(jsonNumber: "2.5").ceiling == 3)
        #expect(try DecimalBound(jsonNumber: "2.5").floor == 2)
    }

    @Test func unusableBoundsAreTypedErrors() {
        #expect(throws: GrammarError.unsupportedSchemaFeature(feature: "maximum beyond ±2^62", path: "$.maximum")) {
            try CompiledGrammar(jsonSchema: #"{"type":"number","maximum":1e300}"#)
        }
        #expect(throws: GrammarError.unsupportedSchemaFeature(feature: "minimum with more than 64 decimal places", path: "$.properties.x.minimum")) {
            try CompiledGrammar(jsonSchema: #"{"type":"object","properties":{"x":{"type":"number","minimum":1e-300}}}"#)
        }
        #expect(throws: GrammarError.schema(message: "minimum must be a number", path: "$.minimum")) {
            try CompiledGrammar(jsonSchema: #"{"type":"number","minimum":"1"}"#)
        }
    }

    /// An empty range compiles to a grammar that accepts nothing (not an error: the schema is valid).
    @Test func emptyRangesAcceptNothing() throws {
        for schema in [#"{"type":"number","minimum":2.5,"maximum":2.25}"#, #"{"type":"number","exclusiveMinimum":0.5,"maximum":0.5}"#] {
            let g = try CompiledGrammar(jsonSchema: schema)
            for s in ["0.5", "2.25", "2.3", "2.5", "0", "1"] { #expect(!matches(g, s), "\(s) in \(schema)") }
        }
    }
}
