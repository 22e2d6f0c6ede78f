/// Instructions and tools worked out again before every request to the model, from the state of
/// the app: a `body` of `Instructions`, strings, tools and other dynamic instructions, with `if` and
/// `for` choosing among them.
///
/// ```swift
/// struct Facilitator: DynamicInstructions {
///     var usesOrigami: Bool
///     var body: some DynamicInstructions {
///         Instructions { "You are a friendly crafting assistant." }
///         ProjectTitleTool()
///         if usesOrigami { OrigamiTool() }
///     }
/// }
///
/// let session = LanguageModelSession(dynamicInstructions: Facilitator(usesOrigami: true))
/// ```
public protocol DynamicInstructions {
    associatedtype Body: DynamicInstructions
    @DynamicInstructionsBuilder var body: Body { get }
}

/// Builds the `body` of dynamic instructions (and a `Profile`'s content).
public typealias DynamicInstructionsBuilder = LanguageModelSession.ProfileContentBuilder

extension LanguageModelSession.ProfileContent: DynamicInstructions {
    public var body: Never { return fatalError("ProfileContent has no body") }
}

extension Never: DynamicInstructions {}

extension LanguageModelSession.ProfileContentBuilder {
    public static func buildExpression(_ instructions: some DynamicInstructions) -> LanguageModelSession.ProfileContent {
        resolve(instructions)
    }

    /// The instructions and tools `instructions` comes to now.
    package static func resolve(_ instructions: some DynamicInstructions) -> LanguageModelSession.ProfileContent {
        if let content = instructions as? LanguageModelSession.ProfileContent { return content }
        return resolve(instructions.body)
    }
}

extension LanguageModelSession.Profile {
    /// A profile whose instructions and tools are dynamic instructions.
    public init(_ dynamicInstructions: some DynamicInstructions) {
        self.init { dynamicInstructions }
    }
}

extension LanguageModelSession {
    /// Creates a session whose instructions and tools are worked out from `dynamicInstructions`
    /// before every request to the model. `history` holds the entries after the instructions.
    public convenience init(
        model: some LanguageModel = SystemLanguageModel.default, dynamicInstructions: sending some DynamicInstructions,
        history: some Collection<Transcript.Entry> = []
    ) {
        self.init(model: model, profile: DynamicInstructionsProfile(instructions: dynamicInstructions), history: history)
    }
}

/// The profile of a session made from dynamic instructions alone.
struct DynamicInstructionsProfile<Instructions: DynamicInstructions>: LanguageModelSession.DynamicProfile {
    let instructions: Instructions

    var body: some LanguageModelSession.DynamicProfile {
        LanguageModelSession.Profile { instructions }
    }
}
