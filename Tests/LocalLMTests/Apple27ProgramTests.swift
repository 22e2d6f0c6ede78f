// Code written as Apple's FoundationModels 27 documentation shows it (SessionPropertyValues,
// SessionProperty, onResponse/onPrompt, LanguageModelCapabilities, ContextOptions.ReasoningLevel,
// LanguageModelError.unsupportedCapability). Only the import differs, plus the scripted model that
// stands in for a real one so each program runs in milliseconds.
import Foundation
import LocalLM
import Testing
import LocalLMSync

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

/// Dynamic instructions as Apple's "Composing dynamic sessions" article and WWDC session write them:
/// instructions, a tool, and a tool included only in some app states.
final class CraftState: Sendable {
    private let origami = SanitizableMutex(false)
    var usesOrigami: Bool {
        get { origami.withLock { $0 } }
        set { origami.withLock { $0 = newValue } }
    }
}

struct BrainstormFacilitator: DynamicInstructions, Sendable {
    let state: CraftState
    var body: some DynamicInstructions {
        Instructions {
            "You are a warm and friendly crafting brainstorm facilitator."
        }
        WeatherTool(log: CallLog())
        if state.usesOrigami {
            OrigamiExpert()
        }
    }
}

struct OrigamiExpert: Tool {
    let description = "Answers origami questions"
    @Generable struct Arguments {
        var question: String
    }
    func call(arguments: Arguments) async throws -> String { "Fold it in half." }
}

struct CraftProfile: LanguageModelSession.DynamicProfile, Sendable {
    let state: CraftState
    var body: some LanguageModelSession.DynamicProfile {
        Profile { BrainstormFacilitator(state: state) }
            .temperature(1)
    }
}

@Suite("Apple's 27 dynamic instructions as documented")
struct Apple27DynamicInstructionsTests {
    private static func toolNames(_ transcript: Transcript) -> [String] {
        guard case .instructions(let instructions)? = transcript.first else { return [] }
        return instructions.toolDefinitions.map(\.name)
    }

    @Test func instructionsAreWorkedOutBeforeEveryRequest() async throws {
        let state = CraftState()
        let model = ScriptedModel([.text(["a"]), .text(["b"])])
        let session = LanguageModelSession(model: model, dynamicInstructions: BrainstormFacilitator(state: state))
        _ = try await session.respond(to: "Ideas?")
        state.usesOrigami = true
        _ = try await session.respond(to: "More ideas?")
        let requests = model.script.requests
        #expect(Self.toolNames(requests[0].transcript) == ["getWeather"])
        #expect(Self.toolNames(requests[1].transcript) == ["getWeather", "OrigamiExpert"])
        guard case .instructions(let instructions)? = requests[1].transcript.first else { return }
        #expect(instructions.segments.renderedText.hasPrefix("You are a warm and friendly"))
    }

    @Test func aProfileOfDynamicInstructions() async throws {
        let state = CraftState()
        state.usesOrigami = true
        let model = ScriptedModel([.text(["a"])])
        let session = LanguageModelSession(model: model, profile: CraftProfile(state: state))
        _ = try await session.respond(to: "Ideas?")
        #expect(Self.toolNames(model.script.requests[0].transcript) == ["getWeather", "OrigamiExpert"])
        #expect(model.script.requests[0].generationOptions.temperature == 1)
    }
}

/// A custom modifier, as Apple's `DynamicProfileModifier` declares one.
struct CarefulModifier: LanguageModelSession.DynamicProfileModifier {
    func body(content: Content) -> some DynamicProfile {
        content
            .temperature(0.2)
            .toolCallingMode(.disallowed)
    }
}

/// A profile whose requests run on a model of its own.
struct OtherModelProfile: LanguageModelSession.DynamicProfile, Sendable {
    let other: ScriptedModel
    var body: some LanguageModelSession.DynamicProfile {
        Profile { "Use the other model." }
            .model(other)
            .modifier(CarefulModifier())
    }
}

@Suite("Apple's 27 profile modifiers as documented")
struct Apple27ModifierTests {
    @Test func aCustomModifierAndAModelPerProfile() async throws {
        let sessionModel = ScriptedModel([.text(["from the session's model"])])
        let other = ScriptedModel([.text(["from the profile's model"]), .text(["again"])])
        let session = LanguageModelSession(model: sessionModel, profile: OtherModelProfile(other: other))
        let first = try await session.respond(to: "Which model?")
        let second = try await session.respond(to: "And now?")
        #expect(first.content == "from the profile's model")
        #expect(second.content == "again")
        #expect(sessionModel.script.requests.isEmpty)
        // One executor for the profile's model: the second request saw the first turn.
        #expect(other.script.requests.count == 2)
        #expect(other.script.requests[1].transcript.count == 4)
        let options = other.script.requests[0].generationOptions
        #expect(options.temperature == 0.2)
        #expect(options.toolCallingMode == .disallowed)
    }
}

extension SessionPropertyValues {
    @SessionPropertyEntry
    var activeProfile: String = ""

    @SessionPropertyEntry
    var activations: [String] = []

    @SessionPropertyEntry
    var editingImage: Bool = true
}

/// Apple's `onActivate(perform:)` example, in a profile that switches on a session property.
struct PresentationProfile: LanguageModelSession.DynamicProfile {
    @SessionProperty(\.activeProfile) var activeProfile
    @SessionProperty(\.activations) var activations
    @SessionProperty(\.editingImage) var isEditingImage

    var body: some LanguageModelSession.DynamicProfile {
        if isEditingImage {
            Profile { Instructions("You edit images.") }
                .onActivate {
                    activeProfile = "image"
                    activations.append("image")
                }
        } else {
            Profile { Instructions("You edit animations.") }
                .onActivate {
                    activeProfile = "animation"
                    activations.append("animation")
                }
        }
    }
}

@Suite("Apple's 27 onActivate and AnyDynamicProfile")
struct Apple27ActivationTests {
    @Test func onActivateRunsWhenAProfileBecomesActiveAgain() async throws {
        let session = LanguageModelSession(
            model: ScriptedModel([.text(["1"]), .text(["2"]), .text(["3"]), .text(["4"])]),
            profile: LanguageModelSession.AnyDynamicProfile(PresentationProfile()))
        _ = try await session.respond(to: "a")
        _ = try await session.respond(to: "b")
        #expect(session.properties.activations == ["image"])
        session.properties.editingImage = false
        _ = try await session.respond(to: "c")
        #expect(session.properties.activeProfile == "animation")
        session.properties.editingImage = true
        _ = try await session.respond(to: "d")
        #expect(session.properties.activations == ["image", "animation", "image"])
    }
}
