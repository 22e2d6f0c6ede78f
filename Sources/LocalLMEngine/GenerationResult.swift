/// When to stop generating, besides end-of-generation tokens and a full cache.
public struct GenerationLimits: Sendable, Equatable {
    /// Tokens to generate at most (nil: until the model ends or the cache is full).
    public var maxTokens: Int?
    /// Generation stops when the text contains one of these; the text is cut before it.
    public var stopStrings: [String]

    public init(maxTokens: Int? = 256, stopStrings: [String] = []) {
        self.maxTokens = maxTokens
        self.stopStrings = stopStrings
    }
}

/// Why generation ended.
public enum StopReason: Sendable, Equatable {
    /// The model chose an end-of-generation token (eos, eot, `<|im_end|>`, `<end_of_turn>`, …).
    case endOfGeneration(token: Int)
    case maxTokens
    case stopString(String)
    /// The sequence's cache is full: the last chosen token could not be evaluated.
    case contextFull
    /// The calling task was cancelled (checked between tokens and between prefill batches).
    case cancelled
    /// The sampler's mask allowed no token.
    case noAllowedToken
}

/// One generated token and the text it completes (empty while a UTF-8 character is incomplete).
public struct GeneratedToken: Sendable, Equatable {
    public let id: Int
    public let text: String
}

/// The outcome of a generation: the generated ids (without the stop token), their text, and why it
/// stopped.
public struct GenerationResult: Sendable, Equatable {
    public var ids: [Int]
    public var text: String
    public var stopReason: StopReason
}
