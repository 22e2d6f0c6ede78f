import ArgumentParser
import Foundation
import LocalLMGGUF

/// `locallm inspect MODEL.gguf [--json]`: what a model file is, without loading its weights.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a GGUF model's architecture, hyperparameters, tokenizer and tensor types."
    )

    @Argument(help: "The GGUF model file.")
    var model: String

    @Flag(help: "Print one JSON object with GGUF key names.")
    var json = false

    func run() throws {
        let summary: GGUFSummary
        do {
            summary = try GGUFSummary(GGUFFile(contentsOf: URL(fileURLWithPath: model)))
        } catch {
            // One line on stderr and status 1: the message already says what and at which offset.
            FileHandle.standardError.write(Data("locallm: \(model): \(error)\n".utf8))
            throw ExitCode.failure
        }
        print(json ? summary.jsonText : Self.text(summary, file: URL(fileURLWithPath: model).lastPathComponent))
    }

    static func text(_ s: GGUFSummary, file: String) -> String {
        func show(_ value: Int?) -> String { value.map(String.init) ?? "-" }
        let types = s.tensorTypes.map { "\($0.type): \($0.count)" }.joined(separator: ", ")
        let rows: [(String, String)] = [
            ("architecture", s.architecture ?? "-"),
            ("name", s.name ?? "-"),
            ("context length", show(s.contextLength)),
            ("embedding length", show(s.embeddingLength)),
            ("layers", show(s.blockCount)),
            ("heads", show(s.headCount)),
            ("KV heads", show(s.headCountKV)),
            ("head size", show(s.headSize)),
            ("RoPE base", s.ropeFreqBase.map(GGUFSummary.numberText) ?? "-"),
            ("feed-forward length", show(s.feedForwardLength)),
            ("vocabulary size", show(s.vocabSize)),
            ("tokenizer model", s.tokenizerModel ?? "-"),
            ("tensors", "\(s.tensorCount) (\(types))"),
            ("file size", "\(s.fileSize) bytes (\(String(format: "%.1f", Double(s.fileSize) / 1_048_576)) MiB)"),
            ("parameters", "\(s.parameterCount) (\(String(format: "%.1f", Double(s.parameterCount) / 1e6)) M)"),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        let lines = rows.map { "  " + $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }
        return ([file] + lines).joined(separator: "\n")
    }
}
