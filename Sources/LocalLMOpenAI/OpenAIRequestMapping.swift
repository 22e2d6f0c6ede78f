import Foundation
import LocalLM
import LocalLMJSON
import LocalLMOpenAIWire

/// A transcript and its options as a chat-completions request.
enum OpenAIRequestMapping {
    static func chatRequest(
        for request: LanguageModelExecutorGenerationRequest, model: String, dialect: OpenAILanguageModel.Dialect
    ) throws -> ChatCompletionRequest {
        var messages: [ChatCompletionMessage] = []
        var tools: [ChatCompletionTool] = []
        for entry in request.transcript {
            switch entry {
            case .instructions(let instructions):
                let text = instructions.segments.renderedText
                if !text.isEmpty { messages.append(ChatCompletionMessage(role: "system", content: text)) }
                for definition in instructions.toolDefinitions {
                    tools.append(ChatCompletionTool(
                        name: definition.name, description: definition.description,
                        parameters: try json(definition.parameters.jsonSchema)))
                }
            case .prompt(let prompt):
                messages.append(ChatCompletionMessage(role: "user", content: prompt.segments.renderedText))
            case .response(let response):
                messages.append(ChatCompletionMessage(role: "assistant", content: response.segments.renderedText))
            case .toolCalls(let calls):
                messages.append(ChatCompletionMessage(
                    role: "assistant", content: dialect.emptyContentWithToolCalls ? "" : nil,
                    toolCalls: calls.map { ToolCall(id: $0.id, name: $0.toolName, arguments: $0.arguments.jsonString) }))
            case .toolOutput(let output):
                messages.append(ChatCompletionMessage(
                    role: "tool", content: output.segments.renderedText, toolCallID: output.id, name: output.toolName))
            case .reasoning:
                // Reasoning is the model's own scratch text; chat-completions endpoints do not take it back.
                continue
            }
        }

        var body = ChatCompletionRequest(model: model, messages: messages)
        body.stream = true
        body.streamOptions = StreamOptions(includeUsage: true)
        let options = request.generationOptions
        body.temperature = options.temperature
        body.maxTokens = options.maximumResponseTokens
        switch options.samplingMode?.kind {
        case .greedy?:
            body.temperature = 0
        case .nucleus(let p)?:
            body.topP = p
        case .topK?, nil:
            // top-k is not part of the chat-completions API; the endpoint's default applies.
            break
        }
        if let seed = options.samplingMode?.seed { body.seed = Int(truncatingIfNeeded: seed) }
        if !tools.isEmpty && request.schema == nil {
            body.tools = tools
            switch options.toolCallingMode {
            case .required?:
                // One tool that must be called is the same request as that tool named, which every
                // server understands (llama-cpp-python's knows no "required").
                body.toolChoice = tools.count == 1 ? .function(tools[0].function.name) : .required
            case .disallowed?: body.toolChoice = ToolChoice.none
            default: body.toolChoice = .auto
            }
        }
        if let schema = request.schema {
            switch dialect.schemaStyle {
            case .jsonSchema:
                body.responseFormat = ResponseFormat(
                    type: "json_schema",
                    jsonSchema: .init(name: schemaName(request), schema: try json(schema.jsonSchema), strict: true))
            case .jsonObjectWithSchema:
                body.responseFormat = ResponseFormat(type: "json_object", schema: try json(schema.jsonSchema))
            }
        }
        return body
    }

    /// A response format's name must match `^[a-zA-Z0-9_-]{1,64}$` at OpenAI.
    static func schemaName(_ request: LanguageModelExecutorGenerationRequest) -> String {
        let title = request.schema?.schemaName ?? "response"
        let cleaned = String(title.unicodeScalars.map { scalar in
            CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII || scalar == "_" || scalar == "-" ? Character(scalar) : "_"
        }.prefix(64))
        return cleaned.isEmpty ? "response" : cleaned
    }

    private static func json(_ content: GeneratedContent) throws -> JSONValue {
        try JSONParser.parse(content.jsonString)
    }
}
