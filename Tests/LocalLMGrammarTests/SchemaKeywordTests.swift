import Testing
@testable import LocalLMGrammar

/// One keyword (or combination) per row: instances as Python's json.dumps writes them, with whether
/// the schema allows them. The flexible grammar must accept exactly the valid ones; the compact
/// grammar must refuse every invalid one.
struct KeywordCase: Sendable, CustomTestStringConvertible {
    let name: String
    let schema: String
    let valid: [String]
    let invalid: [String]
    var testDescription: String { name }
}

/// Schemas the compiler must refuse, with the start of the feature it names.
struct RefusedCase: Sendable, CustomTestStringConvertible {
    let name: String
    let schema: String
    let feature: String
    var testDescription: String { name }
}

@Suite struct SchemaKeywordTests {
    static let cases: [KeywordCase] = [
        KeywordCase(name: "annotations and unknown keywords are ignored",
                    schema: #"{"type": "string", "title": "t", "id": "x", "self": {}, "name": "n", "links": [], "_format": "f", "examples": ["a"], "readonly": true}"#,
                    valid: [#""a""#], invalid: ["1", "null"]),
        KeywordCase(name: "patternProperties with closed object",
                    schema: #"{"type": "object", "properties": {"id": {"type": "string"}}, "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": false}"#,
                    valid: [#"{"id": "a", "x-b": 1}"#, #"{"x-a": 1, "x-b": 2}"#, "{}"], invalid: [#"{"x-a": "s"}"#, #"{"y": 1}"#, #"{"id": 1}"#]),
        KeywordCase(name: "patternProperties with open object",
                    schema: #"{"type": "object", "patternProperties": {"^n_": {"type": "number"}}}"#,
                    valid: [#"{"n_a": 1.5}"#], invalid: [#"{"n_a": "x"}"#, "[]"]),
        KeywordCase(name: "additionalItems after a tuple",
                    schema: #"{"type": "array", "items": [{"type": "integer"}], "additionalItems": {"type": "string"}}"#,
                    valid: ["[]", "[1]", #"[1, "a", "b"]"#], invalid: [#"["a"]"#, "[1, 2]"]),
        KeywordCase(name: "prefixItems with items false and minItems",
                    schema: #"{"type": "array", "prefixItems": [{"type": "integer"}, {"type": "boolean"}], "items": false, "minItems": 1}"#,
                    valid: ["[1]", "[1, true]"], invalid: ["[]", "[1, true, 2]", "[true]"]),
        KeywordCase(name: "allOf of two objects",
                    schema: #"{"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"properties": {"b": {"type": "string"}}, "required": ["b"]}]}"#,
                    valid: [#"{"a": 1, "b": "x"}"#], invalid: [#"{"a": 1}"#, #"{"a": "x", "b": "x"}"#, #"{"b": "x"}"#]),
        KeywordCase(name: "allOf with a closed side",
                    schema: #"{"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false}, {"properties": {"b": {"type": "string"}}}]}"#,
                    valid: [#"{"a": 1}"#, "{}"], invalid: [#"{"b": "x"}"#, #"{"a": 1, "b": "x"}"#]),
        KeywordCase(name: "allOf through $ref with bounds",
                    schema: ##"{"$defs": {"pos": {"type": "integer", "minimum": 0}}, "allOf": [{"$ref": "#/$defs/pos"}, {"maximum": 10}]}"##,
                    valid: ["0", "10"], invalid: ["-1", "11", #""a""#]),
        KeywordCase(name: "type beside anyOf",
                    schema: #"{"type": "string", "anyOf": [{"maxLength": 2}, {"pattern": "^a"}]}"#,
                    valid: [#""xy""#, #""abcd""#], invalid: [#""xyz""#, "1"]),
        KeywordCase(name: "properties beside oneOf with disjoint branches",
                    schema: #"{"type": "object", "properties": {"kind": {"type": "string"}}, "required": ["kind"], "oneOf": [{"properties": {"kind": {"const": "a"}, "n": {"type": "integer"}}}, {"properties": {"kind": {"const": "b"}, "s": {"type": "string"}}}]}"#,
                    valid: [#"{"kind": "a", "n": 1}"#, #"{"kind": "b", "s": "x"}"#], invalid: [#"{"kind": "c"}"#, #"{"kind": "a", "n": "x"}"#, "{}"]),
        KeywordCase(name: "oneOf over required lists",
                    schema: #"{"type": "object", "properties": {"r": {"type": "number"}, "w": {"type": "number"}, "h": {"type": "number"}}, "oneOf": [{"required": ["r"]}, {"required": ["w", "h"]}]}"#,
                    valid: [#"{"r": 1}"#, #"{"w": 1, "h": 2}"#, #"{"r": 1, "w": 2}"#], invalid: [#"{"r": 1, "w": 1, "h": 2}"#, #"{"w": 1}"#, "{}"]),
        KeywordCase(name: "oneOf over different types",
                    schema: #"{"oneOf": [{"type": "string"}, {"type": "integer"}]}"#,
                    valid: [#""a""#, "1"], invalid: ["true", "1.5"]),
        KeywordCase(name: "dependencies as required lists",
                    schema: #"{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "dependencies": {"a": ["b"]}}"#,
                    valid: ["{}", #"{"b": 1}"#, #"{"a": 1, "b": 2}"#], invalid: [#"{"a": 1}"#]),
        KeywordCase(name: "dependentRequired and dependentSchemas",
                    schema: #"{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}}, "dependentRequired": {"a": ["b"]}, "dependentSchemas": {"c": {"properties": {"a": {"minimum": 5}}}}}"#,
                    valid: [#"{"a": 5, "b": 1, "c": 1}"#, #"{"c": 1}"#, #"{"a": 1, "b": 1}"#], invalid: [#"{"a": 1, "b": 2, "c": 3}"#, #"{"a": 7, "c": 1}"#]),
        KeywordCase(name: "formats",
                    schema: #"{"type": "object", "properties": {"u": {"type": "string", "format": "uri"}, "e": {"type": "string", "format": "email"}, "d": {"type": "string", "format": "date"}, "i": {"type": "string", "format": "ipv4"}, "z": {"type": "string", "format": "unknown-format"}}}"#,
                    valid: [#"{"u": "https://x.org/a?b=1", "e": "a@b.com", "d": "2024-02-29", "i": "10.0.0.255", "z": "anything"}"#],
                    invalid: [#"{"u": "not a uri"}"#, #"{"e": "ab.com"}"#, #"{"d": "2023-02-29"}"#, #"{"i": "256.1.1.1"}"#]),
        KeywordCase(name: "multipleOf on integers",
                    schema: #"{"type": "integer", "multipleOf": 3}"#,
                    valid: ["0", "9", "-12", "300"], invalid: ["10", "4", "-1", "1.5"]),
        KeywordCase(name: "multipleOf without type",
                    schema: #"{"multipleOf": 7}"#,
                    valid: ["14", "-7"], invalid: ["15", "7.5"]),
        KeywordCase(name: "not type",
                    schema: #"{"type": ["string", "null"], "not": {"type": "null"}}"#,
                    valid: [#""a""#], invalid: ["null", "1"]),
        KeywordCase(name: "not required",
                    schema: #"{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "not": {"required": ["b"]}}"#,
                    valid: ["{}", #"{"a": 1}"#], invalid: [#"{"b": 1}"#, #"{"a": 1, "b": 1}"#]),
        KeywordCase(name: "enum filtered by its siblings",
                    schema: #"{"type": "string", "enum": ["a", 1, "bb"], "maxLength": 1}"#,
                    valid: [#""a""#], invalid: ["1", #""bb""#]),
        KeywordCase(name: "const object in json.dumps spelling",
                    schema: #"{"const": {"a": [1, 2], "b": "\u00e9"}}"#,
                    valid: [#"{"a": [1, 2], "b": "\u00e9"}"#], invalid: [#"{"a": [1, 3], "b": "\u00e9"}"#]),
        KeywordCase(name: "pattern",
                    schema: #"{"type": "string", "pattern": "b+"}"#,
                    valid: [#""bbb""#], invalid: [#""acd""#, #""""#]),
        KeywordCase(name: "minProperties 1",
                    schema: #"{"type": "object", "properties": {"a": {}, "b": {}}, "minProperties": 1}"#,
                    valid: [#"{"a": 1}"#, #"{"b": 1}"#], invalid: ["{}"]),
        KeywordCase(name: "lengths count code points",
                    schema: #"{"type": "string", "minLength": 2}"#,
                    valid: [#""\u00e9x""#, #""ab""#], invalid: [#""\ud83d\ude00""#, #""a""#]),
        // Checked with Python jsonschema 4.26 (FormatChecker on): pattern, format and length together
        // compile to one automaton (their intersection).
        KeywordCase(name: "pattern with maxLength",
                    schema: #"{"type": "string", "pattern": "^[a-z]+$", "maxLength": 3}"#,
                    valid: [#""abc""#, #""a""#], invalid: [#""abcd""#, #""""#, #""ab1""#]),
        KeywordCase(name: "pattern search with minLength and maxLength",
                    schema: #"{"type": "string", "pattern": "x", "minLength": 2, "maxLength": 4}"#,
                    valid: [#""ax""#, #""xxxx""#, #""\u00e9x""#], invalid: [#""x""#, #""abcde""#, #""abcd""#]),
        KeywordCase(name: "format with maxLength",
                    schema: #"{"type": "string", "format": "date", "maxLength": 10}"#,
                    valid: [#""2024-02-29""#], invalid: [#""2023-02-29""#, #""x""#]),
        KeywordCase(name: "pattern with format",
                    schema: #"{"type": "string", "format": "uuid", "pattern": "^0"}"#,
                    valid: [#""0a0b0c0d-0000-0000-0000-000000000000""#], invalid: [#""1a0b0c0d-0000-0000-0000-000000000000""#, #""0""#]),
        KeywordCase(name: "search alternation of literals",
                    schema: #"{"type": "string", "pattern": "AB|CD"}"#,
                    valid: [#""xABy""#, #""CD""#], invalid: [#""AC""#, #""""#, #""A""#]),
        KeywordCase(name: "enum with duplicates keeps every distinct value",
                    schema: #"{"enum": ["a", 1, "a", "b", 1.0, null, "b", [1], [1], "a"]}"#,
                    valid: [#""a""#, #""b""#, "1", "null", "[1]"], invalid: [#""c""#, "2", "[]", "true"]),
        // The same pattern, format and lengths in several places compile once (the rules are
        // shared); differing lengths or formats stay apart.
        KeywordCase(name: "repeated string constraints",
                    schema: #"{"type": "object", "properties": {"a": {"type": "string", "pattern": "^x+$"}, "b": {"type": "string", "pattern": "^x+$", "maxLength": 2}, "c": {"type": "string", "pattern": "^x+$"}, "d": {"type": "string", "format": "date"}, "e": {"type": "string", "format": "date", "minLength": 11}}, "additionalProperties": false}"#,
                    valid: [#"{"a": "xxx", "b": "xx", "c": "x"}"#, #"{"d": "2024-02-29"}"#, #"{"b": "x", "c": "xxxx"}"#],
                    invalid: [#"{"b": "xxx"}"#, #"{"c": "xy"}"#, #"{"e": "2024-02-29"}"#, #"{"d": "2023-02-29"}"#]),
        KeywordCase(name: "empty enum admits nothing",
                    schema: #"{"enum": []}"#,
                    valid: [], invalid: ["1", #""a""#, "null"]),
        // enum values filtered by keywords beside them (checked with Python jsonschema 4.26).
        KeywordCase(name: "enum filtered by patternProperties",
                    schema: #"{"allOf": [{"enum": [{"foo": 1}, {"foo": "x"}, {"bar": "x"}]}, {"patternProperties": {"f.o": {"type": "integer"}}}]}"#,
                    valid: [#"{"foo": 1}"#, #"{"bar": "x"}"#], invalid: [#"{"foo": "x"}"#]),
        KeywordCase(name: "enum filtered by a draft-7 tuple",
                    schema: #"{"$schema": "http://json-schema.org/draft-07/schema#", "allOf": [{"enum": [[1, "a"], [1, 2]]}, {"items": [{"type": "integer"}], "additionalItems": {"type": "string"}}]}"#,
                    valid: [#"[1, "a"]"#], invalid: ["[1, 2]"]),
        KeywordCase(name: "enum filtered by uniqueItems (numbers by value)",
                    schema: #"{"allOf": [{"enum": [[1, 1], [1, 2], [1, 1.0]]}, {"uniqueItems": true}]}"#,
                    valid: ["[1, 2]"], invalid: ["[1, 1]", "[1, 1.0]"]),
        KeywordCase(name: "enum filtered by if/then",
                    schema: #"{"allOf": [{"enum": [1, "ab", "abc"]}, {"if": {"type": "string"}, "then": {"maxLength": 2}}]}"#,
                    valid: ["1", #""ab""#], invalid: [#""abc""#]),
        KeywordCase(name: "patternProperties matching a listed property",
                    schema: #"{"type": "object", "properties": {"allow": {"type": "string"}}, "patternProperties": {"^a": {"minLength": 2}}, "additionalProperties": false}"#,
                    valid: [#"{"allow": "xy"}"#, #"{"ab": "xy"}"#, #"{"allow": "xy", "al": "zz"}"#],
                    invalid: [#"{"allow": "x"}"#, #"{"ab": "x"}"#, #"{"allow": 1}"#, #"{"b": "x"}"#]),
        KeywordCase(name: "uniqueItems with at most one item",
                    schema: #"{"type": "array", "uniqueItems": true, "maxItems": 1}"#,
                    valid: ["[]", "[1]"], invalid: ["[1, 1]"]),
    ]

    static let refused: [RefusedCase] = [
        RefusedCase(name: "uniqueItems", schema: #"{"type": "array", "uniqueItems": true}"#, feature: "uniqueItems"),
        RefusedCase(name: "if/then", schema: #"{"if": {"type": "string"}, "then": {"maxLength": 2}}"#, feature: "if"),
        RefusedCase(name: "contains", schema: #"{"type": "array", "contains": {"type": "string"}}"#, feature: "contains"),
        RefusedCase(name: "multipleOf 0.01", schema: #"{"type": "number", "multipleOf": 0.01}"#, feature: "multipleOf"),
    ]

    @Test(arguments: cases)
    func acceptsExactlyTheValidInstances(_ c: KeywordCase) throws {
        // Patterns as the specification reads them (searches); the whole-match default is tested below.
        let schema = try JSONValue(parsing: c.schema)
        let flexible = try CompiledGrammar(jsonSchema: schema, options: JSONSchemaOptions(whitespace: .flexible, patternsSearch: true))
        let compact = try CompiledGrammar(jsonSchema: schema, options: JSONSchemaOptions(whitespace: .compact, patternsSearch: true))
        for text in c.valid { #expect(matches(flexible, text), "refused valid \(text)") }
        for text in c.invalid {
            #expect(!matches(flexible, text), "accepted invalid \(text)")
            #expect(!matches(compact, text.replacingOccurrences(of: ", ", with: ",").replacingOccurrences(of: ": ", with: ":")), "compact accepted invalid \(text)")
        }
    }

    @Test(arguments: refused)
    func refusesWithTheKeyword(_ c: RefusedCase) {
        #expect {
            _ = try CompiledGrammar(jsonSchema: c.schema)
        } throws: { error in
            guard case .unsupportedSchemaFeature(let feature, _)? = error as? GrammarError else { return false }
            return feature.hasPrefix(c.feature)
        }
    }

    /// The specification's reading (MaskBench's): members in any order, extra members where
    /// additionalProperties is absent, untyped schemas admit every type.
    @Test func specificationReading() throws {
        let options = JSONSchemaOptions(whitespace: .flexible, closesUnlistedObjects: false, anyPropertyOrder: true, infersTypes: false, patternsSearch: true)
        let search = try CompiledGrammar(jsonSchema: try JSONValue(parsing: #"{"type": "string", "pattern": "b+"}"#), options: options)
        for valid in [#""abc""#, #""bbb""#, #""\u00e9b""#] { #expect(matches(search, valid), "\(valid)") }
        for invalid in [#""acd""#, #""""#] { #expect(!matches(search, invalid), "\(invalid)") }
        #expect(!matches(try CompiledGrammar(jsonSchema: #"{"type": "string", "pattern": "b+"}"#), #""abc""#), "the default is a whole match")
        let g = try CompiledGrammar(jsonSchema: try JSONValue(parsing: #"{"properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a"]}"#), options: options)
        for valid in [#"{"b": "x", "a": 1}"#, #"{"a": 1, "c": null}"#, #""text""#, "[1]", #"{"a": 1, "c\"d": 2, "\u00e9": 3}"#] { #expect(matches(g, valid), "\(valid)") }
        for invalid in [#"{"b": "x"}"#, #"{"a": 1, "a": 2}"#, #"{"a": "x"}"#, #"{"c": 1, "b": 1, "a": 1}"#, #"{"a": 1, "\u0062": 2}"#] { #expect(!matches(g, invalid), "\(invalid)") }
        let generation = try CompiledGrammar(jsonSchema: #"{"properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a"]}"#)
        for refused in [#"{"b": "x", "a": 1}"#, #"{"a": 1, "c": null}"#, #""text""#] { #expect(!matches(generation, refused.replacingOccurrences(of: ", ", with: ",").replacingOccurrences(of: ": ", with: ":"))) }
    }

    /// A oneOf whose branches may overlap is refused by default, and read as anyOf (the documented
    /// over-approximation) when asked for.
    @Test func overlappingOneOfIsRefusedOrApproximated() throws {
        let schema = #"{"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]}"#
        let g = try CompiledGrammar(jsonSchema: try JSONValue(parsing: schema), options: JSONSchemaOptions(approximatesOneOf: true))
        #expect(matches(g, #""abcd""#))
        #expect(!matches(g, "1"))
        #expect(matches(g, #""ab""#), "matches both branches: let through, as documented")
        #expect {
            _ = try CompiledGrammar(jsonSchema: try JSONValue(parsing: schema), options: JSONSchemaOptions())
        } throws: { error in
            guard case .unsupportedSchemaFeature(let feature, _)? = error as? GrammarError else { return false }
            return feature.hasPrefix("oneOf")
        }
    }

    /// A further-member route whose value schema is refused refuses the schema by default (leaving
    /// the route out would refuse valid documents silently); `narrowsRefusedMembers` leaves it out,
    /// and then admits only documents without such a member.
    @Test func aRefusedMemberRouteRefusesTheSchemaUnlessNarrowingIsAsked() throws {
        let schema = try JSONValue(parsing: #"{"properties": {"a": {"type": "integer"}}, "patternProperties": {"^x": {"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]}}, "additionalProperties": false}"#)
        #expect {
            _ = try CompiledGrammar(jsonSchema: schema, options: JSONSchemaOptions())
        } throws: { error in
            guard case .unsupportedSchemaFeature(let feature, let path)? = error as? GrammarError else { return false }
            return feature.hasPrefix("oneOf") && path.hasPrefix("$.patternProperties")
        }
        let narrowed = try CompiledGrammar(jsonSchema: schema, options: JSONSchemaOptions(narrowsRefusedMembers: true))
        #expect(matches(narrowed, #"{"a":1}"#))
        #expect(matches(narrowed, "{}"))
        #expect(!matches(narrowed, #"{"a":1,"xy":"abcd"}"#), "valid, but its route was left out")
        #expect(!matches(narrowed, #"{"b":1}"#))
        // A malformed value schema is an error even when narrowing.
        let malformed = try JSONValue(parsing: #"{"patternProperties": {"^x": {"type": "object", "required": 3}}, "additionalProperties": false}"#)
        #expect(throws: GrammarError.self) {
            _ = try CompiledGrammar(jsonSchema: malformed, options: JSONSchemaOptions(narrowsRefusedMembers: true))
        }
    }

    /// Members in any order past ten listed properties: the required ones are counted (the object
    /// ends only when all are written), the optional ones may come anywhere. A repeated key is the
    /// documented over-approximation; a document missing a required member without repeating
    /// another is refused, however many members are required.
    @Test func manyMembersInAnyOrderCountTheRequiredOnes() throws {
        let names = (0..<14).map { "p\($0)" }
        let properties = names.map { #""\#($0)": {"type": "integer"}"# }.joined(separator: ", ")
        let schema = try JSONValue(parsing: #"{"type": "object", "properties": {\#(properties)}, "required": ["p3", "p11"], "additionalProperties": false}"#)
        let g = try CompiledGrammar(jsonSchema: schema, options: JSONSchemaOptions(anyPropertyOrder: true))
        func object(_ keys: [String]) -> String { "{" + keys.map { #""\#($0)":1"# }.joined(separator: ",") + "}" }
        #expect(matches(g, object(names.reversed())))
        #expect(matches(g, object(["p11", "p0", "p3"])))
        #expect(matches(g, object(["p11", "p0", "p3", "p0"])), "a repeated optional member: let through, as documented")
        #expect(matches(g, object(["p11", "p11"])), "a repeated required member in place of another: let through, as documented")
        #expect(!matches(g, object(["p11", "p0"])), "p3 is required")
        #expect(!matches(g, object(["p11", "p3", "p11"])), "more required members than there are")
        #expect(!matches(g, object(["p11", "p3", "q"])))
        #expect(!matches(g, #"{"p11":1,"p3":"x"}"#))
        let manyRequired = try JSONValue(parsing: #"{"type": "object", "properties": {\#(properties)}, "required": [\#(names.prefix(12).map { "\"\($0)\"" }.joined(separator: ", "))]}"#)
        let h = try CompiledGrammar(jsonSchema: manyRequired, options: JSONSchemaOptions(closesUnlistedObjects: false, anyPropertyOrder: true))
        #expect(matches(h, object(names.reversed())))
        #expect(matches(h, object(Array(names.prefix(12).reversed()) + ["z"])), "further members: additionalProperties is absent")
        #expect(!matches(h, object(Array(names.prefix(11)) + ["p13"])), "p11 is required")
    }

    /// Overlapping patternProperties beside additionalProperties: each key takes the schemas of
    /// exactly the patterns it matches, and a key matching none takes additionalProperties only.
    @Test func overlappingPatternPropertiesSplitByTheKeysTheyMatch() throws {
        let schema = try JSONValue(parsing: #"{"type": "object", "properties": {"ab": {"type": "null"}}, "patternProperties": {"^a": {"type": "integer"}, "b$": {"type": "string"}}, "additionalProperties": {"type": "boolean"}}"#)
        let g = try CompiledGrammar(jsonSchema: schema, options: JSONSchemaOptions(patternsSearch: true))
        for valid in [#"{"ax":1}"#, #"{"xb":"s"}"#, #"{"zz":true}"#, #"{"ax":1,"zz":false,"xb":"t"}"#] { #expect(matches(g, valid), "\(valid)") }
        for invalid in [#"{"ax":"s"}"#, #"{"xb":1}"#, #"{"zz":1}"#, #"{"axb":1}"#, #"{"axb":"s"}"#, #"{"ab":null}"#, #"{"ab":1}"#] {
            #expect(!matches(g, invalid), "\(invalid)")
        }
    }

    /// A pattern whose deterministic automaton explodes (2^15 states) is still written as rules
    /// alone, but intersected with a length it is a typed error, not an allocation sized by the input.
    @Test func anExplodingPatternIntersectionIsATypedError() throws {
        let pattern = #"^(a|b)*a(a|b){14}$"#
        let alone = try CompiledGrammar(jsonSchema: #"{"type": "string", "pattern": "\#(pattern)"}"#)
        #expect(matches(alone, #""a\#(String(repeating: "b", count: 14))""#))
        #expect(throws: GrammarError.self) {
            _ = try CompiledGrammar(jsonSchema: #"{"type": "string", "pattern": "\#(pattern)", "maxLength": 100}"#)
        }
    }

    @Test func recursiveAllOfIsATypedError() {
        let schema = ##"{"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}, {"type": "object"}]}}, "$ref": "#/$defs/a"}"##
        #expect(throws: GrammarError.self) { _ = try CompiledGrammar(jsonSchema: schema) }
    }
}
