import Foundation
import Logging
import Observation
import LocalLMSync

/// A conversation with a language model: instructions, tools, and a transcript that grows with
/// every request. A session answers one request at a time; many sessions can share one model.
public final class LanguageModelSession: Sendable, Observable {
    /// The session's mutable state, behind one lock.
    package struct State: Sendable {
        var transcript: Transcript
        var isResponding = false
        var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy?
    }

    package let state: SanitizableMutex<State>
    package let executor: AnyLanguageModelExecutor
    /// Executors of the models profiles picked with `.model(_:)`, by executor configuration.
    private let profileExecutors = SanitizableMutex<[AnyHashable: AnyLanguageModelExecutor]>([:])
    /// The paths of the `onActivate` profiles of the last resolved round.
    package let activeProfiles = SanitizableMutex<Set<String>>([])
    package let tools: [any Tool]
    package let logger: Logger
    /// The dynamic profile, worked out before every round of a request.
    package let profile: (@Sendable () -> ResolvedProfile)?
    /// The values of the session's managed properties: its `history` and the entries declared with
    /// `@SessionPropertyEntry`, which its profile, dynamic instructions and tools read and write
    /// with `@SessionProperty`.
    public let properties = SessionPropertyValues()
    /// The session's place among agents: depth and bounds.
    package let agent = SanitizableMutex(AgentState())
    /// The session's node in the call graph: its transcript and the sessions its tool calls started.
    package let agentNode: AgentNode
    private let registrar = ObservationRegistrar()

    /// The most tool-calling rounds one request may take before the session stops it with
    /// `ToolCallLimitExceeded`. A round is one batch of calls and their outputs.
    public var maximumToolRounds: Int {
        get { maximumToolRoundsStorage.withLock { $0 } }
        set { maximumToolRoundsStorage.withLock { $0 = newValue } }
    }
    private let maximumToolRoundsStorage = SanitizableMutex(8)

    /// Whether a round whose calls all repeat calls already made in the same request (same tool,
    /// same arguments) ends the tool loop: the round is dropped — its outputs are in the context
    /// already — and the model is asked again with tool calls disallowed, so it answers. Small
    /// models loop otherwise: Qwen2.5-Coder-0.5B, shown the weather tool's output, calls it again
    /// with the same city until `maximumToolRounds` stops the request (llama.cpp's greedy run of the
    /// same prompt does the same). It does not apply while the mode is `.required`. Within one reply,
    /// a call that repeats one made earlier in the same reply ends the reply there, without it, in
    /// every mode: Qwen2.5-Coder-0.5B, having written a round of three calls, wrote it again and again
    /// until the budget ended. Default `true`; set it to `false` for tools whose repeated calls mean
    /// something (a die to roll again). A LocalLM extension.
    public var endsRepeatedToolCalls: Bool {
        get { endsRepeatedToolCallsStorage.withLock { $0 } }
        set { endsRepeatedToolCallsStorage.withLock { $0 = newValue } }
    }
    private let endsRepeatedToolCallsStorage = SanitizableMutex(true)

    /// A full record of the session: instructions, prompts, tool calls and outputs, responses.
    ///
    /// Setting it between requests replaces the conversation (the next request re-prefills from the
    /// first token that differs). While the session responds, only its own profile hooks and tools
    /// may change it; a write from anywhere else is refused and logged as
    /// `transcriptMutationWhileResponding`.
    public var transcript: Transcript {
        get {
            registrar.access(self, keyPath: \.transcript)
            return state.withLock { $0.transcript }
        }
        set {
            replaceTranscript(fromInside: SessionPropertyValues.current === properties) { _ in newValue }
        }
    }

    /// Whether the session is responding to a request. Observable.
    public var isResponding: Bool {
        registrar.access(self, keyPath: \.isResponding)
        return state.withLock { $0.isResponding }
    }

    /// What happens to the transcript when a request fails: `nil` or `.revertTranscript` (the
    /// default) puts it back as it was before the request; `.preserveTranscript` keeps what the
    /// request added, including a partial response.
    public var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy? {
        get { state.withLock { $0.transcriptErrorHandlingPolicy } }
        set { state.withLock { $0.transcriptErrorHandlingPolicy = newValue } }
    }

    package init(
        executor: AnyLanguageModelExecutor, tools: [any Tool], transcript: Transcript,
        profile: (@Sendable () -> ResolvedProfile)? = nil
    ) {
        self.executor = executor
        self.tools = tools
        self.profile = profile
        self.state = SanitizableMutex(State(transcript: transcript))
        self.agentNode = AgentNode(transcript: transcript)
        var logger = LogHandlerOverride.logger(label: "LocalLM.session")
        logger[metadataKey: "model"] = "\(executor.modelName)"
        self.logger = logger
        properties.attach(to: self)
    }

    private static func makeExecutor(_ model: some LanguageModel) -> AnyLanguageModelExecutor {
        do {
            return try AnyLanguageModelExecutor(model: model)
        } catch {
            // Apple's initializers do not throw; a model that cannot make an executor fails at
            // the first request instead, with the reason.
            return AnyLanguageModelExecutor(failing: error, modelName: String(describing: type(of: model)))
        }
    }

    private static func instructionsEntry(_ instructions: Instructions?, tools: [any Tool]) -> [Transcript.Entry] {
        guard instructions != nil || !tools.isEmpty else { return [] }
        let definitions = tools.map { Transcript.ToolDefinition(tool: $0) }
        return [.instructions(Transcript.Instructions(segments: instructions?.segments ?? [], toolDefinitions: definitions))]
    }

    /// Creates a session with optional instructions.
    public convenience init(
        model: some LanguageModel = SystemLanguageModel.default, tools: [any Tool] = [], instructions: Instructions? = nil
    ) {
        self.init(
            executor: Self.makeExecutor(model), tools: tools,
            transcript: Transcript(entries: Self.instructionsEntry(instructions, tools: tools)))
    }

    /// Creates a session with instructions given as a string.
    public convenience init(model: some LanguageModel = SystemLanguageModel.default, tools: [any Tool] = [], instructions: String) {
        self.init(model: model, tools: tools, instructions: Instructions(instructions))
    }

    /// Creates a session with an instructions builder.
    public convenience init(
        model: some LanguageModel = SystemLanguageModel.default, tools: [any Tool] = [],
        @InstructionsBuilder instructions: () throws -> Instructions
    ) rethrows {
        self.init(model: model, tools: tools, instructions: try instructions())
    }

    /// Creates a session that continues the conversation of a transcript.
    public convenience init(model: some LanguageModel = SystemLanguageModel.default, tools: [any Tool] = [], transcript: Transcript) {
        self.init(executor: Self.makeExecutor(model), tools: tools, transcript: transcript)
    }

    /// Creates a session whose instructions, tools and settings come from a dynamic profile,
    /// worked out again before every round of every request.
    ///
    /// The profile is sent to the session, as Apple's signature says: the session owns it from
    /// here on and works it out only inside its requests, which never overlap.
    public convenience init(
        model: some LanguageModel = SystemLanguageModel.default, profile: sending some DynamicProfile,
        history: some Collection<Transcript.Entry> = []
    ) {
        let owned: any ResolvableProfile = SentProfile(profile)
        let resolve: @Sendable () -> ResolvedProfile = { owned.resolved() }
        self.init(
            executor: Self.makeExecutor(model), tools: [],
            transcript: Transcript(entries: history.filter { if case .instructions = $0 { false } else { true } }),
            profile: resolve)
    }

    /// Loads the model and processes the instructions (and a prompt prefix, if given) ahead of
    /// the first request, so that it starts sooner.
    public func prewarm(promptPrefix: Prompt? = nil) {
        var transcript = self.transcript
        if let promptPrefix {
            transcript.entries.append(.prompt(Transcript.Prompt(segments: promptPrefix.segments)))
        }
        executor.prewarm(transcript)
    }

    // MARK: State changes, announced to observers.

    package func setResponding(_ value: Bool) {
        registrar.withMutation(of: self, keyPath: \.isResponding) {
            state.withLock { $0.isResponding = value }
        }
    }

    /// Replaces the transcript's history, keeping its instructions (``SessionPropertyValues/history``).
    package func replaceHistory(with history: Transcript.HistoryView, fromInside: Bool) {
        replaceTranscript(fromInside: fromInside) { $0.replacingHistory(with: history) }
    }

    /// Changes the transcript, unless a request is running and the change does not come from it.
    private func replaceTranscript(fromInside: Bool, _ change: (Transcript) -> Transcript) {
        let changed: Transcript? = registrar.withMutation(of: self, keyPath: \.transcript) {
            state.withLock { state in
                guard !state.isResponding || fromInside else { return nil }
                state.transcript = change(state.transcript)
                return state.transcript
            }
        }
        guard let changed else {
            logger.error(
                "transcript change refused",
                metadata: ["error": "\(LanguageModelSession.Error.transcriptMutationWhileResponding)"])
            return
        }
        agentNode.record(changed)
    }

    package func setTranscript(_ transcript: Transcript) {
        registrar.withMutation(of: self, keyPath: \.transcript) {
            state.withLock { $0.transcript = transcript }
        }
        agentNode.record(transcript)
    }

    /// The executor for a profile's model: the session's own when the profile names none.
    package func executor(for model: (any LanguageModel)?) -> AnyLanguageModelExecutor {
        guard let model else { return executor }
        return profileExecutors.withLock { executors in
            let key = Self.executorKey(model)
            if let made = executors[key] { return made }
            let made = Self.makeExecutor(model)
            executors[key] = made
            return made
        }
    }

    private static func executorKey<Model: LanguageModel>(_ model: Model) -> AnyHashable {
        AnyHashable(model.executorConfiguration)
    }

    /// Marks the session busy and appends the request's prompt, in one step (an observer that sees
    /// the session responding sees its prompt), or throws `concurrentRequests` if it already is busy.
    /// Returns the transcript before and after the prompt.
    package func beginRequest(prompt: Transcript.Entry) throws -> (before: Transcript, after: Transcript) {
        let begun: (Transcript, Transcript)? = registrar.withMutation(of: self, keyPath: \.transcript) {
            registrar.withMutation(of: self, keyPath: \.isResponding) {
                state.withLock { state in
                    guard !state.isResponding else { return nil }
                    state.isResponding = true
                    let before = state.transcript
                    state.transcript.entries.append(prompt)
                    return (before, state.transcript)
                }
            }
        }
        guard let begun else {
            throw GenerationError.concurrentRequests(
                GenerationError.Context(debugDescription: "respond was called while the session was responding to another request"))
        }
        agentNode.record(begun.1)
        return begun
    }
}

/// A sent profile, its type erased: a closure that captured the generic profile would capture its
/// metatype, which is not `Sendable`.
private protocol ResolvableProfile: Sendable {
    func resolved() -> ResolvedProfile
}

/// A profile the session was sent. It is read only while the session works out a round, and a
/// session runs one request at a time (`beginRequest`), so no two threads read it at once; the
/// caller gave up its reference when it sent it.
private final class SentProfile<Profile: LanguageModelSession.DynamicProfile>: ResolvableProfile, @unchecked Sendable {
    let profile: Profile
    init(_ profile: sending Profile) { self.profile = profile }

    func resolved() -> ResolvedProfile {
        var resolved = ResolvedProfile()
        LanguageModelSession.resolve(profile, into: &resolved)
        return resolved
    }
}

/// Options for how a session manages its transcript when a request fails.
public struct TranscriptErrorHandlingPolicy: Sendable, Hashable {
    package enum Value: Sendable, Hashable { case preserve, revert }
    package let value: Value

    /// Keep the transcript as it is; its last entry may be partially generated.
    public static let preserveTranscript = TranscriptErrorHandlingPolicy(value: .preserve)
    /// Put the transcript back as it was just before the request.
    public static let revertTranscript = TranscriptErrorHandlingPolicy(value: .revert)
}

extension LanguageModelSession {
    /// Thrown when a request takes more than `maximumToolRounds` rounds of tool calls, which
    /// stops a model (or a `.required` tool calling mode) that would call tools forever.
    public struct ToolCallLimitExceeded: Swift.Error, LocalizedError {
        /// The bound that was exceeded.
        public let maximumToolRounds: Int

        public var errorDescription: String? {
            "The model kept calling tools for more than \(maximumToolRounds) rounds in one request."
        }
    }

    /// Token counts of one request, summed over its tool-calling rounds.
    public struct Usage: Sendable, Equatable {
        /// Prompt tokens the model read, including cached ones.
        public var inputTokenCount: Int
        /// Prompt tokens whose KV cache entries were reused rather than computed.
        public var cachedInputTokenCount: Int
        /// Tokens the model generated.
        public var outputTokenCount: Int

        public init(inputTokenCount: Int = 0, cachedInputTokenCount: Int = 0, outputTokenCount: Int = 0) {
            self.inputTokenCount = inputTokenCount
            self.cachedInputTokenCount = cachedInputTokenCount
            self.outputTokenCount = outputTokenCount
        }
    }
}
