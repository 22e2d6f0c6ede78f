import Foundation
import LocalLMJSON
import Testing

@testable import LocalLM

/// The one JSON parser (`JSONStreamParser`) behind structured streaming and `GeneratedContent(json:)`:
/// the same snapshots as an independent recursive prefix parser reading each prefix whole, for a
/// fraction of the work; and, read whole, the same documents as Foundation's `JSONSerialization`.
@Suite struct StreamingJSONParserTests {
    typealias StreamingJSONParser = JSONStreamParser<GeneratedContent.JSONBuilder>

    static let documents: [String] = [
        #"{"name": "Ada", "age": 36, "tags": ["math", "engines"], "ok": true, "none": null}"#,
        #"  [1, -2.5, 3e2, 0.125E-1, {"a": [[], {}], "b": "x\"y\\z\n\u00e9\ud83d\ude00"}, false]  "#,
        #"{"é": "naïve café ☕", "n": -0, "nested": {"deep": {"deeper": [true, false, null]}}}"#,
        #""just a string with \t escapes""#,
        "12345",
        "-",
        #"{"a": 1, "a": 2}"#,
        #"[1, 2,, 3]"#,
        #"{"a": 01}"#,
        #"{"a": 1.}"#,
        #"{"a": tru}"#,
        #"[1.5.2]"#,
        #"{"a": "b"} trailing"#,
        #"{"a" 1}"#,
    ]

    /// The reference: the whole prefix parsed by the recursive prefix parser, `.null` where that throws
    /// (what the session shows for a text that is no JSON prefix).
    static func reference(_ prefix: String) -> GeneratedContent {
        var parser = ReferencePrefixParser(Array(prefix.utf8))
        return (try? parser.parseDocument()) ?? GeneratedContent(kind: .null)
    }

    @Test(arguments: documents)
    func everyPrefixMatchesAWholeParse(document: String) {
        let characters = Array(document)
        var parser = StreamingJSONParser()
        var prefix = ""
        for character in characters {
            parser.append(String(character))
            prefix.append(character)
            // The reference reads a prefix cut between the halves of a surrogate pair (`"\ud83d\`) as
            // invalid; the stream parser shows the string so far, as for any other cut escape.
            if prefix.hasSuffix(#"\ud83d\"#) { continue }
            let snapshot = parser.snapshot ?? GeneratedContent(kind: .null)
            #expect(snapshot == Self.reference(prefix), "after \(prefix.debugDescription)")
            #expect((try? GeneratedContent(json: prefix)) ?? GeneratedContent(kind: .null) == snapshot)
        }
    }

    @Test(arguments: [2, 3, 7])
    func chunkedAppendsMatchToo(chunk: Int) {
        for document in Self.documents {
            let characters = Array(document)
            var parser = StreamingJSONParser()
            var prefix = ""
            for start in stride(from: 0, to: characters.count, by: chunk) {
                let piece = String(characters[start..<min(start + chunk, characters.count)])
                parser.append(piece)
                prefix += piece
                #expect(parser.snapshot ?? GeneratedContent(kind: .null) == Self.reference(prefix), "after \(prefix.debugDescription)")
            }
        }
    }

    /// 4,000 streamed tokens: the parser's work per token at the end is what it was at the start
    /// (bytes scanned, counted, not timed), where re-parsing every prefix grows with the text.
    @Test func workPerTokenStaysFlat() {
        var tokens = [#"{"items": ["#]
        for i in 0..<1000 {
            tokens += [#"{"n": "#, "\(i)", #", "s": "item "#, #"\#(i)"}"# + (i < 999 ? ", " : "")]
        }
        tokens.append("]}")
        #expect(tokens.count >= 4000)
        let streaming = StreamingContent(structured: true)
        var text = ""
        var work: [Int] = []
        var previous = 0
        var content = GeneratedContent(kind: .null)
        for token in tokens {
            text += token
            content = streaming.update(text)
            work.append(streaming.bytesScanned - previous)
            previous = streaming.bytesScanned
        }
        let first = work.prefix(100).reduce(0, +), last = work.suffix(100).reduce(0, +)
        #expect(last <= 2 * first, "work of the first 100 tokens \(first), of the last 100 \(last)")
        // In all, about one look per byte (a number's end is looked at twice).
        #expect(streaming.bytesScanned <= 2 * text.utf8.count)
        #expect(content == (try? GeneratedContent(json: text)))
        #expect(content.isComplete)
    }

    /// Read whole into `JSONValue` (`JSONParser.parse`, the schemas' and templates' reader), every complete
    /// document equals what Foundation's `JSONSerialization` reads, and every invalid one is refused by both.
    @Test(arguments: documents + [
        #"{"big": 12345678901234567890, "neg": -0.5e-3, "u": "\u00e9\u20ac", "a": [[[]]]}"#,
        #"[1, 2]x"#, #"{"a": [1, 2}"#, #""\u12"#, "  ", #"{"x": "\q"}"#,
    ])
    func wholeDocumentsMatchFoundation(document: String) throws {
        let foundation = try? JSONSerialization.jsonObject(with: Data(document.utf8), options: [.fragmentsAllowed])
        let ours = try? JSONParser.parse(document)
        // Foundation keeps the last of a repeated key; JSONValue keeps both, as written.
        if document == #"{"a": 1, "a": 2}"# {
            #expect(ours?.objectMembers?.map(\.0) == ["a", "a"])
            return
        }
        #expect((foundation == nil) == (ours == nil), "\(document): Foundation \(String(describing: foundation)), ours \(String(describing: ours))")
        if let foundation, let ours { #expect(Self.same(ours, foundation), "\(document)") }
    }

    static func same(_ value: JSONValue, _ object: Any) -> Bool {
        switch value {
        case .null: return object is NSNull
        case .bool(let b): return (object as? Bool) == b
        case .number(let text): return (object as? NSNumber).map { $0.doubleValue == Double(text) } ?? false
        case .string(let s): return object as? String == s
        case .array(let items):
            guard let array = object as? [Any], array.count == items.count else { return false }
            return zip(items, array).allSatisfy { same($0, $1) }
        case .object(let members):
            guard let dictionary = object as? [String: Any], dictionary.count == members.count else { return false }
            return members.allSatisfy { key, value in dictionary[key].map { same(value, $0) } ?? false }
        }
    }

    /// Errors name the byte where the text stops being JSON.
    @Test func errorsCarryTheirOffset() {
        #expect(throws: JSONParser.Failure(message: "expected ',' or ']' in array", offset: 3)) { try JSONParser.parse("[1 2]") }
        #expect(throws: JSONParser.Failure(message: "unexpected text after the JSON value", offset: 5)) { try JSONParser.parse("true x") }
        #expect(throws: JSONParser.Failure(message: "leading zero in number", offset: 6)) { try JSONParser.parse(#"{"a": 01}"#) }
        #expect(throws: JSONParser.Failure(message: "unexpected end", offset: 7)) { try JSONParser.parse(#"{"a": 1"#) }
        #expect(throws: JSONParser.Failure(message: "no JSON value", offset: 0)) { try JSONParser.parse("") }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(String(repeating: "[", count: 10_000)) }
    }

    /// A piece may end inside a UTF-8 character: the bytes wait for the rest, and only a character that
    /// never completes is an error.
    @Test func piecesMayCutACharacter() throws {
        let text = Array(#"{"k": "é☕😀"}"#.utf8)
        var parser = StreamingJSONParser()
        for byte in text { parser.append(bytes: [byte]) }
        #expect(parser.failure == nil)
        #expect(try parser.finish() == GeneratedContent(json: #"{"k": "é☕😀"}"#))
        var broken = JSONStreamParser<JSONValue.Builder>()
        broken.append(bytes: Array(#"["a"#.utf8) + [0xE2, 0x98] + Array(#"b"]"#.utf8))
        #expect(broken.failure?.message == "invalid UTF-8 in string")
    }

    /// Found by scripts/fuzz.sh (partialjson) in the prefix parser this one replaced: a text cut after
    /// a high surrogate's escape and its backslash threw "expected ',' or '}'". Every prefix of the
    /// document (from the fuzzer's seed corpus) is a JSON prefix, so each must give a snapshot, and
    /// `GeneratedContent(json:)` the same.
    @Test func aCutAfterAHighSurrogateIsAPrefix() throws {
        let document = #"{"text": "\"\ud83d\ude002\"", "valid": true}"#
        var parser = StreamingJSONParser()
        var prefix = ""
        for character in document {
            parser.append(String(character))
            prefix.append(character)
            let snapshot = try #require(parser.snapshot, "no snapshot after \(prefix.debugDescription)")
            #expect(try GeneratedContent(json: prefix) == snapshot, "after \(prefix.debugDescription)")
        }
        let cut = try GeneratedContent(json: #"{"text": "\"\ud83d\"#)
        #expect(!cut.isComplete)
        #expect(try cut.value(String.self, forProperty: "text") == "\"")
        #expect(try parser.finish() == GeneratedContent(json: document))
        #expect(try GeneratedContent(json: document).value(String.self, forProperty: "text") == "\"😀2\"")
    }

    /// Found by scripts/fuzz.sh (partialjson) in CI: `JSONValue`'s object equality looked each key up
    /// with `first(where:)`, so an object with a duplicate key (kept as written) compared its second
    /// value with the first and was not equal to itself. Members now match as a multiset.
    @Test func anObjectWithADuplicateKeyEqualsItself() throws {
        let text = #"{"required": ["a", "b"], "x": 1, "required": []}"#
        let value = try JSONParser.parse(Array(text.utf8))
        #expect(value == value)
        #expect(value == (try JSONParser.parse(Array(text.utf8))))
        let swapped = try JSONParser.parse(Array(#"{"x": 1, "required": [], "required": ["a", "b"]}"#.utf8))
        #expect(value == swapped)
        let other = try JSONParser.parse(Array(#"{"required": ["a", "b"], "x": 1, "required": ["a", "b"]}"#.utf8))
        #expect(value != other)
        #expect(other != value)
    }

    /// Found by scripts/fuzz.sh (partialjson): invalid UTF-8 was an error at the offset where the bytes
    /// happened to be decoded (the end of a piece, an escape, the closing quote), so the same text gave
    /// 21 in pieces and 23 whole. It is now an error at the byte that cannot follow, however it is cut.
    static let invalidUTF8: [([UInt8], Int)] = [
        (Array(#"{"text": "92.5"#.utf8) + [0xDE, 0xD3, 0xDF, 0xD8] + Array(#"valid": false}"#.utf8), 15),
        ([0x22, 0xC0, 0x80, 0x22], 1),  // overlong
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 2),  // a surrogate
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 2),  // past U+10FFFF
        ([0x22, 0xE2, 0x98, 0x22], 3),  // cut by the closing quote
    ]

    @Test(arguments: invalidUTF8)
    func invalidUTF8IsAnErrorAtItsByte(bytes: [UInt8], offset: Int) {
        // Swift's own validator refuses these bytes too.
        #expect(String(validating: bytes.dropFirst().dropLast(), as: UTF8.self) == nil)
        let expected = JSONParser.Failure(message: "invalid UTF-8 in string", offset: offset)
        #expect(throws: expected) { try JSONParser.parse(bytes) }
        for piece in 1...4 {
            var parser = JSONStreamParser<JSONValue.Builder>()
            for start in stride(from: 0, to: bytes.count, by: piece) {
                parser.append(bytes: bytes[start..<min(start + piece, bytes.count)])
            }
            do {
                _ = try parser.finish()
                Issue.record("in pieces of \(piece): no error")
            } catch {
                #expect(error == expected, "in pieces of \(piece)")
            }
        }
    }
}
