import Foundation
import LocalLM
import LocalLMEngine

/// The LocalLM side of the function-calling evaluation (`scripts/bfcl/run.sh`, Docs/tools.md).
///
/// `bfcl --cases FILE --model GGUF --out FILE [--limit N]` reads the cases `scripts/bfcl/prepare.py`
/// wrote (one JSON object a line: id, category, system, user, tools as JSON Schemas), asks the model
/// through the public API only — a `LanguageModelSession` with one `Tool` per offered function,
/// whose `parameters` come from a `DynamicGenerationSchema`, greedy, default `.allowed` tool mode —
/// and writes what it called: one line per case with the calls of the first round in the order the
/// model wrote them. `scripts/bfcl/score.py` scores the file with BFCL's own AST checker.
///
/// Only the first round is of interest (BFCL's single-turn categories score the first reply), so a
/// tool records its call and then throws: the session stops after that round with a `ToolCallError`,
/// which the runner counts as "called". The transcript's tool-calls entry gives the call order.
///
/// Each record also holds `prompt`: the text the model read, rendered again from the session's
/// transcript and the prompt the way the session renders them (the engine's ChatRenderer), so it
/// can be diffed with the llama.cpp runner's `prompt`.
let functionCallingBenchmark = BenchmarkSuite(name: "bfcl") { arguments in
    func value(_ flag: String) -> String? {
        guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }
    guard let casesPath = value("--cases"), let modelPath = value("--model"), let outPath = value("--out") else {
        print("usage: LocalLMBenchmarks bfcl --cases FILE --model GGUF --out FILE [--limit N] [--max-tokens N]")
        return
    }
    let limit = value("--limit").flatMap(Int.init) ?? Int.max
    let maximumTokens = value("--max-tokens").flatMap(Int.init) ?? 384
    let model = SystemLanguageModel(contentsOf: URL(fileURLWithPath: modelPath), configuration: .init(contextSize: 4096))
    let lines = try String(contentsOfFile: casesPath, encoding: .utf8).split(separator: "\n").prefix(limit)
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    guard let out = FileHandle(forWritingAtPath: outPath) else {
        print("cannot write \(outPath)")
        return
    }
    defer { try? out.close() }
    let clock = ContinuousClock()
    var index = 0
    for line in lines {
        index += 1
        let started = clock.now
        let record = try await runFunctionCallingCase(String(line), model: model, maximumTokens: maximumTokens)
        let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
        out.write(data)
        out.write(Data("\n".utf8))
        let calls = (record["calls"] as? [Any])?.count ?? 0
        print(String(format: "%4d %@ calls=%d %.1fs%@", index, record["id"] as? String ?? "?", calls,
                     seconds(clock.now - started), (record["error"] as? String).map { " error: \($0.prefix(120))" } ?? ""))
    }
}

/// Records the calls of the round that the recording tools stop.
private final class CallRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [(name: String, arguments: String)] = []
    func record(_ name: String, _ arguments: GeneratedContent) {
        lock.lock()
        calls.append((name, arguments.jsonString))
        lock.unlock()
    }
    var recorded: [(name: String, arguments: String)] {
        lock.lock()
        defer { lock.unlock() }
        return calls
    }
}

private struct RoundRecorded: Error {}

/// One offered function: its parameters come from the case's JSON Schema through `DynamicGenerationSchema`.
private struct RecordingTool: Tool {
    typealias Arguments = GeneratedContent
    typealias Output = String
    let name: String
    let description: String
    let parameters: GenerationSchema
    let recorder: CallRecorder

    func call(arguments: GeneratedContent) async throws -> String {
        recorder.record(name, arguments)
        throw RoundRecorded()
    }
}

private func runFunctionCallingCase(_ line: String, model: SystemLanguageModel, maximumTokens: Int) async throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
          let id = object["id"] as? String, let user = object["user"] as? String,
          let functions = object["tools"] as? [[String: Any]]
    else { throw CocoaError(.coderReadCorrupt) }
    var record: [String: Any] = ["id": id, "category": object["category"] ?? ""]
    let recorder = CallRecorder()
    var tools: [any Tool] = []
    var skipped: [String] = []
    for function in functions {
        guard let name = function["name"] as? String else { continue }
        do {
            let root = try DynamicSchemaBuilder(toolName: name).schema(
                name: "\(name) arguments", json: function["parameters"] as? [String: Any] ?? [:])
            let schema = try GenerationSchema(root: root, dependencies: [])
            tools.append(RecordingTool(
                name: name, description: function["description"] as? String ?? "", parameters: schema, recorder: recorder))
        } catch {
            skipped.append("\(name): \(error)")
        }
    }
    if !skipped.isEmpty { record["schema_errors"] = skipped }
    let instructions = object["system"] as? String
    let session = instructions.map { LanguageModelSession(model: model, tools: tools, instructions: $0) }
        ?? LanguageModelSession(model: model, tools: tools)
    let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: maximumTokens)
    let asked = Transcript(entries: Array(session.transcript) + [.prompt(Transcript.Prompt(segments: [.text(.init(content: user))]))])
    let engine = try EngineRegistry.shared.engine(for: model.engineKey)
    record["prompt"] = try ChatRenderer(engine.chatTemplate).render(asked.chatMessages(), tools: asked.chatTools)
    do {
        let response = try await session.respond(to: user, options: options)
        record["text"] = response.content
        record["calls"] = [Any]()
    } catch let error as LanguageModelSession.ToolCallError where error.underlyingError is RoundRecorded {
        // The calls in the order the model wrote them, from the transcript (the tools ran concurrently).
        var ordered: [[String: Any]] = []
        for case .toolCalls(let calls) in session.transcript {
            for call in calls {
                ordered.append(["name": call.toolName, "arguments": jsonObject(call.arguments.jsonString)])
            }
        }
        if ordered.isEmpty {
            ordered = recorder.recorded.map { ["name": $0.name, "arguments": jsonObject($0.arguments)] }
        }
        record["calls"] = ordered
    } catch {
        record["calls"] = recorder.recorded.map { ["name": $0.name, "arguments": jsonObject($0.arguments)] }
        record["error"] = "\(error)"
    }
    return record
}

private func jsonObject(_ text: String) -> Any {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) ?? text
}

/// BFCL's parameter schemas (JSON Schema with Python type names: dict, float, tuple, any) as a
/// `DynamicGenerationSchema`. What it cannot express — an object with no listed properties — it
/// reports, and the case's tool is left out (the runner records it).
private struct DynamicSchemaBuilder {
    let toolName: String
    struct Unsupported: Error, CustomStringConvertible { let description: String }

    func schema(name: String, json: [String: Any]) throws -> DynamicGenerationSchema {
        let type = (json["type"] as? String) ?? "any"
        let description = json["description"] as? String
        switch type {
        case "dict", "object":
            guard let properties = json["properties"] as? [String: Any], !properties.isEmpty else {
                throw Unsupported(description: "\(name): an object without listed properties")
            }
            let required = Set(json["required"] as? [String] ?? [])
            // Keep the schema's own property order (JSONSerialization loses it; prepare.py writes `x-order`).
            let order = (json["x-order"] as? [String]) ?? properties.keys.sorted()
            let members = try order.compactMap { key -> DynamicGenerationSchema.Property? in
                guard let child = properties[key] as? [String: Any] else { return nil }
                return DynamicGenerationSchema.Property(
                    name: key, description: child["description"] as? String,
                    schema: try schema(name: "\(name).\(key)", json: child), isOptional: !required.contains(key))
            }
            return DynamicGenerationSchema(name: name, description: description, properties: members)
        case "string":
            if let choices = json["enum"] as? [String], !choices.isEmpty {
                return DynamicGenerationSchema(name: name, description: description, anyOf: choices)
            }
            return DynamicGenerationSchema(type: String.self)
        case "integer":
            return DynamicGenerationSchema(type: Int.self)
        case "float", "number":
            return DynamicGenerationSchema(type: Double.self)
        case "boolean":
            return DynamicGenerationSchema(type: Bool.self)
        case "array", "tuple":
            let items = (json["items"] as? [String: Any]) ?? ["type": "string"]
            return DynamicGenerationSchema(arrayOf: try schema(name: "\(name)[]", json: items))
        default:
            // "any" and unknown types: BFCL's checker reads "any" as a string.
            return DynamicGenerationSchema(type: String.self)
        }
    }
}
