import ArgumentParser
import Foundation
import LocalLMRuntime

/// `locallm logits`: the logits of the last prompt position, highest first, as one JSON line.
struct LogitsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logits",
        abstract: "Print the top logits after a prompt as JSON: {\"ids\":[…],\"top\":[[id,logit],…]}."
    )

    @Option(help: "Path to a GGUF model.") var model: String
    @Option(help: "Prompt text, tokenized verbatim with specials parsed and BOS by the model's rule.") var prompt: String?
    @Option(help: "Comma-separated prompt token ids instead of --prompt.") var ids: String?
    @Option(help: "How many logits to print.") var top: Int = 10
    @Option(help: "Worker threads (default: all cores).") var threads: Int?
    @Option(help: "Tokens per forward pass.") var batchSize: Int = 512
    @Flag(help: "Print the top logits of every position (\"positions\":[[[id,logit],…],…]).") var allPositions = false

    func run() async throws {
        let loaded = try ModelLoading.load(model, threads: threads)
        let promptIds: [Int]
        if let ids {
            promptIds = try ModelLoading.parseIds(ids)
        } else if let prompt {
            promptIds = ModelLoading.rawIds(prompt, tokenizer: try loaded.makeTokenizer())
        } else {
            throw ValidationError("give --prompt or --ids")
        }
        let sequence = try loaded.makeSequence(contextSize: max(promptIds.count, 1), batchSize: batchSize)
        let vocab = loaded.configuration.vocabularySize
        let logits = try sequence.evaluate(promptIds, allPositions: allPositions)
        func topOf(_ row: ArraySlice<Float>) -> String {
            let best = row.indices.sorted { row[$0] != row[$1] ? row[$0] > row[$1] : $0 < $1 }.prefix(max(top, 0))
            return "[" + best.map { "[\($0 - row.startIndex),\(row[$0])]" }.joined(separator: ",") + "]"
        }
        let idsJSON = "[" + promptIds.map(String.init).joined(separator: ",") + "]"
        if allPositions {
            let rows = (0..<promptIds.count).map { topOf(logits[($0 * vocab)..<(($0 + 1) * vocab)]) }
            print("{\"ids\":\(idsJSON),\"positions\":[\(rows.joined(separator: ","))]}")
        } else {
            print("{\"ids\":\(idsJSON),\"top\":\(topOf(logits[0..<vocab]))}")
        }
    }
}
