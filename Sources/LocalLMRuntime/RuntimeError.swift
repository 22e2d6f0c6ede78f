import LocalLMGGUF

/// Why a model could not be loaded or a sequence could not advance.
///
/// Model files are untrusted input: every missing key, wrong shape or unsupported type is one of these,
/// naming the key or tensor, never a crash.
public enum RuntimeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `general.architecture` is absent.
    case missingArchitecture
    /// `general.architecture` names an architecture this runtime does not implement.
    case unknownArchitecture(String, supported: [String])
    /// A required metadata key is absent.
    case missingKey(String)
    /// A metadata value is present but unusable (wrong type, out of range, inconsistent).
    case invalidValue(key: String, reason: String)
    /// A required tensor is absent.
    case missingTensor(String)
    /// A tensor's dimensions (ggml order, innermost first) are not what the configuration implies.
    case tensorShape(name: String, expected: [Int], actual: [Int])
    /// A tensor uses a type the kernels cannot compute with.
    case unsupportedTensorType(name: String, type: GGMLType)
    /// The GGUF reader rejected the file.
    case file(String)
    /// Appending `count` tokens at `position` would go past the sequence's context size.
    case contextOverflow(position: Int, count: Int, contextSize: Int)
    /// A token id outside the vocabulary.
    case invalidToken(Int, vocabularySize: Int)
    /// A cache operation asked for a prefix longer than what is cached.
    case invalidPrefix(length: Int, cached: Int)
    /// Nothing to evaluate.
    case emptyInput
    /// An option is out of range (e.g. a context size of zero).
    case invalidOption(String)
    /// The calling task was cancelled; the tokens evaluated before it stay in the cache.
    case cancelled

    public var description: String {
        switch self {
        case .missingArchitecture:
            "the model has no general.architecture key"
        case .unknownArchitecture(let name, let supported):
            "unknown model architecture '\(name)' (supported: \(supported.joined(separator: ", ")))"
        case .missingKey(let key):
            "the model has no '\(key)' metadata key, which its architecture requires"
        case .invalidValue(let key, let reason):
            "metadata key '\(key)': \(reason)"
        case .missingTensor(let name):
            "the model has no tensor '\(name)'"
        case .tensorShape(let name, let expected, let actual):
            "tensor '\(name)' has dimensions \(actual), expected \(expected)"
        case .unsupportedTensorType(let name, let type):
            "tensor '\(name)' has type \(type), which the kernels cannot compute with"
        case .file(let message):
            "cannot read the model file: \(message)"
        case .contextOverflow(let position, let count, let contextSize):
            "context full: \(count) token(s) at position \(position) would exceed the context size \(contextSize)"
        case .invalidToken(let id, let vocabularySize):
            "token id \(id) is outside the vocabulary (0..<\(vocabularySize))"
        case .invalidPrefix(let length, let cached):
            "cannot keep a prefix of \(length) tokens: only \(cached) are cached"
        case .emptyInput:
            "no tokens to evaluate"
        case .invalidOption(let message):
            "invalid option: \(message)"
        case .cancelled:
            "cancelled"
        }
    }
}

extension RuntimeError {
    /// Wraps a GGUF reader error so that callers deal with one error type.
    init(_ error: GGUFError) { self = .file(error.description) }
}
