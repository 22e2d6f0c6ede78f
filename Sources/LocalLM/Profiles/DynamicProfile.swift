extension LanguageModelSession {
    /// Session configuration that is worked out again before every round of a request: which
    /// instructions and tools the model sees, the tool calling mode, temperature, error policy and
    /// tool-call hooks. `body` may read session properties (`@SessionProperty`) that hooks update,
    /// so a profile can, say, require one tool call and then allow the model to answer.
    public protocol DynamicProfile {
        associatedtype Body: LanguageModelSession.DynamicProfile
        @DynamicProfileBuilder var body: Body { get }
    }

    /// Builds a profile's `body`, with `if`/`else` choosing between profiles.
    @resultBuilder
    public enum DynamicProfileBuilder {
        public static func buildBlock<P: LanguageModelSession.DynamicProfile>(_ profile: P) -> P { profile }

        public static func buildEither<First: LanguageModelSession.DynamicProfile, Second: LanguageModelSession.DynamicProfile>(
            first: First
        ) -> ConditionalProfile<First, Second> {
            ConditionalProfile(choice: .first(first))
        }

        public static func buildEither<First: LanguageModelSession.DynamicProfile, Second: LanguageModelSession.DynamicProfile>(
            second: Second
        ) -> ConditionalProfile<First, Second> {
            ConditionalProfile(choice: .second(second))
        }

        public static func buildLimitedAvailability<P: LanguageModelSession.DynamicProfile>(_ profile: P) -> P { profile }
    }

    /// One of two profiles, from an `if`/`else` in a `body`.
    public struct ConditionalProfile<First: LanguageModelSession.DynamicProfile, Second: LanguageModelSession.DynamicProfile>:
        LanguageModelSession.DynamicProfile, PrimitiveProfile
    {
        enum Choice {
            case first(First)
            case second(Second)
        }

        let choice: Choice

        public var body: Never { fatalError("ConditionalProfile has no body") }

        package func resolve(into profile: inout ResolvedProfile) {
            switch choice {
            case .first(let first):
                profile.path.append("if")
                LanguageModelSession.resolve(first, into: &profile)
            case .second(let second):
                profile.path.append("else")
                LanguageModelSession.resolve(second, into: &profile)
            }
            profile.path.removeLast()
        }
    }

    /// Works out a profile: primitive profiles apply themselves, others their `body`.
    /// Works out a profile: primitive profiles apply themselves, others their `body`. The path of
    /// types and branches taken identifies each part of the result across rounds (for `onActivate`).
    package static func resolve(_ profile: some DynamicProfile, into resolved: inout ResolvedProfile) {
        resolved.path.append(String(reflecting: type(of: profile)))
        defer { resolved.path.removeLast() }
        if let primitive = profile as? any PrimitiveProfile {
            primitive.resolve(into: &resolved)
        } else {
            resolve(profile.body, into: &resolved)
        }
    }

    /// A type-erased dynamic profile.
    public struct AnyDynamicProfile: LanguageModelSession.DynamicProfile, PrimitiveProfile {
        let resolveProfile: (inout ResolvedProfile) -> Void

        /// Creates an instance from the dynamic profile you specify.
        public init(_ dynamicProfile: any LanguageModelSession.DynamicProfile) {
            resolveProfile = { LanguageModelSession.resolve(dynamicProfile, into: &$0) }
        }

        public var body: Never { fatalError("AnyDynamicProfile has no body") }

        package func resolve(into profile: inout ResolvedProfile) {
            resolveProfile(&profile)
        }
    }
}

extension Never: LanguageModelSession.DynamicProfile {
    public var body: Never { fatalError("Never has no body") }
}

/// A profile that applies itself instead of having a body.
package protocol PrimitiveProfile {
    func resolve(into profile: inout ResolvedProfile)
}

/// What a profile comes to for one round of a request.
package struct ResolvedProfile: Sendable {
    package var instructions: Instructions?
    package var tools: [any Tool] = []
    package var toolCallingMode: GenerationOptions.ToolCallingMode?
    package var temperature: Double?
    package var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy?
    package var reasoningLevel: ContextOptions.ReasoningLevel?
    /// The model to run this profile's requests on, instead of the session's.
    package var model: (any LanguageModel)?
    package var onToolCall: [@Sendable (Transcript.ToolCall) async throws -> Void] = []
    package var onPrompt: [@Sendable () async throws -> Void] = []
    /// Applied in order to the history the model is shown (not to the transcript).
    package var historyTransforms: [@Sendable ([Transcript.Entry]) -> [Transcript.Entry]] = []
    package var onResponse: [@Sendable () async throws -> Void] = []
    package var onReasoning: [@Sendable (Transcript.Reasoning) async throws -> Void] = []
    /// `onActivate` actions by the path of the profile they belong to.
    package var onActivate: [(path: String, action: @Sendable () async -> Void)] = []
    /// Where resolution is: the types and branches from the top profile down.
    package var path: [String] = []
}

extension LanguageModelSession.DynamicProfile {
    /// `Profile` and `@SessionProperty` written unqualified inside a profile type, as Apple's
    /// documentation writes them.
    public typealias Profile = LanguageModelSession.Profile
    public typealias SessionProperty<Value> = LanguageModelSession.SessionProperty<Value>
}
