import Foundation
import LocalLMEngine
import LocalLMRuntime
import LocalLMTestSupport
import Testing

@testable import LocalLM

/// Sessions on one model that generate at the same time share decode passes (DecodeBatcher), and
/// each answers exactly what it answers alone.
@Suite struct SessionBatchingTests {
    /// Three sessions on SmolLM2 (Q4_1 layers, Q8_0 head), greedy, started together: each answer
    /// equals the answer of a new session asked alone, and the model ran fewer decode passes than the
    /// sessions took steps.
    @Test func sessionsGeneratingTogetherAnswerAsTheyDoAlone() async throws {
        let model = SystemLanguageModel(contentsOf: try TestModels.require(TestModels.smolLM2))
        let prompts = ["Name three rivers.", "What is bread made of?", "Describe an owl in one sentence."]
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 24)
        var alone: [String] = []
        for prompt in prompts {
            alone.append(try await LanguageModelSession(model: model).respond(to: prompt, options: options).content)
        }
        let engine = try EngineRegistry.shared.engine(for: model.engineKey)
        let before = engine.model.decodeStatistics
        let together = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (i, prompt) in prompts.enumerated() {
                group.addTask { (i, try await LanguageModelSession(model: model).respond(to: prompt, options: options).content) }
            }
            var answers = [String](repeating: "", count: prompts.count)
            for try await (i, answer) in group { answers[i] = answer }
            return answers
        }
        let after = engine.model.decodeStatistics
        #expect(together == alone)
        let steps = after.steps - before.steps, passes = after.passes - before.passes
        #expect(passes < steps, "no pass held two sessions (\(passes) passes for \(steps) steps)")
    }
}
