import ArgumentParser
import Foundation
import LocalLM
import RecordsExample

/// `locallm-records`: a tool-calling assistant over a SQLite record collection (GRDB).
@main
struct RecordsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locallm-records",
        abstract: "Ask a local model about a record collection kept in SQLite.",
        subcommands: [CreateCommand.self, AskCommand.self]
    )
}

struct DatabaseOption: ParsableArguments {
    @Option(name: .long, help: "The SQLite database file.")
    var database = "records.sqlite"

    func open() throws -> RecordStore {
        try RecordStore(path: (database as NSString).expandingTildeInPath)
    }
}

/// `locallm-records create`: makes the database and fills it with the catalog.
struct CreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Create the database (or empty it) and fill it with the built-in catalog.")

    @OptionGroup var database: DatabaseOption

    func run() async throws {
        let store = try database.open()
        try await store.replaceAll(with: Album.catalog)
        print("\(database.database): \(try await store.count()) records")
    }
}

/// `locallm-records ask "question"`: one question, answered after one tool call.
struct AskCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ask", abstract: "Answer a question about the collection; prints the tool call, its output and the answer.")

    @Argument(help: "The question.")
    var question: String

    @OptionGroup var database: DatabaseOption

    @Option(name: .long, help: "GGUF model file (default: $LOCALLM_MODEL, else Qwen2.5-Coder-0.5B-Instruct from the model cache).")
    var model: String?

    @Option(name: .long, help: "Most tokens in the answer.")
    var maxTokens = 64

    /// `$LOCALLM_MODEL`, else Qwen2.5-Coder-0.5B-Instruct where `scripts/fetch-models.sh` puts it: a
    /// model trained for tool calls (SmolLM2-135M, the library's default, rarely follows the format).
    static var defaultModelURL: URL {
        if let path = ProcessInfo.processInfo.environment["LOCALLM_MODEL"], !path.isEmpty {
            return URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        }
        return SystemLanguageModel.defaultModelURL.deletingLastPathComponent()
            .appendingPathComponent("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
    }

    func run() async throws {
        let path = (database.database as NSString).expandingTildeInPath
        guard FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("no database at \(path): run `locallm-records create` first")
        }
        let store = try database.open()
        let url = model.map { URL(fileURLWithPath: ($0 as NSString).expandingTildeInPath) } ?? Self.defaultModelURL
        let languageModel = SystemLanguageModel(contentsOf: url)
        guard languageModel.isAvailable else {
            throw ValidationError("model \(url.path) is \(languageModel.availability); pass --model")
        }
        let session = LanguageModelSession(model: languageModel, profile: RecordAssistantProfile(store: store))
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: maxTokens)
        let answer = try await session.respond(to: question, options: options)
        for entry in answer.transcriptEntries {
            switch entry {
            case .toolCalls(let calls):
                for call in calls { print("tool call:   \(call.toolName) \(call.arguments.jsonString)") }
            case .toolOutput(let output):
                print("tool output: \(output.segments.map(\.description).joined())")
            default:
                break
            }
        }
        print("answer:      \(answer.content)")
    }
}
