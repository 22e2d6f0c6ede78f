import Foundation
import LocalLMGrammar
import LocalLMTestSupport
import Testing

/// `locallm generate` with `--json-schema`, `--grammar` and `--regex`, run as a child process:
/// stdout is exactly the constrained output; bad grammars are one typed message with a position
/// and status 1, never a crash.
@Suite(.serialized) struct GenerateCommandGrammarTests {
    static func file(_ text: String, _ ext: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("grammar-\(UUID()).\(ext)")
        try Data(text.utf8).write(to: url)
        return url
    }

    static func generate(_ extra: [String], prompt: String, maxTokens: Int = 48) throws -> CommandLineTool.Run {
        let model = try TestModels.require(TestModels.smolLM2).path
        return try CommandLineTool.run(["generate", "--model", model, "--prompt", prompt, "--max-tokens", "\(maxTokens)",
                                        "--seed", "7", "--threads", "2"] + extra)
    }

    @Test func jsonSchemaOutputIsExactlyAValidDocument() throws {
        let schema = #"{"type":"object","properties":{"name":{"type":"string","maxLength":12},"score":{"type":"number","minimum":0.5,"maximum":2.25}},"required":["name","score"],"additionalProperties":false}"#
        let url = try Self.file(schema, "json")
        defer { try? FileManager.default.removeItem(at: url) }
        let run = try Self.generate(["--json-schema", url.path], prompt: "Give a player's name and score as JSON.")
        #expect(run.exited && run.status == 0, "\(run.stderr)")
        // The whole of stdout, no added newline, is one document of the schema.
        let doc = try JSONValue(parsing: run.stdout)
        #expect(JSONSchemaValidator(root: try JSONValue(parsing: schema)).isValid(doc), "\(run.stdout)")
        var matcher = GrammarMatcher(try CompiledGrammar(jsonSchema: schema))
        #expect(matcher.accept(bytes: Array(run.stdout.utf8)) && matcher.canTerminate, "\(run.stdout)")
    }

    @Test func gbnfAndRegexOutputsMatch() throws {
        let gbnf = try Self.file("# an answer\nroot ::= answer \"!\"\nanswer ::= \"yes\" | \"no\" | \"maybe\"\n", "gbnf")
        defer { try? FileManager.default.removeItem(at: gbnf) }
        let answer = try Self.generate(["--grammar", gbnf.path], prompt: "Is the sky blue?", maxTokens: 8)
        #expect(answer.exited && answer.status == 0, "\(answer.stderr)")
        #expect(["yes!", "no!", "maybe!"].contains(answer.stdout), "\(answer.stdout)")

        let pattern = "[A-Z][a-z]{2,7} [0-9]{1,3}"
        let named = try Self.generate(["--regex", pattern], prompt: "Name a city and a number.", maxTokens: 16)
        #expect(named.exited && named.status == 0, "\(named.stderr)")
        #expect(named.stdout.range(of: "^" + pattern + "$", options: .regularExpression) != nil, "\(named.stdout)")
    }

    /// Streamed output is the same text as `--json` reports, including the detokenizer's last bytes
    /// when generation stops inside a character: after this raw prompt SmolLM2's first greedy token is
    /// a lone byte of a multi-byte character, shown as U+FFFD, which only the final flush emits.
    @Test func streamedTextEqualsTheJSONText() throws {
        let extra = ["--raw", "--temperature", "0"]
        let streamed = try Self.generate(extra, prompt: "日本語の文章：東京", maxTokens: 1)
        let json = try Self.generate(extra + ["--json"], prompt: "日本語の文章：東京", maxTokens: 1)
        #expect(streamed.exited && streamed.status == 0 && json.exited && json.status == 0, "\(streamed.stderr)\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let text = try #require(object?["text"] as? String)
        #expect(!text.isEmpty)
        #expect(streamed.stdout == text + "\n", "\(Array(streamed.stdout.utf8)) vs \(Array(text.utf8))")
    }

    @Test func cutOutputIsReportedWithStatusTwo() throws {
        let run = try Self.generate(["--regex", "[a-z]{20,30}"], prompt: "Write a long word.", maxTokens: 2)
        #expect(run.exited && run.status == 2)
        #expect(run.stderr.contains("before the grammar was complete"), "\(run.stderr)")
    }

    struct BadGrammar: Sendable, CustomTestStringConvertible {
        let option: String
        let text: String
        let ext: String
        let message: String
        var testDescription: String { "\(option) \(message)" }
    }

    static let badGrammars: [BadGrammar] = [
        BadGrammar(option: "--grammar", text: "root ::= item+\nitem ::= \"a\" | (\"b\"\n", ext: "gbnf", message: "GBNF error at 3:1: expected ')'"),
        BadGrammar(option: "--grammar", text: "root ::= undefined-rule\n", ext: "gbnf", message: "GBNF error at 1:"),
        BadGrammar(option: "--grammar", text: "root ::= [\\xZZ]", ext: "gbnf", message: "GBNF error at 1:"),
        BadGrammar(option: "--grammar", text: "\u{FF}\u{FE}", ext: "gbnf", message: "GBNF error at"),
        BadGrammar(option: "--json-schema", text: #"{"type":"object","properties":{"x":{"type":"strin"}}}"#, ext: "json",
                   message: "schema error at $.properties.x.type"),
        BadGrammar(option: "--json-schema", text: #"{"type":"array","uniqueItems":true}"#, ext: "json",
                   message: "unsupported JSON Schema feature 'uniqueItems' at $.uniqueItems"),
        BadGrammar(option: "--json-schema", text: #"{"type":"number","minimum":1e-300}"#, ext: "json",
                   message: "unsupported JSON Schema feature 'minimum with more than 64 decimal places' at $.minimum"),
        BadGrammar(option: "--json-schema", text: #"{"type": "object", "properties": "#, ext: "json", message: "schema error at"),
        BadGrammar(option: "--regex", text: "[z-a]", ext: "", message: "regex error at offset"),
        BadGrammar(option: "--regex", text: "(ab", ext: "", message: "regex error at offset"),
    ]

    @Test(arguments: badGrammars)
    func badGrammarsAreOneMessageAndStatusOne(_ bad: BadGrammar) throws {
        var value = bad.text
        var url: URL?
        if !bad.ext.isEmpty {
            url = try Self.file(bad.text, bad.ext)
            value = url!.path
        }
        defer { if let url { try? FileManager.default.removeItem(at: url) } }
        // The grammar is compiled before the model loads: a missing model file proves it.
        let run = try CommandLineTool.run(["generate", "--model", "/nonexistent.gguf", "--prompt", "x", bad.option, value])
        #expect(run.exited && run.status == 1, "status \(run.status)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(bad.message), "\(run.stderr)")
        #expect(run.stderr.contains(bad.ext.isEmpty ? "--regex" : value), "\(run.stderr)")
    }

    @Test func missingFileAndTwoGrammarsAreRefused() throws {
        let missing = try CommandLineTool.run(["generate", "--model", "/nonexistent.gguf", "--prompt", "x", "--grammar", "/nonexistent.gbnf"])
        #expect(missing.exited && missing.status == 1 && missing.stderr.contains("/nonexistent.gbnf: cannot read"), "\(missing.stderr)")
        let two = try CommandLineTool.run(["generate", "--model", "/nonexistent.gguf", "--prompt", "x", "--regex", "a", "--grammar", "g.gbnf"])
        #expect(two.exited && two.status != 0 && two.stderr.contains("at most one of"), "\(two.stderr)")
    }
}
