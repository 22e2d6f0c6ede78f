import ArgumentParser
import Foundation
import LocalLM
import LocalLMServer

/// `locallm serve --model qwen=~/models/qwen.gguf [--model smol=…] [--port 8080]`: an
/// OpenAI-compatible server (`/v1/chat/completions`, `/v1/models`, `/health`) over local models.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve local models over the OpenAI-compatible HTTP API.",
        discussion: """
            Each --model is NAME=PATH (or a bare PATH, named after its file); clients pick one by its \
            name in the request's "model" field. Listens on 127.0.0.1 unless --host says otherwise.
            """
    )

    @Option(name: .long, help: "A model to serve, NAME=PATH; repeat for several (default: the SmolLM2 file, as 'default').")
    var model: [String] = []

    @Option(name: .long, help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "The port to listen on (0 picks a free one).")
    var port = 8080

    @Option(name: .long, help: "Require this key as 'Authorization: Bearer KEY' (default: $LOCALLM_API_KEY, else none).")
    var apiKey: String?

    @Option(name: .long, help: "Requests each model runs at once (one KV cache each); more wait their turn.")
    var parallel = 4

    @Option(name: .long, help: "Context window in tokens per sequence (default: the model's, at most 4096).")
    var contextSize: Int?

    @Option(name: .long, help: "Largest request body in bytes.")
    var maxBodyBytes = 4 << 20

    func validate() throws {
        guard parallel >= 1 else { throw ValidationError("--parallel must be at least 1") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be in 0...65535") }
        guard maxBodyBytes >= 1024 else { throw ValidationError("--max-body-bytes must be at least 1024") }
    }

    func run() async throws {
        var served: [ServedModel] = []
        let specs = model.isEmpty ? ["default=" + SystemLanguageModel.defaultModelURL.path] : model
        for spec in specs {
            let name: String
            let path: String
            if let equals = spec.firstIndex(of: "="), !spec[..<equals].contains("/") {
                name = String(spec[..<equals])
                path = String(spec[spec.index(after: equals)...])
            } else {
                path = spec
                name = URL(fileURLWithPath: spec).deletingPathExtension().lastPathComponent
            }
            guard !name.isEmpty else { throw ValidationError("--model \(spec): the name is empty") }
            let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
            let languageModel = SystemLanguageModel(contentsOf: url, configuration: .init(contextSize: contextSize))
            guard languageModel.isAvailable else {
                throw ValidationError("--model \(spec): \(url.path) is \(languageModel.availability)")
            }
            // Load now, so the first request does not pay for it and a bad file fails here.
            guard languageModel.contextSize > 0 else { throw ValidationError("--model \(spec): \(url.path) cannot be loaded") }
            served.append(ServedModel(name: name, model: languageModel))
        }
        var configuration = OpenAIServer.Configuration()
        configuration.host = host
        configuration.port = port
        configuration.apiKey = apiKey ?? ProcessInfo.processInfo.environment["LOCALLM_API_KEY"]
        configuration.sequencesPerModel = parallel
        configuration.maximumBodyBytes = maxBodyBytes
        let server = try OpenAIServer(models: served, configuration: configuration)
        let names = served.map(\.name).joined(separator: ", ")
        let host = self.host
        try await server.run { port in
            FileHandle.standardError.write(Data("locallm serve: listening on http://\(host):\(port)/v1 (models: \(names))\n".utf8))
        }
    }
}
