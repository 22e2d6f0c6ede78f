import Foundation
import LocalLM
import LocalLMTestSupport
import Testing

/// `LanguageModelCapabilities` and `LanguageModelError.unsupportedCapability`: a request that
/// needs what the model cannot do fails before the model runs, naming the capability.
@Suite("Model capabilities")
struct CapabilitiesTests {
    /// A model that only follows schemas: it declares its capabilities, as Apple's example does.
    struct SchemaOnlyModel: LanguageModel {
        let inner = ScriptedModel([.text(["unused"])])
        var capabilities: LanguageModelCapabilities { LanguageModelCapabilities([.guidedGeneration]) }
        var executorConfiguration: ScriptedModel.Executor.Configuration { inner.executorConfiguration }
        typealias Executor = SchemaOnlyExecutor
    }

    struct SchemaOnlyExecutor: LanguageModelExecutor {
        typealias Model = SchemaOnlyModel
        let inner: ScriptedModel.Executor
        init(configuration: ScriptedModel.Executor.Configuration) throws {
            inner = try ScriptedModel.Executor(configuration: configuration)
        }
        func respond(
            to request: LanguageModelExecutorGenerationRequest, model: SchemaOnlyModel,
            streamingInto channel: LanguageModelExecutorGenerationChannel
        ) async throws {
            try await inner.respond(to: request, model: model.inner, streamingInto: channel)
        }
    }

    private static func capability(of error: any Error) -> LanguageModelCapabilities.Capability? {
        guard case LanguageModelError.unsupportedCapability(let info)? = error as? LanguageModelError else { return nil }
        return info.capability
    }

    @Test func toolsOnAModelWithoutToolCallingAreRefusedBeforeTheModelRuns() async throws {
        let model = SchemaOnlyModel()
        let session = LanguageModelSession(model: model, tools: [WeatherTool(log: CallLog())])
        do {
            _ = try await session.respond(to: "Weather in Oslo?")
            Issue.record("the request ran")
        } catch {
            #expect(Self.capability(of: error) == .toolCalling)
        }
        #expect(model.inner.script.requests.isEmpty)
        #expect(!session.isResponding)
        #expect(session.transcript.count == 1)
        // With tools disallowed, the same session may ask.
        let answer = try await session.respond(to: "Hi", options: GenerationOptions(toolCallingMode: .disallowed))
        #expect(answer.content == "unused")
    }

    struct Reasoning: LanguageModelSession.DynamicProfile {
        var body: some LanguageModelSession.DynamicProfile {
            Profile { "Think." }
                .reasoningLevel(.light)
        }
    }

    @Test func aReasoningLevelOnAModelWithoutReasoningIsRefused() async throws {
        // Custom models get tool calling and guided generation unless they declare otherwise.
        let model = ScriptedModel([.text(["unused"])])
        #expect(model.capabilities.contains(.toolCalling))
        #expect(!model.capabilities.contains(.reasoning))
        let session = LanguageModelSession(model: model, profile: Reasoning())
        await #expect {
            _ = try await session.respond(to: "Why?")
        } throws: { Self.capability(of: $0) == .reasoning }
        #expect(model.script.requests.isEmpty)
    }

    /// The GGUF models: reasoning only where the chat template has a reasoning mode.
    @Test func ggufModelsDeclareReasoningFromTheirTemplate() throws {
        let smol = SystemLanguageModel(contentsOf: try TestModels.require(TestModels.smolLM2))
        #expect(smol.capabilities.contains(.toolCalling))
        #expect(smol.capabilities.contains(.guidedGeneration))
        #expect(!smol.capabilities.contains(.reasoning))
        let qwen = SystemLanguageModel(contentsOf: try TestModels.require(TestModels.qwen05))
        #expect(!qwen.capabilities.contains(.reasoning))
    }

    @Test func aReasoningLevelOnSmolLM2IsRefusedWithItsName() async throws {
        let session = LanguageModelSession(model: SystemLanguageModel(contentsOf: try TestModels.require(TestModels.smolLM2)), profile: Reasoning())
        do {
            _ = try await session.respond(to: "Why?")
            Issue.record("the request ran")
        } catch {
            #expect(Self.capability(of: error) == .reasoning)
            #expect("\(error.localizedDescription)".contains("SmolLM2"))
        }
    }
}
