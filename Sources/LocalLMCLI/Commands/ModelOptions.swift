import ArgumentParser
import Foundation
import LocalLM

/// Options shared by the commands that talk to a model.
struct ModelOptions: ParsableArguments {
    @Option(name: .long, help: "GGUF model file (default: $LOCALLM_MODEL, else the SmolLM2 file scripts/fetch-models.sh fetches; for `agent`, its Qwen2.5-Coder-0.5B file).")
    var model: String?

    @Option(name: .long, help: "Context window in tokens (default: the model's, at most 4096).")
    var contextSize: Int?

    @Option(name: .long, help: "Most tokens per answer.")
    var maxTokens: Int?

    @Option(name: .long, help: "Sampling temperature; 0 is greedy.")
    var temperature: Double?

    @Option(name: .long, help: "Random seed, for repeatable sampling.")
    var seed: UInt64?

    var generationOptions: GenerationOptions {
        let mode: GenerationOptions.SamplingMode? =
            if temperature == 0 { .greedy } else if let seed { .random(probabilityThreshold: 0.9, seed: seed) } else { nil }
        return GenerationOptions(samplingMode: mode, temperature: temperature, maximumResponseTokens: maxTokens)
    }

    /// The file the tool-calling commands (`agent`) use when neither `--model` nor `$LOCALLM_MODEL`
    /// names one: Qwen2.5-Coder-0.5B-Instruct, which `scripts/fetch-models.sh` fetches into the
    /// model cache. SmolLM2-135M, the default elsewhere, rarely follows a tool-calling prompt; the
    /// 0.5B model was trained for Hermes-style calls.
    static var toolCallingModelURL: URL {
        if let path = ProcessInfo.processInfo.environment["LOCALLM_MODEL"], !path.isEmpty {
            return URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        }
        return SystemLanguageModel.defaultModelURL.deletingLastPathComponent()
            .appendingPathComponent("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
    }

    /// The model, or a clear error when it cannot be used. `defaultURL` is the file used when
    /// `--model` is not given.
    func availableModel(defaultURL: URL = SystemLanguageModel.defaultModelURL) throws -> SystemLanguageModel {
        let url = model.map { URL(fileURLWithPath: ($0 as NSString).expandingTildeInPath) } ?? defaultURL
        let model = SystemLanguageModel(contentsOf: url, configuration: .init(contextSize: contextSize))
        guard model.isAvailable else {
            throw ValidationError("model \(model.url.path) is \(model.availability); run scripts/fetch-models.sh or pass --model")
        }
        return model
    }
}

/// Unbuffered standard output, so streamed text appears as it is generated.
enum Console {
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
