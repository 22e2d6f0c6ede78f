import Foundation

/// Locates the real test models that `scripts/fetch-models.sh` puts in `$LOCALLM_MODELS`
/// (default `~/.cache/locallm/models`), and the committed fixtures under `Tests/Fixtures`.
public enum TestModels {
    public static var folder: URL {
        if let dir = ProcessInfo.processInfo.environment["LOCALLM_MODELS"], !dir.isEmpty {
            return URL(fileURLWithPath: dir, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".cache/locallm/models", isDirectory: true)
    }

    /// SmolLM2-135M-Instruct Q4_1 (llama architecture, GPT-2 BPE `smollm`, ChatML).
    public static var smolLM2: URL { folder.appendingPathComponent("SmolLM2-135M-Instruct.Q4_1.gguf") }

    /// Gemma 3 270M Q4_K_M (gemma3 architecture, SentencePiece 262k, base model).
    public static var gemma3: URL { folder.appendingPathComponent("gemma-3-270m-q4_k_m.gguf") }

    /// Qwen2.5-Coder-0.5B-Instruct Q4_K_M mix (qwen2 architecture, 24 layers, GPT-2 BPE `qwen2` 152k,
    /// ChatML with Hermes tool calls): Q4_K, Q5_0, Q6_K and Q8_0 weights.
    public static var qwen05: URL { folder.appendingPathComponent("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf") }

    /// A model file that must exist: the real-model tests run in CI and are never skipped.
    public static func require(_ url: URL) throws -> URL {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw MissingModel(path: url.path)
        }
        return url
    }

    public struct MissingModel: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "test model missing at \(path): run scripts/fetch-models.sh" }
    }
}

/// Committed fixtures (goldens made by scripts under `scripts/goldens/`).
public enum Fixtures {
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // LocalLMTestSupport
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures", isDirectory: true)

    public static func url(_ relativePath: String) -> URL {
        root.appendingPathComponent(relativePath)
    }

    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }
}
