import Foundation
@testable import LocalLM
import LocalLMEngine
import LocalLMJSON
import LocalLMJinja
import LocalLMTestSupport
import Testing

/// The arguments of `get_weather` in `tool-formats.json` (scripts/goldens/template_goldens.py's
/// WEATHER_TOOL), declared as a Swift user declares them.
@Generable
struct GoldenWeatherArguments {
    @Guide(description: "City name, e.g. Paris")
    var city: String
    var unit: GoldenTemperatureUnit?
}

@Generable
enum GoldenTemperatureUnit {
    case celsius, fahrenheit
}

/// What the prompt shows of a tool's arguments: the JSON Schema a caller writes for a chat
/// template's `tools`, not the schema's encoding for the grammar (`x-order`,
/// `additionalProperties: false`, `title`, `$defs`). Small models copy what they see: shown the
/// encoding, Qwen2.5-Coder-0.5B filled optional arguments and wrote `"type": "string"` as a value
/// (Docs/tools.md, BFCL).
@Suite("The tool schema a prompt shows")
struct ToolPromptSchemaTests {
    static let templates = [
        "Qwen-Qwen2.5-7B-Instruct.jinja",
        "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja",
        "meta-llama-Llama-3.1-8B-Instruct.jinja",
        "Mistral-Small-3.2-24B-Instruct-2506.jinja",
        "ibm-granite-granite-3.3-2B-Instruct.jinja",
        "LFM2-8B-A1B.jinja",
    ]

    /// The conversation of `tool-formats.json` as a session's transcript, the tool declared with `@Generable`.
    static func transcript() throws -> Transcript {
        func text(_ content: String) -> [Transcript.Segment] { [.text(.init(content: content))] }
        let tool = Transcript.ToolDefinition(
            name: "get_weather", description: "Get the current weather in a city.", parameters: GoldenWeatherArguments.generationSchema)
        return Transcript(entries: [
            .instructions(.init(segments: text("You can call tools."), toolDefinitions: [tool])),
            .prompt(.init(segments: text("What's the weather in Paris?"))),
            .toolCalls(.init([.init(id: "call00001", toolName: "get_weather",
                                    arguments: try GeneratedContent(json: #"{"city": "Paris", "unit": "celsius"}"#))])),
            .toolOutput(.init(id: "call00001", toolName: "get_weather", segments: text(#"{"temperature": 18, "sky": "clear"}"#))),
            .response(.init(assetIDs: [], segments: text("It is 18 °C and clear in Paris."))),
            .prompt(.init(segments: text("And in Zürich?"))),
        ])
    }

    /// A session's prompt with a `@Generable` tool is, byte for byte, what Python jinja2 renders
    /// with the template and the hand-written OpenAI-style tool (`tool-formats.json`).
    @Test(arguments: templates)
    func aGenerableToolRendersAsTheHandWrittenSchemaDoes(template: String) throws {
        let golden = try JSONValue(parsing: String(decoding: try Fixtures.data("templates/tool-formats.json"), as: UTF8.self))
        let expected = try #require(golden["cases"]?[template]?["output"]?.stringValue)
        let source = String(decoding: try Fixtures.data("templates/" + template), as: UTF8.self)
        let renderer = ChatRenderer(template: try ChatTemplate(source: source), bosToken: "<s>", eosToken: "</s>")
        let transcript = try Self.transcript()
        #expect(try renderer.render(transcript.chatMessages(), tools: transcript.chatTools) == expected)
    }

    /// The grammar still gets the full schema; only the prompt's copy is plain.
    @Test func theGrammarKeepsTheFullSchema() throws {
        let tool = try #require(try Self.transcript().chatTools.first)
        #expect(tool.parameters.compactText.contains(#""additionalProperties":false"#))
        #expect(!tool.shownParameters.compactText.contains("additionalProperties"))
        #expect(tool.definition["function"]?["parameters"] == tool.shownParameters)
    }

    /// Schemas made at run time (as the BFCL runner makes them from a case's JSON Schema) show the
    /// JSON Schema they were made from, in its order: `type`, `description`, then the rest.
    @Test func aDynamicSchemaShowsTheSchemaItWasMadeFrom() throws {
        let root = DynamicGenerationSchema(name: "calculate_future_value arguments", properties: [
            .init(name: "initial_investment", description: "The initial investment amount.", schema: .init(type: Int.self)),
            .init(name: "interest_rate", description: "The annual interest rate.", schema: .init(type: Double.self)),
            .init(name: "route", description: "The preferred type of route.",
                  schema: .init(name: "route", description: "The preferred type of route.", anyOf: ["Shortest", "Scenic"]),
                  isOptional: true),
            .init(name: "tags", description: "Tags to add.", schema: .init(arrayOf: .init(type: String.self)), isOptional: true),
            .init(name: "owner", description: "Who invests.", schema: .init(name: "owner", properties: [
                .init(name: "name", description: "Full name.", schema: .init(type: String.self)),
                .init(name: "age", schema: .init(type: Int.self), isOptional: true),
            ])),
        ])
        let schema = try GenerationSchema(root: root, dependencies: [])
        let expected = """
            {"type": "object", "properties": {\
            "initial_investment": {"type": "integer", "description": "The initial investment amount."}, \
            "interest_rate": {"type": "number", "description": "The annual interest rate."}, \
            "route": {"type": "string", "description": "The preferred type of route.", "enum": ["Shortest", "Scenic"]}, \
            "tags": {"type": "array", "description": "Tags to add.", "items": {"type": "string"}}, \
            "owner": {"type": "object", "description": "Who invests.", "properties": {\
            "name": {"type": "string", "description": "Full name."}, "age": {"type": "integer"}}, "required": ["name"]}}, \
            "required": ["initial_investment", "interest_rate", "owner"]}
            """
        #expect(schema.promptJSONSchema.jsonValue.compactText == (try JSONValue(parsing: expected)).compactText)
    }

    /// The cases whose types contain themselves (a reference is the only way to write them).
    static let recursive: Set<String> = ["ShelterNewsletter", "DynamicCat"]

    /// The plain schema describes the same values: every instance the full schema's cases hold
    /// valid (cases validated by Python jsonschema) is valid for it, and it is self-contained —
    /// `$defs` only for types that contain themselves, and every `$ref` resolves.
    @Test(arguments: GenerableJSONSchemaTests.cases.map(\.name))
    func thePlainSchemaAcceptsWhatTheFullSchemaAccepts(name: String) throws {
        let item = try #require(GenerableJSONSchemaTests.cases.first { $0.name == name })
        let shown = item.schema.promptJSONSchema.jsonValue
        let text = shown.compactText
        let used = Self.keywords(shown)
        for key in ["x-order", "additionalProperties", "title"] {
            #expect(!used.contains(key), "\(key) in \(text)")
        }
        let validator = JSONSchemaValidator(root: shown)
        for instance in item.valid {
            let value = instance.generatedContent.jsonValue
            #expect(validator.isValid(value), "\(value.compactText) against \(text)")
        }
        if !Self.recursive.contains(name) {
            #expect(used.isDisjoint(with: ["$ref", "$defs"]), "\(text)")
        }
    }

    /// The keywords a schema uses, at any depth (property names are not keywords).
    static func keywords(_ schema: JSONValue) -> Set<String> {
        guard let members = schema.objectMembers else { return [] }
        var found: Set<String> = []
        for (key, value) in members {
            found.insert(key)
            switch key {
            case "properties", "$defs":
                for (_, child) in value.objectMembers ?? [] { found.formUnion(keywords(child)) }
            case "items":
                found.formUnion(keywords(value))
            case "anyOf":
                for child in value.arrayValue ?? [] { found.formUnion(keywords(child)) }
            default:
                break
            }
        }
        return found
    }
}
