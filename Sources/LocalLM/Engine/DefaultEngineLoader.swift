import Foundation

/// Loads a GGUF model with LocalLM's runtime.
// TODO(runtime): replace with the GGUF engine once LocalLMRuntime and LocalLMTokenizers land on main.
@Sendable package func defaultEngineLoader(_ key: EngineKey) throws -> any LocalEngine {
    throw UnsupportedModel("the GGUF runtime is not part of this build yet")
}
