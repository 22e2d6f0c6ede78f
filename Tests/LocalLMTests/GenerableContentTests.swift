import Foundation
import LocalLM
import Testing

@Suite("GeneratedContent")
struct GenerableContentTests {
    @Test func buildsStructuresInOrder() throws {
        let content = GeneratedContent(properties: ["name": "Johnny Appleseed", "age": 30, "tags": ["a", "b"]])
        #expect(content.jsonString == #"{"name": "Johnny Appleseed", "age": 30, "tags": ["a", "b"]}"#)
        #expect(try content.value(String.self, forProperty: "name") == "Johnny Appleseed")
        #expect(try content.value(Int.self, forProperty: "age") == 30)
        #expect(try content.value([String].self, forProperty: "tags") == ["a", "b"])
        #expect(try content.value(String?.self, forProperty: "missing") == nil)
        #expect(throws: GeneratedContentError.self) { try content.value(String.self, forProperty: "missing") }
        #expect(throws: GeneratedContentError.self) { try content.value(Int.self, forProperty: "name") }
        guard case .structure(_, let keys) = content.kind else {
            Issue.record("expected a structure")
            return
        }
        #expect(keys == ["name", "age", "tags"])
    }

    @Test(arguments: [
        #"{"a": 1, "b": [true, false, null], "c": {"d": "e\n\"q\" \u00e9 \ud83d\ude00"}}"#,
        #"[1.5, -2, 3e3, "x", {}]"#,
        #""just a string""#,
        "[42, -0.25, 0, 1e-7]",
        "true",
    ])
    func roundTripsCompleteJSON(json: String) throws {
        let content = try GeneratedContent(json: json)
        #expect(content.isComplete)
        // Our JSON must read back to the same value, and agree with Foundation's parser.
        #expect(try GeneratedContent(json: content.jsonString) == content)
        let ours = try JSONSerialization.jsonObject(with: Data(content.jsonString.utf8), options: .fragmentsAllowed)
        let theirs = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        #expect(NSDictionary(dictionary: ["v": ours]) == NSDictionary(dictionary: ["v": theirs]))
    }

    @Test func decodesEscapes() throws {
        let content = try GeneratedContent(json: #""tab\tquote\" slash\/ \u00e9 \ud83d\ude00""#)
        #expect(try content.value(String.self) == "tab\tquote\" slash/ é 😀")
    }

    /// Every prefix of a document parses (streaming), and the fields present so far are right.
    @Test func parsesEveryPrefixOfADocument() throws {
        let json = #"{"name": "Ada Lovelace", "age": 36, "langs": ["en", "fr"], "nested": {"ok": true, "n": null}, "pi": 3.14}"#
        let full = try GeneratedContent(json: json)
        #expect(full.isComplete)
        var previousKeys = 0
        for end in json.indices.dropFirst() {
            let prefix = String(json[..<end])
            let partial = try GeneratedContent(json: prefix)
            #expect(!partial.isComplete, "prefix \(prefix) should be incomplete")
            guard case .structure(let properties, let keys) = partial.kind else {
                Issue.record("prefix \(prefix) is not a structure")
                continue
            }
            #expect(keys.count >= previousKeys, "keys never disappear as the stream grows")
            previousKeys = keys.count
            // A string present so far is a prefix of the final string.
            if let name = properties["name"], case .string(let text) = name.kind {
                #expect("Ada Lovelace".hasPrefix(text))
            }
        }
    }

    @Test func partialShapes() throws {
        let a = try GeneratedContent(json: #"{"name": "Jo"#)
        #expect(try a.value(String.self, forProperty: "name") == "Jo")
        #expect(!a.isComplete)

        let b = try GeneratedContent(json: #"{"name": "Jo", "ag"#)
        #expect(try b.properties().keys.sorted() == ["name"])

        let c = try GeneratedContent(json: #"{"items": [1, 2, "#)
        #expect(try c.value([Int].self, forProperty: "items") == [1, 2])

        let d = try GeneratedContent(json: #"{"ok": tr"#)
        #expect(try d.value(Bool.self, forProperty: "ok") == true)
        #expect(!d.isComplete)

        let e = try GeneratedContent(json: #"{"n": -"#)
        #expect(try e.properties().isEmpty)

        let f = try GeneratedContent(json: #"{"s": "caf\u00"#)
        #expect(try f.value(String.self, forProperty: "s") == "caf")

        // A number at the very end may still grow; one followed by a delimiter is settled.
        #expect(try !GeneratedContent(json: "12").isComplete)
        #expect(try GeneratedContent(json: "[12]").isComplete)
    }

    @Test(arguments: [
        "",
        "   ",
        #"{"a" 1}"#,
        #"{"a": 1}}"#,
        #"[1 2]"#,
        #"{a: 1}"#,
        #""bad \x escape""#,
        "01",
        "nul1",
        #"{"a": 1, "a": 2}"#,
        String(repeating: "[", count: 10_000),
    ])
    func rejectsInvalidJSON(json: String) {
        #expect(throws: GeneratedContentError.self) { try GeneratedContent(json: json) }
    }

    @Test func numbersConvertExactly() throws {
        #expect(try Int(GeneratedContent(json: "7")) == 7)
        #expect(throws: GeneratedContentError.self) { try Int(GeneratedContent(json: "7.5")) }
        #expect(throws: GeneratedContentError.self) { try Int(GeneratedContent(json: "1e300")) }
        #expect(try Decimal(GeneratedContent(json: "0.1")) == Decimal(string: "0.1"))
        #expect(try Float(GeneratedContent(json: "0.5")) == 0.5)
        #expect(try [Double](GeneratedContent(json: "[1, 2.5]")) == [1, 2.5])
        #expect(try Int?(GeneratedContent(json: "null")) == nil)
    }

    @Test func identifiersSurviveConversion() {
        let id = GenerationID()
        let content = GeneratedContent("x", id: id)
        #expect(content.id == id)
        #expect(content != GeneratedContent("x"))
        #expect(GeneratedContent(elements: [1, "two", true]).jsonString == #"[1, "two", true]"#)
    }
}
