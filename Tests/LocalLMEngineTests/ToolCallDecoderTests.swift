import Foundation
import LocalLMEngine
import LocalLMGrammar
import LocalLMJinja
import LocalLMRuntime
import LocalLMTestSupport
import Testing

/// ``ToolCallDecoder`` on a real forward pass: the tiny random-weight qwen2 model, prompted with each
/// family's real chat template and tools, must write a call in the family's form in `.required`
/// mode (random weights: only the grammar makes it a call), which parses to a call of the offered
/// tool whose arguments validate against its schema.
@Suite struct ToolCallDecoderTests {
    static let parameters = #"{"type":"object","properties":{"city":{"enum":["Oslo","Paris"]},"days":{"type":"integer","minimum":1,"maximum":7}},"required":["city","days"],"additionalProperties":false}"#

    static func engine() throws -> GGUFEngine {
        try GGUFEngine(contentsOf: Fixtures.url("runtime/tiny-qwen2.gguf"), threads: 2, contextSize: 4096, cacheType: .f32)
    }

    static let templates: [(String, ToolCallFormat.Family)] = [
        ("Qwen-Qwen2.5-7B-Instruct.jinja", .hermes),
        ("meta-llama-Llama-3.1-8B-Instruct.jinja", .llama3),
        ("Mistral-Small-3.2-24B-Instruct-2506.jinja", .mistral),
        ("ibm-granite-granite-3.3-2B-Instruct.jinja", .toolCallToken),
        ("LFM2-8B-A1B.jinja", .lfm2),
        ("google-gemma-2-2b-it.jinja", .generic),
    ]

    @Test(arguments: templates)
    func requiredModeWritesAValidCallInTheFamilysForm(template: String, family: ToolCallFormat.Family) async throws {
        let engine = try Self.engine()
        let source = String(decoding: try Fixtures.data("templates/" + template), as: UTF8.self)
        let renderer = ChatRenderer(template: try ChatTemplate(source: source), bosToken: "<s>", eosToken: "</s>")
        #expect(renderer.format.family == family)
        let tool = ChatTool(name: "get_weather", description: "Weather forecast", parameters: try JSONValue(parsing: Self.parameters))
        let prompt = try renderer.render([ChatMessage(role: .user, content: "Weather in Oslo for 3 days?")], tools: [tool])
        let decoder = try ToolCallDecoder(engine: engine, tools: [tool], mode: .required, format: renderer.format)
        var options = SamplingOptions()
        options.temperature = 1
        options.seed = 7
        let generator = TokenGenerator(
            sequence: try engine.makeSequence(), tokenizer: engine.tokenizer,
            sampler: options.makeChain(mask: LogitMaskStep(decoder.grammar)), grammar: decoder.grammar,
            limits: GenerationLimits(maxTokens: 400))
        _ = try await generator.prefill(engine.promptTokens(rendered: prompt), yielding: false)
        // A random model may go on making calls; stop at the first point where the calls are complete.
        while let token = try await generator.next() {
            #expect(decoder.append(token.text).isEmpty)  // nothing of a call is streamed as text
            if decoder.isFinished { break }
            if decoder.grammar.constraint?.grammarMatcher.canTerminate == true { break }
        }
        let partial = try #require(decoder.partialCall)
        if let opener = renderer.format.opener, family != .llama3 {
            #expect(partial.hasPrefix(opener), "\(partial)")
        }
        let outcome = try decoder.finish(stopReason: nil, tail: generator.finishText())
        guard case .calls(let calls) = outcome else {
            Issue.record("expected calls, got \(outcome)")
            return
        }
        let validator = JSONSchemaValidator(root: tool.parameters)
        #expect(!calls.isEmpty)
        for call in calls {
            #expect(call.name == "get_weather")
            #expect(validator.isValid(call.arguments), "\(call.arguments.compactText)")
        }
    }

    /// A call the budget cuts is an error carrying the partial call, not text.
    @Test func aCallCutByTheBudgetIsIncomplete() async throws {
        let engine = try Self.engine()
        let tool = ChatTool(name: "get_weather", description: "Weather forecast", parameters: try JSONValue(parsing: Self.parameters))
        let decoder = try ToolCallDecoder(engine: engine, tools: [tool], mode: .required, format: .hermes)
        let generator = TokenGenerator(
            sequence: try engine.makeSequence(), tokenizer: engine.tokenizer,
            sampler: SamplingOptions.greedy.makeChain(mask: LogitMaskStep(decoder.grammar)), grammar: decoder.grammar,
            limits: GenerationLimits(maxTokens: 5))
        _ = try await generator.prefill(engine.promptTokens(rendered: "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n"), yielding: false)
        while let token = try await generator.next() { _ = decoder.append(token.text) }
        #expect(generator.stopReason == .maxTokens)
        do {
            _ = try decoder.finish(stopReason: generator.stopReason, tail: generator.finishText())
            Issue.record("expected incompleteToolCall")
        } catch {
            guard case .incompleteToolCall(let partial, _) = error else {
                Issue.record("expected incompleteToolCall, got \(error)")
                return
            }
            #expect(partial.hasPrefix("<tool_call>") || "<tool_call>".hasPrefix(partial))
            #expect(!partial.isEmpty)
        }
    }

    /// `.disallowed`: a trigger the grammar of nothing refuses; the text stays free.
    @Test func disallowedModeStreamsFreeText() async throws {
        let engine = try Self.engine()
        let tool = ChatTool(name: "get_weather", description: "Weather forecast", parameters: try JSONValue(parsing: Self.parameters))
        let decoder = try ToolCallDecoder(engine: engine, tools: [tool], mode: .disallowed, format: .hermes)
        var options = SamplingOptions()
        options.temperature = 1
        options.seed = 3
        let generator = TokenGenerator(
            sequence: try engine.makeSequence(), tokenizer: engine.tokenizer,
            sampler: options.makeChain(mask: LogitMaskStep(decoder.grammar)), grammar: decoder.grammar,
            limits: GenerationLimits(maxTokens: 40))
        _ = try await generator.prefill(engine.promptTokens(rendered: "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"), yielding: false)
        var streamed = ""
        while let token = try await generator.next() { streamed += decoder.append(token.text) }
        guard case .text(let rest) = try decoder.finish(stopReason: generator.stopReason, tail: generator.finishText()) else {
            Issue.record("expected text")
            return
        }
        #expect(streamed + rest == generator.text)
        #expect(decoder.partialCall == nil)
    }
}
