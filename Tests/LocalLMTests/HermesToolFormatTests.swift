import Foundation
@testable import LocalLM
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
        let parsed = try HermesToolFormat.parse(text)
        #expect(parsed.text.isEmpty)
        #expect(parsed.calls.map(\.name) == ["getWeather", "getWeather"])
        #expect(try parsed.calls.map { try $0.arguments.value(String.self, forProperty: "city") } == ["Boston", "Wichita"])
    }

    @Test func textWithoutCallsHasNone() throws {
        let parsed = try HermesToolFormat.parse("It is sunny.")
        #expect(parsed.text == "It is sunny." && parsed.calls.isEmpty)
    }

    @Test(arguments: [
        "<tool_call>{\"name\": \"x\", \"arguments\": {}}",
        "<tool_call>not json</tool_call>",
        "<tool_call>{\"arguments\": {}}</tool_call>",
        "<tool_call>{\"name\": \"x\", \"arguments\": [1]}</tool_call>",
        "<tool_call>{\"name\": \"x\", \"arguments\": {\"a\": </tool_call>",
    ])
    func malformedCallsAreTypedErrors(text: String) {
        #expect(throws: HermesToolFormat.ParseError.self) { try HermesToolFormat.parse(text) }
    }

    @Test func rendersARoundTrip() throws {
        let call = Transcript.ToolCall(id: "1", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Oslo"]))
        let rendered = HermesToolFormat.render(calls: [call])
        #expect(rendered == "<tool_call>\n{\"name\": \"getWeather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>")
        let parsed = try HermesToolFormat.parse(rendered)
        #expect(parsed.calls.first?.name == "getWeather")
        #expect(parsed.calls.first?.arguments == call.arguments)
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
        let messages = ChatMessages.make(from: transcript, style: .hermes)
        #expect(messages.map(\.role) == [.system, .user, .assistant, .user])
        #expect(messages[0].content.hasPrefix("Be brief.\n\n# Tools"))
        #expect(messages[0].content.contains(#"{"type": "function", "function": {"name": "getWeather""#))
        #expect(messages[0].content.contains(#""x-order": ["city"]"#))
        #expect(messages[2].content.hasPrefix("<tool_call>"))
        #expect(messages[3].content == "<tool_response>\nCold.\n</tool_response>")

        let native = ChatMessages.make(from: transcript, style: .template)
        #expect(native.map(\.role) == [.system, .user, .assistant, .tool])
        #expect(native[0].content == "Be brief.")
        #expect(native[2].toolCalls == [call])
        #expect(native[3].toolCallID == "c1" && native[3].name == "getWeather")
    }
}
