extension LanguageModelSession {
    /// A reusable wrapper around profile content: `body(content:)` returns the content with
    /// modifiers applied, and `profile.modifier(MyModifier())` applies it.
    ///
    /// ```swift
    /// struct Careful: LanguageModelSession.DynamicProfileModifier {
    ///     func body(content: Content) -> some LanguageModelSession.DynamicProfile {
    ///         content
    ///             .temperature(0.2)
    ///             .transcriptErrorHandlingPolicy(.preserveTranscript)
    ///     }
    /// }
    /// ```
    public protocol DynamicProfileModifier {
        /// The profile this modifier makes of its content.
        associatedtype Body: LanguageModelSession.DynamicProfile
        /// The content of the dynamic profile modifier.
        @LanguageModelSession.DynamicProfileBuilder func body(content: Content) -> Body
    }

    /// The profile a modifier applies to, as its `body(content:)` receives it.
    public struct DynamicProfileModifierContent<Modifier: LanguageModelSession.DynamicProfileModifier>:
        LanguageModelSession.DynamicProfile, PrimitiveProfile
    {
        let resolveContent: (inout ResolvedProfile) -> Void

        public var body: Never { fatalError("DynamicProfileModifierContent has no body") }

        package func resolve(into profile: inout ResolvedProfile) {
            resolveContent(&profile)
        }
    }

    /// A dynamic profile with a modifier applied to it.
    public struct ModifiedDynamicProfile<Content: LanguageModelSession.DynamicProfile, Modifier: LanguageModelSession.DynamicProfileModifier>:
        LanguageModelSession.DynamicProfile, PrimitiveProfile
    {
        let content: Content
        let modifier: Modifier

        public var body: Never { fatalError("ModifiedDynamicProfile has no body") }

        package func resolve(into profile: inout ResolvedProfile) {
            let content = self.content
            let wrapped = DynamicProfileModifierContent<Modifier> { LanguageModelSession.resolve(content, into: &$0) }
            LanguageModelSession.resolve(modifier.body(content: wrapped), into: &profile)
        }
    }
}

extension LanguageModelSession.DynamicProfileModifier {
    /// The type of the content this modifier wraps.
    public typealias Content = LanguageModelSession.DynamicProfileModifierContent<Self>
    /// `DynamicProfile` and `@SessionProperty` written unqualified inside a modifier.
    public typealias DynamicProfile = LanguageModelSession.DynamicProfile
    public typealias SessionProperty<Value> = LanguageModelSession.SessionProperty<Value>
}

extension LanguageModelSession.DynamicProfile {
    /// Applies a modifier to the dynamic profile.
    public func modifier<Modifier: LanguageModelSession.DynamicProfileModifier>(_ modifier: Modifier) -> some LanguageModelSession.DynamicProfile {
        LanguageModelSession.ModifiedDynamicProfile(content: self, modifier: modifier)
    }
}
