import ArgumentParser
import Foundation
import LocalLMTokenizers

/// `locallm detokenize`: token ids → text.
struct DetokenizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detokenize",
        abstract: "Print the text of comma-separated token ids (special tokens included)."
    )

    @Option(help: "The GGUF model file.")
    var model: String

    @Option(help: "Token ids, e.g. 1,2,3.")
    var ids: String

    func run() throws {
        try CommandFailure.reporting {
            let tokenizer = try loadTokenizer(model)
            var parsed: [Int32] = []
            for field in ids.split(separator: ",") {
                let trimmed = field.trimmingCharacters(in: .whitespaces)
                guard let id = Int32(trimmed), id >= 0, Int(id) < tokenizer.vocabulary.count else {
                    throw CommandFailure("invalid token id '\(trimmed)' (vocabulary has \(tokenizer.vocabulary.count) tokens)")
                }
                parsed.append(id)
            }
            FileHandle.standardOutput.write(Data(tokenizer.decodeBytes(parsed, special: true)))
            FileHandle.standardOutput.write(Data("\n".utf8))
        }
    }
}
