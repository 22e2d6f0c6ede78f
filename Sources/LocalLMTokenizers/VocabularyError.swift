/// Why a vocabulary could not be built from a model file's `tokenizer.*` metadata.
public enum VocabularyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A required key is absent, e.g. `tokenizer.ggml.tokens`.
    case missingKey(String)
    /// A key has the wrong type or an unusable value.
    case invalidValue(key: String, reason: String)
    /// `tokenizer.ggml.model` names a tokenizer this package does not implement (e.g. `bert`, `t5`).
    case unsupportedModel(String)
    /// `tokenizer.ggml.pre` names a pre-tokenizer llama.cpp knows but this package does not implement.
    case unsupportedPreTokenizer(String)
    /// `tokenizer.ggml.pre` names no pre-tokenizer llama.cpp knows.
    case unknownPreTokenizer(String)
    /// The GGUF reader failed while reading a tokenizer key.
    case metadata(key: String, message: String)

    public var description: String {
        switch self {
        case .missingKey(let key): "vocabulary: missing metadata key \(key)"
        case .invalidValue(let key, let reason): "vocabulary: invalid \(key): \(reason)"
        case .unsupportedModel(let name): "vocabulary: unsupported tokenizer.ggml.model '\(name)'"
        case .unsupportedPreTokenizer(let name): "vocabulary: pre-tokenizer '\(name)' is not implemented"
        case .unknownPreTokenizer(let name): "vocabulary: unknown pre-tokenizer '\(name)'"
        case .metadata(let key, let message): "vocabulary: reading \(key): \(message)"
        }
    }
}
