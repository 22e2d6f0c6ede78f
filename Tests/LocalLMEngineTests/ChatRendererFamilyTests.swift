import Foundation
import LocalLMEngine
import LocalLMGrammar
import LocalLMJinja
import LocalLMTestSupport
import Testing

/// Each tool-call family's real template: the family is detected from the source, a history with a
/// call, its output and an answer renders byte for byte as Python jinja2 renders it
/// (scripts/goldens/tool_format_goldens.py), and a call in the family's own form is constrained by
/// its grammar and read back by its parser.
@Suite struct ChatRendererFamilyTests {
    static let families: [(template: String, family: ToolCallFormat.Family)] = [
        ("Qwen-Qwen2.5-7B-Instruct.jinja", .hermes),
        ("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", .hermes),
        ("meta-llama-Llama-3.1-8B-Instruct.jinja", .llama3),
        ("meta-llama-Llama-3.3-70B-Instruct.jinja", .llama3),
        ("Mistral-Small-3.2-24B-Instruct-2506.jinja", .mistral),
        ("ibm-granite-granite-3.3-2B-Instruct.jinja", .toolCallToken),
        ("LFM2-8B-A1B.jinja", .lfm2),
        ("microsoft-Phi-4-mini-instruct.jinja", .phi4Mini),
        ("google-gemma-2-2b-it.jinja", .generic),
    ]

    static func source(_ template: String) throws -> String {
        String(decoding: try Fixtures.data("templates/" + template), as: UTF8.self)
    }

    static func goldens() throws -> JSONValue {
        try JSONValue(parsing: String(decoding: try Fixtures.data("templates/tool-formats.json"), as: UTF8.self))
    }

    /// The fixture's conversation as engine messages and tools.
    static func conversation(_ document: JSONValue) throws -> ([ChatMessage], [ChatTool]) {
        let conversation = try #require(document["conversation"])
        let messages = try #require(conversation["messages"]?.arrayValue).map { m -> ChatMessage in
            let calls = (m["tool_calls"]?.arrayValue ?? []).map { c in
                ChatToolCall(
                    id: c["id"]?.stringValue ?? "", name: c["function"]?["name"]?.stringValue ?? "",
                    arguments: c["function"]?["arguments"] ?? .object([]))
            }
            return ChatMessage(
                role: ChatMessage.Role(rawValue: m["role"]?.stringValue ?? "") ?? .user, content: m["content"]?.stringValue ?? "",
                toolCalls: calls, toolCallID: m["tool_call_id"]?.stringValue, name: m["name"]?.stringValue)
        }
        let tools = try #require(conversation["tools"]?.arrayValue).map { t in
            ChatTool(
                name: t["function"]?["name"]?.stringValue ?? "", description: t["function"]?["description"]?.stringValue ?? "",
                parameters: t["function"]?["parameters"] ?? .object([]))
        }
        return (messages, tools)
    }

    @Test(arguments: families)
    func theFamilyComesFromTheTemplate(template: String, family: ToolCallFormat.Family) throws {
        #expect(ToolCallFormat(templateSource: try Self.source(template)).family == family)
    }

    /// The history as jinja2 renders it (the goldens' Python side writes what a template that does
    /// not render tools or calls gets as text); where the fixture has it, the same history without
    /// its system message too (Phi-4-mini and the generic format place the tool list differently).
    @Test(arguments: families)
    func aToolHistoryRendersAsJinja2RendersIt(template: String, family: ToolCallFormat.Family) throws {
        let document = try Self.goldens()
        let (messages, tools) = try Self.conversation(document)
        let renderer = ChatRenderer(template: try ChatTemplate(source: try Self.source(template)), bosToken: "<s>", eosToken: "</s>")
        #expect(renderer.templateTakesTools == (family != .generic))
        for (key, history) in [(template, messages), (template + "#no-system", Array(messages.dropFirst()))] {
            guard let expected = document["cases"]?[key] else {
                #expect(key != template, "no golden for \(key)")
                continue
            }
            if let output = expected["output"]?.stringValue {
                #expect(try renderer.render(history, tools: tools) == output, "\(key)")
            } else {
                #expect(throws: EngineError.self, "\(key)") { try renderer.render(history, tools: tools) }
            }
        }
    }

    /// Phi-4-mini's template takes the tool list only on a system message (with none in the
    /// conversation, one with the model card's text goes first: the `#no-system` golden); without
    /// tools it renders its tool-less form.
    @Test func phi4MiniTakesTheToolListOnTheSystemMessage() throws {
        let (messages, _) = try Self.conversation(try Self.goldens())
        #expect(messages.first?.role == .system)
        let source = try Self.source("microsoft-Phi-4-mini-instruct.jinja")
        let renderer = ChatRenderer(template: try ChatTemplate(source: source), bosToken: "<s>", eosToken: "</s>")
        #expect(renderer.templateTakesSystemToolList)
        #expect(try !renderer.render(Array(messages.prefix(2))).contains("<|tool|>"))
    }

    /// The family's own form of a call, as ``ToolCallFormat/render(calls:)`` writes it, is what its
    /// grammars take (from the opener's first byte), and parses back to the same call; a call of a
    /// tool not offered is refused.
    @Test(arguments: ToolCallFormat.Family.allCases)
    func aCallInTheFamilysFormIsConstrainedAndParsed(family: ToolCallFormat.Family) throws {
        let format = ToolCallFormat(family: family)
        let weather = ChatTool(
            name: "get_weather", description: "Weather",
            parameters: try JSONValue(parsing: #"{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":7}},"required":["city","days"],"additionalProperties":false}"#))
        let call = ChatToolCall(id: "1", name: "get_weather", arguments: .object([("city", .string("Oslo")), ("days", .number("3"))]))
        let text = format.render(calls: [call])
        func accepts(_ kind: ToolCallFormat.CallGrammar, _ text: String) throws -> Bool {
            var matcher = GrammarMatcher(try CompiledGrammar(try format.grammar(for: [weather], kind)))
            return matcher.accept(bytes: Array(text.utf8)) && matcher.canTerminate
        }
        #expect(try accepts(.one, text))
        #expect(try accepts(.required, text))
        #expect(try !accepts(.required, text + "\n" + text))
        #expect(try accepts(.more, "") && accepts(.more, text + "\n" + text))
        let parsed = try format.parseCalls(text)
        #expect(parsed.map(\.name) == ["get_weather"])
        #expect(parsed.first?.arguments == call.arguments)
        let unknown = format.render(calls: [ChatToolCall(id: "2", name: "delete_all", arguments: .object([]))])
        #expect(try !accepts(.one, unknown))
        let outOfRange = format.render(calls: [ChatToolCall(id: "3", name: "get_weather", arguments: .object([("city", .string("Oslo")), ("days", .number("9"))]))])
        #expect(try !accepts(.one, outOfRange))
        // A bare call at the turn's start (what small models write) is one of the lazy grammar's forms.
        if family != .generic {
            let bare = #"{"name": "get_weather", "\#(format.argumentsKey)": {"city": "Oslo", "days": 3}}"#
            #expect(try accepts(.one, bare) && accepts(.one, "```json\n" + bare + "\n```"))
            #expect(format.startTriggers.contains { bare.hasPrefix($0) })
            // Several calls in one reply as real models write them (QwenToolCallingTests): a JSON
            // list of calls, bare or fenced, and call objects one after another in one fence.
            let paris = bare.replacingOccurrences(of: "Oslo", with: "Paris")
            let several = [
                "[" + bare + ", " + paris + "]", "```json\n[\n  " + bare + ",\n  " + paris + "\n]\n```",
                "```json\n" + bare + "\n" + paris + "\n```", "```json\n" + bare + ",\n" + paris + "\n```",
            ]
            for text in several {
                #expect(try accepts(.one, text), "\(text)")
                #expect(format.startTriggers.contains { text.hasPrefix($0) }, "\(text)")
                #expect(try format.parseCalls(text).compactMap { $0.arguments["city"]?.stringValue } == ["Oslo", "Paris"])
            }
            let unknownSecond = bare.replacingOccurrences(of: "get_weather", with: "delete_all")
            #expect(try !accepts(.one, "[" + bare + ", " + unknownSecond + "]"))
            #expect(try !accepts(.one, "```json\n" + bare + "\n" + unknownSecond + "\n```"))
            // With calls disallowed, a list of objects at the turn's start is masked like an object.
            #expect(format.disallowedStartTriggers.contains { "[\n  {".hasPrefix($0) })
        }
    }
}
