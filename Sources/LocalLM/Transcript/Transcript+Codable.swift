import Foundation

// Transcripts encode to the JSON Apple's FoundationModels writes, so files move between the two:
//
//   {"type": "FoundationModels.Transcript", "version": 1,
//    "transcript": {"entries": [
//      {"role": "instructions", "id": …, "contents": [segment…], "tools": [{"type": "function",
//         "function": {"name": …, "description": …, "parameters": JSON Schema}}]},
//      {"role": "user", "id": …, "contents": […], "options": {…}, "responseFormat":
//         {"type": "jsonSchema", "jsonSchema": {"name": …, "schema": JSON Schema}}},
//      {"role": "response", "id": …, "toolCalls": [{"id": …, "name": …, "arguments": "<JSON text>"}]},
//      {"role": "tool", "id": …, "toolName": …, "toolCallID": …, "contents": […]},
//      {"role": "response", "id": …, "contents": […], "assets": [asset id…]},
//      {"role": "reasoning", "id": …, "contents": […]}]}}
//
//   segment: {"type": "text", "id": …, "text": …}
//          | {"type": "structure", "id": …, "structure": {"source": …, "content": JSON value}}
//
// "version" is 1 in older files and "1.1" in newer ones; both decode.

extension Transcript: Codable {
    private enum TopKeys: String, CodingKey { case type, version, transcript }
    private enum BodyKeys: String, CodingKey { case entries }
    private static let typeName = "FoundationModels.Transcript"

    public func encode(to encoder: any Encoder) throws {
        var top = encoder.container(keyedBy: TopKeys.self)
        try top.encode(Self.typeName, forKey: .type)
        try top.encode(1, forKey: .version)
        var body = top.nestedContainer(keyedBy: BodyKeys.self, forKey: .transcript)
        try body.encode(entries.map(EntryJSON.init), forKey: .entries)
    }

    public init(from decoder: any Decoder) throws {
        let top = try decoder.container(keyedBy: TopKeys.self)
        let type = try top.decode(String.self, forKey: .type)
        guard type == Self.typeName else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: top, debugDescription: "expected type '\(Self.typeName)', found '\(type)'")
        }
        let version: String =
            if let number = try? top.decode(Int.self, forKey: .version) { String(number) } else {
                try top.decode(String.self, forKey: .version)
            }
        guard version == "1" || version.hasPrefix("1.") else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: top, debugDescription: "unsupported transcript version \(version)")
        }
        let body = try top.nestedContainer(keyedBy: BodyKeys.self, forKey: .transcript)
        var decoded = try body.decode([EntryJSON].self, forKey: .entries).map(\.entry)
        Self.restoreKeyOrder(&decoded)
        self.init(entries: decoded)
    }

    /// Puts structured content keys back in schema order (decoders lose object key order): a
    /// response follows the response format of the prompt before it.
    private static func restoreKeyOrder(_ entries: inout [Entry]) {
        var format: GenerationSchema?
        for index in entries.indices {
            switch entries[index] {
            case .prompt(let prompt):
                format = prompt.responseFormat?.schema
            case .response(var response):
                guard let schema = format?.jsonSchema else { continue }
                response.segments = response.segments.map { segment in
                    guard case .structure(var structure) = segment else { return segment }
                    structure.content = JSONContent.ordered(structure.content, by: schema)
                    return .structure(structure)
                }
                entries[index] = .response(response)
            default:
                continue
            }
        }
    }
}

/// One entry in Apple's JSON shape.
private struct EntryJSON: Codable {
    let entry: Transcript.Entry

    init(_ entry: Transcript.Entry) {
        self.entry = entry
    }

    private enum Keys: String, CodingKey {
        case role, id, contents, tools, options, responseFormat, toolCalls, assets, toolName, toolCallID
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(entry.id, forKey: .id)
        switch entry {
        case .instructions(let instructions):
            try container.encode("instructions", forKey: .role)
            try container.encode(instructions.segments.map(SegmentJSON.init), forKey: .contents)
            if !instructions.toolDefinitions.isEmpty {
                try container.encode(instructions.toolDefinitions.map(ToolJSON.init), forKey: .tools)
            }
        case .prompt(let prompt):
            try container.encode("user", forKey: .role)
            try container.encode(prompt.segments.map(SegmentJSON.init), forKey: .contents)
            try container.encode(prompt.options, forKey: .options)
            if let format = prompt.responseFormat {
                try container.encode(ResponseFormatJSON(format), forKey: .responseFormat)
            }
        case .toolCalls(let calls):
            try container.encode("response", forKey: .role)
            try container.encode(calls.map(ToolCallJSON.init), forKey: .toolCalls)
        case .toolOutput(let output):
            try container.encode("tool", forKey: .role)
            try container.encode(output.toolName, forKey: .toolName)
            try container.encode(output.id, forKey: .toolCallID)
            try container.encode(output.segments.map(SegmentJSON.init), forKey: .contents)
        case .response(let response):
            try container.encode("response", forKey: .role)
            try container.encode(response.segments.map(SegmentJSON.init), forKey: .contents)
            try container.encode(response.assetIDs, forKey: .assets)
        case .reasoning(let reasoning):
            try container.encode("reasoning", forKey: .role)
            try container.encode(reasoning.segments.map(SegmentJSON.init), forKey: .contents)
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let role = try container.decode(String.self, forKey: .role)
        let id = try container.decode(String.self, forKey: .id)
        func segments() throws -> [Transcript.Segment] {
            try container.decodeIfPresent([SegmentJSON].self, forKey: .contents)?.map(\.segment) ?? []
        }
        switch role {
        case "instructions":
            let tools = try container.decodeIfPresent([ToolJSON].self, forKey: .tools)?.map(\.definition) ?? []
            entry = .instructions(Transcript.Instructions(id: id, segments: try segments(), toolDefinitions: tools))
        case "user":
            entry = .prompt(
                Transcript.Prompt(
                    id: id, segments: try segments(),
                    options: try container.decodeIfPresent(GenerationOptions.self, forKey: .options) ?? GenerationOptions(),
                    responseFormat: try container.decodeIfPresent(ResponseFormatJSON.self, forKey: .responseFormat)?.format))
        case "response":
            if let calls = try container.decodeIfPresent([ToolCallJSON].self, forKey: .toolCalls), !calls.isEmpty {
                entry = .toolCalls(Transcript.ToolCalls(id: id, calls.map(\.call)))
            } else {
                entry = .response(
                    Transcript.Response(
                        id: id, assetIDs: try container.decodeIfPresent([String].self, forKey: .assets) ?? [],
                        segments: try segments()))
            }
        case "tool":
            let callID = try container.decodeIfPresent(String.self, forKey: .toolCallID) ?? id
            entry = .toolOutput(
                Transcript.ToolOutput(
                    id: callID, toolName: try container.decode(String.self, forKey: .toolName), segments: try segments()))
        case "reasoning":
            entry = .reasoning(Transcript.Reasoning(id: id, segments: try segments()))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .role, in: container, debugDescription: "unknown transcript entry role '\(role)'")
        }
    }
}

private struct SegmentJSON: Codable {
    let segment: Transcript.Segment

    init(_ segment: Transcript.Segment) {
        self.segment = segment
    }

    private enum Keys: String, CodingKey { case type, id, text, structure }
    private enum StructureKeys: String, CodingKey { case source, content }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        switch segment {
        case .text(let text):
            try container.encode("text", forKey: .type)
            try container.encode(text.id, forKey: .id)
            try container.encode(text.content, forKey: .text)
        case .structure(let structure):
            try container.encode("structure", forKey: .type)
            try container.encode(structure.id, forKey: .id)
            var nested = container.nestedContainer(keyedBy: StructureKeys.self, forKey: .structure)
            try nested.encode(structure.source, forKey: .source)
            try nested.encode(JSONContent(structure.content), forKey: .content)
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let type = try container.decode(String.self, forKey: .type)
        let id = try container.decodeIfPresent(String.self, forKey: .id) ?? UUID().uuidString
        switch type {
        case "text":
            segment = .text(Transcript.TextSegment(id: id, content: try container.decode(String.self, forKey: .text)))
        case "structure":
            let nested = try container.nestedContainer(keyedBy: StructureKeys.self, forKey: .structure)
            segment = .structure(
                Transcript.StructuredSegment(
                    id: id, source: try nested.decode(String.self, forKey: .source),
                    content: try nested.decode(JSONContent.self, forKey: .content).content))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown segment type '\(type)'")
        }
    }
}

private struct ToolJSON: Codable {
    let definition: Transcript.ToolDefinition

    init(_ definition: Transcript.ToolDefinition) {
        self.definition = definition
    }

    private enum Keys: String, CodingKey { case type, function }
    private enum FunctionKeys: String, CodingKey { case name, description, parameters }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode("function", forKey: .type)
        var function = container.nestedContainer(keyedBy: FunctionKeys.self, forKey: .function)
        try function.encode(definition.name, forKey: .name)
        try function.encode(definition.description, forKey: .description)
        try function.encode(definition.parameters, forKey: .parameters)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let function = try container.nestedContainer(keyedBy: FunctionKeys.self, forKey: .function)
        definition = Transcript.ToolDefinition(
            name: try function.decode(String.self, forKey: .name),
            description: try function.decodeIfPresent(String.self, forKey: .description) ?? "",
            parameters: try function.decode(GenerationSchema.self, forKey: .parameters))
    }
}

private struct ToolCallJSON: Codable {
    let call: Transcript.ToolCall

    init(_ call: Transcript.ToolCall) {
        self.call = call
    }

    private enum Keys: String, CodingKey { case id, name, arguments }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(call.toolName, forKey: .name)
        // Arguments are JSON text, as Apple writes them; text keeps the key order.
        try container.encode(call.arguments.jsonString, forKey: .arguments)
        try container.encode(call.id, forKey: .id)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let text = try container.decode(String.self, forKey: .arguments)
        let arguments: GeneratedContent
        do {
            arguments = try GeneratedContent(json: text)
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: .arguments, in: container, debugDescription: "tool call arguments are not JSON: \(error)")
        }
        call = Transcript.ToolCall(
            id: try container.decode(String.self, forKey: .id), toolName: try container.decode(String.self, forKey: .name),
            arguments: arguments)
    }
}

private struct ResponseFormatJSON: Codable {
    let format: Transcript.ResponseFormat

    init(_ format: Transcript.ResponseFormat) {
        self.format = format
    }

    private enum Keys: String, CodingKey { case type, jsonSchema }
    private enum SchemaKeys: String, CodingKey { case name, schema }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode("jsonSchema", forKey: .type)
        var nested = container.nestedContainer(keyedBy: SchemaKeys.self, forKey: .jsonSchema)
        try nested.encode(format.schema, forKey: .schema)
        try nested.encode(format.name, forKey: .name)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let nested = try container.nestedContainer(keyedBy: SchemaKeys.self, forKey: .jsonSchema)
        let schema = try nested.decode(GenerationSchema.self, forKey: .schema)
        format = Transcript.ResponseFormat(name: try nested.decode(String.self, forKey: .name), schema: schema)
    }
}
