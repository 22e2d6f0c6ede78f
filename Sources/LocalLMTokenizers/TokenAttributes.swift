/// What a token is, as llama.cpp's `llama_token_attr`: from `tokenizer.ggml.token_type`, then adjusted by
/// the same text-based rules llama.cpp applies (end-of-turn tokens become control tokens, and so on).
public struct TokenAttributes: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let undefined = TokenAttributes(rawValue: 1 << 0)
    public static let unknown = TokenAttributes(rawValue: 1 << 1)
    public static let unused = TokenAttributes(rawValue: 1 << 2)
    public static let normal = TokenAttributes(rawValue: 1 << 3)
    public static let control = TokenAttributes(rawValue: 1 << 4)
    public static let userDefined = TokenAttributes(rawValue: 1 << 5)
    public static let byte = TokenAttributes(rawValue: 1 << 6)
    /// Strip whitespace left of the token when splitting special tokens out of text.
    public static let leftStrip = TokenAttributes(rawValue: 1 << 8)
    /// Strip whitespace right of the token when splitting special tokens out of text.
    public static let rightStrip = TokenAttributes(rawValue: 1 << 9)

    /// From a GGUF `tokenizer.ggml.token_type` value (llama.cpp's `llama_token_type`).
    public init(ggufTokenType: Int32) {
        switch ggufTokenType {
        case 1: self = .normal
        case 2: self = .unknown
        case 3: self = .control
        case 4: self = .userDefined
        case 5: self = .unused
        case 6: self = .byte
        default: self = .undefined
        }
    }
}
