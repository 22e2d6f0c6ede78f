/// `multipleOf` with an integer divisor: integers written without fraction or exponent whose
/// remainder is zero, as a remainder automaton over the decimal digits (one rule per remainder).
extension JSONSchemaCompiler {
    /// Divisors above this are refused (one rule per remainder).
    static let maxDivisor = 1000

    mutating func multipleRule(_ s: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        guard let m = s["multipleOf"] else { return [] }
        guard let k = m.integerValue, k > 0, k <= Self.maxDivisor else {
            throw unsupported("multipleOf other than an integer in 1...\(Self.maxDivisor)", path + ".multipleOf")
        }
        let bounded = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"].contains { s[$0] != nil }
        if k == 1 { return [] }
        if bounded { throw unsupported("multipleOf beside minimum/maximum", path + ".multipleOf") }
        // rest[r]: the digits still to come when the remainder so far is r.
        let rest = (0..<k).map { _ in b.newRule("multiple") }
        for r in 0..<k {
            var byTarget: [Int: ByteSet] = [:]
            for d in 0...9 { byTarget[(r * 10 + d) % k, default: ByteSet()].insert(UInt8(ascii: "0") + UInt8(d)) }
            var alts: [[Symbol]] = r == 0 ? [[]] : []
            for (target, set) in byTarget.sorted(by: { $0.key < $1.key }) { alts.append([.bytes(set), .rule(rest[target])]) }
            b.setAlternatives(rest[r], alts)
        }
        var starts: [[Symbol]] = [GrammarBuilder.literal("0")]
        var byTarget: [Int: ByteSet] = [:]
        for d in 1...9 { byTarget[d % k, default: ByteSet()].insert(UInt8(ascii: "0") + UInt8(d)) }
        for (target, set) in byTarget.sorted(by: { $0.key < $1.key }) {
            starts.append([.bytes(set), .rule(rest[target])])
            starts.append(GrammarBuilder.literal("-") + [.bytes(set), .rule(rest[target])])
        }
        return [.rule(b.rule("multiple-of", starts.map { $0 + json.space(&b) }))]
    }

    /// The formats JSON Schema specifies (validators may check them); other names only annotate.
    static let specifiedFormats: Set<String> = [
        "date", "date-time", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
        "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template", "json-pointer",
        "relative-json-pointer", "regex",
    ]

    /// Extra formats as patterns, where a pattern says exactly what the format allows (or less).
    static let formatPatterns: [String: String] = [
        "email": #"[^\s@"\\<>()\[\],;:]+@[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*"#,
        "ipv4": #"(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}"#,
        "uri": #"[a-zA-Z][a-zA-Z0-9+.\-]*:[!#$%&'()*+,\-./0-9:;=?@A-Z\[\]_a-z~]*"#,
        "iri": #"[a-zA-Z][a-zA-Z0-9+.\-]*:[!#$%&'()*+,\-./0-9:;=?@A-Z\[\]_a-z~]*"#,
        "idn-email": #"[^\s@"\\<>()\[\],;:]+@[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*"#,
        "idn-hostname": #"[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*"#,
        "hostname": #"[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*"#,
    ]
}
