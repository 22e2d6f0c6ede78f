import Foundation

/// Loads a GGUF model with LocalLM's runtime.
@Sendable package func defaultEngineLoader(_ key: EngineKey) throws -> any LocalEngine {
    try GGUFEngine(key: key)
}
