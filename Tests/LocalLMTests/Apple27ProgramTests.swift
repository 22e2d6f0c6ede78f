// Code written as Apple's FoundationModels 27 documentation shows it (SessionPropertyValues,
// SessionProperty, onResponse/onPrompt, LanguageModelCapabilities, ContextOptions.ReasoningLevel,
// LanguageModelError.unsupportedCapability). Only the import differs, plus the scripted model that
// stands in for a real one so each program runs in milliseconds.
import Foundation
import LocalLM
import Testing

extension SessionPropertyValues {
    @SessionPropertyEntry
    var completedTasks: Int = 0

    @SessionPropertyEntry
    var promptCount: Int = 0
}

/// The profile from Apple's `SessionPropertyValues` page.
struct CompactingProfile: LanguageModelSession.DynamicProfile {
    @SessionProperty(\.history)
    var history

    var body: some LanguageModelSession.DynamicProfile {
        Profile {
            // Custom instructions and tools that you define.
            "You are a helpful assistant."
        }
        .onResponse { _ in
            // Compact the history when the entries exceed a certain limit.
            if history.count > 4 {
                history = Array(history.suffix(2))
            }
        }
    }
}

/// The profile from Apple's `onResponse(perform:)` and `onPrompt(perform:)` pages.
struct MyDynamicProfile: LanguageModelSession.DynamicProfile {
    @SessionProperty(\.completedTasks) var completedTasks
    @SessionProperty(\.promptCount) var promptCount

    var body: some LanguageModelSession.DynamicProfile {
        Profile {
            Instructions("You are a helpful assistant.")
        }
        .onPrompt {
            promptCount += 1
        }
        .onResponse {
            completedTasks += 1
        }
        .reasoningLevel(nil)
    }
}

/// The model from Apple's `LanguageModelCapabilities` page (its executor plays a script).
struct MyLanguageModel: LanguageModel {
    let scripted = ScriptedModel([.text(["{\"city\": \"Oslo\"}"])])

    var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities([
            .toolCalling,
            .guidedGeneration,
        ])
    }

    var executorConfiguration: ScriptedModel.Executor.Configuration { scripted.executorConfiguration }
    typealias Executor = MyExecutor

    struct MyExecutor: LanguageModelExecutor {
        typealias Model = MyLanguageModel
        let inner: ScriptedModel.Executor
        init(configuration: ScriptedModel.Executor.Configuration) throws {
            inner = try ScriptedModel.Executor(configuration: configuration)
        }
        func respond(
            to request: LanguageModelExecutorGenerationRequest, model: MyLanguageModel,
            streamingInto channel: LanguageModelExecutorGenerationChannel
        ) async throws {
            try await inner.respond(to: request, model: model.scripted, streamingInto: channel)
        }
    }
}

struct DeepThinking: LanguageModelSession.DynamicProfile {
    var body: some LanguageModelSession.DynamicProfile {
        Profile { "Think hard." }
            .reasoningLevel(.deep)
    }
}

@Generable
struct MySchema {
    var city: String
}

@Suite("Apple's 27 API as documented")
struct Apple27ProgramTests {
    @Test func compactingProfile() async throws {
        let session = LanguageModelSession(
            model: ScriptedModel([.text(["1"]), .text(["2"]), .text(["3"])]), profile: CompactingProfile())
        for prompt in ["a", "b", "c"] {
            _ = try await session.respond(to: prompt)
        }
        let history: Transcript.HistoryView = session.properties.history
        #expect(history.count == 2)
    }

    @Test func lifecycleModifiersAndSessionProperties() async throws {
        let session = LanguageModelSession(model: ScriptedModel([.text(["x"]), .text(["y"])]), profile: MyDynamicProfile())
        _ = try await session.respond(to: "one")
        _ = try await session.respond(to: "two")
        let properties: SessionPropertyValues = session.properties
        #expect(properties.completedTasks == 2)
        #expect(properties.promptCount == 2)
    }

    @Test func capabilitiesAheadOfTime() async throws {
        let selectedModel = MyLanguageModel()
        let session = LanguageModelSession(model: selectedModel)
        // Before prompting the model with a generable type, check whether it
        // supports guided generation.
        if selectedModel.capabilities.contains(.guidedGeneration) {
            let response = try await session.respond(to: "...", generating: MySchema.self)
            #expect(response.content.city == "Oslo")
        } else {
            Issue.record("guided generation was declared")
        }
        #expect(!selectedModel.capabilities.contains(.reasoning))
    }

    @Test func unsupportedCapabilityNamesTheCapability() async throws {
        let session = LanguageModelSession(
            model: MyLanguageModel(),
            profile: DeepThinking())
        do {
            _ = try await session.respond(to: "Why?")
            Issue.record("the request ran")
        } catch let error as LanguageModelError {
            guard case .unsupportedCapability(let unsupported) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(unsupported.capability == .reasoning)
        }
    }

    @Test func contextOptionsCarryAReasoningLevel() {
        let options = ContextOptions(includeSchemaInPrompt: true, reasoningLevel: .moderate)
        #expect(options.reasoningLevel == .moderate)
        #expect(ContextOptions().reasoningLevel == nil)
        let levels: [ContextOptions.ReasoningLevel] = [.light, .moderate, .deep, .custom("max")]
        #expect(Set(levels).count == 4)
    }

    @Test func transcriptIsSettable() async throws {
        let session = LanguageModelSession(model: ScriptedModel([.text(["x"])]))
        _ = try await session.respond(to: "one")
        session.transcript = Transcript(entries: session.transcript.prefix(1))
        #expect(session.transcript.count == 1)
    }
}
