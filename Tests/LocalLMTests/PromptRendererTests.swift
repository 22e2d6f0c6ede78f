import Foundation
@testable import LocalLM
import LocalLMEngine
import LocalLMGGUF
import LocalLMGrammar
import LocalLMTestSupport
import LocalLMJinja
import LocalLMTokenizers
import Testing

@Suite("Prompt rendering and the tool-call grammar")
struct PromptRendererTests {
    static func smolTemplate() throws -> ChatTemplate {
        let file = try GGUFFile(contentsOf: try TestModels.require(TestModels.smolLM2))
        let source = try #require(try file.metadata.string("tokenizer.chat_template"))
        return try ChatTemplate(source: source)
    }

    static let weather = Transcript.ToolDefinition(tool: WeatherTool(log: CallLog()))

    @Test func smolLM2UsesChatMLWithTheHermesFallback() throws {
        let renderer = ChatRenderer(template: try Self.smolTemplate())
        #expect(!renderer.templateTakesTools)
        let call = Transcript.ToolCall(id: "c1", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Oslo"]))
        let transcript = Transcript(entries: [
            .instructions(Transcript.Instructions(segments: [.text(.init(content: "Be brief."))], toolDefinitions: [Self.weather])),
            .prompt(Transcript.Prompt(segments: [.text(.init(content: "Weather in Oslo?"))])),
            .toolCalls(Transcript.ToolCalls([call])),
            .toolOutput(Transcript.ToolOutput(id: "c1", toolName: "getWeather", segments: [.text(.init(content: "Cold."))])),
        ])
        let text = try renderer.render(transcript.chatMessages(), tools: transcript.chatTools)
        let system = renderer.textMessages(transcript.chatMessages(), tools: transcript.chatTools)[0].content
        let expected =
            "<|im_start|>system\n\(system)<|im_end|>\n"
            + "<|im_start|>user\nWeather in Oslo?<|im_end|>\n"
            + "<|im_start|>assistant\n<tool_call>\n{\"name\": \"getWeather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call><|im_end|>\n"
            + "<|im_start|>user\n<tool_response>\nCold.\n</tool_response><|im_end|>\n"
            + "<|im_start|>assistant\n"
        #expect(text == expected)
    }

    @Test func aTemplateThatTakesToolsRendersThem() throws {
        let source = """
            {%- if tools %}TOOLS:{% for t in tools %}{{ t.function.name }}{% endfor %}|{% endif -%}
            {%- for m in messages %}[{{ m.role }}]{% if m.tool_calls %}{% for c in m.tool_calls %}call {{ c.function.name }} {{ c.function.arguments | tojson }}{% endfor %}{% else %}{{ m.content }}{% endif %}{% if m.tool_call_id %}({{ m.tool_call_id }}){% endif %}{% endfor -%}
            {%- if add_generation_prompt %}[assistant]{% endif %}
            """
        let renderer = ChatRenderer(template: try ChatTemplate(source: source))
        #expect(renderer.templateTakesTools)
        let call = Transcript.ToolCall(id: "c1", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Oslo"]))
        let transcript = Transcript(entries: [
            .instructions(Transcript.Instructions(segments: [.text(.init(content: "Hi."))], toolDefinitions: [Self.weather])),
            .prompt(Transcript.Prompt(segments: [.text(.init(content: "Q"))])),
            .toolCalls(Transcript.ToolCalls([call])),
            .toolOutput(Transcript.ToolOutput(id: "c1", toolName: "getWeather", segments: [.text(.init(content: "Cold."))])),
        ])
        #expect(
            try renderer.render(transcript.chatMessages(), tools: transcript.chatTools)
                == #"TOOLS:getWeather|[system]Hi.[user]Q[assistant]call getWeather {"city": "Oslo"}[tool]Cold.(c1)[assistant]"#)
    }

    @Test func toolCallGrammarAdmitsOnlyRegisteredToolsWithTheirArguments() throws {
        let search = Transcript.ToolDefinition(
            name: "searchRecords", description: "Searches records",
            parameters: GenerationSchema(
                type: CityArguments.self,
                properties: [
                    .init(name: "genre", type: String.self, guides: [.anyOf(["rock", "jazz"])]),
                    .init(name: "limit", type: Int.self, guides: [.range(1...5)]),
                ]))
        let grammar = try CompiledGrammar(jsonSchema: ToolCallFormat.hermes.callSchema(for: [Self.weather.chatTool, search.chatTool]))
        func accepts(_ text: String) -> Bool {
            var matcher = GrammarMatcher(grammar)
            return matcher.accept(bytes: Array(text.utf8)) && matcher.canTerminate
        }
        #expect(accepts(#"{"name":"getWeather","arguments":{"city":"Oslo"}}"#))
        #expect(accepts(#"{"name":"searchRecords","arguments":{"genre":"jazz","limit":3}}"#))
        #expect(!accepts(#"{"name":"getWeather","arguments":{"genre":"jazz","limit":3}}"#))
        #expect(!accepts(#"{"name":"searchRecords","arguments":{"genre":"pop","limit":3}}"#))
        #expect(!accepts(#"{"name":"searchRecords","arguments":{"genre":"jazz","limit":9}}"#))
        #expect(!accepts(#"{"name":"deleteEverything","arguments":{}}"#))
    }
}
