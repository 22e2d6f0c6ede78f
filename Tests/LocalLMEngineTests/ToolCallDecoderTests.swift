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
        ("microsoft-Phi-4-mini-instruct.jinja", .phi4Mini),
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

    /// One tiny model per family with the family's real template embedded and its marker tokens
    /// in the vocabulary as control tokens (`scripts/make-tiny-models.py --families`): loaded as a
    /// user loads a model, the format is the template's, and a `.required` call — through the
    /// marker tokens or their bytes, as the random model picks — parses to a valid call. (The
    /// budget is large: a random model spends most tokens on the whitespace JSON allows.)
    static let familyModels: [(String, ToolCallFormat.Family)] = [
        ("tiny-hermes.gguf", .hermes), ("tiny-llama3.gguf", .llama3), ("tiny-mistral.gguf", .mistral),
        ("tiny-granite.gguf", .toolCallToken), ("tiny-lfm2.gguf", .lfm2), ("tiny-gemma.gguf", .generic),
        ("tiny-phi4.gguf", .phi4Mini),
    ]

    @Test(arguments: familyModels, [1, 2, 3] as [UInt64])
    func aFamilyModelWritesAValidCallInItsForm(file: (String, ToolCallFormat.Family), seed: UInt64) async throws {
        let (name, family) = file
        let engine = try GGUFEngine(contentsOf: Fixtures.url("tools/" + name), threads: 2, contextSize: 8192, cacheType: .f32)
        let renderer = ChatRenderer(engine.chatTemplate)
        #expect(renderer.format.family == family)
        let tool = ChatTool(name: "get_weather", description: "Weather forecast", parameters: try JSONValue(parsing: Self.parameters))
        let prompt = try renderer.render([ChatMessage(role: .user, content: "Weather in Oslo for 3 days?")], tools: [tool])
        let decoder = try ToolCallDecoder(engine: engine, tools: [tool], mode: .required, format: renderer.format)
        var options = SamplingOptions()
        options.temperature = 3
        options.seed = seed
        // The whole distribution, flattened (no top-k or min-p, temperature 3), and a frequency
        // penalty over the whole output: the random model's logits are sharp, and left alone it
        // loops in the list families, a call after a call (`,` over `]`) until the budget ends.
        options.topK = 0
        options.topP = 1
        options.minP = 0
        options.frequencyPenalty = 0.5
        options.penaltyWindow = 4096
        let generator = TokenGenerator(
            sequence: try engine.makeSequence(), tokenizer: engine.tokenizer,
            sampler: options.makeChain(mask: LogitMaskStep(decoder.grammar)), grammar: decoder.grammar,
            limits: GenerationLimits(maxTokens: 3000))
        _ = try await generator.prefill(engine.promptTokens(rendered: prompt), yielding: false)
        while let token = try await generator.next() {
            #expect(decoder.append(token.text).isEmpty)
            if decoder.isFinished { break }
            if decoder.grammar.constraint?.grammarMatcher.canTerminate == true { break }
        }
        let partial = try #require(decoder.partialCall)
        if let opener = renderer.format.opener, family != .llama3 {
            #expect(partial.hasPrefix(opener), "\(partial)")
        }
        let stopped = decoder.isFinished || decoder.grammar.constraint?.grammarMatcher.canTerminate == true ? nil : generator.stopReason
        guard case .calls(let calls) = try decoder.finish(stopReason: stopped, tail: generator.finishText()) else {
            Issue.record("expected calls from \(partial)")
            return
        }
        let validator = JSONSchemaValidator(root: tool.parameters)
        #expect(!calls.isEmpty)
        for call in calls {
            #expect(call.name == "get_weather")
            #expect(validator.isValid(call.arguments), "\(call.arguments.compactText)")
        }
    }

    /// A reply that starts its calls over: with `endsRepeatedCalls`, the first call that repeats
    /// one of the reply (same name, same arguments) ends it — generation can stop there
    /// (`isFinished`) and the calls before it are the outcome; without, every call stands. A list
    /// that holds a repeat, complete at once, is cut at the repeat too.
    @Test(arguments: [true, false])
    func aRepeatedCallEndsTheReply(endsRepeatedCalls: Bool) throws {
        let engine = try Self.engine()
        let tool = ChatTool(name: "get_weather", description: "Weather forecast", parameters: try JSONValue(parsing: Self.parameters))
        func call(_ city: String) -> String { #"<tool_call>{"name": "get_weather", "arguments": {"city": "\#(city)", "days": 2}}</tool_call>"# }
        func run(_ text: String, format: ToolCallFormat, mode: ToolCallMode = .allowed) throws -> (finishedEarly: Bool, cities: [String]) {
            let decoder = try ToolCallDecoder(engine: engine, tools: [tool], mode: mode, format: format)
            decoder.endsRepeatedCalls = endsRepeatedCalls
            var finishedEarly = false
            for id in engine.tokenizer.encode(text, parseSpecial: false) {
                #expect(decoder.grammar.allows(Int(id)))
                decoder.grammar.accept(Int(id))
                _ = decoder.append(engine.tokenizer.decode([id]))
                if decoder.isFinished { finishedEarly = true; break }
            }
            guard case .calls(let calls) = try decoder.finish(stopReason: nil, tail: "") else { return (finishedEarly, []) }
            return (finishedEarly, calls.compactMap { $0.arguments["city"]?.stringValue })
        }
        let sequence = try run([call("Oslo"), call("Paris"), call("Oslo"), call("Paris")].joined(separator: "\n"), format: .hermes)
        #expect(sequence.finishedEarly == endsRepeatedCalls)
        #expect(sequence.cities == (endsRepeatedCalls ? ["Oslo", "Paris"] : ["Oslo", "Paris", "Oslo", "Paris"]))
        let object = #"{"name": "get_weather", "arguments": {"city": "Oslo", "days": 2}}"#
        let other = object.replacingOccurrences(of: "Oslo", with: "Paris")
        let list = try run("[" + [object, other, object].joined(separator: ", ") + "]", format: .hermes)
        #expect(list.cities == (endsRepeatedCalls ? ["Oslo", "Paris"] : ["Oslo", "Paris", "Oslo"]))
        // `.required` in a list family: the first thing complete is the whole list.
        let required = try run("[TOOL_CALLS][" + [object, other, object].joined(separator: ", ") + "]", format: ToolCallFormat(family: .mistral), mode: .required)
        #expect(required.cities == (endsRepeatedCalls ? ["Oslo", "Paris"] : ["Oslo", "Paris", "Oslo"]))
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
