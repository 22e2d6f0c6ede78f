import Foundation
import LocalLM
import LocalLMOpenAI
import Testing

/// The remote backend against llama.cpp's server (llama-cpp-python, `python -m llama_cpp.server`)
/// on Qwen2.5-Coder-0.5B. scripts/serve-tests.sh starts the server and sets
/// LOCALLM_LLAMA_SERVER_URL; without it (a plain `swift test`) these tests are disabled, and the
/// script fails if they do not run.
@Suite(
    "OpenAI backend against llama.cpp's server", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["LOCALLM_LLAMA_SERVER_URL"] != nil))
struct LlamaCppServerTests {
    var model: OpenAILanguageModel {
        OpenAILanguageModel(
            baseURL: ProcessInfo.processInfo.environment["LOCALLM_LLAMA_SERVER_URL"] ?? "", model: "qwen",
            dialect: .llamaCppPython)
    }

    @Test func weatherProgram() async throws {
        try await RemoteSeeds.weather(on: model)
    }

    @Test func structuredOutputProgram() async throws {
        // In one CI run (2026-11-25) llama.cpp's server wrote "ingredients" before "name"; the order
        // is the server's, so only LocalLM's own server is held to the schema's order.
        try await RemoteSeeds.recipe(on: model, inSchemaOrder: false)
    }
}
