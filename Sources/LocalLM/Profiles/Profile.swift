extension LanguageModelSession {
    /// A configuration: instructions and tools, given with a builder, plus modifiers.
    ///
    /// ```swift
    /// Profile {
    ///     "You are a bread expert."
    ///     BreadDatabaseTool()
    /// }
    /// .temperature(0.9)
    /// ```
    public struct Profile: LanguageModelSession.DynamicProfile, PrimitiveProfile {
        package let content: ProfileContent

        public init(@ProfileContentBuilder _ content: () -> ProfileContent) {
            self.content = content()
        }

        public var body: Never { fatalError("Profile has no body") }

        package func resolve(into profile: inout ResolvedProfile) {
            if !content.segments.isEmpty { profile.instructions = Instructions(segments: content.segments) }
            profile.tools = content.tools
        }
    }

    /// What a `Profile` holds: instruction segments and tools, in order.
    public struct ProfileContent: Sendable {
        package var segments: [Transcript.Segment] = []
        package var tools: [any Tool] = []

        package init(segments: [Transcript.Segment] = [], tools: [any Tool] = []) {
            self.segments = segments
            self.tools = tools
        }

        package static func + (lhs: Self, rhs: Self) -> Self {
            ProfileContent(segments: lhs.segments + rhs.segments, tools: lhs.tools + rhs.tools)
        }
    }

    /// Builds a `Profile`'s content from instructions (strings, `Instructions`, Generable values)
    /// and tools.
    @resultBuilder
    public enum ProfileContentBuilder {
        public static func buildExpression(_ tool: some Tool) -> ProfileContent {
            ProfileContent(tools: [tool])
        }

        public static func buildExpression(_ instructions: some InstructionsRepresentable) -> ProfileContent {
            ProfileContent(segments: instructions.instructionsRepresentation.segments)
        }

        public static func buildExpression(_ content: ProfileContent) -> ProfileContent { content }

        public static func buildBlock(_ parts: ProfileContent...) -> ProfileContent {
            parts.reduce(ProfileContent(), +)
        }

        public static func buildOptional(_ part: ProfileContent?) -> ProfileContent { part ?? ProfileContent() }
        public static func buildEither(first: ProfileContent) -> ProfileContent { first }
        public static func buildEither(second: ProfileContent) -> ProfileContent { second }
        public static func buildArray(_ parts: [ProfileContent]) -> ProfileContent { parts.reduce(ProfileContent(), +) }
        public static func buildLimitedAvailability(_ part: ProfileContent) -> ProfileContent { part }
    }

    /// A profile with one setting changed.
    public struct ModifiedProfile<Base: LanguageModelSession.DynamicProfile>: LanguageModelSession.DynamicProfile, PrimitiveProfile {
        let base: Base
        let modify: @Sendable (inout ResolvedProfile) -> Void

        public var body: Never { fatalError("ModifiedProfile has no body") }

        package func resolve(into profile: inout ResolvedProfile) {
            LanguageModelSession.resolve(base, into: &profile)
            modify(&profile)
        }
    }
}

extension LanguageModelSession.DynamicProfile {
    private func modified(_ modify: @escaping @Sendable (inout ResolvedProfile) -> Void) -> LanguageModelSession.ModifiedProfile<Self> {
        LanguageModelSession.ModifiedProfile(base: self, modify: modify)
    }

    /// Sets the tool calling mode of requests made under this profile.
    public func toolCallingMode(_ toolCallingMode: GenerationOptions.ToolCallingMode?) -> some LanguageModelSession.DynamicProfile {
        modified { $0.toolCallingMode = toolCallingMode }
    }

    /// Runs this profile's requests on `model` instead of the session's. Each model keeps its own
    /// executor (and KV cache) for the session, made the first time a profile picks it; the
    /// transcript is shared, so switching models re-prefills it on the other model.
    public func model(_ model: some LanguageModel) -> some LanguageModelSession.DynamicProfile {
        modified { $0.model = model }
    }

    /// Sets the sampling temperature of requests made under this profile.
    public func temperature(_ temperature: Double?) -> some LanguageModelSession.DynamicProfile {
        modified { $0.temperature = temperature }
    }

    /// Sets what happens to the transcript when a request fails.
    public func transcriptErrorHandlingPolicy(_ policy: TranscriptErrorHandlingPolicy?) -> some LanguageModelSession.DynamicProfile {
        modified { $0.transcriptErrorHandlingPolicy = policy }
    }

    /// Sets how much the model reasons before it answers, on models whose chat template has a
    /// thinking switch (see ``ContextOptions/reasoningLevel``).
    public func reasoningLevel(_ reasoningLevel: ContextOptions.ReasoningLevel?) -> some LanguageModelSession.DynamicProfile {
        modified { $0.reasoningLevel = reasoningLevel }
    }

    /// Transforms the history the model is shown before each invocation, without changing the
    /// session's transcript: `.historyTransform { Array($0.suffix(20)) }` shows the last twenty
    /// entries. The cache is reused up to the first token the transform changed.
    public func historyTransform(_ transform: @escaping @Sendable ([Transcript.Entry]) -> [Transcript.Entry])
        -> some LanguageModelSession.DynamicProfile
    {
        modified { $0.historyTransforms.append(transform) }
    }

    /// Runs an action whenever this profile's request produces reasoning (models with the
    /// `.reasoning` capability), after the reasoning is in the transcript. An error it throws is
    /// what `respond` throws.
    public func onReasoning(perform action: @escaping @Sendable () async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        modified { $0.onReasoning.append { _ in try await action() } }
    }

    /// `onReasoning` with the reasoning entry.
    public func onReasoning(perform action: @escaping @Sendable (Transcript.Reasoning) async throws -> Void)
        -> some LanguageModelSession.DynamicProfile
    {
        modified { $0.onReasoning.append(action) }
    }

    /// Runs an action when this profile becomes active: the first time it is part of the session's
    /// resolved profile, and again each time it comes back after a round without it (an `if` in a
    /// `body` that chose another branch). It runs before the round's other hooks.
    public func onActivate(perform action: @escaping @Sendable () async -> Void) -> some LanguageModelSession.DynamicProfile {
        modified { $0.onActivate.append((path: $0.path.joined(separator: "/"), action: action)) }
    }

    /// Runs an action once per request, before the model is first invoked under this profile. An
    /// error it throws ends the request, and `respond` throws it.
    public func onPrompt(perform action: @escaping @Sendable () async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        modified { $0.onPrompt.append(action) }
    }

    /// Runs an action after this profile produced a response, with the response already in the
    /// transcript and the session still busy, so the action may edit `history` (to trim or
    /// summarize it) before the next request. An error it throws is what `respond` throws, and the
    /// transcript follows the error policy.
    public func onResponse(perform action: @escaping @Sendable () async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        modified { $0.onResponse.append(action) }
    }

    /// `onResponse` with an argument that carries nothing, for code written as `.onResponse { _ in … }`
    /// (as Apple's `SessionPropertyValues` documentation writes it).
    public func onResponse(perform action: @escaping @Sendable (()) async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        modified { $0.onResponse.append { try await action(()) } }
    }

    /// Runs an action for every tool call, before the tool runs. An error it throws ends the request.
    public func onToolCall(perform action: @escaping @Sendable (Transcript.ToolCall) async throws -> Void)
        -> some LanguageModelSession.DynamicProfile
    {
        modified { $0.onToolCall.append(action) }
    }

    /// Runs an action for every tool call, before the tool runs. An error it throws ends the request.
    public func onToolCall(perform action: @escaping @Sendable () async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        modified { $0.onToolCall.append { _ in try await action() } }
    }
}
