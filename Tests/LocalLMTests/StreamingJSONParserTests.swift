import Testing

@testable import LocalLM

/// The streaming parser behind structured streaming: the same snapshots as parsing each prefix whole,
/// for a fraction of the work.
@Suite struct StreamingJSONParserTests {
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

    /// What the session showed before: the whole prefix parsed, `.null` where that throws.
    static func reference(_ prefix: String) -> GeneratedContent {
        (try? GeneratedContent(json: prefix)) ?? GeneratedContent(kind: .null)
    }

    @Test(arguments: documents)
    func everyPrefixMatchesAWholeParse(document: String) {
        let characters = Array(document)
        var parser = StreamingJSONParser()
        var prefix = ""
        for character in characters {
            parser.append(String(character))
            prefix.append(character)
            // `GeneratedContent(json:)` reads a prefix cut between the halves of a surrogate pair
            // (`"\ud83d\`) as invalid; the streaming parser shows the string so far, as for any other
            // cut escape.
            if prefix.hasSuffix(#"\ud83d\"#) { continue }
            #expect(parser.content == Self.reference(prefix), "after \(prefix.debugDescription)")
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
                #expect(parser.content == Self.reference(prefix), "after \(prefix.debugDescription)")
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
}
