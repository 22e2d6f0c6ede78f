import Foundation

/// The Hermes tool-calling convention, for chat templates that do not take `tools` (plain ChatML,
/// as SmolLM2 has): tool definitions in a `<tools>` block of the system message, calls as
/// `<tool_call>{"name": …, "arguments": {…}}</tool_call>` in the assistant's reply, and outputs as
/// `<tool_response>` blocks in the next user message.
package enum HermesToolFormat {
    package static let callOpen = "<tool_call>"
    package static let callClose = "</tool_call>"

    /// The tool section of the system message.
    package static func systemBlock(for tools: [Transcript.ToolDefinition]) -> String {
        let definitions = tools.map { tool in
            let function = GeneratedContent(properties: [
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters.jsonSchema,
            ])
            return GeneratedContent(properties: ["type": "function", "function": function]).jsonString
        }
        return """
            # Tools

            You may call one or more functions to assist with the user query.

            You are provided with function signatures within <tools></tools> XML tags:
            <tools>
            \(definitions.joined(separator: "\n"))
            </tools>

            For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
            <tool_call>
            {"name": <function-name>, "arguments": <args-json-object>}
            </tool_call>
            """
    }

    /// An assistant message that makes these calls.
    package static func render(calls: [Transcript.ToolCall]) -> String {
        calls.map { call in
            let body = GeneratedContent(properties: ["name": call.toolName, "arguments": call.arguments])
            return "\(callOpen)\n\(body.jsonString)\n\(callClose)"
        }.joined(separator: "\n")
    }

    /// One tool output, as the user message that reports it holds it.
    package static func render(output: Transcript.ToolOutput) -> String {
        "<tool_response>\n\(output.segments.renderedText)\n</tool_response>"
    }

    /// A failure to read a tool call the model wrote.
    package struct ParseError: Error, CustomStringConvertible {
        package let description: String
    }

    /// The text before the first call and the calls of an assistant reply. Text without
    /// `<tool_call>` has no calls. The arguments must be a JSON object.
    package static func parse(_ text: String) throws -> (text: String, calls: [(name: String, arguments: GeneratedContent)]) {
        guard let first = text.range(of: callOpen) else { return (text, []) }
        var calls: [(name: String, arguments: GeneratedContent)] = []
        var rest = text[first.lowerBound...]
        while let open = rest.range(of: callOpen) {
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.range(of: callClose) else {
                throw ParseError(description: "tool call at offset \(text.distance(from: text.startIndex, to: open.lowerBound)) has no \(callClose)")
            }
            let body = afterOpen[..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
            let content: GeneratedContent
            do {
                content = try GeneratedContent(json: body)
            } catch {
                throw ParseError(description: "tool call is not JSON: \(error) in \(body)")
            }
            guard content.isComplete, case .structure(let properties, _) = content.kind else {
                throw ParseError(description: "tool call must be a complete JSON object: \(body)")
            }
            guard case .string(let name)? = properties["name"]?.kind else {
                throw ParseError(description: "tool call has no \"name\" string: \(body)")
            }
            let arguments = properties["arguments"] ?? GeneratedContent(properties: [:])
            guard case .structure = arguments.kind else {
                throw ParseError(description: "tool call arguments must be a JSON object: \(body)")
            }
            calls.append((name, arguments))
            rest = afterOpen[close.upperBound...]
        }
        return (String(text[..<first.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines), calls)
    }
}
