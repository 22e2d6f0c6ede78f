import Foundation
@testable import LocalLM
import LocalLMEngine
import LocalLMJSON
import LocalLMJinja
import Testing

@Suite("Hermes tool-call format")
struct HermesToolFormatTests {
    @Test func parsesSeveralCallsInOrder() throws {
        let text = """
            <tool_call>
            {"name": "getWeather", "arguments": {"city": "Boston"}}
            </tool_call>
            <tool_call>{"name": "getWeather", "arguments": {"city": "Wichita"}}</tool_call>
            """
        let calls = try ToolCallFormat.hermes.parseCalls(text)
        #expect(calls.map(\.name) == ["getWeather", "getWeather"])
        #expect(try calls.map { try GeneratedContent(jsonValue: $0.arguments).value(String.self, forProperty: "city") } == ["Boston", "Wichita"])
    }

    @Test func textWithoutCallsHasNone() throws {
        #expect(try ToolCallFormat.hermes.parseCalls("It is sunny.").isEmpty)
    }

    @Test(arguments: [
        "<tool_call>{\"name\": \"x\", \"arguments\": {}}",
        "<tool_call>not json</tool_call>",
        "<tool_call>{\"arguments\": {}}</tool_call>",
        "<tool_call>{\"name\": \"x\", \"arguments\": [1]}</tool_call>",
        "<tool_call>{\"name\": \"x\", \"arguments\": {\"a\": </tool_call>",
    ])
    func malformedCallsAreTypedErrors(text: String) {
        #expect(throws: ToolCallFormat.ParseError.self) { try ToolCallFormat.hermes.parseCalls(text) }
    }

    @Test func rendersARoundTrip() throws {
        let call = Transcript.ToolCall(id: "1", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Oslo"]))
        let rendered = ToolCallFormat.hermes.render(calls: [ChatToolCall(id: call.id, name: call.toolName, arguments: call.arguments.jsonValue)])
        #expect(rendered == "<tool_call>\n{\"name\": \"getWeather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>")
        let parsed = try ToolCallFormat.hermes.parseCalls(rendered)
        #expect(parsed.first?.name == "getWeather")
        #expect(parsed.first.map { GeneratedContent(jsonValue: $0.arguments) } == call.arguments)
    }

    @Test func messagesPutToolsInTheSystemTurnAndOutputsInAUserTurn() throws {
        let log = CallLog()
        let definition = Transcript.ToolDefinition(tool: WeatherTool(log: log))
        let call = Transcript.ToolCall(id: "c1", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Oslo"]))
        let transcript = Transcript(entries: [
            .instructions(Transcript.Instructions(segments: [.text(.init(content: "Be brief."))], toolDefinitions: [definition])),
            .prompt(Transcript.Prompt(segments: [.text(.init(content: "Weather in Oslo?"))])),
            .toolCalls(Transcript.ToolCalls([call])),
            .toolOutput(Transcript.ToolOutput(id: "c1", toolName: "getWeather", segments: [.text(.init(content: "Cold."))])),
        ])
        let renderer = ChatRenderer(template: ChatTemplate.chatML)
        let messages = renderer.textMessages(transcript.chatMessages(), tools: transcript.chatTools)
        #expect(messages.map(\.role) == [.system, .user, .assistant, .user])
        #expect(messages[0].content.hasPrefix("Be brief.\n\n# Tools"))
        #expect(messages[0].content.contains(#"{"type": "function", "function": {"name": "getWeather""#))
        // The schema as a caller writes it (ToolPromptSchemaTests), not its encoding for the grammar.
        #expect(messages[0].content.contains(
            #""parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "A city"}}, "required": ["city"]}}}"#))
        #expect(!messages[0].content.contains("x-order"))
        #expect(messages[2].content.hasPrefix("<tool_call>"))
        #expect(messages[3].content == "<tool_response>\nCold.\n</tool_response>")

        let native = transcript.chatMessages()
        #expect(native.map(\.role) == [.system, .user, .assistant, .tool])
        #expect(native[0].content == "Be brief.")
        #expect(native[2].toolCalls == [ChatToolCall(id: call.id, name: call.toolName, arguments: call.arguments.jsonValue)])
        #expect(native[3].toolCallID == "c1" && native[3].name == "getWeather")
    }
}
