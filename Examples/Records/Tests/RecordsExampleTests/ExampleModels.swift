import Foundation

/// The model the example's tests run on, where `scripts/fetch-models.sh` puts it (`$LOCALLM_MODELS`,
/// default `~/.cache/locallm/models`). The root package's test support is not a product, so the
/// example keeps its own two-line locator.
enum ExampleModels {
    /// Qwen2.5-Coder-0.5B-Instruct, the model `locallm-records ask` uses by default.
    static var qwen05: URL {
        let environment = ProcessInfo.processInfo.environment["LOCALLM_MODELS"] ?? ""
        let folder = environment.isEmpty
            ? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/locallm/models")
            : URL(fileURLWithPath: environment, isDirectory: true)
        return folder.appendingPathComponent("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
    }

    /// The real-model tests run in CI and are never skipped: a missing model is a failure.
    static func require(_ url: URL) throws -> URL {
        guard FileManager.default.fileExists(atPath: url.path) else { throw MissingModel(path: url.path) }
        return url
    }

    struct MissingModel: Error, CustomStringConvertible {
        let path: String
        var description: String { "test model missing at \(path): run scripts/fetch-models.sh" }
    }
}
