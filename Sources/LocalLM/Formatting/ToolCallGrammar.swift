import Foundation
import LocalLMGrammar

/// The grammar of one tool call's JSON body, `{"name":"<tool>","arguments":{…}}`, admitting only
/// the registered tool names, each with its own arguments schema. The engine writes the
/// `<tool_call>` and `</tool_call>` markers around it itself (they are fixed text).
package enum ToolCallGrammar {
    /// The JSON Schema of a call to one of `tools`: an `anyOf` with one object per tool, whose
    /// `name` is a constant. The tools' `$defs` move to the root, where their `$ref`s point.
    package static func jsonSchema(for tools: [Transcript.ToolDefinition]) -> GeneratedContent {
        var definitions: [(String, GeneratedContent)] = []
        let choices: [GeneratedContent] = tools.map { tool in
            var parameters = tool.parameters.jsonSchema
            if case .structure(var properties, var keys) = parameters.kind {
                if case .structure(let defs, let order)? = properties["$defs"]?.kind {
                    for name in order where !definitions.contains(where: { $0.0 == name }) {
                        if let def = defs[name] { definitions.append((name, def)) }
                    }
                    properties["$defs"] = nil
                    keys.removeAll { $0 == "$defs" }
                }
                parameters = GeneratedContent(kind: .structure(properties: properties, orderedKeys: keys))
            }
            return GeneratedContent(properties: [
                "type": "object",
                "properties": GeneratedContent(properties: [
                    "name": GeneratedContent(properties: ["const": tool.name]),
                    "arguments": parameters,
                ]),
                "required": ["name", "arguments"],
                "x-order": ["name", "arguments"],
                "additionalProperties": false,
            ])
        }
        var root: [(String, GeneratedContent)] = [("anyOf", GeneratedContent(elements: choices.map { $0 as any ConvertibleToGeneratedContent }))]
        if !definitions.isEmpty {
            root.append((
                "$defs",
                GeneratedContent(kind: .structure(
                    properties: Dictionary(definitions, uniquingKeysWith: { first, _ in first }), orderedKeys: definitions.map(\.0)))
            ))
        }
        return GeneratedContent(kind: .structure(properties: Dictionary(root, uniquingKeysWith: { first, _ in first }), orderedKeys: root.map(\.0)))
    }

    /// The compiled grammar of a call to one of `tools`.
    package static func compile(for tools: [Transcript.ToolDefinition]) throws -> CompiledGrammar {
        try CompiledGrammar(jsonSchema: jsonSchema(for: tools).jsonString)
    }
}
