import Foundation
import LocalLMEngine
import LocalLMRuntime
import LocalLMSync

/// Process-wide table of loaded models, so each file + configuration is loaded once and shared by
/// every session on it.
package final class EngineRegistry: Sendable {
    package static let shared = EngineRegistry()

    private final class Slot: Sendable {
        let result = SanitizableMutex<Result<GGUFEngine, any Error>?>(nil)
    }

    private let slots = SanitizableMutex<[EngineKey: Slot]>([:])

    private func slot(for key: EngineKey) -> Slot {
        slots.withLock { slots in
            if let slot = slots[key] { return slot }
            let slot = Slot()
            slots[key] = slot
            return slot
        }
    }

    /// Loads the model of `key` with LocalLM's runtime.
    private static func load(_ key: EngineKey) throws -> GGUFEngine {
        let cacheType: KVCacheStorage =
            switch key.configuration.kvCacheType {
            case .f32: .f32
            case .f16: .f16
            }
        return try GGUFEngine(
            contentsOf: URL(fileURLWithPath: key.path), threads: key.configuration.threads,
            contextSize: key.configuration.contextSize, cacheType: cacheType)
    }

    /// The loaded engine, loading it on first use. Concurrent first users wait for one load.
    package func engine(for key: EngineKey) throws -> GGUFEngine {
        let slot = slot(for: key)
        return try slot.result.withLock { result in
            if let result { return try result.get() }
            let loaded = Result { try Self.load(key) }
            result = loaded
            return try loaded.get()
        }
    }

    /// The engine if it is already loaded.
    package func loadedEngine(for key: EngineKey) -> GGUFEngine? {
        let slot = slots.withLock { $0[key] }
        return slot?.result.withLock { try? $0?.get() }
    }

    /// The error of a load that failed, if one did.
    package func loadFailure(for key: EngineKey) -> (any Error)? {
        let slot = slots.withLock { $0[key] }
        return slot?.result.withLock { result -> (any Error)? in
            if case .failure(let error) = result { return error }
            return nil
        }
    }
}
