import ArgumentParser
import Foundation
import LocalLMEngine
import LocalLMGGUF
import LocalLMJSON

/// `locallm inspect MODEL.gguf [--json]`: what a model file is, without loading its weights, and
/// whether LocalLM can run it: if not, every reason (architecture, tensor type, missing key or tensor,
/// tokenizer, chat template). Exits with status 2 when the file is valid GGUF that LocalLM cannot run.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a GGUF model's architecture, hyperparameters, tokenizer and tensor types, and whether LocalLM can run it."
    )

    @Argument(help: "The GGUF model file.")
    var model: String

    @Flag(help: "Print one JSON object with GGUF key names.")
    var json = false

    func run() throws {
        let summary: GGUFSummary
        let support: ModelSupport
        do {
            let file = try GGUFFile(contentsOf: URL(fileURLWithPath: model))
            summary = try GGUFSummary(file)
            support = ModelSupport(file)
        } catch {
            // One line on stderr and status 1: the message already says what and at which offset.
            FileHandle.standardError.write(Data("locallm: \(model): \(error)\n".utf8))
            throw ExitCode.failure
        }
        if json {
            print(summary.jsonText(adding: [
                ("locallm_runs", support.isRunnable ? "true" : "false"),
                ("locallm_problems", "[" + support.problems.map { JSONValue.quote($0) }.joined(separator: ", ") + "]"),
                ("tool_call_format", support.toolCallFormat.map { JSONValue.quote($0.rawValue) } ?? "null"),
            ]))
        } else {
            print(Self.text(summary, file: URL(fileURLWithPath: model).lastPathComponent, support: support))
        }
        if !support.isRunnable { throw ExitCode(2) }
    }

    static func text(_ s: GGUFSummary, file: String, support: ModelSupport) -> String {
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
        let format = support.toolCallFormat.map { $0.rawValue + (support.templateIsFallback ? " (no template in the file: ChatML)" : "") }
        let all = rows + [
            ("tool-call format", format ?? "-"),
            ("runs with LocalLM", support.isRunnable ? "yes" : "no"),
        ]
        let width = all.map(\.0.count).max() ?? 0
        let lines = all.map { "  " + $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }
        let problems = support.problems.map { "    - " + $0 }
        return ([file] + lines + problems).joined(separator: "\n")
    }
}
